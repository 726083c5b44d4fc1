/**
 * `npm run bench:overhead`: what metrics and tracing cost (decision `metrics-off-until-readable`). Starts one `storefront serve` per
 * variant of this checkout, each on its own embedded database with the same seeded catalog, and
 * runs the same loads against each, round after round, alternating: a cached catalog read and a
 * cart creation (a write: SQL, the outbox, no cache). Reports each variant's requests a second and
 * the server's CPU time per 1,000 requests, as ratios to the baseline of the same round.
 *
 *   npm run bench:overhead -- [--duration 8] [--rounds 3] [--connections 32] [--products 1000]
 *                             [--output bench/RESULTS.md] [--no-write]
 *
 * Variants: `baseline` (neither metrics nor tracing), `metrics` (METRICS_TOKEN set: every request
 * counted), `tracing` (OTEL_EXPORTER_OTLP_ENDPOINT at a local receiver that accepts and drops the
 * spans, every request sampled), `both`.
 */
import http from 'node:http';
import { parseArgs } from 'node:util';
import { startLoad } from './lib/load.ts';
import { cpuSecondsOf, machine } from './lib/machine.ts';
import {
  positiveInteger,
  RESULTS_OPTIONS,
  resultsTarget,
  type ResultsTarget,
  UsageError,
} from './lib/options.ts';
import {
  cleanup,
  cli,
  freePort,
  onCleanup,
  runMain,
  type RunningServer,
  serve,
  temporaryDirectory,
  UNLIMITED_RATES,
} from './lib/processes.ts';
import { publish } from './lib/results.ts';

const HELP = `Usage: npm run bench:overhead -- [options]

  --duration S      recorded seconds per load, variant and round (default 8)
  --rounds R        rounds; each runs every load on every variant, alternating (default 3)
  --connections C   concurrent connections (default 32)
  --products N      catalog size (default 1000)
  --output FILE     results file (default bench/RESULTS.md)
  --variants LIST   which of baseline,control,metrics,tracing,both run (default all;
                    baseline always; control is a second baseline: the run's noise)
  --no-write        print the section, do not write the results file
`;

interface Options extends ResultsTarget {
  duration: number;
  rounds: number;
  connections: number;
  products: number;
  /** Which variants run (`baseline` always). */
  variants: string[];
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '8' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '32' },
      products: { type: 'string', default: '1000' },
      ...RESULTS_OPTIONS,
      variants: { type: 'string', default: 'control,metrics,tracing,both' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    process.exit(0);
  }
  return {
    duration: positiveInteger('--duration', values.duration, 1, 600),
    rounds: positiveInteger('--rounds', values.rounds, 1, 50),
    connections: positiveInteger('--connections', values.connections, 1, 1000),
    products: positiveInteger('--products', values.products, 1, 1_000_000),
    ...resultsTarget(values),
    variants: values.variants.split(',').map((name) => name.trim()),
  };
}

/** An OTLP/HTTP receiver that accepts every export and keeps nothing (counts the requests). */
async function otlpSink(): Promise<{ url: string; exports: () => number }> {
  let exports = 0;
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      exports += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, exports: () => exports };
}

interface Load {
  name: string;
  path: string;
  method?: 'POST';
  body?: string;
}

const LOADS: Load[] = [
  { name: 'catalog read (cached)', path: '/storefront/v1/products?limit=20' },
  { name: 'cart creation (write)', path: '/storefront/v1/carts', method: 'POST', body: '{}' },
];

interface Variant {
  name: string;
  env: Record<string, string>;
  server?: RunningServer;
  key?: string;
}

