/**
 * `npm run bench:stall`: what a stalled PostgreSQL costs the requests in flight (issue 42, item 1).
 *
 * Creates a database for the run on the server of DATABASE_URL (dropped afterwards), seeds a
 * benchmark store (`seed bench`), starts `storefront serve` (with its worker loops) and puts it
 * under a purchase load: `--buyers` buyers, each in a loop: cart → checkout → the sandbox's
 * confirmation → the order read back; a readiness probe asks `/readyz` every 500 ms. After
 * `--warmup` seconds it stops every PostgreSQL backend of the service with SIGSTOP (the sessions
 * whose `application_name` starts with `storefront` on the run's database; nothing else on the
 * server is touched), waits `--stall` seconds, sends SIGCONT, and lets the load run `--after`
 * seconds more. Needs to be allowed to signal the server's processes (root, or the postgres user).
 *
 * Every request is timed one by one (a client timeout of 120 s, longer than any stall). It reports
 * the requests in flight at any moment of the stall (their statuses and the longest), the readiness
 * probes that started during the stall and after it, how long after SIGCONT the first purchase
 * completed, and the log lines of the server (warnings, error-level lines, stack traces).
 *
 *   npm run bench:stall -- [--buyers 16] [--warmup 5] [--stall 30] [--after 15] [--products 50]
 *                          [--env NAME=VALUE]… [--output bench/RESULTS.md] [--no-write]
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDatabase, withClient } from './lib/databases.ts';
import { commitOf, machine, type Machine } from './lib/machine.ts';
import { parseResultsCommandLine, type ResultsTarget, UsageError } from './lib/options.ts';
import { cli, freePort, isRecord, onCleanup, runBenchmark, serve, UNLIMITED_RATES } from './lib/processes.ts';
import { publish } from './lib/results.ts';

const HELP = `Usage: DATABASE_URL=postgres://… npm run bench:stall -- [options]

  --buyers N        concurrent buyers, each in a purchase loop (default 16)
  --warmup S        seconds of load before the stall (default 5)
  --stall S         seconds the service's PostgreSQL backends stay stopped (SIGSTOP) (default 30)
  --after S         seconds of load after SIGCONT (default 15)
  --products N      products to seed (default 50)
  --env NAME=VALUE  an environment variable for the server (repeatable), e.g. DATABASE_STATEMENT_TIMEOUT=5s
  --output FILE     results file (default bench/RESULTS.md)
  --no-write        print the section, do not write the results file
`;

interface Options extends ResultsTarget {
  buyers: number;
  warmup: number;
  stall: number;
  after: number;
  products: number;
  env: Record<string, string>;
}

function parseOptions(argv: string[]): Options | null {
  const parsed = parseResultsCommandLine(
    argv,
    {
      buyers: { default: 16, min: 1, max: 1000 },
      warmup: { default: 5, min: 1, max: 600 },
      stall: { default: 30, min: 1, max: 600 },
      after: { default: 15, min: 1, max: 600 },
      products: { default: 50, min: 1, max: 100_000 },
    },
    { env: { type: 'string', multiple: true, default: [] } },
  );
  if (parsed === null) return null;
  const env: Record<string, string> = {};
  for (const pair of parsed.values.env) {
    const at = pair.indexOf('=');
    if (at < 1) throw new UsageError(`--env takes NAME=VALUE, got "${pair}"`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return { ...parsed.integers, env, ...parsed.results };
}

/** One request: when it started and ended (ms since the run began), and its status (0: no answer). */
interface Timed {
  what: string;
  start: number;
  end: number;
  status: number;
}

const CLIENT_TIMEOUT_MS = 120_000;

