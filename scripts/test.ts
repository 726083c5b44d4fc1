/**
 * `npm test`: prepares the database template once, then runs every `*.test.ts` file under src/,
 * scripts/ and each package's test/ folder with node:test.
 *
 * Embedded (default): a migrated PGlite data directory is cached as a tarball; each test file loads
 * it into memory. PostgreSQL (DATABASE_URL set): that database is migrated once and each test file
 * clones it with CREATE DATABASE … TEMPLATE (see src/test/harness.ts).
 *
 * Extra arguments are passed to node --test (e.g. `npm test -- --test-name-pattern=cursor`), and
 * file paths narrow the run (`npm test -- src/http/errors.test.ts`).
 *
 * The typed client (packages/client) is built first: its tests import it as `@storefront/client`,
 * the built dist its users get.
 */
import { spawn } from 'node:child_process';
import { globSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { ensurePgliteTemplate } from '../src/test/template.ts';
import { buildClient } from './build-client.ts';
import { buildWebApps } from './build-ui.ts';

const root = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const fileArgs = args.filter((arg) => arg.endsWith('.test.ts'));
const flagArgs = args.filter((arg) => !arg.endsWith('.test.ts'));
/** Every test file: the service's and scripts' next to their code, and each package's in its test/. */
const TEST_GLOBS = ['src/**/*.test.ts', 'scripts/**/*.test.ts', 'packages/*/test/**/*.test.ts'];
const files = fileArgs.length > 0 ? fileArgs : globSync(TEST_GLOBS, { cwd: root }).sort();

buildClient();
// The browser tests load the built console; rebuild it when its sources changed.
await buildWebApps({ ifStale: true });

const config = loadConfig({ ...process.env, SEED_DEMO: '0' });
if (config.databaseUrl) {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: '', poolSize: 1 });
  await migrateToLatest(db.kysely);
  await db.close();
  process.stdout.write(`Testing on PostgreSQL (${new URL(config.databaseUrl).pathname.slice(1)})\n`);
} else {
  await ensurePgliteTemplate();
  process.stdout.write('Testing on embedded PGlite\n');
}

const concurrency = process.env.TEST_CONCURRENCY ?? String(config.databaseUrl ? 4 : 3);
const child = spawn(
  process.execPath,
  ['--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...flagArgs, ...files],
  { cwd: root, stdio: 'inherit', env: { ...process.env, STOREFRONT_TEST: '1' } },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