async function load(url: string, key: string, l: Load, seconds: number, connections: number) {
  return startLoad({
    url: `${url}${l.path}`,
    method: l.method ?? 'GET',
    headers: { 'x-publishable-key': key, 'content-type': 'application/json' },
    ...(l.body === undefined ? {} : { body: l.body }),
    duration: seconds,
    connections,
  });
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

async function main(): Promise<void> {
  const opts = options();
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const sink = await otlpSink();
  const tracing = {
    OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    OTEL_TRACES_SAMPLER: 'always_on',
  };
  const metrics = { METRICS_TOKEN: 'bench-metrics-token-bench-metrics-token-0' };
  const variants: Variant[] = [
    { name: 'baseline', env: {} },
    // The baseline again: how far two identical servers differ in this run (the noise).
    { name: 'control', env: {} },
    { name: 'metrics', env: metrics },
    { name: 'tracing', env: tracing },
    { name: 'both', env: { ...metrics, ...tracing } },
  ].filter((variant) => variant.name === 'baseline' || opts.variants.includes(variant.name));
  for (const variant of variants) {
    const env = {
      ...process.env,
      ...UNLIMITED_RATES,
      DATABASE_URL: '',
      DATA_DIR: temporaryDirectory(`storefront-overhead-${variant.name}-`),
      SEED_DEMO: '0',
      LOG_LEVEL: 'warn',
      ADMIN_UI: '0',
      SHOP_UI: '0',
      ...variant.env,
    };
    log(`bench: ${variant.name}: seeding ${opts.products} products…`);
    const seeded = await cli(['seed', 'bench', '--products', String(opts.products), '--store', 'bench'], env);
    variant.key = seeded.lines.at(-1)?.trim() ?? '';
    if (!variant.key.startsWith('pk_')) throw new Error(`no key from seed bench:\n${seeded.text()}`);
    variant.server = await serve(env, await freePort());
  }

  // results[load][variant] = per round: requests/s and CPU ms per 1,000 requests
  const results = new Map<string, Map<string, { rps: number[]; cpu: number[] }>>();
  for (let round = 1; round <= opts.rounds; round += 1) {
    for (const l of LOADS) {
      // Alternate the order each round, so that no variant always runs right after another.
      const order = round % 2 === 0 ? [...variants].reverse() : variants;
      for (const variant of order) {
        const server = variant.server!;
        log(`bench: round ${round}/${opts.rounds}: ${l.name} on ${variant.name}…`);
        await load(server.url, variant.key!, l, 1, opts.connections); // warm-up
        const cpuBefore = cpuSecondsOf(server.pid);
        const result = await load(server.url, variant.key!, l, opts.duration, opts.connections);
        const cpu = cpuSecondsOf(server.pid) - cpuBefore;
        const byVariant = results.get(l.name) ?? new Map<string, { rps: number[]; cpu: number[] }>();
        results.set(l.name, byVariant);
        const entry = byVariant.get(variant.name) ?? { rps: [], cpu: [] };
        byVariant.set(variant.name, entry);
        entry.rps.push(result.requests.average);
        entry.cpu.push((cpu * 1000 * 1000) / Math.max(1, result.requests.total));
        if (result.non2xx > 0) log(`bench:   ${result.non2xx} answers were not 2xx`);
      }
    }
  }

  const m = machine();
  const lines = [
    `## Metrics and tracing overhead (${new Date().toISOString().slice(0, 10)}, commit ${m.commit})`,
    '',
    `\`npm run bench:overhead -- --duration ${opts.duration} --rounds ${opts.rounds} --connections ${opts.connections} --products ${opts.products}\`: one \`serve\` per variant on its own embedded database, loads alternating round by round; medians over the rounds. ${m.nproc} × ${m.cpu}; Node ${m.node}. Tracing exports every span (always_on) over OTLP http/protobuf to a local receiver that drops them (${sink.exports()} exports received).`,
    '',
    '| Load | Variant | Requests/s | × baseline | Server CPU ms per 1,000 requests | × baseline |',
    '| ---- | ------- | ---------: | ---------: | -------------------------------: | ---------: |',
  ];
  for (const [name, byVariant] of results) {
    const base = byVariant.get('baseline')!;
    for (const variant of variants) {
      const entry = byVariant.get(variant.name)!;
      const rps = median(entry.rps);
      const cpu = median(entry.cpu);
      lines.push(
        `| ${name} | ${variant.name} | ${Math.round(rps).toLocaleString('en-US')} | ${(rps / median(base.rps)).toFixed(2)} | ${cpu.toFixed(0)} | ${(cpu / median(base.cpu)).toFixed(2)} |`,
      );
    }
  }
  await publish(`${lines.join('\n')}\n`, opts, log);
  await cleanup();
}

await runMain(async () => {
  try {
    await main();
  } catch (error) {
    if (error instanceof UsageError) process.stderr.write(HELP);
    throw error;
  }
});
