/**
 * `node bench/tracing.ts`: what OpenTelemetry tracing costs a read (decision `tracing-off-costs-nothing`, decision
 * `tracing-off-costs-nothing`). Starts `storefront serve` twice on the same data, tracing off (no
 * OTEL_* variable) and on (exporting over OTLP http/protobuf to a receiver in this process that
 * counts what arrives), and with `--compare DIR` a third time from another checkout (the code
 * before tracing). Each round loads every server in turn with the same reads, so the ratios of one
 * round compare measurements seconds apart; the section reports the median ratios. See
 * bench/README.md.
 *
 *   node bench/tracing.ts [--products 2000] [--duration 8] [--rounds 3] [--connections 32]
 *                         [--compare DIR] [--output bench/RESULTS.md] [--no-write]
 */
import autocannon from 'autocannon';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDatabase, databaseUrlFromEnv } from './lib/databases.ts';
import { commitOf, cpuSecondsOf, machine, root } from './lib/machine.ts';
import { compareCheckout, parseResultsCommandLine, type ResultsTarget } from './lib/options.ts';
import {
  cli,
  freePort,
  runBenchmark,
  type RunningServer,
  serve,
  temporaryDirectory,
  UNLIMITED_RATES,
} from './lib/processes.ts';
import { publish } from './lib/results.ts';

const HELP = `Usage: node bench/tracing.ts [options]

  --products N      benchmark products to seed (default 2000)
  --duration S      recorded seconds per server and read in each round (default 8)
  --rounds R        rounds; the order of the servers rotates each round (default 3)
  --connections C   concurrent connections (default 32)
  --compare DIR     another checkout (e.g. the commit before tracing) measured as "before"
  --output FILE     results file (default bench/RESULTS.md)
  --no-write        print the section, do not write the results file

On PostgreSQL (DATABASE_URL) every server reads one database created for the run; without it each
server gets an embedded database of its own, seeded alike.
`;

interface Options extends ResultsTarget {
  products: number;
  duration: number;
  rounds: number;
  connections: number;
  compare: string | null;
  databaseUrl: string | null;
}

function parseOptions(argv: string[]): Options | null {
  const parsed = parseResultsCommandLine(
    argv,
    {
      products: { default: 2000, min: 1, max: 1_000_000 },
      duration: { default: 8, min: 1, max: 3600 },
      rounds: { default: 3, min: 1, max: 50 },
      connections: { default: 32, min: 1, max: 10_000 },
    },
    { compare: { type: 'string' } },
  );
  if (parsed === null) return null;
  return {
    ...parsed.integers,
    compare: compareCheckout(parsed.values.compare),
    ...parsed.results,
    databaseUrl: databaseUrlFromEnv(),
  };
}

/** An OTLP/HTTP receiver that answers 200 and counts requests and bytes (spans are not decoded). */
async function startCollector(): Promise<{ url: string; exports: number; bytes: number; close(): void }> {
  const counts = { exports: 0, bytes: 0 };
  const server = http.createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (counts.bytes += chunk.length));
    req.on('end', () => {
      counts.exports += 1;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get exports() {
      return counts.exports;
    },
    get bytes() {
      return counts.bytes;
    },
    close: () => server.close(),
  };
}

interface Variant {
  name: string;
  server: RunningServer;
  key: string;
  cartId: string;
}

interface Read {
  name: string;
  path: (variant: Variant) => string;
}

const READS: Read[] = [
  { name: 'Products, first page (read cache)', path: () => '/storefront/v1/products?limit=20' },
  { name: 'A cart (no cache: 3–4 statements)', path: (variant) => `/storefront/v1/carts/${variant.cartId}` },
];

interface Measurement {
  requestsPerSecond: number;
  p99Ms: number;
  cpuMsPerRequest: number;
}

