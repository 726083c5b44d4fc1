/** GET /admin/v1/overview: the console's home numbers, counted by the database, one store's only. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { emit, registerEndpoint } from '../webhooks/webhooks.test-support.ts';
import { expireOrders } from '../orders/expiry.service.ts';
import { paymentDeps, ShopDriver } from '../orders/orders.test-support.ts';
import { uniqueDomain } from '../email/email.test-support.ts';
import { startTestApp, type TestApp } from '../test/harness.ts';
import type { AdminOverview } from './overview.schemas.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

async function overview(shop: ShopDriver, query: string): Promise<AdminOverview> {
  const response = await shop.admin('GET', `/overview?${query}`);
  assert.equal(response.statusCode, 200, response.body);
  return response.json<AdminOverview>();
}

const sinceParam = (date: Date) => `since=${encodeURIComponent(date.toISOString())}`;

/** A failed delivery of a recorded event to the endpoint, as the relay leaves one after its last attempt. */
async function failedDelivery(shop: ShopDriver, endpointId: string, status: 'failed' | 'delivered') {
  const resource = `product:${randomUUID()}`;
  const event = await emit(t, shop.storeId, 'product.updated', {}, resource);
  const { seq } = await t.db.kysely
    .selectFrom('events')
    .select('seq')
    .where('id', '=', event.id)
    .executeTakeFirstOrThrow();
  await t.db.kysely
    .insertInto('webhook_deliveries')
    .values({
      store_id: shop.storeId,
      endpoint_id: endpointId,
      event_id: event.id,
      event_seq: Number(seq),
      resource_key: resource,
      kind: 'event',
      status,
      attempts: 1,
      next_attempt_at: new Date(),
      ...(status === 'failed' ? { failed_at: new Date() } : { delivered_at: new Date() }),
    })
    .execute();
}

