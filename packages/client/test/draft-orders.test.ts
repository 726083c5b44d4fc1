/**
 * The admin client's draft orders (decision `draft-orders`) against the real service: create, read,
 * list, change, invoice (a pay link; the same key twice is one order) and complete by hand; a refusal
 * is a StorefrontError with the problem's title.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { StorefrontError } from '@storefront/client';
import { createProduct, openShop, rejection, startedForFile, startLiveApp } from './server.test-support.ts';

const live = startedForFile(startLiveApp);

describe('admin.draftOrders', () => {
  test('create, change, invoice with a pay link, complete another by hand', async () => {
    const shop = await openShop(live);
    const product = await createProduct(shop.admin, { priceAmount: 1800, onHand: 5 });
    const variantId = product.variants[0]!.id;

    const draft = await shop.admin.draftOrders.create({
      email: 'phone-order@example.com',
      lines: [
        { variantId, quantity: 2 },
        { title: 'Gift wrap', unitPrice: 250, quantity: 1, requiresShipping: false },
      ],
    });
    assert.deepEqual(draft.totals.subtotal, { amount: 3850, currency: 'USD' });
    const changed = await shop.admin.draftOrders.update(draft.id, {
      discount: { kind: 'amount', value: 350, reason: 'Regular' },
    });
    assert.deepEqual(changed.totals.discount, { amount: 350, currency: 'USD' });
    assert.equal((await shop.admin.draftOrders.get(draft.id)).id, draft.id);
    assert.deepEqual(
      (await shop.admin.draftOrders.list({ status: 'open' })).items.map((item) => item.id),
      [draft.id],
    );

    const idempotencyKey = randomUUID();
    const invoiced = await shop.admin.draftOrders.invoice(draft.id, { idempotencyKey });
    assert.equal(invoiced.order.status, 'pending');
    assert.deepEqual(invoiced.order.total, { amount: 3500, currency: 'USD' });
    assert.match(invoiced.payUrl ?? '', /\/pay\/orders\//);
    assert.equal(
      (await shop.admin.draftOrders.invoice(draft.id, { idempotencyKey })).order.id,
      invoiced.order.id,
    );
    const refused = await rejection(shop.admin.draftOrders.update(draft.id, { note: 'late' }));
    assert.ok(refused instanceof StorefrontError);
    assert.equal(refused.title, 'draft_order_not_open');

    const other = await shop.admin.draftOrders.create({
      email: 'cash@example.com',
      lines: [{ title: 'Repair', unitPrice: 4000, quantity: 1 }],
    });
    const completed = await shop.admin.draftOrders.complete(other.id);
    assert.equal(completed.order.status, 'paid');
    assert.deepEqual(completed.payment, {
      provider: 'manual',
      status: 'succeeded',
      amount: completed.order.total,
    });
    const order = await shop.admin.orders.get(completed.order.id);
    assert.deepEqual([order.source, order.draftOrderId], ['draft', other.id]);
  });
});
