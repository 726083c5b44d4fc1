/**
 * One store cannot slow everyone's webhooks (decision `per-store-limits`): per-store limits on endpoints and keys,
 * one replay in flight per endpoint, and relay claims fair across stores (shown by claim order,
 * not by time).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { recordEvent } from '../events/events.ts';
import { MAX_KEYS_PER_STORE } from '../keys/keys.service.ts';
import { createTestStore, startTestApp, type TestApp } from '../test/harness.ts';
import { claimDeliveries, fanOutEvents } from './webhooks.relay.repository.ts';
import { MAX_ENDPOINTS_PER_STORE } from './webhooks.service.ts';
import { as, emit, registerEndpoint, webhookTestConfig } from './webhooks.test-support.ts';

// No worker loops: the test claims deliveries itself.
let t: TestApp;
before(async () => {
  t = await startTestApp({ config: webhookTestConfig() });
});
after(() => t.close());

const endpointUrl = (n: number) => `http://127.0.0.1:9/hook-${n}`;

describe('per-store limits (decision `per-store-limits`)', () => {
  test(`at most ${MAX_ENDPOINTS_PER_STORE} webhook endpoints per store, also when created concurrently`, async () => {
    const shop = await createTestStore(t);
    for (let i = 0; i < MAX_ENDPOINTS_PER_STORE - 3; i++) await registerEndpoint(t, shop, endpointUrl(i));
    const racing = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        t.app.inject({
          method: 'POST',
          url: '/admin/v1/webhooks/endpoints',
          headers: as(shop.staffToken),
          payload: { url: endpointUrl(100 + i), events: ['*'] },
        }),
      ),
    );
    assert.deepEqual(racing.map((r) => r.statusCode).sort(), [201, 201, 201, 409, 409, 409]);
    const refused = racing.find((r) => r.statusCode === 409)!;
    assert.equal(refused.json<{ title: string }>().title, 'limit_reached');
    const listed = await t.app.inject({
      method: 'GET',
      url: '/admin/v1/webhooks/endpoints?limit=100',
      headers: as(shop.staffToken),
    });
    assert.equal(listed.json<{ items: unknown[] }>().items.length, MAX_ENDPOINTS_PER_STORE);
    // Another store is not affected.
    const other = await createTestStore(t);
    await registerEndpoint(t, other, endpointUrl(1));
  });

  test(`at most ${MAX_KEYS_PER_STORE} active publishable keys per store; revoked ones do not count`, async () => {
    const shop = await createTestStore(t); // it has one key already
    const create = (label: string) =>
      t.app.inject({
        method: 'POST',
        url: '/admin/v1/integrations/storefront-keys',
        headers: as(shop.staffToken),
        payload: { label, allowedOrigins: [] },
      });
    for (let i = 1; i < MAX_KEYS_PER_STORE; i++) assert.equal((await create(`k${i}`)).statusCode, 201);
    const over = await create('one too many');
    assert.equal(over.statusCode, 409);
    assert.equal(over.json<{ title: string }>().title, 'limit_reached');
    const revoked = await t.app.inject({
      method: 'DELETE',
      url: `/admin/v1/integrations/storefront-keys/${shop.keyId}`,
      headers: as(shop.staffToken),
    });
    assert.equal(revoked.statusCode, 204);
    assert.equal((await create('after a revoke')).statusCode, 201);
  });

  test('one replay in flight per endpoint', async () => {
    const shop = await createTestStore(t);
    const endpoint = await registerEndpoint(t, shop, endpointUrl(7));
    const since = new Date(t.clock.now().getTime() - 1000).toISOString();
    await emit(t, shop.store.id, 'product.updated', { productId: 'r1' }, 'product:r1');
    await fanOutEvents(t.db.kysely, t.clock.now());
    const replay = () =>
      t.app.inject({
        method: 'POST',
        url: `/admin/v1/webhooks/endpoints/${endpoint.id}/replay`,
        headers: as(shop.staffToken),
        payload: { since },
      });
    const first = await replay();
    assert.equal(first.statusCode, 202, first.body);
    const second = await replay();
    assert.equal(second.statusCode, 409, second.body);
    assert.equal(second.json<{ title: string }>().title, 'replay_in_progress');
  });
});

describe('relay claims are fair across stores (decision `per-resource-ordering`)', () => {
  test("with 2,000 deliveries waiting for one store, another store's new delivery is claimed in the next cycle", async () => {
    const busy = await createTestStore(t);
    const quiet = await createTestStore(t);
    await registerEndpoint(t, busy, endpointUrl(1));
    await registerEndpoint(t, quiet, endpointUrl(2));
    await t.db.kysely.transaction().execute(async (trx) => {
      for (let i = 0; i < 2000; i++) {
        await recordEvent(trx, {
          storeId: busy.store.id,
          type: 'product.updated',
          resource: `product:p${i}`,
          data: { productId: `p${i}` },
        });
      }
    });
    const late = await emit(t, quiet.store.id, 'product.updated', { productId: 'q1' }, 'product:q1');
    while ((await fanOutEvents(t.db.kysely, t.clock.now())) > 0) {
      /* fan out everything */
    }
    // The relay has few free slots; claims are made the way a cycle makes them.
    const claimed = await claimDeliveries(t.db.kysely, t.clock.now(), 60_000, 8);
    assert.equal(claimed.length, 8);
    assert.ok(
      claimed.some((d) => d.event.id === late.id),
      'the quiet store is served in the first claim, not after the busy store’s backlog',
    );
    assert.ok(claimed.filter((d) => d.storeId === busy.store.id).length >= 6, 'the busy store gets the rest');
  });
});
