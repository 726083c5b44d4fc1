/**
 * The relay's database drops while an attempt is in flight, on PostgreSQL: a relay reaches the
 * database through a proxy that refuses every connection from the moment the receiver got the
 * request until after it answered. The outcome cannot be recorded at first; it is recorded again
 * once the database is back (decision `relay-records-again`), so the event is delivered once and
 * marked so within seconds, not sent again when the lease ends (the attempt's timeout + 30 s).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { pino } from 'pino';
import { openDatabase, type Db } from '../db/database.ts';
import { createTestStore, skipUnlessPostgres, startTestApp, waitFor, type TestApp } from '../test/harness.ts';
import { startTcpProxy, type TcpProxy } from '../test/tcp-proxy.ts';
import { WebhookRelay } from './webhooks.relay.ts';
import {
  emit,
  registerEndpoint,
  startReceiver,
  webhookTestConfig,
  type Receiver,
} from './webhooks.test-support.ts';

let t: TestApp;
let proxy: TcpProxy;
let proxied: Db;
let receiver: Receiver;
/** When the receiver answers its first request, from the moment it got it. */
const ANSWER_AFTER_MS = 1000;
/** How long the proxy refuses connections from the first request on: past the answer. */
const AWAY_MS = 2000;

before(async () => {
  if (skipUnlessPostgres) return;
  t = await startTestApp({ config: webhookTestConfig({ timeoutMs: 10_000 }) });
  const { rows } = await sql<{ name: string }>`SELECT current_database() AS name`.execute(t.db.kysely);
  const target = new URL(process.env.DATABASE_URL!);
  proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const url = new URL(target.href);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  url.pathname = `/${rows[0]!.name}`;
  proxied = await openDatabase({
    databaseUrl: url.href,
    dataDir: '',
    poolSize: 4,
    statementTimeoutMs: 10_000,
  });
  receiver = await startReceiver((_request, index) =>
    index === 0 ? { status: 204, delayMs: ANSWER_AFTER_MS } : { status: 204 },
  );
});
after(async () => {
  if (skipUnlessPostgres) return;
  await receiver.close();
  await proxied.close();
  await proxy.close();
  await t.close();
});

test(
  'an outcome the database could not take at first is recorded once it is back: delivered once, not resent',
  { skip: skipUnlessPostgres },
  async () => {
    const shop = await createTestStore(t);
    await registerEndpoint(t, shop, receiver.url);
    const controller = new AbortController();
    const relay = new WebhookRelay({
      db: proxied.kysely,
      keyring: t.runtime.keyring,
      webhooks: t.config.webhooks,
      databaseUrl: null,
      clock: t.clock,
      log: pino({ level: 'silent' }),
    });
    const running = relay.run(controller.signal);
    try {
      const event = await emit(t, shop.store.id, 'product.updated');
      const [first] = await receiver.waitForRequests(1);
      assert.equal(first!.body.id, event.id);
      // The database goes away while the receiver is answering, and comes back after its answer.
      proxy.cut();
      await sleep(AWAY_MS);
      proxy.restore();

      const delivered = await waitFor(
        async () =>
          (
            await t.db.kysely
              .selectFrom('webhook_deliveries')
              .select(['status', 'attempts'])
              .where('store_id', '=', shop.store.id)
              .executeTakeFirst()
          )?.status === 'delivered' || undefined,
        8000,
        'the delivery recorded as delivered once the database is back',
      );
      assert.ok(delivered);
      const row = await t.db.kysely
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempts'])
        .where('store_id', '=', shop.store.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { status: 'delivered', attempts: 1 });
      assert.equal(receiver.requests.length, 1, 'sent once');
    } finally {
      controller.abort();
      await running;
    }
  },
);