describe('GET /admin/v1/overview', () => {
  test('counts orders paid, pending and expired since a moment, sums revenue, lists low stock, in one store only', async () => {
    const start = new Date(t.clock.now().getTime() - 1000);
    const shop = await ShopDriver.open(t);
    const other = await ShopDriver.open(t);

    // Nothing yet: zeros, the store currency, no domain.
    const empty = await overview(shop, sinceParam(start));
    assert.deepEqual(empty.orders, {
      paid: 0,
      revenue: { amount: 0, currency: 'USD' },
      pending: 0,
      expired: 0,
    });
    assert.deepEqual(empty.lowStock, { threshold: 5, count: 0, variants: [] });
    assert.equal(empty.failedWebhookDeliveries, 0);
    assert.equal(empty.sendingDomain, null);
    assert.equal(empty.since, start.toISOString());

    const scarce = await shop.variant(6, 1250);
    const plenty = await shop.variant(100, 999);

    // One order expires unpaid (its reservation is released).
    await shop.buy(scarce, 1);
    t.clock.advance(t.config.payments.orderTtlMs + 1000);
    try {
      await expireOrders(paymentDeps(t));
    } finally {
      t.clock.advance(-(t.config.payments.orderTtlMs + 1000));
    }

    // Two paid orders (2 × 1250 and 3 × 999) and one pending (1 × 1250, reserved).
    const first = await shop.buy(scarce, 2);
    await shop.confirm(first);
    const second = await shop.buy(plenty, 3);
    await shop.confirm(second);
    await shop.waitForStatus(first.order.id, 'paid');
    await shop.waitForStatus(second.order.id, 'paid');
    await shop.buy(scarce, 1);

    // Another store's orders and stock are not counted.
    const theirs = await other.variant(1, 5000);
    const theirOrder = await other.buy(theirs, 1);
    await other.confirm(theirOrder);
    await other.waitForStatus(theirOrder.order.id, 'paid');

    const now = await overview(shop, sinceParam(start));
    assert.deepEqual(now.orders, {
      paid: 2,
      revenue: { amount: 2 * 1250 + 3 * 999, currency: 'USD' },
      pending: 1,
      expired: 1,
    });
    // The scarce variant: 6 on hand, 2 sold (on hand 4), 1 reserved → 3 available.
    assert.equal(now.lowStock.count, 1);
    assert.equal(now.lowStock.variants.length, 1);
    const [low] = now.lowStock.variants;
    assert.equal(low!.variantId, scarce);
    assert.equal(low!.productTitle, 'Thing');
    assert.deepEqual([low!.onHand, low!.reserved, low!.available], [4, 1, 3]);

    const theirView = await overview(other, sinceParam(start));
    assert.deepEqual(theirView.orders, {
      paid: 1,
      revenue: { amount: 5000, currency: 'USD' },
      pending: 0,
      expired: 0,
    });
    assert.deepEqual(
      theirView.lowStock.variants.map((v) => [v.variantId, v.available]),
      [[theirs, 0]],
    );

    // A later `since`: nothing paid or expired after it; pending orders are counted whatever the period.
    // (The expiry ran on a clock moved past the order's TTL.)
    const later = await overview(
      shop,
      sinceParam(new Date(t.clock.now().getTime() + t.config.payments.orderTtlMs + 60_000)),
    );
    assert.deepEqual(later.orders, {
      paid: 0,
      revenue: { amount: 0, currency: 'USD' },
      pending: 1,
      expired: 0,
    });

    // The threshold is the caller's: at 2 nothing is low, at 200 both variants are, least first.
    assert.equal((await overview(shop, `${sinceParam(start)}&lowStockThreshold=2`)).lowStock.count, 0);
    const wide = await overview(shop, `${sinceParam(start)}&lowStockThreshold=200`);
    assert.equal(wide.lowStock.threshold, 200);
    assert.deepEqual(
      wide.lowStock.variants.map((v) => [v.variantId, v.available]),
      [
        [scarce, 3],
        [plenty, 97],
      ],
    );
  });

  test('low stock lists active products only, the first ten, with the total count', async () => {
    const shop = await ShopDriver.open(t);
    for (let i = 0; i < 12; i += 1) await shop.variant(i % 5);
    const draft = await shop.admin('POST', '/products', {
      title: 'Not for sale yet',
      status: 'draft',
      variants: [{ label: 'One', priceAmount: 100, onHand: 0 }],
    });
    assert.equal(draft.statusCode, 201, draft.body);
    const result = await overview(shop, sinceParam(new Date()));
    assert.equal(result.lowStock.count, 12);
    assert.equal(result.lowStock.variants.length, 10);
    const levels = result.lowStock.variants.map((v) => v.available);
    assert.deepEqual(
      levels,
      [...levels].sort((a, b) => a - b),
    );
    assert.equal(levels[0], 0);
    assert.ok(result.lowStock.variants.every((v) => v.productTitle === 'Thing'));
  });

  test('counts failed webhook deliveries and shows the sending domain status', async () => {
    const shop = await ShopDriver.open(t);
    const other = await ShopDriver.open(t);
    const endpoint = await registerEndpoint(t, shop.shop, 'https://hooks.example/one');
    const theirs = await registerEndpoint(t, other.shop, 'https://hooks.example/two');
    await failedDelivery(shop, endpoint.id, 'failed');
    await failedDelivery(shop, endpoint.id, 'failed');
    await failedDelivery(shop, endpoint.id, 'delivered');
    await failedDelivery(other, theirs.id, 'failed');
    const domain = uniqueDomain();
    const registered = await shop.admin('POST', '/email/sending-domain', { domain, fromLocalPart: 'orders' });
    assert.equal(registered.statusCode, 201, registered.body);

    const result = await overview(shop, sinceParam(new Date()));
    assert.equal(result.failedWebhookDeliveries, 2);
    assert.deepEqual(result.sendingDomain, { domain, status: 'pending' });
    const theirView = await overview(other, sinceParam(new Date()));
    assert.equal(theirView.failedWebhookDeliveries, 1);
    assert.equal(theirView.sendingDomain, null);
  });

  test('needs a staff session and a valid `since`', async () => {
    const shop = await ShopDriver.open(t);
    const anonymous = await t.app.inject({
      method: 'GET',
      url: `/admin/v1/overview?${sinceParam(new Date())}`,
    });
    assert.equal(anonymous.statusCode, 401);
    for (const query of [
      '',
      'since=yesterday',
      `${sinceParam(new Date())}&lowStockThreshold=-1`,
      `${sinceParam(new Date())}&extra=1`,
    ]) {
      const response = await shop.admin('GET', `/overview?${query}`);
      assert.equal(response.statusCode, 400, query);
      assert.equal(response.json<{ title: string }>().title, 'validation_failed', query);
    }
  });
});
