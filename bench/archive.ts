/**
 * `npm run bench:archive`: moving a large embedded store to PostgreSQL with `storefront export` and
 * `storefront import` (decision `archive-format`).
 *
 * Seeds N products (`--products`, default 1,000,000) into a fresh temporary DATA_DIR with
 * `storefront seed bench`, exports the embedded database to an archive, imports the archive into a
 * database created for the run on the PostgreSQL server of `--postgres` (default
 * postgres://postgres@127.0.0.1:5432/postgres; dropped afterwards), and reports the time and the
 * peak RSS of the export and the import process (each run under /usr/bin/time -v), the archive's
 * size, and a check that the row counts agree. Puts a section on top of bench/RESULTS.md.
 *
 *   npm run bench:archive -- [--products 1000000] [--postgres URL] [--output bench/RESULTS.md] [--no-write]
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { createDatabase, withClient } from './lib/databases.ts';
import { machine, root } from './lib/machine.ts';
import { parseResultsCommandLine, type ResultsTarget, UsageError } from './lib/options.ts';
import { cli, runMain, temporaryDirectory } from './lib/processes.ts';
import { publish } from './lib/results.ts';

const HELP = `Usage: npm run bench:archive -- [options]

  --products N      products in the embedded store to move (default 1000000)
  --postgres URL    the PostgreSQL server to import into (default postgres://postgres@127.0.0.1:5432/postgres);
                    a database storefront_archive_<timestamp> is created there and dropped afterwards
  --output FILE     results file (default bench/RESULTS.md)
  --no-write        print the section, do not write the results file

Needs /usr/bin/time (GNU time) for the peak RSS of the export and import processes.
`;

interface Options extends ResultsTarget {
  products: number;
  postgres: string;
}

function parseOptions(argv: string[]): Options | null {
  const parsed = parseResultsCommandLine(
    argv,
    { products: { default: 1_000_000, min: 1, max: 10_000_000 } },
    {
      postgres: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    },
  );
  if (parsed === null) return null;
  return { ...parsed.integers, postgres: parsed.values.postgres, ...parsed.results };
}

const log = (line: string): void => void process.stderr.write(`${line}\n`);

interface Measured {
  seconds: number;
  peakRssMiB: number;
  stdout: string;
}

/**
 * Runs `storefront <args>` under /usr/bin/time -v; its wall time and peak RSS (the largest resident
 * set the process had, from the kernel's accounting at exit).
 */
function measured(args: string[], env: NodeJS.ProcessEnv): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      '/usr/bin/time',
      ['-v', process.execPath, path.join(root, 'bin', 'storefront.js'), ...args],
      {
        cwd: root,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      // The progress lines (not a terminal: a line per tenth).
      for (const line of chunk.toString().split('\n')) if (/^\s+\d+ %/.test(line)) log(`  ${line.trim()}`);
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const seconds = (performance.now() - started) / 1000;
      const kib = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1];
      if (code !== 0 || !kib) {
        reject(
          new Error(`storefront ${args.join(' ')} failed (exit ${String(code)}):\n${stderr.slice(-4000)}`),
        );
        return;
      }
      resolve({ seconds, peakRssMiB: Number(kib) / 1024, stdout });
    });
  });
}

const figure = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

