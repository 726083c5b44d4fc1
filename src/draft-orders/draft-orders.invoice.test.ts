/**
 * Invoicing a draft order (decisions `draft-order-invoice` and `draft-order-pay-link`): a pending
 * order holding its stock until `reserveUntil`, the invoice mail with its pay link, the link paying
 * the order through the sandbox provider's hosted page end to end (paid by the provider's signed
 * webhook), a forged link refused, expiry giving the stock back, and a race of invoices and
 * completions on the last unit that never oversells.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { expireOrders } from '../orders/expiry.service.ts';
import { paymentDeps } from '../orders/orders.test-support.ts';
import { ok } from '../test/answers.ts';
import { createVariants } from '../test/catalog.ts';
import { createTestStore, startTestApp, waitFor, type TestApp, type TestStore } from '../test/harness.ts';
import { eventsOf, problem, stock, type Draft, type Placed } from './draft-orders.test-support.ts';

let t: TestApp;
before(async () => (t = await startTestApp({ workers: true })));
after(() => t.close());

const invoice = (shop: TestStore, id: string, key: string = randomUUID()) =>
  t.admin(shop).post(`/draft-orders/${id}/invoice`, undefined, { 'idempotency-key': key });

async function draftOf(shop: TestStore, body: object): Promise<Draft> {
  return ok<Draft>(t.admin(shop).post('/draft-orders', body), 201);
}

/** A URL of this service as `app.inject` takes it (the path and query of an absolute link). */
const pathOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

