/** One server under test: its database, its seeded store, its processes (server, worker). */
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDatabase } from '../lib/databases.ts';
import { commitOf, rssMiBOf } from '../lib/machine.ts';
import {
  alive,
  benchEnv,
  type Checkout,
  cli,
  freePort,
  type OutputTail,
  type RunningServer,
  serve,
  startWorker,
} from '../lib/processes.ts';
import { inParallel } from '../lib/tasks.ts';
import { call, closePool, expectAnswer, field, newPool, stringAt } from './http.ts';
import type { Options } from './options.ts';
import { checkSearches } from './readers.ts';

export interface Target {
  /** "this checkout" or "compared". */
  label: string;
  checkout: Checkout;
  commit: string;
  server: RunningServer;
  key: Record<string, string>;
  admin: Record<string, string>;
  variantIds: string[];
  /** The seeded products (from the listing at set-up): what --readers browse and search for. */
  products: CatalogProduct[];
  /** The run's own database (PostgreSQL), else null. */
  databaseUrl: string | null;
  database: string;
  /** Whether purchases take the cart's shipping steps (--shipping). */
  shipping: boolean;
  /** The code each checkout enters (--promotions, this checkout only), else null. */
  discountCode: string | null;
  /** The `storefront worker` beside the server (--workers separate), else null. */
  worker: Worker | null;
  /** The METRICS_PORT of the server and of the worker (PostgreSQL), for the round-trip counters. */
  metricsPorts: { api: number | null; worker: number | null };
  /** What a scrape of /metrics sends (METRICS_TOKEN, when the environment sets one). */
  metricsHeaders: Record<string, string>;
  /** RSS (MiB) after start-up and seeding, before any purchase. */
  rssIdle: Rss;
  /** RSS (MiB) right after the target's last steady round. */
  rssAfter: Rss | null;
}

/** A product of the store, as a shopper sees it: its id, the words of its title, its variants' prices. */
export interface CatalogProduct {
  id: string;
  /** Lower-case words of the title (search terms that find it: each begins a word of its title). */
  words: string[];
  prices: number[];
}

interface Worker {
  child: ChildProcess;
  pid: number;
  tail: OutputTail;
  startupSeconds: number;
}

/** Resident memory in MiB of the server and of the worker (NaN: no worker). */
export interface Rss {
  api: number;
  worker: number;
}

export function rssOf(target: Pick<Target, 'server' | 'worker'>): Rss {
  return {
    api: rssMiBOf(target.server.pid),
    worker: target.worker ? rssMiBOf(target.worker.pid) : Number.NaN,
  };
}

/** Waits (up to 120 s) until the worker's METRICS_PORT answers: its loops have started. */
async function waitForWorker(
  child: ChildProcess,
  tail: OutputTail,
  port: number,
  headers: Record<string, string>,
): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (!alive(child)) throw new Error(`the worker exited during start-up:\n${tail.text()}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/metrics`, {
        headers,
        signal: AbortSignal.timeout(1000),
      });
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`the worker's /metrics did not answer within 120 s:\n${tail.text()}`);
}

export async function setUpTarget(
  label: string,
  checkout: Checkout,
  options: Options,
  log: (line: string) => void,
  extraEnv: Record<string, string> = {},
): Promise<Target> {
  const env: NodeJS.ProcessEnv = {
    ...benchEnv('storefront-bench-purchase-'),
    PAYMENT_PROVIDER: 'sandbox',
    // Each buyer is its own client address (X-Forwarded-For from loopback, clientOf), as a shop's
    // buyers are: decision `pending-orders-per-client`'s pending-order limit stays at its default and its per-client lock uncontended.
    TRUST_PROXY: 'loopback',
    ...extraEnv,
  };
  delete env.DATABASE_URL;
  let database = 'PGlite (embedded, fresh temporary DATA_DIR)';
  let databaseUrl: string | null = null;
  if (options.databaseUrl !== null) {
    const suffix = label === 'this checkout' ? 'a' : 'b';
    const created = await createDatabase(
      options.databaseUrl,
      `${options.dbPrefix}${Date.now().toString(36)}_${suffix}`,
    );
    env.DATABASE_URL = created.url;
    databaseUrl = created.url;
    const shown = new URL(created.url);
    shown.password = '';
    database = `PostgreSQL ${created.version} (${shown.host}${shown.pathname}, created for the run and dropped after it)`;
  }
  const store = `purchase-${Date.now().toString(36)}`;
  log(`bench: ${label}: ${database}; seeding ${options.products} products into store "${store}"…`);
  const seeded = await cli(
    ['seed', 'bench', '--products', String(options.products), '--store', store],
    env,
    undefined,
    checkout.root,
  );
  const key = seeded.lines.at(-1)?.trim() ?? '';
  const token = /Staff token: (st_\S+)/.exec(seeded.lines.join('\n'))?.[1] ?? '';
  if (!key.startsWith('pk_') || token === '')
    throw new Error(`seed bench printed no key or token:\n${seeded.text()}`);

  // PostgreSQL: each process serves its own /metrics (the storefront_db_*_total round-trip counters)
  // on a loopback port; with --workers separate the loops run in a `storefront worker` beside it.
  const separate = options.workers === 'separate';
  const metricsEnv = (port: number | null): NodeJS.ProcessEnv =>
    port === null ? {} : { METRICS_PORT: String(port), METRICS_HOST: '127.0.0.1' };
  const metricsHeaders: Record<string, string> = env.METRICS_TOKEN?.trim()
    ? { authorization: `Bearer ${env.METRICS_TOKEN.trim()}` }
    : {};
  const apiMetricsPort = databaseUrl !== null ? await freePort() : null;
  const server = await serve(
    { ...env, ...metricsEnv(apiMetricsPort), ...(separate ? { RUN_WORKERS: 'false' } : {}) },
    await freePort(),
    { checkout: checkout.root },
  );
  log(
    `bench: ${label}: server pid ${server.pid} ready at ${server.url} in ${server.startupSeconds.toFixed(1)} s` +
      (separate ? ' (RUN_WORKERS=false)' : ''),
  );
  let worker: Worker | null = null;
  let workerMetricsPort: number | null = null;
  if (separate) {
    workerMetricsPort = await freePort();
    const started = performance.now();
    const { child, tail } = startWorker(
      { ...env, RUN_WORKERS: 'false', ...metricsEnv(workerMetricsPort) },
      checkout.root,
    );
    await waitForWorker(child, tail, workerMetricsPort, metricsHeaders);
    if (child.pid === undefined) throw new Error('the worker has no pid');
    worker = { child, pid: child.pid, tail, startupSeconds: (performance.now() - started) / 1000 };
    log(`bench: ${label}: worker pid ${worker.pid} ready in ${worker.startupSeconds.toFixed(1)} s`);
  }
  const target: Target = {
    label,
    checkout,
    commit: commitOf(checkout.root),
    server,
    key: { 'x-publishable-key': key },
    admin: { authorization: `Bearer ${token}` },
    variantIds: [],
    products: [],
    databaseUrl,
    database,
    shipping: options.shipping,
    discountCode: options.promotions && label === 'this checkout' ? 'BENCH10' : null,
    worker,
    metricsPorts: { api: apiMetricsPort, worker: workerMetricsPort },
    metricsHeaders,
    rssIdle: { api: Number.NaN, worker: Number.NaN },
    rssAfter: null,
  };
  const catalog = await listCatalog(target);
  target.variantIds = catalog.variantIds;
  target.products = catalog.products;
  if (options.readers > 0) await checkSearches(target);
  if (options.shipping) await addShippingZone(target);
  if (target.discountCode !== null) await addPromotions(target, target.discountCode);
  for (const [who, tail] of [
    ['server', server.tail],
    ['worker', worker?.tail],
  ] as const) {
    if (tail === undefined) continue;
    if (tail.problems > 0) log(`bench: ${label}: the ${who} logged at start-up:\n${tail.text(10)}`);
    tail.problems = 0;
    tail.firstProblem = null;
  }
  target.rssIdle = rssOf(target);
  return target;
}

