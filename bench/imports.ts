/**
 * `npm run bench:imports`: CSV in and out (decisions `csv-imports` and `csv-exports`) on PostgreSQL.
 *
 * Makes a database on DATABASE_URL's server and a store (`storefront seed bench` of one product),
 * writes a Shopify product CSV of `--products` products (two variants each, no images), starts
 * `storefront serve` (its in-process workers run the import), uploads the file and follows the job
 * to its end: the checking and the writing time, rows per second, and the server's peak RSS
 * (`VmHWM`). Then exports the catalog (`GET /admin/v1/exports?kind=products`), reading the stream
 * as it comes: time, bytes, rows per second and the peak RSS again. With `--export-only N` it
 * seeds N products with `storefront seed bench` instead and only exports them (a million in bounded
 * memory). Puts a section on top of bench/RESULTS.md.
 *
 *   DATABASE_URL=postgres://… npm run bench:imports -- [--products 100000] [--export-only N]
 *                                                       [--output FILE] [--no-write]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createDatabase } from './lib/databases.ts';
import { machine, rssMiBOf } from './lib/machine.ts';
import {
  positiveInteger,
  RESULTS_OPTIONS,
  resultsTarget,
  type ResultsTarget,
  UsageError,
} from './lib/options.ts';
import {
  benchEnv,
  cli,
  freePort,
  requireNode24,
  runBenchmark,
  serve,
  UNLIMITED_RATES,
} from './lib/processes.ts';
import { publish } from './lib/results.ts';

const HELP = `Usage: DATABASE_URL=postgres://… npm run bench:imports -- [options]

  --products N     products in the imported file, two variants each (default 100000)
  --export-only N  seed N products instead and only export them
  --output FILE    results file (default bench/RESULTS.md)
  --no-write       print the section, do not write the results file
`;

interface Options extends ResultsTarget {
  products: number;
  exportOnly: number | null;
  databaseUrl: string;
}

function parseOptions(argv: string[]): Options | null {
  const { values } = parseArgs({
    args: argv,
    options: {
      products: { type: 'string', default: '100000' },
      'export-only': { type: 'string' },
      ...RESULTS_OPTIONS,
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return null;
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new UsageError('set DATABASE_URL to a PostgreSQL server (see --help)');
  return {
    products: positiveInteger('products', values.products, 10, 10_000_000),
    exportOnly:
      values['export-only'] === undefined
        ? null
        : positiveInteger('export-only', values['export-only'], 10, 10_000_000),
    ...resultsTarget(values),
    databaseUrl,
  };
}

const log = (line: string): void => void process.stderr.write(`${line}\n`);
const int = (n: number): string => Math.round(n).toLocaleString('en-US');

/** A Shopify product CSV of `count` products with two variants each. */
function shopifyFile(count: number): Buffer {
  const lines = [
    'Handle,Title,Body (HTML),Tags,Option1 Name,Option1 Value,Variant SKU,Variant Grams,Variant Inventory Qty,Variant Price,Variant Compare At Price,Status',
  ];
  for (let i = 0; i < count; i++) {
    lines.push(
      `item-${i},Item ${i},"<p>Item ${i}, made well.</p>","tag${i % 50}, summer",Size,S,IMP-${i}-S,${100 + (i % 400)},${i % 40},${10 + (i % 90)}.${String(i % 100).padStart(2, '0')},,active`,
    );
    lines.push(
      `item-${i},,,,,M,IMP-${i}-M,${110 + (i % 400)},${i % 30},${11 + (i % 90)}.00,${20 + (i % 90)}.00,`,
    );
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

async function seedStore(slug: string, env: NodeJS.ProcessEnv, products: number): Promise<string> {
  const tail = await cli(['seed', 'bench', '--products', String(products), '--store', slug], env);
  const token = /Staff token: (st_\S+)/.exec(tail.lines.join('\n'))?.[1];
  if (!token) throw new Error(`seed bench printed no staff token:\n${tail.text()}`);
  return token;
}

async function main(options: Options): Promise<void> {
  requireNode24('npm run bench:imports');
  const { url } = await createDatabase(options.databaseUrl, 'storefront_bench_imports');
  const env = { ...benchEnv('imports'), ...UNLIMITED_RATES, DATABASE_URL: url, IMPORT_MAX_MB: '1024' };
  const slug = `bench-imports-${Date.now()}`;
  log(`seeding the store${options.exportOnly ? ` with ${int(options.exportOnly)} products` : ''}…`);
  const token = await seedStore(slug, env, options.exportOnly ?? 1);
  const server = await serve(env, await freePort());
  const auth = { authorization: `Bearer ${token}` };
  const lines: string[] = [];
  const idleRss = rssMiBOf(server.pid);

  if (options.exportOnly === null) {
    const file = shopifyFile(options.products);
    const form = new FormData();
    form.append('kind', 'products');
    form.append('file', new Blob([file], { type: 'text/csv' }), 'products.csv');
    log(`importing ${int(options.products)} products (${int(file.length / 1024 / 1024)} MiB)…`);
    const started = performance.now();
    const created = await fetch(`${server.url}/admin/v1/imports`, {
      method: 'POST',
      headers: auth,
      body: form,
    });
    if (created.status !== 202) throw new Error(`upload: ${created.status} ${await created.text()}`);
    const { id } = (await created.json()) as { id: string };
    const uploaded = performance.now();
    let checked = 0;
    let job: { status: string; errorCount: number; summary: { created: number }; progress: { rows: number } };
    for (;;) {
      job = (await (
        await fetch(`${server.url}/admin/v1/imports/${id}`, { headers: auth })
      ).json()) as typeof job;
      if (job.status === 'running' && checked === 0) checked = performance.now();
      if (job.status === 'completed' || job.status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const ended = performance.now();
    if (job.status !== 'completed' || job.summary.created !== options.products)
      throw new Error(`the import ended ${job.status}: ${JSON.stringify(job)}`);
    const seconds = (ended - started) / 1000;
    lines.push(
      `| import ${int(options.products)} products (${int(job.progress.rows)} rows, ${int(file.length / 1024 / 1024)} MiB) | ${seconds.toFixed(1)} s (upload ${((uploaded - started) / 1000).toFixed(1)} s, check ${((checked - uploaded) / 1000).toFixed(1)} s, write ${((ended - checked) / 1000).toFixed(1)} s) | ${int(job.progress.rows / seconds)} rows/s, ${int(options.products / seconds)} products/s | ${rssMiBOf(server.pid).toFixed(0)} MiB (peak ${peakMiB(server.pid)} MiB) |`,
    );
  }

  const count = options.exportOnly ?? options.products;
  log(`exporting ${int(count)} products…`);
  const started = performance.now();
  const response = await fetch(`${server.url}/admin/v1/exports?kind=products`, { headers: auth });
  let bytes = 0;
  let newlines = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (const byte of chunk) if (byte === 10) newlines++;
  }
  const seconds = (performance.now() - started) / 1000;
  lines.push(
    `| export ${int(count)} products (${int(bytes / 1024 / 1024)} MiB, ${int(newlines)} lines) | ${seconds.toFixed(1)} s | ${int(newlines / seconds)} lines/s | ${rssMiBOf(server.pid).toFixed(0)} MiB (peak ${peakMiB(server.pid)} MiB) |`,
  );

  const m = machine();
  const section = [
    `## CSV import and export (${m.date}, commit ${m.commit})`,
    '',
    `${m.cpu}, ${m.nproc} cores, ${m.memory}, Node ${m.node}, load ${m.load}. PostgreSQL; \`storefront serve\` with its workers in-process; the server's idle RSS ${idleRss.toFixed(0)} MiB.`,
    '',
    '| What | Time | Rate | Server RSS after (peak) |',
    '| --- | --- | --- | --- |',
    ...lines,
    '',
  ].join('\n');
  await publish(section, options, log);
}

/** The process's peak resident set (VmHWM), MiB. */
function peakMiB(pid: number): string {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return (Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024).toFixed(0);
  } catch {
    return '?';
  }
}

await runBenchmark(HELP, parseOptions, main);