const form = (fields: Record<string, string>) => ({
  payload: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

/** The hidden fields and action of the pay page's form. */
function payForm(html: string): { action: string; fields: Record<string, string> } {
  const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1];
  assert.ok(action, html);
  const fields: Record<string, string> = {};
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    fields[name!] = value!.replaceAll('&amp;', '&');
  return { action: action.replaceAll('&amp;', '&'), fields };
}

describe('invoicing a draft order', () => {
  test('a pending order holds the stock until reserveUntil; the mail carries the link; paid through the sandbox’s hosted page', async () => {
    const shop = await createTestStore(t);
    const [mug] = await createVariants(t, shop, [{ price: 1500 }]);
    const email = `invoice-${randomUUID().slice(0, 6)}@example.com`;
    const reserveUntil = new Date(t.clock.now().getTime() + 2 * 24 * 3600_000);
    reserveUntil.setUTCMilliseconds(0);
    const draft = await draftOf(shop, {
      email,
      lines: [
        { variantId: mug, quantity: 2 },
        { title: 'Monogram', unitPrice: 500, quantity: 1, requiresShipping: false },
      ],
      reserveUntil: reserveUntil.toISOString(),
    });
    const key = randomUUID();
    const placed = await ok<Placed>(invoice(shop, draft.id, key));
    assert.equal(placed.order.status, 'pending');
    assert.equal(placed.order.expiresAt, reserveUntil.toISOString());
    assert.deepEqual(placed.order.total, { amount: 3500, currency: 'USD' });
    assert.deepEqual([placed.payment.provider, placed.payment.status], ['sandbox', 'pending']);
    assert.equal(placed.draftOrder.status, 'invoiced');
    assert.match(placed.payUrl ?? '', new RegExp(`/pay/orders/${placed.order.id}\\?token=`));
    assert.deepEqual(await stock(t, mug!), { on_hand: 100, reserved: 2 });
    assert.deepEqual(
      (await eventsOf(t, shop, `draft_order:${draft.id}`)).map((event) => [
        event.type,
        event.data.status,
        event.data.orderId,
      ]),
      [
        ['draft_order.created', 'open', null],
        ['draft_order.updated', 'invoiced', placed.order.id],
      ],
    );
    const [mail] = await t.deps.db
      .selectFrom('mail_outbox')
      .select(['to_address', 'subject', 'text_body'])
      .where('store_id', '=', shop.store.id)
      .where('kind', '=', 'draft_order_invoice')
      .execute();
    assert.equal(mail?.to_address, email);
    assert.ok(mail?.text_body.includes(placed.payUrl!), mail?.text_body);
    assert.match(mail?.text_body ?? '', /Total: \$35\.00/);

    // Invoicing again: the same key replays, another key answers with the same order (completing it
    // marks it paid: draft-orders.mark-paid.test.ts).
    assert.equal((await invoice(shop, draft.id, key)).headers['idempotent-replayed'], 'true');
    assert.equal((await ok<Placed>(invoice(shop, draft.id))).order.id, placed.order.id);

    // A forged or another order's token opens nothing.
    const link = pathOf(placed.payUrl!);
    const forged = link.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    assert.equal((await t.app.inject({ method: 'GET', url: forged })).statusCode, 404);
    const elsewhere = link.replace(placed.order.id, randomUUID());
    assert.equal((await t.app.inject({ method: 'GET', url: elsewhere })).statusCode, 404);

    // The customer opens the link, posts its form to the provider's hosted page and pays.
    const page = await t.app.inject({ method: 'GET', url: link });
    assert.equal(page.statusCode, 200, page.body);
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.match(String(page.headers['content-security-policy']), /form-action 'self'/);
    const { action, fields } = payForm(page.body);
    assert.match(action, /^\/sandbox\/v1\/payments\/pi_sbx_/);
    const hosted = await t.app.inject({ method: 'POST', url: action, ...form(fields) });
    assert.equal(hosted.statusCode, 200, hosted.body);
    const paid = await t.app.inject({
      method: 'POST',
      url: `${action}/hosted-confirm`,
      ...form({ ...fields, payment_method: 'pm_card_visa' }),
    });
    assert.equal(paid.statusCode, 303, paid.body);
    const back = String(paid.headers.location);
    assert.ok(back.startsWith(`/pay/orders/${placed.order.id}?token=`), back);
    assert.match(back, /redirect_status=succeeded/);
    await waitFor(
      async () =>
        (await ok<{ status: string }>(t.admin(shop).get(`/orders/${placed.order.id}`))).status === 'paid',
      5000,
      'the order paid by the provider’s webhook',
    );
    assert.deepEqual(await stock(t, mug!), { on_hand: 98, reserved: 0 });
    const after = await t.app.inject({ method: 'GET', url: back });
    assert.equal(after.statusCode, 200);
    assert.match(after.body, /Paid\. Thank you/);
    assert.deepEqual(
      (await eventsOf(t, shop, `order:${placed.order.id}`)).map((event) => event.type),
      ['order.created', 'order.paid'],
    );
  });

  test('invoices and completions racing for the last unit: one order gets it, the others are refused, nothing oversold', async () => {
    const shop = await createTestStore(t);
    const admin = t.admin(shop);
    const product = await ok<{ variants: { id: string }[] }>(
      admin.post('/products', {
        title: 'Last one',
        status: 'active',
        variants: [{ label: 'One', priceAmount: 900, onHand: 1 }],
      }),
      201,
    );
    const last = product.variants[0]!.id;
    const drafts = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        draftOf(shop, { email: `r${i}@example.com`, lines: [{ variantId: last, quantity: 1 }] }),
      ),
    );
    const answers = await Promise.all(
      drafts.map((draft, i) =>
        i % 2 === 0
          ? invoice(shop, draft.id)
          : admin.post(
              `/draft-orders/${draft.id}/complete`,
              { payment: 'manual' },
              { 'idempotency-key': randomUUID() },
            ),
      ),
    );
    const won = answers.filter((answer) => answer.statusCode === 200);
    assert.equal(won.length, 1, answers.map((answer) => answer.body).join('\n'));
    for (const answer of answers.filter((a) => a.statusCode !== 200)) {
      assert.equal(answer.statusCode, 409, answer.body);
      assert.equal(answer.json<{ title: string }>().title, 'insufficient_stock');
    }
    const level = await stock(t, last);
    assert.equal(level.on_hand - level.reserved, 0);
    assert.ok(level.on_hand >= 0 && level.reserved >= 0 && level.reserved <= 1, JSON.stringify(level));
    const orders = await t.deps.db
      .selectFrom('orders')
      .select('id')
      .where('store_id', '=', shop.store.id)
      .execute();
    assert.equal(orders.length, 1);
  });

  test('at reserveUntil the unpaid order expires and gives its stock back; its link opens nothing', async () => {
    const shop = await createTestStore(t);
    const [mug] = await createVariants(t, shop, [{ price: 1000 }]);
    const draft = await draftOf(shop, {
      email: 'late@example.com',
      lines: [{ variantId: mug, quantity: 3 }],
      reserveUntil: new Date(t.clock.now().getTime() + 3600_000).toISOString(),
    });
    const placed = await ok<Placed>(invoice(shop, draft.id));
    assert.deepEqual(await stock(t, mug!), { on_hand: 100, reserved: 3 });
    await expireOrders(paymentDeps(t));
    assert.deepEqual(await stock(t, mug!), { on_hand: 100, reserved: 3 }, 'held until reserveUntil');
    t.clock.advance(3600_000 + 1000);
    await expireOrders(paymentDeps(t));
    assert.equal(
      (await ok<{ status: string }>(t.admin(shop).get(`/orders/${placed.order.id}`))).status,
      'expired',
    );
    assert.deepEqual(await stock(t, mug!), { on_hand: 100, reserved: 0 });
    assert.equal((await t.app.inject({ method: 'GET', url: pathOf(placed.payUrl!) })).statusCode, 404);
    // A reserveUntil that has passed refuses an invoice.
    const stale = await draftOf(shop, {
      email: 'stale@example.com',
      lines: [{ variantId: mug, quantity: 1 }],
      reserveUntil: new Date(t.clock.now().getTime() + 60_000).toISOString(),
    });
    t.clock.advance(120_000);
    const refused = await problem(invoice(shop, stale.id), 400, 'validation_failed');
    assert.deepEqual(
      refused.errors?.map((error) => error.pointer),
      ['/reserveUntil'],
    );
    assert.deepEqual(await stock(t, mug!), { on_hand: 100, reserved: 0 });
  });
});
