import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { ShopDriver } from '../orders/orders.test-support.ts';
import { registerEndpoint, startReceiver, webhookTestConfig } from '../webhooks/webhooks.test-support.ts';
import { startTestApp, waitFor, type TestApp } from '../test/harness.ts';
import { startMetricsServer } from './metrics.http.ts';
import { BACKLOG_MAX_AGE_MS } from './metrics.ts';

const TOKEN = 'metrics-token-metrics-token-0123456789';
const PROMTOOL = process.env.PROMTOOL_PATH ?? 'promtool';

/** `name{labels} value` lines of an exposition, as a map from the series to its value. */
function series(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    found.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return found;
}

let t: TestApp;
let shop: ShopDriver;
before(async () => {
  t = await startTestApp({
    config: { metrics: { port: null, host: '127.0.0.1', token: TOKEN }, ...webhookTestConfig() },
    workers: true,
  });
  shop = await ShopDriver.open(t);
});
after(() => t.close());

async function scrape(): Promise<{ text: string; values: Map<string, number> }> {
  const answer = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(answer.statusCode, 200, answer.body);
  assert.match(String(answer.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return { text: answer.body, values: series(answer.body) };
}

describe('metrics (decision `metrics-off-until-readable`)', () => {
  test('/metrics on the public port answers only with METRICS_TOKEN', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token-wrong-token-wrong-token', `Basic ${TOKEN}`]) {
      const answer = await t.app.inject({
        url: '/metrics',
        headers: authorization === undefined ? {} : { authorization },
      });
      assert.equal(answer.statusCode, 401);
      assert.match(String(answer.headers['content-type']), /application\/problem\+json/);
      assert.match(String(answer.headers['www-authenticate']), /^Bearer realm="metrics"/);
      assert.doesNotMatch(answer.body, /storefront_/);
    }
    // Without METRICS_TOKEN (nor METRICS_PORT) there is no /metrics at all, and nothing is counted.
    const plain = await startTestApp({ db: t.db });
    try {
      assert.equal(plain.runtime.metrics, null);
      assert.equal((await plain.app.inject({ url: '/metrics' })).statusCode, 404);
    } finally {
      await plain.close();
    }
  });

  test('requests are counted by route pattern and status, never by path or id', async () => {
    const variantId = await shop.variant(5);
    const product = await shop.storefront('GET', '/products?limit=1');
    const handle = product.json<{ items: { handle: string }[] }>().items[0]!.handle;
    const label = 'method="GET",route="/storefront/v1/products/handle/:handle",status="200"';
    const before = (await scrape()).values.get(`storefront_http_requests_total{${label}}`) ?? 0;
    assert.equal((await shop.storefront('GET', `/products/handle/${handle}`)).statusCode, 200);
    assert.equal((await shop.storefront('GET', `/products/handle/${handle}`)).statusCode, 200);
    assert.equal((await shop.storefront('GET', '/products/handle/no-such-handle')).statusCode, 404);
    assert.equal((await t.app.inject({ url: `/nowhere/${variantId}` })).statusCode, 404);
    const { text, values } = await scrape();
    assert.equal(values.get(`storefront_http_requests_total{${label}}`), before + 2);
    assert.ok(
      (values.get(
        'storefront_http_requests_total{method="GET",route="/storefront/v1/products/handle/:handle",status="404"}',
      ) ?? 0) >= 1,
    );
    assert.ok(
      (values.get('storefront_http_requests_total{method="GET",route="unmatched",status="404"}') ?? 0) >= 1,
    );
    const count = values.get(
      'storefront_http_request_duration_seconds_count{method="GET",route="/storefront/v1/products/handle/:handle"}',
    );
    assert.ok(count !== undefined && count >= 3, text);
    assert.ok(!text.includes(handle), 'no raw path in any label');
    assert.ok(!text.includes(variantId), 'no id in any label');
    assert.ok(!text.includes(shop.shop.publishableKey));
  });

  test('the queues, orders, webhooks and the read cache are there; the backlog follows the database', async () => {
    const variantId = await shop.variant(5);
    await shop.buy(variantId);
    // The database-backed series are read at most every BACKLOG_MAX_AGE_MS (of the runtime's clock).
    t.clock.advance(BACKLOG_MAX_AGE_MS + 1);
    const { values } = await scrape();
    assert.equal(values.get('storefront_database_up'), 1);
    assert.ok((values.get('storefront_orders{status="pending"}') ?? 0) >= 1);
    for (const status of ['paid', 'expired', 'cancelled'])
      assert.ok(values.has(`storefront_orders{status="${status}"}`), status);
    for (const name of [
      'storefront_outbox_pending_events',
      'storefront_outbox_oldest_pending_age_seconds',
      'storefront_webhook_deliveries_pending',
      'storefront_webhook_deliveries_oldest_pending_age_seconds',
      'storefront_mail_queue_pending',
      'storefront_mail_queue_oldest_pending_age_seconds',
      'storefront_orders_expiry_backlog',
      'storefront_read_cache_bytes',
      'storefront_webhook_deliveries_total{outcome="failed"}',
      'storefront_mail_sends_total{outcome="sent"}',
      'storefront_read_cache_requests_total{result="hit"}',
      'nodejs_eventloop_lag_seconds',
      'process_resident_memory_bytes',
    ])
      assert.ok(values.has(name), name);
    // A pending order an hour past its expiry that the expiry loop has not reached (its next sweep
    // is still ahead) is expiry backlog.
    const late = values.get('storefront_orders_expiry_backlog') ?? 0;
    const now = t.clock.now().getTime();
    const moved = await t.db.kysely
      .updateTable('orders')
      .set({ expires_at: new Date(now - 3_600_000), next_sweep_at: new Date(now + 3_600_000) })
      .where('store_id', '=', shop.storeId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    assert.ok(Number(moved.numUpdatedRows) >= 1);
    t.clock.advance(BACKLOG_MAX_AGE_MS + 1);
    const after = (await scrape()).values;
    assert.equal(after.get('storefront_orders_expiry_backlog'), late + Number(moved.numUpdatedRows));
  });

  test('PostgreSQL: the round trips the process sends are counted, a transaction per BEGIN or lone statement', async () => {
    if (t.db.kind !== 'postgres') {
      assert.equal((await scrape()).values.has('storefront_db_statements_total'), false);
      return;
    }
    const before = (await scrape()).values;
    // Two lone statements (two transactions), then a transaction of two statements and its COMMIT
    // (its BEGIN travels with the first statement: a transaction, not a round trip).
    await t.db.kysely.selectFrom('stores').select('id').limit(1).execute();
    await t.db.kysely.selectFrom('stores').select('id').limit(1).execute();
    await t.db.kysely.transaction().execute(async (trx) => {
      await trx.selectFrom('stores').select('id').limit(1).execute();
      await trx.selectFrom('stores').select('id').limit(1).execute();
    });
    const now = (await scrape()).values;
    const delta = (name: string) => (now.get(name) ?? Number.NaN) - (before.get(name) ?? Number.NaN);
    // Other work of the process (its worker loops) may run between the two scrapes: at least these.
    assert.ok(
      delta('storefront_db_statements_total') >= 5,
      `statements ${delta('storefront_db_statements_total')}`,
    );
    assert.ok(
      delta('storefront_db_transactions_total') >= 3,
      `transactions ${delta('storefront_db_transactions_total')}`,
    );
    assert.ok(
      delta('storefront_db_statements_total') > delta('storefront_db_transactions_total'),
      'a COMMIT is a statement, not a transaction',
    );
  });

  test('webhook attempts are counted by outcome with their latency', async () => {
    const receiver = await startReceiver();
    try {
      await registerEndpoint(t, shop.shop, receiver.url);
      const delivered = 'storefront_webhook_deliveries_total{outcome="delivered"}';
      const before = (await scrape()).values.get(delivered) ?? 0;
      await shop.variant(1);
      await waitFor(async () => ((await scrape()).values.get(delivered) ?? 0) > before);
      const { values } = await scrape();
      assert.ok(
        (values.get('storefront_webhook_delivery_duration_seconds_count{outcome="delivered"}') ?? 0) >= 1,
      );
    } finally {
      await receiver.close();
    }
  });

  test('METRICS_PORT serves /metrics alone, with the token when one is set', async () => {
    assert.ok(t.runtime.metrics);
    const server = await startMetricsServer(
      t.runtime.metrics,
      { host: '127.0.0.1', port: 0, token: TOKEN },
      t.app.log,
    );
    try {
      const url = `http://127.0.0.1:${server.port}`;
      assert.equal((await fetch(`${url}/metrics`)).status, 401);
      assert.equal((await fetch(`${url}/storefront/v1/store`)).status, 404);
      const answer = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(answer.status, 200);
      assert.match(await answer.text(), /^# HELP /m);
    } finally {
      await server.close();
    }
  });

  test('`promtool check metrics` accepts the exposition', async () => {
    const probe = spawnSync(PROMTOOL, ['--version']);
    if (probe.error)
      throw new Error(
        `promtool is not on PATH: install Debian's prometheus package (\`apt-get install prometheus\`; .ci/run does), or set PROMTOOL_PATH.`,
      );
    const { text } = await scrape();
    const checked = spawnSync(PROMTOOL, ['check', 'metrics'], { input: text, encoding: 'utf8' });
    // The whole scrape, prom-client's default series (process_*, nodejs_*) included, as a
    // Prometheus operator would check it: no warning, exit 0.
    assert.equal(`${checked.stdout}${checked.stderr}`.trim(), '');
    assert.equal(checked.status, 0);
    assert.match(text, /^nodejs_active_handles\{/m, 'the labelled series of the dropped totals stay');
  });
});
