import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { openDatabase, type Db } from './database.ts';
import { startStandby, type Standby } from './replica.test-support.ts';
import type { Config } from '../config.ts';
import {
  createTestStore,
  openTestDatabase,
  skipUnlessPostgres,
  startTestApp,
  waitFor,
  type TestApp,
  type TestDb,
  type TestStore,
} from '../test/harness.ts';

const TOKEN = 'metrics-token-metrics-token-0123456789';
const PROMTOOL = process.env.PROMTOOL_PATH ?? 'promtool';

let standby: Standby;
let primary: TestDb;

before(async () => {
  if (skipUnlessPostgres) return;
  standby = await startStandby(process.env.DATABASE_URL!);
  primary = await openTestDatabase();
  // The test's database, made on the primary after the base backup, reaches the standby by replay.
  await standby.caughtUp();
});
after(async () => {
  await primary?.close();
  await standby?.close();
});

interface Replicated {
  t: TestApp;
  db: Db;
  shop: TestStore;
  /** The replica monitor's log lines, `level msg`. */
  lines: string[];
  close(): Promise<void>;
}

/** An app whose catalog reads may go to the standby, skipped past `maxLagMs`. */
async function replicatedApp(maxLagMs: number, config: Partial<Config> = {}): Promise<Replicated> {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        const { level, msg } = JSON.parse(line) as { level: number; msg: string };
        lines.push(`${pino.levels.labels[level]} ${msg}`);
      }
      callback();
    },
  });
  const db = await openDatabase({
    databaseUrl: primary.url,
    dataDir: '',
    poolSize: 8,
    statementTimeoutMs: 10_000,
    replica: { url: standby.urlOf(primary.url!), maxLagMs, log: pino({ level: 'info' }, stream) },
  });
  const t = await startTestApp({
    db,
    config: { metrics: { port: null, host: '127.0.0.1', token: TOKEN }, ...config },
  });
  const shop = await createTestStore(t);
  await waitFor(() => db.replicaStats()!.inUse, 10_000, 'the replica in use');
  return {
    t,
    db,
    shop,
    lines,
    async close() {
      await t.close();
      await db.close();
    },
  };
}

async function product(r: Replicated, title: string): Promise<{ id: string; variantId: string }> {
  const response = await r.t.admin(r.shop).post('/products', {
    title,
    status: 'active',
    variants: [{ label: 'One', priceAmount: 1000, onHand: 10 }],
  });
  assert.equal(response.statusCode, 201, response.body);
  const body = response.json<{ id: string; variants: { id: string }[] }>();
  return { id: body.id, variantId: body.variants[0]!.id };
}

/**
 * One warning when the replica goes out of use and one line when it is back, alternating (a busy
 * machine may take it out and back more than once): never a line per read or per probe.
 */
function oneLinePerChange(r: Replicated): void {
  const changes = r.lines.filter((line) =>
    /^(warn replica out of use|info replica (back )?in use)/.test(line),
  );
  assert.equal(changes.length, r.lines.length, r.lines.join('\n'));
  changes.forEach((line, i) => assert.equal(line.startsWith('warn '), i % 2 === 1, r.lines.join('\n')));
  assert.ok(r.lines.at(-1)!.startsWith('info replica back in use'), r.lines.join('\n'));
}

const reads = (r: Replicated) => ({ ...r.db.replicaStats()!.reads });
const titles = async (r: Replicated) =>
  (await r.t.storefront(r.shop).get('/products'))
    .json<{ items: { title: string }[] }>()
    .items.map((p) => p.title);

