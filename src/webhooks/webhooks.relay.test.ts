import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import { pino } from 'pino';
import { recordEvent } from '../events/events.ts';
import { createTestStore, startTestApp, waitFor, type TestApp } from '../test/harness.ts';
import { backfillResourceKeys } from '../db/migrations/0012_event_resource_keys.ts';
import { FANOUT_GAP_MS, leaseMs, WebhookRelay } from './webhooks.relay.ts';
import {
  claimDeliveries,
  fanOutEvents,
  purgeWebhookData,
  recordOutcome,
  recordOutcomes,
} from './webhooks.relay.repository.ts';
import { emit, registerEndpoint, startReceiver, webhookTestConfig } from './webhooks.test-support.ts';

/**
 * The relay under failure: leases, a relay killed mid-delivery, several relays racing, purging.
 * The app here runs no workers: each test drives its own relays, in-process (WebhookRelay) or, on
 * PostgreSQL, as real `storefront worker` processes.
 */

let t: TestApp;
const ROOT = path.resolve(import.meta.dirname, '../..');
const silent = pino({ level: 'silent' });

before(async () => {
  // A generous timeout: a loaded test machine must not turn a 2xx into a timed-out attempt.
  t = await startTestApp({ config: webhookTestConfig({ timeoutMs: 10_000 }) });
});
after(() => t.close());

/** Runs an in-process relay until the returned stop() is called. */
function startRelay(): { relay: WebhookRelay; stop(): Promise<void> } {
  const controller = new AbortController();
  const relay = new WebhookRelay({
    db: t.db.kysely,
    keyring: t.runtime.keyring,
    webhooks: t.config.webhooks,
    databaseUrl: t.config.databaseUrl,
    clock: t.clock,
    log: silent,
  });
  const running = relay.run(controller.signal);
  return {
    relay,
    async stop() {
      controller.abort();
      await running;
    },
  };
}