/** Posts to the Admin API as the store's staff: the new resource's id. */
async function adminPost(target: Target, url: string, body: object): Promise<string> {
  const response = await fetch(`${target.server.url}${url}`, {
    method: 'POST',
    headers: { ...target.admin, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer: unknown = await response.json();
  if (response.status !== 201) throw new Error(`${url}: ${response.status} ${JSON.stringify(answer)}`);
  return stringAt(answer, 'id');
}

/** An automatic 5 % off the order and a 10 % code combining with it, for --promotions. */
async function addPromotions(target: Target, code: string): Promise<void> {
  await adminPost(target, '/admin/v1/promotions', {
    name: '5 % off everything',
    automatic: true,
    action: { kind: 'percent', value: 5 },
    combinesWith: { order: true, shipping: true },
  });
  await adminPost(target, '/admin/v1/promotions', {
    name: 'Bench code',
    code,
    action: { kind: 'percent', value: 10 },
    combinesWith: { order: true, shipping: true },
  });
}

/** A United States zone with a flat and a weight-based method, for --shipping. */
async function addShippingZone(target: Target): Promise<void> {
  const post = (url: string, body: object) => adminPost(target, url, body);
  const zone = await post('/admin/v1/shipping/zones', { name: 'United States', areas: [{ country: 'US' }] });
  await post(`/admin/v1/shipping/zones/${zone}/methods`, { name: 'Ground', kind: 'flat', amount: 800 });
  await post(`/admin/v1/shipping/zones/${zone}/methods`, {
    name: 'Economy',
    kind: 'weight',
    weightTiers: [{ upToGrams: 100_000, amount: 500 }],
  });
}

/** Every product and variant of the store (the product list, then each product's detail). */
async function listCatalog(target: Target): Promise<{ products: CatalogProduct[]; variantIds: string[] }> {
  const pool = newPool(target.server.url, 8);
  try {
    const productIds: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await expectAnswer(
        call(pool, 'GET', `/storefront/v1/products?${query}`, target.key),
        200,
        'GET /products',
      );
      const items = field(page, 'items');
      if (Array.isArray(items)) for (const item of items) productIds.push(stringAt(item, 'id'));
      const next = field(page, 'nextCursor');
      cursor = typeof next === 'string' ? next : null;
    } while (cursor !== null);
    const variantIds: string[] = [];
    const products: CatalogProduct[] = [];
    await inParallel(productIds.length, 8, async (index) => {
      const id = productIds[index] ?? '';
      const product = await expectAnswer(
        call(pool, 'GET', `/storefront/v1/products/${id}`, target.key),
        200,
        'GET /products/:id',
      );
      const variants = field(product, 'variants');
      const prices: number[] = [];
      if (Array.isArray(variants)) {
        for (const variant of variants) {
          variantIds.push(stringAt(variant, 'id'));
          const price = field(variant, 'priceAmount');
          if (typeof price === 'number') prices.push(price);
        }
      }
      const words = stringAt(product, 'title')
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter((word) => word !== '');
      products.push({ id, words, prices });
    });
    if (variantIds.length === 0) throw new Error('the benchmark store has no variants');
    return { products, variantIds };
  } finally {
    await closePool(pool);
  }
}
