import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { EVENT_TYPES, listEvents, type EventType } from '../events/events.ts';
import { createTestStore, startTestApp, type TestApp } from '../test/harness.ts';
import {
  as,
  emit,
  hmacHex,
  registerEndpoint,
  startReceiver,
  webhookTestConfig,
  type Receiver,
} from '../webhooks/webhooks.test-support.ts';

let t: TestApp;
let hook: Receiver;
before(async () => {
  t = await startTestApp({ workers: true, config: webhookTestConfig() });
  hook = await startReceiver();
});
after(async () => {
  await hook.close();
  await t.close();
});

interface ThemeBody {
  id: string;
}

describe('apps', () => {
  test('installing an app emits app.installed; a second install of the same name is 409', async () => {
    const shop = await createTestStore(t);
    const headers = as(shop.staffToken);
    const installed = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/apps',
      headers,
      payload: { name: 'Reviews', scopes: ['read_products', 'write_content'] },
    });
    assert.equal(installed.statusCode, 201, installed.body);
    const app = installed.json<{ id: string; name: string; scopes: string[]; installedAt: string }>();
    assert.deepEqual(app.scopes, ['read_products', 'write_content']);
    const duplicate = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/apps',
      headers,
      payload: { name: 'Reviews', scopes: [] },
    });
    assert.equal(duplicate.statusCode, 409);
    assert.equal(duplicate.json<{ title: string }>().title, 'app_already_installed');
    for (const scopes of [['admin'], ['read_products', 'read_products'], ['READ_PRODUCTS']]) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/admin/v1/apps',
        headers,
        payload: { name: 'Other', scopes },
      });
      assert.equal(response.statusCode, 400, JSON.stringify(scopes));
    }
    const list = await t.app.inject({ method: 'GET', url: '/admin/v1/apps', headers });
    assert.deepEqual(
      list.json<{ items: { id: string }[] }>().items.map((item) => item.id),
      [app.id],
    );
    const events = await listEvents(t.db.kysely, shop.store.id, { type: 'app.installed' });
    assert.deepEqual(
      events.map((event) => event.data),
      [
        {
          appId: app.id,
          name: 'Reviews',
          scopes: ['read_products', 'write_content'],
          storeId: shop.store.id,
        },
      ],
    );
  });

  test('every event type (the ten of the spec and those of decision `event-types`) reaches an endpoint subscribed to *, signed', async () => {
    const shop = await createTestStore(t);
    const endpoint = await registerEndpoint(t, shop, hook.url, ['*']);
    const headers = as(shop.staffToken);
    // theme.published and app.installed through their admin routes…
    const theme = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/themes',
      headers,
      payload: { name: 'Dawn' },
    });
    await t.app.inject({
      method: 'POST',
      url: `/admin/v1/themes/${theme.json<ThemeBody>().id}/publish`,
      headers,
    });
    await t.app.inject({
      method: 'POST',
      url: '/admin/v1/apps',
      headers,
      payload: { name: 'Mail', scopes: [] },
    });
    // …the others as their modules record them (recordEvent in the change's transaction).
    const others: [EventType, Record<string, unknown>, string][] = [
      ['order.created', { orderId: 'o-1', number: 1001 }, 'order:o-1'],
      ['order.paid', { orderId: 'o-1' }, 'order:o-1'],
      ['order.refunded', { orderId: 'o-1', amount: { amount: 500, currency: 'USD' } }, 'order:o-1'],
      ['inventory.updated', { variantId: 'v-1', productId: 'p-1', available: 4 }, 'variant:v-1'],
      ['product.created', { productId: 'p-1' }, 'product:p-1'],
      ['product.updated', { productId: 'p-1' }, 'product:p-1'],
      ['product.deleted', { productId: 'p-1' }, 'product:p-1'],
      ['content.updated', { kind: 'region', key: 'home-hero' }, 'content:region:home-hero'],
      ['fulfillment.created', { orderId: 'o-1', fulfillmentId: 'f-1', status: 'shipped' }, 'order:o-1'],
      ['fulfillment.updated', { orderId: 'o-1', fulfillmentId: 'f-1', status: 'delivered' }, 'order:o-1'],
      ['order.cancelled', { orderId: 'o-1', previousStatus: 'paid' }, 'order:o-1'],
      ['return.created', { orderId: 'o-1', returnId: 'r-1' }, 'order:o-1'],
      ['customer.created', { customerId: 'c-1', hasAccount: true }, 'customer:c-1'],
      ['customer.updated', { customerId: 'c-1', changed: ['name'] }, 'customer:c-1'],
      ['customer.deleted', { customerId: 'c-1' }, 'customer:c-1'],
      ['promotion.created', { promotionId: 'pr-1', code: 'SUMMER10' }, 'promotion:pr-1'],
      ['promotion.updated', { promotionId: 'pr-1', code: 'SUMMER10' }, 'promotion:pr-1'],
      ['promotion.deleted', { promotionId: 'pr-1', code: 'SUMMER10' }, 'promotion:pr-1'],
      ['gift_card.issued', { giftCardId: 'g-1', last4: 'K7QX' }, 'gift_card:g-1'],
      ['gift_card.updated', { giftCardId: 'g-1', last4: 'K7QX', changed: ['note'] }, 'gift_card:g-1'],
      [
        'import.completed',
        { importId: 'i-1', kind: 'products', dryRun: false, rows: 2, errors: 0 },
        'import:i-1',
      ],
      ['draft_order.created', { draftOrderId: 'do-1', status: 'open', orderId: null }, 'draft_order:do-1'],
      [
        'draft_order.updated',
        { draftOrderId: 'do-1', status: 'invoiced', orderId: 'o-9' },
        'draft_order:do-1',
      ],
      [
        'draft_order.completed',
        { draftOrderId: 'do-2', status: 'completed', orderId: 'o-10' },
        'draft_order:do-2',
      ],
    ];
    for (const [type, data, resource] of others) await emit(t, shop.store.id, type, data, resource);

    const storeRequests = await hook.waitForRequests(
      EVENT_TYPES.length,
      (r) => r.body.data.storeId === shop.store.id,
    );
    assert.deepEqual(new Set(storeRequests.map((r) => r.body.event)), new Set(EVENT_TYPES));
    for (const request of storeRequests) {
      assert.equal(request.headers['x-webhook-signature'], hmacHex(endpoint.secret, request.rawBody));
      assert.equal(request.headers['x-webhook-event'], request.body.event);
    }
    const orderEvents = storeRequests
      .filter((r) => r.body.event.startsWith('order.'))
      .map((r) => r.body.event);
    assert.deepEqual(
      orderEvents,
      ['order.created', 'order.paid', 'order.refunded', 'order.cancelled'],
      'one order, in order',
    );
  });
});