async function main(): Promise<void> {
  let options: Options | null;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n\n${HELP}`);
  }
  if (options === null) {
    process.stdout.write(HELP);
    return;
  }
  if (!existsSync('/usr/bin/time'))
    throw new UsageError('/usr/bin/time (GNU time) is needed for the peak RSS');
  const host = machine();
  const dataDir = temporaryDirectory('storefront-archive-');
  const archive = path.join(temporaryDirectory('storefront-archive-out-'), 'store.tar.gz');
  const secretKey = `bench-archive-secret-key-${Date.now()}-0123456789`;
  const embedded: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: '',
    DATA_DIR: dataDir,
    SEED_DEMO: '0',
    LOG_LEVEL: 'warn',
    SECRET_KEY: secretKey,
  };

  log(`bench: seeding ${figure(options.products)} products into ${dataDir}…`);
  const seedStarted = performance.now();
  await cli(['seed', 'bench', '--products', String(options.products)], embedded);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  log(`bench: seeded in ${seedSeconds.toFixed(1)} s; exporting…`);

  const exported = await measured(['export', '--out', archive], embedded);
  const archiveBytes = statSync(archive).size;
  // The manifest's tables: the uncompressed size, and the largest table (the export's spool on disk).
  const manifest = JSON.parse(
    execFileSync('tar', ['-xzOf', archive, 'manifest.json'], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    }),
  ) as { tables: { name: string; bytes: number }[] };
  const uncompressed = manifest.tables.reduce((sum, table) => sum + table.bytes, 0);
  const largest = manifest.tables.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  log(
    `bench: exported in ${exported.seconds.toFixed(1)} s, peak RSS ${exported.peakRssMiB.toFixed(0)} MiB; importing…`,
  );

  const target = await createDatabase(options.postgres, `storefront_archive_${Date.now()}`);
  const imported = await measured(['import', archive], {
    ...process.env,
    DATABASE_URL: target.url,
    SEED_DEMO: '0',
    LOG_LEVEL: 'warn',
    SECRET_KEY: secretKey,
  });
  log(`bench: imported in ${imported.seconds.toFixed(1)} s, peak RSS ${imported.peakRssMiB.toFixed(0)} MiB`);

  const counts = await withClient(target.url, async (client) => {
    const result = await client.query<{ products: string; variants: string }>(
      'SELECT (SELECT count(*) FROM products) AS products, (SELECT count(*) FROM variants) AS variants',
    );
    return { products: Number(result.rows[0]!.products), variants: Number(result.rows[0]!.variants) };
  });
  const rows = Number(
    /Wrote .*?: ([\d,]+) rows/.exec(exported.stdout)?.[1]?.replaceAll(',', '') ?? Number.NaN,
  );
  const ok = counts.products === options.products && counts.variants === options.products * 2;

  const section = `## ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}: export and import, ${figure(options.products)} products, PGlite → PostgreSQL

- Date: ${host.date}
- Machine: ${host.nproc} CPUs (${host.cpu}), ${host.memory} memory, ${host.os}; load average at start ${host.load}
- Node ${host.node}, commit ${host.commit}
- Source: PGlite (embedded, fresh temporary DATA_DIR) seeded with \`storefront seed bench --products ${options.products}\` in ${seedSeconds.toFixed(1)} s (${figure(options.products)} products with 2 variants each, one store); target: PostgreSQL ${target.version} (a database created for the run, blank: the import migrates it). Each command a child process \`node bin/storefront.js …\` under \`/usr/bin/time -v\` (wall time and maximum resident set size); same SECRET_KEY on both sides.

| Step | Rows | Time | Rows/s | Peak RSS |
| --- | ---: | ---: | ---: | ---: |
| \`storefront export --out store.tar.gz\` (PGlite) | ${figure(rows)} | ${exported.seconds.toFixed(1)} s | ${figure(rows / exported.seconds)} | ${figure(exported.peakRssMiB)} MiB |
| \`storefront import store.tar.gz\` (PostgreSQL) | ${figure(rows)} | ${imported.seconds.toFixed(1)} s | ${figure(rows / imported.seconds)} | ${figure(imported.peakRssMiB)} MiB |

- Archive: ${figure(archiveBytes / 1024 / 1024, 1)} MiB (${figure(archiveBytes / options.products, 0)} bytes per product, gzip level 6); ${figure(uncompressed / 1024 / 1024, 1)} MiB of JSON lines uncompressed, the largest table \`${largest.name}\` ${figure(largest.bytes / 1024 / 1024, 1)} MiB (what the export spools to disk beside the archive, one table at a time).
- After the import PostgreSQL holds ${figure(counts.products)} products and ${figure(counts.variants)} variants: ${ok ? 'as many as were seeded' : '**not what was seeded**'}.
`;
  await publish(section, options, log);
  if (!ok) throw new Error('the imported row counts differ from the seeded ones');
}

await runMain(main);
