/**
 * Builds the typed client (`packages/client`) into `packages/client/dist` (git-ignored): the JS and
 * declarations tsc emits, plus the generated `schema.d.ts` (tsc does not copy .d.ts inputs), with
 * relative `.ts` specifiers in the declarations rewritten to `.js`.
 *
 * Run by `npm run client:build`, by the root `prepare` (so `npm ci` leaves a built client), by
 * `npm run check` and by `npm test` before the tests, which import the package as its users do
 * (`@storefront/client` → dist). Several of those may run at once in one checkout (two `npm test`,
 * a `check` beside a test run), so a build never leaves `dist` missing or half written while a test
 * reads it: it is built in a directory of its own beside it and moved in file by file (each rename
 * replaces a file at once), and skipped when `dist` was built from the same sources
 * (`dist/.build-hash`). `--force` builds anyway.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const pkg = path.join(root, 'packages', 'client');
const dist = path.join(pkg, 'dist');
const STAMP = '.build-hash';
const require = createRequire(import.meta.url);

/** A digest of everything the build reads: the package's sources and config, this script, tsc's version. */
function inputsHash(): string {
  const hash = createHash('sha256');
  const files = fs
    .readdirSync(path.join(pkg, 'src'), { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(pkg, 'src', name))
    .filter((file) => fs.statSync(file).isFile())
    .sort();
  for (const file of [...files, path.join(pkg, 'tsconfig.json'), import.meta.filename]) {
    hash.update(path.relative(root, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  hash.update((require('typescript/package.json') as { version: string }).version);
  return hash.digest('hex');
}

function readStamp(): string | null {
  try {
    return fs.readFileSync(path.join(dist, STAMP), 'utf8');
  } catch {
    return null;
  }
}

/** Builds dist (unless it is up to date and not `force`); says whether it built. */
export function buildClient(options: { force?: boolean } = {}): boolean {
  const hash = inputsHash();
  if (options.force !== true && readStamp() === hash) return false;
  const staging = fs.mkdtempSync(path.join(pkg, '.dist-'));
  try {
    const tsc = require.resolve('typescript/bin/tsc');
    const result = spawnSync(process.execPath, [tsc, '-p', pkg, '--outDir', staging], {
      cwd: root,
      stdio: 'inherit',
    });
    if (result.status !== 0) throw new Error(`tsc -p packages/client failed (exit ${result.status})`);
    fs.copyFileSync(path.join(pkg, 'src', 'schema.d.ts'), path.join(staging, 'schema.d.ts'));
    for (const name of fs.readdirSync(staging)) {
      if (!name.endsWith('.d.ts')) continue;
      const file = path.join(staging, name);
      const text = fs.readFileSync(file, 'utf8');
      fs.writeFileSync(file, text.replace(/(from '\.\/[\w.-]+)\.ts'/g, "$1.js'"));
    }
    // The stamp last: a dist whose move was cut short is built again next time.
    fs.writeFileSync(path.join(staging, STAMP), hash);
    const built = new Set(fs.readdirSync(staging));
    fs.mkdirSync(dist, { recursive: true });
    fs.rmSync(path.join(dist, STAMP), { force: true });
    for (const name of built)
      if (name !== STAMP) fs.renameSync(path.join(staging, name), path.join(dist, name));
    for (const name of fs.readdirSync(dist)) {
      if (!built.has(name)) fs.rmSync(path.join(dist, name), { recursive: true, force: true });
    }
    fs.renameSync(path.join(staging, STAMP), path.join(dist, STAMP));
    return true;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const built = buildClient({ force: process.argv.includes('--force') });
  process.stdout.write(
    built ? `Built ${path.relative(root, dist)}\n` : `${path.relative(root, dist)} is up to date\n`,
  );
}