/** The URL of the database the test app uses (a per-file clone of DATABASE_URL's database). */
async function databaseUrl(): Promise<string> {
  const { rows } = await sql<{ name: string }>`SELECT current_database() AS name`.execute(t.db.kysely);
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${rows[0]!.name}`;
  return url.href;
}

/** A real `storefront worker` process on the test database (PostgreSQL only). */
async function startWorkerProcess(): Promise<ChildProcess> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-worker-'));
  const child = spawn(process.execPath, [path.join(ROOT, 'src/main.ts'), 'worker'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: await databaseUrl(),
      SECRET_KEY: t.config.secretKey!,
      ALLOW_HTTP_WEBHOOKS: '1',
      WEBHOOK_RETRY_SCHEDULE: t.config.webhooks.retryScheduleMs.map((ms) => `${ms}ms`).join(','),
      WEBHOOK_TIMEOUT: `${t.config.webhooks.timeoutMs}ms`,
      DATA_DIR: dir,
      EMAIL_TRANSPORT: `file:${dir}/mail`,
      DATABASE_POOL_SIZE: '4',
      LOG_LEVEL: 'info',
      SEED_DEMO: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(() => output.includes('worker started'), 20_000, `worker start (output: ${output})`);
  return child;
}

async function kill(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

const onPostgres = (): boolean => t.db.kind === 'postgres';

/** The delivery row of an event (the store has one endpoint). */
function deliveryOf(storeId: string, eventId: string) {
  return t.db.kysely
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('event_id', '=', eventId)
    .executeTakeFirstOrThrow();
}

describe('webhook relay', () => {
  test('events recorded before emitters declared their resource get the key the relay used to derive', async () => {
    const shop = await createTestStore(t);
    const legacy: [string, Record<string, unknown>, string | null][] = [
      ['product.updated', { productId: 'p1' }, 'product:p1'],
      ['product.deleted', { productId: 'p1' }, 'product:p1'],
      ['order.paid', { orderId: 'o1' }, 'order:o1'],
      ['inventory.updated', { variantId: 'v1', productId: 'p1' }, 'variant:v1'],
      ['content.updated', { kind: 'collection', slug: 'sale', collectionId: 'c1' }, 'content:collection:c1'],
      ['content.updated', { kind: 'page', slug: 'about' }, 'content:page:about'],
      ['content.updated', { kind: 'region', key: 'hero' }, 'content:region:hero'],
      ['theme.published', { themeId: 't1' }, 'theme'],
      ['app.installed', { appId: 'a1' }, 'app:a1'],
      ['product.updated', {}, null],
    ];
    const ids: string[] = [];
    for (const [type, data] of legacy) {
      const row = await sql<{ id: string }>`
        INSERT INTO events (store_id, type, data) VALUES (${shop.store.id}, ${type}, ${JSON.stringify(data)})
        RETURNING id`.execute(t.db.kysely);
      ids.push(row.rows[0]!.id);
    }
    await backfillResourceKeys(t.db.kysely as unknown as Kysely<unknown>);
    const rows = await t.db.kysely
      .selectFrom('events')
      .select(['id', 'resource_key'])
      .where('id', 'in', ids)
      .execute();
    const keyOf = new Map(rows.map((row) => [row.id, row.resource_key]));
    legacy.forEach(([type, , expected], i) => {
      assert.equal(
        keyOf.get(ids[i]!),
        expected ?? `event:${ids[i]}`,
        `${type} ${JSON.stringify(legacy[i]![1])}`,
      );
    });
  });

  test('fan-out creates one delivery per matching endpoint once and marks the event dispatched', async () => {
    const shop = await createTestStore(t);
    const all = await registerEndpoint(t, shop, 'http://127.0.0.1:9/all', ['*']);
    const orders = await registerEndpoint(t, shop, 'http://127.0.0.1:9/orders', ['order.paid']);
    const paid = await emit(t, shop.store.id, 'order.paid', { orderId: 'o' }, 'order:o');
    const product = await emit(t, shop.store.id, 'product.created', { productId: 'p' }, 'product:p');
    while ((await fanOutEvents(t.db.kysely, t.clock.now())) > 0) {
      /* drain */
    }
    assert.equal(await fanOutEvents(t.db.kysely, t.clock.now()), 0, 'nothing left');
    const rows = await t.db.kysely
      .selectFrom('webhook_deliveries')
      .select(['endpoint_id', 'event_id', 'resource_key', 'status', 'attempts'])
      .where('store_id', '=', shop.store.id)
      .orderBy('event_seq')
      .orderBy('endpoint_id')
      .execute();
    const expected = [
      { endpoint_id: all.id, event_id: paid.id, resource_key: 'order:o', status: 'pending', attempts: 0 },
      { endpoint_id: orders.id, event_id: paid.id, resource_key: 'order:o', status: 'pending', attempts: 0 },
      {
        endpoint_id: all.id,
        event_id: product.id,
        resource_key: 'product:p',
        status: 'pending',
        attempts: 0,
      },
    ];
    assert.deepEqual(
      rows.map((row) => JSON.stringify(row)).sort(),
      expected.map((row) => JSON.stringify(row)).sort(),
    );
    const events = await t.db.kysely
      .selectFrom('events')
      .select(['dispatched_at', 'claim_count'])
      .where('store_id', '=', shop.store.id)
      .execute();
    assert.ok(events.every((event) => event.dispatched_at !== null && event.claim_count === 1));
    await t.db.kysely.deleteFrom('webhook_endpoints').where('store_id', '=', shop.store.id).execute();
  });

  test('a result recorded after the lease ran out and another attempt began is dropped', async () => {
    const shop = await createTestStore(t);
    await registerEndpoint(t, shop, 'http://127.0.0.1:9/x');
    await emit(t, shop.store.id, 'order.paid', { orderId: 'lease' }, 'order:lease');
    await fanOutEvents(t.db.kysely, t.clock.now());
    const lease = leaseMs(t.config);
    const start = t.clock.now();
    const [first] = (await claimDeliveries(t.db.kysely, start, lease, 100)).filter(
      (d) => d.storeId === shop.store.id,
    );
    assert.equal(first?.attempt, 1);
    const held = await claimDeliveries(t.db.kysely, new Date(start.getTime() + lease - 1), lease, 100);
    assert.ok(!held.some((d) => d.id === first.id), 'not claimable while the lease holds');
    const [second] = (
      await claimDeliveries(t.db.kysely, new Date(start.getTime() + lease + 1), lease, 100)
    ).filter((d) => d.id === first.id);
    assert.equal(second?.attempt, 2);
    const late = await recordOutcome(
      t.db.kysely,
      first,
      { ok: true, status: 200 },
      {
        retryScheduleMs: [50],
        now: new Date(start.getTime() + lease + 2),
      },
    );
    assert.equal(late.status, 'lost');
    const current = await recordOutcome(
      t.db.kysely,
      second,
      { ok: true, status: 200 },
      {
        retryScheduleMs: [50],
        now: new Date(start.getTime() + lease + 3),
      },
    );
    assert.equal(current.status, 'delivered');
    await t.db.kysely.deleteFrom('webhook_endpoints').where('store_id', '=', shop.store.id).execute();
  });

  test('results that finish together are recorded in one call, each fenced by its own attempt', async () => {
    const shop = await createTestStore(t);
    const endpoint = await registerEndpoint(t, shop, 'http://127.0.0.1:9/batch');
    const gone = await registerEndpoint(t, shop, 'http://127.0.0.1:9/gone');
    const a = await emit(t, shop.store.id, 'product.updated', { productId: 'a' }, 'product:a');
    await emit(t, shop.store.id, 'product.updated', { productId: 'a' }, 'product:a');
    const b = await emit(t, shop.store.id, 'product.updated', { productId: 'b' }, 'product:b');
    const c = await emit(t, shop.store.id, 'product.updated', { productId: 'c' }, 'product:c');
    await fanOutEvents(t.db.kysely, t.clock.now());
    const now = t.clock.now();
    const claimed = (await claimDeliveries(t.db.kysely, now, 60_000, 100)).filter(
      (d) => d.storeId === shop.store.id,
    );
    const to = (eventId: string, endpointId: string) =>
      claimed.find((d) => d.event.id === eventId && d.endpointId === endpointId)!;
    const options = { retryScheduleMs: [1000], now, random: () => 0.5 };
    const failure = { ok: false as const, error: 'HTTP 500', retryAfterMs: null, interrupted: false };
    const outcomes = await recordOutcomes(t.db.kysely, [
      // Delivered; the second update of product a waits behind it.
      { delivery: to(a.id, endpoint.id), result: { ok: true, status: 204 }, options },
      // Failed, retried on the schedule.
      { delivery: to(b.id, endpoint.id), result: { ...failure, status: 500 }, options },
      // A stale attempt number: another relay owns the row now.
      { delivery: { ...to(c.id, endpoint.id), attempt: 7 }, result: { ok: true, status: 200 }, options },
      // 410 Gone: failed, and its endpoint disabled.
      { delivery: to(a.id, gone.id), result: { ...failure, status: 410 }, options },
    ]);
    assert.deepEqual(
      outcomes.map((o) => [o.status, o.unblocked, o.disabled]),
      [
        ['delivered', true, false],
        ['pending', false, false],
        ['lost', false, false],
        ['failed', true, true],
      ],
    );
    assert.equal(outcomes[1]!.nextAttemptAt?.getTime(), now.getTime() + 1000);
    const rows = await t.db.kysely
      .selectFrom('webhook_deliveries')
      .select(['event_id', 'endpoint_id', 'status', 'locked_until', 'next_attempt_at', 'last_status_code'])
      .where('store_id', '=', shop.store.id)
      .where('event_id', 'in', [a.id, b.id, c.id])
      .execute();
    const row = (eventId: string, endpointId: string) =>
      rows.find((r) => r.event_id === eventId && r.endpoint_id === endpointId)!;
    assert.equal(row(a.id, endpoint.id).status, 'delivered');
    assert.equal(row(a.id, endpoint.id).locked_until, null);
    assert.equal(row(b.id, endpoint.id).status, 'pending');
    assert.equal(row(b.id, endpoint.id).last_status_code, 500);
    assert.equal(row(b.id, endpoint.id).next_attempt_at.getTime(), now.getTime() + 1000);
    assert.equal(row(c.id, endpoint.id).status, 'pending', 'the stale result changed nothing');
    assert.ok(row(c.id, endpoint.id).locked_until, 'the lease of the current attempt stays');
    assert.equal(row(a.id, gone.id).status, 'failed');
    const disabled = await t.db.kysely
      .selectFrom('webhook_endpoints')
      .select(['enabled', 'disabled_reason'])
      .where('store_id', '=', shop.store.id)
      .where('id', '=', gone.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(disabled, { enabled: false, disabled_reason: 'gone' });
    assert.deepEqual(await recordOutcomes(t.db.kysely, []), []);
    await t.db.kysely.deleteFrom('webhook_endpoints').where('store_id', '=', shop.store.id).execute();
  });

  test('a relay killed mid-delivery loses nothing: the next relay sends it as the next attempt', async (context) => {
    const shop = await createTestStore(t);
    let answered = 0;
    // The first attempt (sent by the relay that dies) is held open; later ones are answered.
    const hook = await startReceiver((request) =>
      request.headers['x-webhook-attempt'] === '1'
        ? { hang: true, status: 0 }
        : (answered++, { status: 204 }),
    );
    try {
      await registerEndpoint(t, shop, hook.url);
      const event = await emit(t, shop.store.id, 'order.paid', { orderId: 'crash' }, 'order:crash');
      if (onPostgres()) {
        // A real worker process takes the delivery, the receiver holds the request open, and the
        // process is killed with SIGKILL: no clean-up runs, its lease stays in the database.
        const worker = await startWorkerProcess();
        try {
          await hook.waitForRequests(1, () => true, 15_000);
        } finally {
          await kill(worker, 'SIGKILL');
        }
        context.diagnostic('relay process killed with SIGKILL mid-request');
      } else {
        // Embedded database: one process only. A relay that claimed the delivery and died is a
        // lease nobody releases, so take one and never record its outcome.
        await fanOutEvents(t.db.kysely, t.clock.now());
        const claimed = await claimDeliveries(t.db.kysely, t.clock.now(), leaseMs(t.config), 100);
        assert.ok(claimed.some((d) => d.event.id === event.id && d.attempt === 1));
      }
      const row = await deliveryOf(shop.store.id, event.id);
      assert.equal(row.status, 'pending');
      assert.equal(row.attempts, 1);
      assert.ok(
        row.locked_until && row.locked_until > t.clock.now(),
        'the dead relay’s lease is still there',
      );

      // While the lease holds, a claim (the only way a relay takes a delivery) passes it by.
      const early = await claimDeliveries(t.db.kysely, t.clock.now(), leaseMs(t.config), 100);
      assert.ok(!early.some((d) => d.event.id === event.id), 'nobody takes it while the lease holds');
      const relay = startRelay();
      try {
        t.clock.advance(leaseMs(t.config) + 1000);
        const [retry] = await hook.waitForRequests(1, (r) => r.headers['x-webhook-attempt'] === '2', 8000);
        assert.equal(retry?.body.id, event.id);
        await waitFor(async () => (await deliveryOf(shop.store.id, event.id)).status === 'delivered');
        assert.equal(answered, 1);
      } finally {
        await relay.stop();
      }
    } finally {
      await hook.close();
    }
  });

  test('a relay that is stopped cuts its request short and the next relay sends it at once', async () => {
    const shop = await createTestStore(t);
    const hook = await startReceiver((_r, index) =>
      index === 0 ? { hang: true, status: 0 } : { status: 204 },
    );
    try {
      await registerEndpoint(t, shop, hook.url);
      const event = await emit(t, shop.store.id, 'order.refunded', { orderId: 'stop' }, 'order:stop');
      const first = startRelay();
      await hook.waitForRequests(1);
      await first.stop();
      const row = await deliveryOf(shop.store.id, event.id);
      assert.equal(row.status, 'pending');
      assert.equal(row.attempts, 1);
      assert.equal(row.locked_until, null, 'the lease is released');
      assert.equal(row.last_error, 'interrupted: the worker stopped');
      assert.ok(row.next_attempt_at <= t.clock.now(), 'due again at once');
      const second = startRelay();
      try {
        const [retry] = await hook.waitForRequests(1, (r) => r.headers['x-webhook-attempt'] === '2');
        assert.equal(retry?.body.id, event.id);
      } finally {
        await second.stop();
      }
    } finally {
      await hook.close();
    }
  });

  test('while busy, commits are fanned out together: at most one fan-out per gap, every event delivered', async (context) => {
    const shop = await createTestStore(t);
    const hook = await startReceiver(() => ({ status: 204 }));
    const relay = startRelay();
    try {
      await registerEndpoint(t, shop, hook.url);
      // Each event its own commit (and, on PostgreSQL, its own notification), one every few milliseconds,
      // as a busy store's sales are.
      const total = 60;
      const started = performance.now();
      const commits: Promise<unknown>[] = [];
      for (let n = 0; n < total; n++) {
        commits.push(emit(t, shop.store.id, 'product.updated', { productId: `p${n}`, n }, `product:p${n}`));
        await sleep(4);
      }
      await Promise.all(commits);
      const burstMs = performance.now() - started;
      const received = await hook.waitForRequests(total, undefined, 15_000);
      assert.deepEqual(
        received.map((request) => Number(request.body.data.n)).sort((a, b) => a - b),
        Array.from({ length: total }, (_, n) => n),
      );
      // One fan-out when the relay starts, one per gap during the burst, one after it.
      const bound = Math.ceil(burstMs / FANOUT_GAP_MS) + 3;
      context.diagnostic(
        `${total} commits in ${burstMs.toFixed(0)} ms: ${relay.relay.fanOuts} fan-outs (at most ${bound})`,
      );
      assert.ok(
        relay.relay.fanOuts <= bound,
        `${relay.relay.fanOuts} fan-outs for ${total} commits in ${burstMs.toFixed(0)} ms`,
      );
    } finally {
      await relay.stop();
      await hook.close();
    }
  });

  test('two relays racing deliver every event, each attempt exactly once, in order per resource', async (context) => {
    const shop = await createTestStore(t);
    // Deterministic failures: the first attempt of every 7th event is answered 500.
    const hook = await startReceiver((request) =>
      Number(request.body.data.n) % 7 === 0 && request.headers['x-webhook-attempt'] === '1'
        ? { status: 500 }
        : { status: 204, delayMs: 2 },
    );
    const relays: { stop(): Promise<void> }[] = [];
    try {
      await registerEndpoint(t, shop, hook.url);
      if (onPostgres()) {
        for (const worker of await Promise.all([startWorkerProcess(), startWorkerProcess()])) {
          relays.push({ stop: () => kill(worker, 'SIGTERM') });
        }
        context.diagnostic('two `storefront worker` processes on one PostgreSQL database');
      } else {
        relays.push(startRelay(), startRelay());
        context.diagnostic('embedded database: two relays in one process (PGlite has one session)');
      }
      const total = 200;
      const resources = 10;
      const ids = new Set<string>();
      for (let batch = 0; batch < total / 20; batch++) {
        await t.db.kysely.transaction().execute(async (trx) => {
          for (let i = batch * 20; i < (batch + 1) * 20; i++) {
            const event = await recordEvent(trx, {
              storeId: shop.store.id,
              type: 'product.updated',
              resource: `product:r${i % resources}`,
              data: { productId: `r${i % resources}`, n: i },
            });
            ids.add(event.id);
          }
        });
      }
      await waitFor(
        async () => {
          const delivered = await t.db.kysely
            .selectFrom('webhook_deliveries')
            .select((eb) => eb.fn.countAll<number>().as('count'))
            .where('store_id', '=', shop.store.id)
            .where('status', '=', 'delivered')
            .executeTakeFirstOrThrow();
          return Number(delivered.count) === total;
        },
        30_000,
        'every delivery to be delivered',
      );

      const requests = hook.requests.filter((r) => ids.has(r.body.id));
      const attempts = requests.map(
        (r) => `${String(r.headers['x-webhook-delivery'])}#${String(r.headers['x-webhook-attempt'])}`,
      );
      assert.equal(new Set(attempts).size, attempts.length, 'no attempt was sent twice');
      const rows = await t.db.kysely
        .selectFrom('webhook_deliveries')
        .select(['id', 'attempts'])
        .where('store_id', '=', shop.store.id)
        .execute();
      for (const row of rows) {
        const sent = requests.filter((r) => r.headers['x-webhook-delivery'] === row.id).length;
        assert.equal(sent, row.attempts, 'every attempt counted was sent, once');
      }
      const succeeded = requests.filter(
        (r) => !(Number(r.body.data.n) % 7 === 0 && r.headers['x-webhook-attempt'] === '1'),
      );
      assert.equal(succeeded.length, total, 'each event answered 2xx exactly once: no duplicates');
      assert.deepEqual(new Set(succeeded.map((r) => r.body.id)), ids, 'no event lost');
      assert.equal(requests.length, total + Math.ceil(total / 7), 'one retry per failed first attempt');
      const byResource = new Map<string, number[]>();
      for (const request of requests) {
        const key = String(request.body.data.productId);
        byResource.set(key, [...(byResource.get(key) ?? []), Number(request.body.data.n)]);
      }
      for (const [resource, sequence] of byResource) {
        assert.deepEqual(
          sequence,
          [...sequence].sort((a, b) => a - b),
          `requests for ${resource} arrive in event order (retries repeat, never overtake)`,
        );
      }
    } finally {
      await Promise.all(relays.map((relay) => relay.stop()));
      await hook.close();
    }
  });

  test('purge removes finished deliveries and dispatched events past EVENT_RETENTION, keeps the rest', async () => {
    const shop = await createTestStore(t);
    await registerEndpoint(t, shop, 'http://127.0.0.1:9/purge', ['*']);
    const delivered = await emit(t, shop.store.id, 'product.created', { productId: 'a' }, 'product:a');
    const failed = await emit(t, shop.store.id, 'product.created', { productId: 'b' }, 'product:b');
    const pending = await emit(t, shop.store.id, 'product.created', { productId: 'c' }, 'product:c');
    await fanOutEvents(t.db.kysely, t.clock.now());
    const claimed = (await claimDeliveries(t.db.kysely, t.clock.now(), 1000, 100)).filter(
      (d) => d.storeId === shop.store.id,
    );
    const byEvent = (id: string) => claimed.find((d) => d.event.id === id)!;
    const options = { retryScheduleMs: [], now: t.clock.now() };
    await recordOutcome(t.db.kysely, byEvent(delivered.id), { ok: true, status: 200 }, options);
    await recordOutcome(
      t.db.kysely,
      byEvent(failed.id),
      { ok: false, status: 500, error: 'HTTP 500', retryAfterMs: null, interrupted: false },
      options,
    );
    const undispatched = await emit(t, shop.store.id, 'product.created', { productId: 'd' }, 'product:d');
    const eventsOf = async () =>
      (
        await t.db.kysely.selectFrom('events').select('id').where('store_id', '=', shop.store.id).execute()
      ).map((row) => row.id);

    const deliveriesOf = async () =>
      (
        await t.db.kysely
          .selectFrom('webhook_deliveries')
          .select(['event_id', 'status'])
          .where('store_id', '=', shop.store.id)
          .execute()
      )
        .map((row) => `${row.event_id}:${row.status}`)
        .sort();
    const before = await deliveriesOf();
    assert.equal(before.length, 3);

    await purgeWebhookData(t.db.kysely, t.clock.now(), t.config.webhooks.eventRetentionMs);
    assert.equal((await eventsOf()).length, 4, 'no event is older than the retention yet');
    assert.deepEqual(await deliveriesOf(), before, 'no delivery is older than the retention yet');

    const later = new Date(t.clock.now().getTime() + t.config.webhooks.eventRetentionMs + 60_000);
    await purgeWebhookData(t.db.kysely, later, t.config.webhooks.eventRetentionMs);
    const statuses = await t.db.kysely
      .selectFrom('webhook_deliveries')
      .select(['event_id', 'status'])
      .where('store_id', '=', shop.store.id)
      .execute();
    assert.deepEqual(statuses, [{ event_id: pending.id, status: 'pending' }], 'the pending delivery stays');
    assert.deepEqual(
      (await eventsOf()).sort(),
      [pending.id, undispatched.id].sort(),
      'events still referenced or not yet dispatched stay',
    );
    await t.db.kysely.deleteFrom('webhook_endpoints').where('store_id', '=', shop.store.id).execute();
  });
});