async function main(options: Options): Promise<void> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl)
    throw new UsageError('set DATABASE_URL to a PostgreSQL server (the run makes a database of its own)');
  const log = (line: string): void => void process.stderr.write(`${line}\n`);

  const created = await createDatabase(adminUrl, `storefront_bench_stall_${Date.now().toString(36)}`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...UNLIMITED_RATES,
    DATABASE_URL: created.url,
    LOG_LEVEL: 'warn',
    SEED_DEMO: '0',
    PENDING_ORDERS_PER_CLIENT: '1000000',
    NODE_ENV: 'development',
  };
  delete env.REDIS_URL;
  log(`bench: ${created.name}: seeding ${options.products} products…`);
  const seeded = await cli(
    ['seed', 'bench', '--products', String(options.products), '--store', 'stall'],
    env,
  );
  const key = seeded.lines.at(-1)?.trim() ?? '';
  if (!key.startsWith('pk_')) throw new Error(`seed bench printed no key:\n${seeded.text()}`);
  const server = await serve({ ...env, ...options.env }, await freePort());
  log(`bench: server pid ${server.pid} at ${server.url}`);

  const headers = { 'x-publishable-key': key };
  const variantIds = await variantsOf(server.url, headers);
  const t0 = performance.now();
  const now = (): number => performance.now() - t0;
  const requests: Timed[] = [];
  const readiness: Timed[] = [];
  let running = true;

  const timed = async (
    into: Timed[],
    what: string,
    url: string,
    init: RequestInit = {},
  ): Promise<{ status: number; body: unknown }> => {
    const start = now();
    let status = 0;
    let body: unknown = null;
    try {
      const response = await fetch(url, { ...init, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
      status = response.status;
      body = await response.json().catch(() => null);
    } catch {
      // No answer within the client's timeout (or the connection failed): status 0.
    }
    into.push({ what, start, end: now(), status });
    return { status, body };
  };
  const json = (body: object, extra: Record<string, string> = {}): RequestInit => ({
    method: 'POST',
    headers: { ...headers, ...extra, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const purchases: number[] = [];

  const buyer = async (n: number): Promise<void> => {
    for (let i = 0; running; i++) {
      const variantId = variantIds[(n * 7 + i) % variantIds.length]!;
      const cart = await timed(
        requests,
        'cart',
        `${server.url}/storefront/v1/carts`,
        json({ items: [{ variantId, quantity: 1 }] }),
      );
      if (cart.status !== 201) {
        await sleep(200);
        continue;
      }
      const cartId = field(cart.body, 'id');
      const checkout = await timed(
        requests,
        'checkout',
        `${server.url}/storefront/v1/checkout`,
        json({ cartId, email: `buyer-${n}-${i}@example.com` }, { 'idempotency-key': randomUUID() }),
      );
      if (checkout.status !== 201) {
        await sleep(200);
        continue;
      }
      const payment = isRecord(checkout.body) && isRecord(checkout.body.payment) ? checkout.body.payment : {};
      const confirm = await timed(
        requests,
        'confirm',
        `${server.url}/sandbox/v1/payments/${String(payment.ref)}/confirm`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ clientSecret: payment.clientSecret, paymentMethod: 'pm_card_visa' }),
        },
      );
      if (confirm.status !== 200) {
        await sleep(200);
        continue;
      }
      const order = isRecord(checkout.body) && isRecord(checkout.body.order) ? checkout.body.order : {};
      const read = await timed(requests, 'order', `${server.url}/storefront/v1/orders/${String(order.id)}`, {
        headers,
      });
      if (read.status === 200) purchases.push(now());
    }
  };
  const prober = async (): Promise<void> => {
    while (running) {
      await timed(readiness, 'readyz', `${server.url}/readyz`);
      await sleep(500);
    }
  };

  const load = [...Array.from({ length: options.buyers }, (_, n) => buyer(n)), prober()];
  await sleep(options.warmup * 1000);

  const pids = await withClient(adminUrl, async (client) => {
    const result = await client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name LIKE 'storefront%'`,
      [created.name],
    );
    return result.rows.map((row) => row.pid);
  });
  const signal = (name: NodeJS.Signals): void => {
    for (const pid of pids) {
      try {
        process.kill(pid, name);
      } catch (error) {
        // A backend that ended meanwhile (its connection was closed) needs no signal.
        if ((error as { code?: string }).code !== 'ESRCH')
          log(`bench: ${name} ${pid}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
  // Whatever happens, no backend stays stopped.
  onCleanup(() => signal('SIGCONT'));
  const logsBefore = server.tail.lines.length;
  const stallStart = now();
  signal('SIGSTOP');
  log(`bench: stopped ${pids.length} backends (${pids.join(', ')}) for ${options.stall} s`);
  await sleep(options.stall * 1000);
  signal('SIGCONT');
  const stallEnd = now();
  log('bench: SIGCONT sent');
  await sleep(options.after * 1000);
  running = false;
  await Promise.all(load);

  const inFlight = requests.filter((r) => r.start < stallEnd && r.end > stallStart);
  const probesDuring = readiness.filter((r) => r.start >= stallStart && r.start < stallEnd);
  const probesAfter = readiness.filter((r) => r.start >= stallEnd + 1000);
  const firstPurchase = purchases.find((at) => at > stallEnd);
  const logLines = server.tail.lines.slice(logsBefore);
  const levels = logLines.map((line) => Number(/"level":(\d+)/.exec(line)?.[1] ?? 0));
  for (const [i, line] of logLines.entries())
    if ((levels[i] ?? 0) >= 40) log(`bench: server logged: ${summary(line)}`);
  const longest = inFlight.reduce<Timed | null>(
    (a, r) => (a && a.end - a.start >= r.end - r.start ? a : r),
    null,
  );
  const seconds = (ms: number): string => (ms / 1000).toFixed(1);
  const settings = Object.entries(options.env)
    .map(([name, value]) => `${name}=${value}`)
    .join(', ');

  const text = [
    `## ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}: a stalled PostgreSQL under a purchase load`,
    '',
    `\`npm run bench:stall -- --buyers ${options.buyers} --stall ${options.stall}\`${settings ? ` (${settings})` : ''}, commit ${commitOf()}, ${describe(machine())}, PostgreSQL ${created.version}: ${pids.length} backends of the service stopped with SIGSTOP for ${options.stall} s.`,
    '',
    '| Measure | Value |',
    '| --- | --- |',
    `| Requests in flight during the stall | ${inFlight.length} |`,
    `| Their statuses | ${statusCounts(inFlight)} |`,
    `| The longest of them | ${longest ? `${seconds(longest.end - longest.start)} s (${longest.what}, ${longest.status || 'no answer'})` : '–'} |`,
    `| Of them answered before SIGCONT | ${inFlight.filter((r) => r.end < stallEnd).length} |`,
    `| Readiness probes started during the stall | ${statusCounts(probesDuring)}, longest ${seconds(Math.max(0, ...probesDuring.map((r) => r.end - r.start)))} s |`,
    `| Readiness probes from 1 s after SIGCONT | ${statusCounts(probesAfter)} |`,
    `| First paid purchase after SIGCONT | ${firstPurchase === undefined ? 'none' : `${seconds(firstPurchase - stallEnd)} s`} |`,
    `| Purchases before / after the stall | ${purchases.filter((at) => at < stallStart).length} in ${options.warmup} s / ${purchases.filter((at) => at > stallEnd).length} in ${options.after} s |`,
    `| Server log lines from the stall on (warn / error / with a stack) | ${levels.filter((l) => l === 40).length} / ${levels.filter((l) => l >= 50).length} / ${logLines.filter((line) => line.includes('    at ')).length} |`,
    '',
  ].join('\n');
  await publish(text, options, log);
}

/** A log line's level, message and error message (and whether it carries a stack). */
function summary(line: string): string {
  try {
    const parsed = JSON.parse(line) as { level?: number; msg?: string; err?: unknown };
    const err = isRecord(parsed.err) ? `${String(parsed.err.message)} (with a stack)` : String(parsed.err);
    return `${parsed.level} ${parsed.msg}: ${err}`;
  } catch {
    return line.slice(0, 300);
  }
}

function describe(m: Machine): string {
  return `${m.nproc} × ${m.cpu}, ${m.memory}, Node ${m.node}, load ${m.load}`;
}

function field(body: unknown, name: string): string {
  return isRecord(body) ? String(body[name]) : '';
}

function statusCounts(list: Timed[]): string {
  const counts = new Map<number, number>();
  for (const r of list) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  return (
    [...counts]
      .sort((a, b) => a[0] - b[0])
      .map(([status, n]) => `${n} × ${status === 0 ? 'no answer' : status}`)
      .join(', ') || 'none'
  );
}

/** The variant ids of the store's first page of products. */
async function variantsOf(url: string, headers: Record<string, string>): Promise<string[]> {
  const list = (await (await fetch(`${url}/storefront/v1/products?limit=50`, { headers })).json()) as {
    items: { id: string }[];
  };
  const ids: string[] = [];
  for (const item of list.items) {
    const product = (await (await fetch(`${url}/storefront/v1/products/${item.id}`, { headers })).json()) as {
      variants: { id: string }[];
    };
    ids.push(...product.variants.map((v) => v.id));
  }
  if (ids.length === 0) throw new Error('the benchmark store has no variants');
  return ids;
}

await runBenchmark(HELP, parseOptions, main);
