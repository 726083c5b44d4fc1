/**
 * The relay's fan-out statement (fanOutAndClaim): it creates the delivery rows of new events and
 * claims at once only those a claim would choose now, so the shortcut keeps per-resource order,
 * leaves disabled endpoints' rows waiting, and never lets new events overtake a backlog (decision `per-resource-ordering`).
 * Each test removes its endpoints (and so its deliveries) at the end: the claim shortcut looks at
 * every store's due deliveries. Which endpoints an event goes to: those that existed when it was
 * recorded, and not one deleted while the fan-out runs.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createTestStore, startTestApp, waitFor, type TestApp, type TestStore } from '../test/harness.ts';
import {
  claimDeliveries,
  fanOutAndClaim,
  fanOutEvents,
  type FanOutOptions,
} from './webhooks.relay.repository.ts';
import { emit, registerEndpoint, webhookTestConfig } from './webhooks.test-support.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp({ config: webhookTestConfig() });
});
after(() => t.close());

const stores: TestStore[] = [];
async function store(): Promise<TestStore> {
  const shop = await createTestStore(t);
  stores.push(shop);
  return shop;
}
afterEach(async () => {
  for (const shop of stores.splice(0)) {
    await t.db.kysely.deleteFrom('webhook_endpoints').where('store_id', '=', shop.store.id).execute();
  }
});

const options = (claimLimit: number): FanOutOptions => ({ now: t.clock.now(), leaseMs: 60_000, claimLimit });

async function rowsOf(shop: TestStore) {
  return t.db.kysely
    .selectFrom('webhook_deliveries')
    .select(['endpoint_id', 'event_id', 'attempts', 'locked_until'])
    .where('store_id', '=', shop.store.id)
    .execute();
}

describe('fan-out claims fresh deliveries only where a claim would', () => {
  test('the head of each resource queue of an enabled endpoint is claimed; the rest wait', async () => {
    const shop = await store();
    const live = await registerEndpoint(t, shop, 'http://127.0.0.1:9/live');
    const unreadable = await registerEndpoint(t, shop, 'http://127.0.0.1:9/unreadable');
    await t.db.kysely
      .updateTable('webhook_endpoints')
      .set({ enabled: false, disabled_reason: 'secret_unreadable' })
      .where('store_id', '=', shop.store.id)
      .where('id', '=', unreadable.id)
      .execute();
    const a1 = await emit(t, shop.store.id, 'product.updated', { productId: 'a' }, 'product:a');
    const a2 = await emit(t, shop.store.id, 'product.updated', { productId: 'a' }, 'product:a');
    const b1 = await emit(t, shop.store.id, 'product.updated', { productId: 'b' }, 'product:b');

    const fanOut = await fanOutAndClaim(t.db.kysely, options(10));
    assert.equal(fanOut.locked, true);
    assert.equal(fanOut.dispatched, 3);
    assert.equal(fanOut.created, 6, 'rows for the endpoint whose secret cannot be read are kept too');
    assert.deepEqual(fanOut.claimed.map((d) => d.event.id).sort(), [a1.id, b1.id].sort());
    for (const delivery of fanOut.claimed) {
      assert.equal(delivery.endpointId, live.id);
      assert.equal(delivery.attempt, 1);
      assert.equal(delivery.url, 'http://127.0.0.1:9/live');
      assert.equal(delivery.event.type, 'product.updated');
      assert.equal(typeof delivery.event.data.productId, 'string');
    }
    const rows = await rowsOf(shop);
    const claimedRows = rows.filter((row) => row.attempts === 1);
    assert.equal(claimedRows.length, 2);
    assert.ok(claimedRows.every((row) => row.locked_until !== null && row.endpoint_id === live.id));
    assert.ok(rows.some((row) => row.event_id === a2.id && row.attempts === 0 && row.locked_until === null));

    // Nothing left to fan out; a claim finds nothing due either (a2 waits behind a1 in flight).
    assert.equal((await fanOutAndClaim(t.db.kysely, options(10))).dispatched, 0);
    const claimed = await claimDeliveries(t.db.kysely, t.clock.now(), 60_000, 10);
    assert.ok(!claimed.some((d) => d.storeId === shop.store.id));
  });

  test('a new event of a resource with a delivery already pending is not claimed', async () => {
    const shop = await store();
    await registerEndpoint(t, shop, 'http://127.0.0.1:9/queue');
    const first = await emit(t, shop.store.id, 'order.paid', { orderId: 'o' }, 'order:o');
    assert.equal((await fanOutAndClaim(t.db.kysely, options(1))).claimed[0]?.event.id, first.id);
    await emit(t, shop.store.id, 'order.refunded', { orderId: 'o' }, 'order:o');
    const fanOut = await fanOutAndClaim(t.db.kysely, options(10));
    assert.equal(fanOut.created, 1);
    assert.deepEqual(fanOut.claimed, []);
  });

  test('no more than the free slots, each store’s first before any store’s second', async () => {
    const busy = await store();
    const quiet = await store();
    await registerEndpoint(t, busy, 'http://127.0.0.1:9/busy');
    await registerEndpoint(t, quiet, 'http://127.0.0.1:9/quiet');
    for (let i = 0; i < 5; i++) {
      await emit(t, busy.store.id, 'product.updated', { productId: `p${i}` }, `product:p${i}`);
    }
    const late = await emit(t, quiet.store.id, 'product.updated', { productId: 'q' }, 'product:q');
    const fanOut = await fanOutAndClaim(t.db.kysely, options(2));
    assert.equal(fanOut.created, 6);
    assert.equal(fanOut.claimed.length, 2);
    assert.ok(
      fanOut.claimed.some((d) => d.event.id === late.id),
      'the quiet store is not behind the busy one',
    );
    assert.deepEqual(await fanOutAndClaim(t.db.kysely, options(0)), {
      locked: true,
      dispatched: 0,
      created: 0,
      claimed: [],
    });
  });

  test('with a backlog due, new events are not claimed at once: the fair claim serves the backlog first (decision `per-resource-ordering`)', async () => {
    const busy = await store();
    const quiet = await store();
    await registerEndpoint(t, busy, 'http://127.0.0.1:9/backlog');
    await registerEndpoint(t, quiet, 'http://127.0.0.1:9/new');
    for (let i = 0; i < 20; i++) {
      await emit(t, busy.store.id, 'product.updated', { productId: `p${i}` }, `product:p${i}`);
    }
    // The backlog's rows exist and are due, but no relay had a free slot for them.
    assert.equal(await fanOutEvents(t.db.kysely, t.clock.now()), 20);
    await emit(t, quiet.store.id, 'product.updated', { productId: 'q' }, 'product:q');
    const fanOut = await fanOutAndClaim(t.db.kysely, options(32));
    assert.equal(fanOut.created, 1);
    assert.deepEqual(fanOut.claimed, [], 'the new event does not jump the queue');
    const claimed = await claimDeliveries(t.db.kysely, t.clock.now(), 60_000, 4);
    assert.equal(claimed.length, 4);
    assert.ok(
      claimed.some((d) => d.storeId === quiet.store.id),
      'the fair claim serves both stores',
    );
  });

  test('a disabled endpoint’s waiting deliveries are no backlog', async () => {
    const shop = await store();
    const off = await registerEndpoint(t, shop, 'http://127.0.0.1:9/off');
    await emit(t, shop.store.id, 'product.updated', { productId: 'x' }, 'product:x');
    assert.equal(await fanOutEvents(t.db.kysely, t.clock.now()), 1);
    await t.db.kysely
      .updateTable('webhook_endpoints')
      .set({ enabled: false, disabled_reason: 'manual' })
      .where('store_id', '=', shop.store.id)
      .where('id', '=', off.id)
      .execute();
    const on = await registerEndpoint(t, shop, 'http://127.0.0.1:9/on');
    const fresh = await emit(t, shop.store.id, 'product.updated', { productId: 'y' }, 'product:y');
    const fanOut = await fanOutAndClaim(t.db.kysely, options(32));
    assert.deepEqual(
      fanOut.claimed.map((d) => [d.endpointId, d.event.id]),
      [[on.id, fresh.id]],
    );
  });

  test('while another relay fans out, this one does nothing (PostgreSQL: the lock is per session)', async (context) => {
    if (t.db.kind !== 'postgres') {
      context.skip('PGlite has one session: two relays never fan out at the same moment');
      return;
    }
    const shop = await store();
    await registerEndpoint(t, shop, 'http://127.0.0.1:9/locked');
    await emit(t, shop.store.id, 'product.updated', { productId: 'l' }, 'product:l');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const taken = new Promise<void>((resolve) => (locked = resolve));
    const holder = t.db.kysely.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(hashtextextended('storefront:webhook-fanout', 0))`.execute(trx);
      locked();
      await held;
    });
    await taken;
    try {
      const blocked = await fanOutAndClaim(t.db.kysely, options(10));
      assert.deepEqual(blocked, { locked: false, dispatched: 0, created: 0, claimed: [] });
    } finally {
      release();
      await holder;
    }
    const fanOut = await fanOutAndClaim(t.db.kysely, options(10));
    assert.equal(fanOut.dispatched, 1);
    assert.equal(fanOut.claimed.length, 1);
  });
});

describe('which endpoints an event goes to', () => {
  const endpointsOf = async (shop: TestStore, eventId: string) =>
    (
      await t.db.kysely
        .selectFrom('webhook_deliveries')
        .select('endpoint_id')
        .where('store_id', '=', shop.store.id)
        .where('event_id', '=', eventId)
        .execute()
    )
      .map((row) => row.endpoint_id)
      .sort();

  test('an endpoint receives only the events recorded after it was created, waiting ones included', async () => {
    const shop = await store();
    const early = await registerEndpoint(t, shop, 'http://127.0.0.1:9/early');
    // Committed, still waiting for fan-out when the second endpoint is created.
    const waiting = await emit(t, shop.store.id, 'order.paid', { orderId: 'o' }, 'order:o');
    const late = await registerEndpoint(t, shop, 'http://127.0.0.1:9/late');
    const fresh = await emit(t, shop.store.id, 'order.refunded', { orderId: 'o' }, 'order:o');

    assert.equal(await fanOutEvents(t.db.kysely, t.clock.now()), 2);
    assert.deepEqual(await endpointsOf(shop, waiting.id), [early.id], 'not to the endpoint made after it');
    assert.deepEqual(await endpointsOf(shop, fresh.id), [early.id, late.id].sort());
  });

  test('an endpoint whose noted sequence number is ahead of this database (an imported archive) still receives new events', async () => {
    const shop = await store();
    const imported = await registerEndpoint(t, shop, 'http://127.0.0.1:9/imported');
    // As an import leaves it when the source's later events were purged: the sequence here is
    // behind the endpoint's note, and its note's time is past.
    await sql`UPDATE webhook_endpoints SET events_after_seq = 9000000000000,
      events_after_at = now() - interval '1 minute' WHERE id = ${imported.id}`.execute(t.db.kysely);
    const fresh = await emit(t, shop.store.id, 'product.updated', { productId: 'i' }, 'product:i');
    assert.equal(await fanOutEvents(t.db.kysely, t.clock.now()), 1);
    assert.deepEqual(await endpointsOf(shop, fresh.id), [imported.id]);
  });

  test('an endpoint deleted during fan-out is skipped without an error (PostgreSQL: a concurrent delete)', async (context) => {
    if (t.db.kind !== 'postgres') {
      context.skip('PGlite has one session: a delete never runs during a fan-out');
      return;
    }
    const shop = await store();
    const doomed = await registerEndpoint(t, shop, 'http://127.0.0.1:9/doomed');
    const kept = await registerEndpoint(t, shop, 'http://127.0.0.1:9/kept');
    const event = await emit(t, shop.store.id, 'product.updated', { productId: 'd' }, 'product:d');

    // The delete is made, not committed, before the fan-out starts: the fan-out's snapshot still has
    // the endpoint, and its statement must wait for the delete's row lock. It commits only once the
    // fan-out is seen waiting for it, so the race goes the same way every run.
    let commit!: () => void;
    const committing = new Promise<void>((resolve) => (commit = resolve));
    let deleted!: () => void;
    const deleting = new Promise<void>((resolve) => (deleted = resolve));
    const deleter = t.db.kysely.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('webhook_endpoints')
        .where('store_id', '=', shop.store.id)
        .where('id', '=', doomed.id)
        .execute();
      deleted();
      await committing;
    });
    await deleting;
    const fanOut = fanOutAndClaim(t.db.kysely, options(0));
    try {
      await waitFor(
        async () => {
          const { rows } = await sql<{ waiting: number }>`
          SELECT count(*)::int AS waiting FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%fanout_lock%'`.execute(
            t.db.kysely,
          );
          return rows[0]!.waiting > 0 ? true : undefined;
        },
        10_000,
        'the fan-out to wait for the delete',
      );
    } finally {
      commit();
      await deleter;
    }
    const done = await fanOut;
    assert.equal(done.dispatched, 1);
    assert.equal(done.created, 1, 'a delivery for the endpoint that is left only');
    assert.deepEqual(await endpointsOf(shop, event.id), [kept.id]);
  });
});