async function load(
  variant: Variant,
  read: Read,
  seconds: number,
  connections: number,
): Promise<Measurement> {
  const options = {
    url: `${variant.server.url}${read.path(variant)}`,
    connections,
    headers: { 'x-publishable-key': variant.key },
  };
  await autocannon({ ...options, duration: 1 });
  const cpuBefore = cpuSecondsOf(variant.server.pid);
  const result = await autocannon({ ...options, duration: seconds });
  const cpu = cpuSecondsOf(variant.server.pid) - cpuBefore;
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${variant.name} ${read.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return {
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    cpuMsPerRequest: (cpu * 1000) / result.requests.total,
  };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

async function main(options: Options): Promise<void> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const collector = await startCollector();
  const base: NodeJS.ProcessEnv = {
    ...process.env,
    ...UNLIMITED_RATES,
    LOG_LEVEL: 'warn',
    SEED_DEMO: '0',
    ADMIN_UI: '0',
    SHOP_UI: '0',
  };
  for (const name of Object.keys(base)) if (name.startsWith('OTEL_')) delete base[name];
  const databaseUrl = options.databaseUrl
    ? (await createDatabase(options.databaseUrl, `sf_bench_tracing_${Date.now()}`)).url
    : null;

  const checkouts = [
    { name: 'off', checkout: root, env: {} },
    { name: 'on', checkout: root, env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url } },
    {
      name: 'on, 10 % sampled',
      checkout: root,
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.1',
      },
    },
    ...(options.compare ? [{ name: 'before', checkout: options.compare, env: {} }] : []),
  ];
  const variants: Variant[] = [];
  let seededKey: string | null = null;
  for (const { name, checkout, env: extra } of checkouts) {
    const env: NodeJS.ProcessEnv = {
      ...base,
      ...extra,
      ...(databaseUrl
        ? { DATABASE_URL: databaseUrl }
        : { DATA_DIR: temporaryDirectory('sf-bench-tracing-') }),
    };
    // One seed on PostgreSQL; on PGlite one per server (each has a data directory of its own).
    if (seededKey === null || databaseUrl === null) {
      log(`bench: seeding ${options.products} products for ${name}…`);
      const seeded = await cli(
        ['seed', 'bench', '--products', String(options.products), '--store', 'bench-tracing'],
        env,
        undefined,
        checkout,
      );
      seededKey = seeded.lines.at(-1)?.trim() ?? null;
      if (!seededKey?.startsWith('pk_'))
        throw new Error(`no publishable key from the seed:\n${seeded.text()}`);
    }
    const server = await serve(env, await freePort(), { checkout });
    const key = seededKey;
    const created = await fetch(`${server.url}/storefront/v1/carts`, {
      method: 'POST',
      headers: { 'x-publishable-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ items: [] }),
    });
    if (created.status !== 201)
      throw new Error(`cart not created: ${created.status} ${await created.text()}`);
    const cartId = ((await created.json()) as { id: string }).id;
    variants.push({ name, server, key, cartId });
    log(`bench: ${name} listening at ${server.url}`);
  }

  const results = new Map<string, Measurement[]>();
  const requestsOn = { total: 0 };
  for (let round = 0; round < options.rounds; round++) {
    for (const read of READS) {
      const order = variants.map((_, i) => variants[(i + round) % variants.length]!);
      for (const variant of order) {
        const measured = await load(variant, read, options.duration, options.connections);
        if (variant.name === 'on') requestsOn.total += measured.requestsPerSecond * options.duration;
        const key = `${read.name}|${variant.name}`;
        results.set(key, [...(results.get(key) ?? []), measured]);
        log(
          `bench: round ${round + 1} ${read.name} ${variant.name}: ${measured.requestsPerSecond.toFixed(0)} req/s, p99 ${measured.p99Ms} ms, ${measured.cpuMsPerRequest.toFixed(3)} ms CPU/request`,
        );
      }
    }
  }
  // Let the last batch go out (OTEL_BSP_SCHEDULE_DELAY, 5 s by default).
  await new Promise((resolve) => setTimeout(resolve, 6000));

  const m = machine();
  const ratio = (read: Read, a: string, b: string, pick: (x: Measurement) => number): string => {
    const as = results.get(`${read.name}|${a}`) ?? [];
    const bs = results.get(`${read.name}|${b}`) ?? [];
    if (as.length === 0 || bs.length === 0) return '–';
    return median(as.map((x, i) => pick(x) / pick(bs[i]!))).toFixed(3);
  };
  const lines = [
    `## ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}: tracing off, on${options.compare ? ' and before' : ''}, ${databaseUrl ? 'PostgreSQL' : 'PGlite'}`,
    '',
    `Machine: ${m.nproc} × ${m.cpu}, ${m.memory}, ${m.os}, Node ${m.node}; load before: ${m.load}. Commit ${m.commit}${options.compare ? `; before: ${options.compare} (${commitOf(options.compare)})` : ''}. ${options.products} products, ${options.rounds} rounds of ${options.duration} s per server and read (after 1 s of warm-up), ${options.connections} connections; the order of the servers rotates each round. "on" exports over OTLP http/protobuf (batch defaults) to a receiver in the benchmark process.`,
    '',
    '| Read | Server | req/s (median) | p99 ms (median) | CPU ms/request (median) |',
    '| --- | --- | --- | --- | --- |',
    ...READS.flatMap((read) =>
      variants.map((variant) => {
        const list = results.get(`${read.name}|${variant.name}`) ?? [];
        return `| ${read.name} | ${variant.name} | ${median(list.map((x) => x.requestsPerSecond)).toFixed(0)} | ${median(list.map((x) => x.p99Ms))} | ${median(list.map((x) => x.cpuMsPerRequest)).toFixed(3)} |`;
      }),
    ),
    '',
    '| Read | Compared | req/s ratio | CPU/request ratio |',
    '| --- | --- | --- | --- |',
    ...READS.flatMap((read) =>
      [
        ['off', 'before'],
        ['on', 'off'],
        ['on, 10 % sampled', 'off'],
      ].map(
        ([a, b]) =>
          `| ${read.name} | ${a} ÷ ${b} | ${ratio(read, a!, b!, (x) => x.requestsPerSecond)} | ${ratio(read, a!, b!, (x) => x.cpuMsPerRequest)} |`,
      ),
    ),
    '',
    `Ratios are medians of each round's ratio (measurements seconds apart). The collector received ${collector.exports} exports, ${(collector.bytes / 1024 / 1024).toFixed(1)} MiB, for about ${Math.round(requestsOn.total)} requests to the fully sampled server (plus warm-ups).`,
  ];
  collector.close();
  await publish(lines.join('\n'), options, log);
}

await runBenchmark(HELP, parseOptions, main);
