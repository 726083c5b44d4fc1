/** A staff refund's reason: kept as the refund's note for staff, beside the machine `reason`. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../test/harness.ts';
import { ShopDriver } from './orders.test-support.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

interface RefundBody {
  refund: { id: string; amount: { amount: number }; reason: string | null; note: string | null };
}

describe('POST /admin/v1/orders/:id/refunds {reason}', () => {
  test('the reason is kept as the note (trimmed, blank is none) and shown on the order; too long is 400', async () => {
    const shop = await ShopDriver.open(t);
    const bought = await shop.buy(await shop.variant(5, 2000), 1);
    await shop.confirm(bought);
    await shop.waitForStatus(bought.order.id, 'paid');
    const url = `/orders/${bought.order.id}/refunds`;

    const withReason = await shop.admin('POST', url, { amount: 500, reason: '  Damaged in transit ' });
    assert.equal(withReason.statusCode, 202, withReason.body);
    const first = withReason.json<RefundBody>().refund;
    assert.equal(first.note, 'Damaged in transit');
    assert.equal(first.reason, 'merchant');

    const blank = await shop.admin('POST', url, { amount: 300, reason: '   ' });
    assert.equal(blank.statusCode, 202, blank.body);
    assert.equal(blank.json<RefundBody>().refund.note, null);
    const none = await shop.admin('POST', url, { amount: 200 });
    assert.equal(none.statusCode, 202, none.body);
    assert.equal(none.json<RefundBody>().refund.note, null);

    const tooLong = await shop.admin('POST', url, { amount: 100, reason: 'x'.repeat(501) });
    assert.equal(tooLong.statusCode, 400);
    assert.equal(tooLong.json<{ errors: { pointer: string }[] }>().errors[0]!.pointer, '/reason');

    const order = await shop.admin('GET', `/orders/${bought.order.id}`);
    const refunds = order.json<{ refunds: { id: string; note: string | null }[] }>().refunds;
    assert.equal(refunds.find((refund) => refund.id === first.id)?.note, 'Damaged in transit');
    assert.equal(refunds.length, 3);

    // 2000 paid, 1000 refunded or pending: 1001 is too much, at the amount field.
    const tooMuch = await shop.admin('POST', url, { amount: 1001, reason: 'Too much' });
    assert.equal(tooMuch.statusCode, 409);
    const problem = tooMuch.json<{ title: string; errors: { pointer: string }[] }>();
    assert.equal(problem.title, 'refund_too_large');
    assert.equal(problem.errors[0]!.pointer, '/amount');
  });
});

describe('GET /admin/v1/orders/:id while refunds settle', () => {
  test('every read is one snapshot: the refunded amount is the sum of the refunds it lists as succeeded', async () => {
    const shop = await ShopDriver.open(t);
    const bought = await shop.buy(await shop.variant(5, 2000), 1);
    await shop.confirm(bought);
    await shop.waitForStatus(bought.order.id, 'paid');
    for (let i = 0; i < 20; i++) {
      const made = await shop.admin('POST', `/orders/${bought.order.id}/refunds`, { amount: 50 });
      assert.equal(made.statusCode, 202, made.body);
    }
    // Read over and over, several at once, while the provider settles the twenty refunds.
    let reads = 0;
    const deadline = Date.now() + 60_000;
    const reader = async (): Promise<void> => {
      for (;;) {
        const order = await shop.adminOrder(bought.order.id);
        reads++;
        const succeeded = order.refunds
          .filter((refund) => refund.status === 'succeeded')
          .reduce((sum, refund) => sum + refund.amount.amount, 0);
        assert.equal(order.refunded.amount, succeeded, `read ${reads}: refunded vs the refunds listed`);
        if (succeeded === 1000 || Date.now() > deadline) return;
        // PGlite runs one transaction at a time: leave it to the provider's webhooks too. (The race
        // this test is about needs PostgreSQL's concurrent transactions anyway.)
        if (t.db.kind === 'pglite') await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    await Promise.all(Array.from({ length: 6 }, reader));
    assert.equal((await shop.adminOrder(bought.order.id)).refunded.amount, 1000, 'all twenty settled');
  });
});