describe(
  'catalog reads from a streaming replica (decision `replica-reads`)',
  { skip: skipUnlessPostgres },
  () => {
    test('the catalog reads from the replica; carts and the Admin API read their own writes on the primary', async () => {
      // A lag bound far above the test's: the paused standby stays in use, and shows what it has.
      const r = await replicatedApp(60_000);
      try {
        const a = await product(r, 'Replayed');
        await standby.caughtUp();
        const before = reads(r);
        assert.equal((await r.t.storefront(r.shop).get(`/products/${a.id}`)).statusCode, 200);
        assert.ok(reads(r).replica > before.replica, 'the product was read from the replica');

        await standby.pauseReplay();
        try {
          const b = await product(r, 'Not replayed');
          // The Admin API reads its own write from the primary; the storefront's catalog, from the
          // standby, does not have it yet; the cart (primary) prices it.
          assert.equal((await r.t.admin(r.shop).get(`/products/${b.id}`)).statusCode, 200);
          assert.equal((await r.t.storefront(r.shop).get(`/products/${b.id}`)).statusCode, 404);
          const cart = await r.t
            .storefront(r.shop)
            .post('/carts', { items: [{ variantId: b.variantId, quantity: 1 }] });
          assert.equal(cart.statusCode, 201, cart.body);
          // The list, read twice from the standby behind: never kept by the read cache under the
          // versions that already count the new product.
          await r.t.app.readCache!.recheck();
          assert.deepEqual(await titles(r), ['Replayed']);
          assert.deepEqual(await titles(r), ['Replayed']);
        } finally {
          await standby.resumeReplay();
        }
        await standby.caughtUp();
        assert.equal((await r.t.storefront(r.shop).get(`/products/${a.id}`)).statusCode, 200);
        await waitFor(async () => (await titles(r)).length === 2, 5000, 'the list with the replayed product');
        assert.deepEqual((await titles(r)).sort(), ['Not replayed', 'Replayed']);
      } finally {
        await r.close();
      }
    });

    test('a store setting read from the standby behind is not kept by the read cache, even from the settings cache', async () => {
      const r = await replicatedApp(60_000);
      const markets = async () =>
        (await r.t.storefront(r.shop).get('/store/markets')).json<{ items: unknown[] }>().items.length;
      try {
        await standby.caughtUp();
        const before = await markets();
        await standby.pauseReplay();
        try {
          const created = await r.t
            .admin(r.shop)
            .post('/markets', { name: 'Europe', countries: ['DE'], currency: 'EUR', exchangeRate: '0.92' });
          assert.equal(created.statusCode, 201, created.body);
          await r.t.app.readCache!.recheck();
          // Read from the standby into the catalog's settings cache, then answered from that cache
          // without a statement: neither answer is kept under the versions that count the market.
          assert.equal(await markets(), before);
          assert.equal(await markets(), before);
        } finally {
          await standby.resumeReplay();
        }
        await standby.caughtUp();
        await waitFor(async () => (await markets()) === before + 1, 5000, 'the replayed market');
      } finally {
        await r.close();
      }
    });

    test('a replica lagging past REPLICA_MAX_LAG is skipped (one warning, the metric) and used again once caught up', async () => {
      const r = await replicatedApp(300, { readCacheBytes: 0 });
      try {
        const a = await product(r, 'Lagging');
        await standby.caughtUp();
        await standby.pauseReplay();
        try {
          // Writes on the primary the paused standby does not replay: its lag grows past 300 ms.
          await waitFor(
            async () => {
              await product(r, 'Write');
              return !r.db.replicaStats()!.inUse;
            },
            10_000,
            'the replica out of use',
          );
          const before = reads(r);
          assert.equal((await r.t.storefront(r.shop).get(`/products/${a.id}`)).statusCode, 200);
          assert.equal(reads(r).replica, before.replica, 'no read went to the replica');
          assert.ok(reads(r).primary > before.primary);
          const scrape = await r.t.app.inject({
            url: '/metrics',
            headers: { authorization: `Bearer ${TOKEN}` },
          });
          assert.match(scrape.body, /^storefront_replica_in_use 0$/m);
          assert.match(
            scrape.body,
            /^storefront_replica_lag_seconds 0\.[3-9]|^storefront_replica_lag_seconds [1-9]/m,
          );
          assert.match(scrape.body, /^storefront_catalog_reads_total\{server="primary"\} [1-9]/m);
          const checked = spawnSync(PROMTOOL, ['check', 'metrics'], { input: scrape.body, encoding: 'utf8' });
          if (!checked.error) assert.equal(`${checked.stdout}${checked.stderr}`.trim(), '');
        } finally {
          await standby.resumeReplay();
        }
        await waitFor(() => r.db.replicaStats()!.inUse, 10_000, 'the replica back in use');
        const before = reads(r);
        assert.equal((await r.t.storefront(r.shop).get(`/products/${a.id}`)).statusCode, 200);
        assert.ok(reads(r).replica > before.replica, 'the reads went back to the replica');
        oneLinePerChange(r);
        assert.ok(
          r.lines.some((line) =>
            /^warn replica out of use, catalog reads go to the primary: it lags \d+ ms/.test(line),
          ),
          r.lines.join('\n'),
        );
      } finally {
        await r.close();
      }
    });

    test('the standby stopped under load costs no request an error; reads return to it when it is back', async () => {
      const r = await replicatedApp(300, { readCacheBytes: 0 });
      try {
        const a = await product(r, 'Under load');
        await standby.caughtUp();
        let running = true;
        const statuses: number[] = [];
        const client = async () => {
          while (running) statuses.push((await r.t.storefront(r.shop).get(`/products/${a.id}`)).statusCode);
        };
        const load = Promise.all([client(), client(), client(), client()]);
        await waitFor(() => reads(r).replica > 20, 5000, 'reads on the replica');
        await standby.stop();
        const stoppedAt = statuses.length;
        await waitFor(() => statuses.length > stoppedAt + 50, 10_000, 'reads after the stop');
        running = false;
        await load;
        assert.deepEqual(
          statuses.filter((status) => status !== 200),
          [],
          'every read answered 200',
        );
        assert.equal(r.db.replicaStats()!.inUse, false);
        const out = reads(r);
        assert.equal((await r.t.storefront(r.shop).get(`/products/${a.id}`)).statusCode, 200);
        assert.equal(reads(r).replica, out.replica);

        await standby.start();
        await waitFor(() => r.db.replicaStats()!.inUse, 15_000, 'the replica back in use');
        const back = reads(r);
        assert.equal((await r.t.storefront(r.shop).get(`/products/${a.id}`)).statusCode, 200);
        assert.ok(reads(r).replica > back.replica);
        oneLinePerChange(r);
        assert.ok(
          r.lines.some((line) =>
            /^warn replica out of use, catalog reads go to the primary: (a read failed on it|the probe failed)/.test(
              line,
            ),
          ),
          r.lines.join('\n'),
        );
      } finally {
        await r.close();
      }
    });
  },
);
