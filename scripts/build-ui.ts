/**
 * Builds the web front ends (decision `console-built-not-committed`) with Vite: the merchant console (packages/console → its
 * dist, served at /admin) and the reference shop (packages/shop → its dist, served at /shop). Nothing built is committed: the root `prepare` (so `npm ci`) and
 * `npm start` run this, and `npm test` before the browser tests.
 *
 *   node scripts/build-ui.ts             build every front end (npm run ui:build)
 *   node scripts/build-ui.ts --if-stale  build only those whose sources changed since their last build
 *
 * A build records a hash of its inputs (the app's sources and config, and the client, blocks and
 * address packages' sources) in dist/.source-hash; --if-stale compares it, so `npm start` costs a
 * few milliseconds when nothing changed.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const packages = path.join(root, 'packages');

export interface WebApp {
  name: string;
  dir: string;
}

export const WEB_APPS: readonly WebApp[] = [
  { name: 'console', dir: path.join(packages, 'console') },
  { name: 'shop', dir: path.join(packages, 'shop') },
];

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((relative) => path.join(dir, relative))
    .filter((file) => fs.statSync(file).isFile())
    .sort();
}

/** A hash of everything the build of `app` reads. */
export function sourceHash(app: WebApp): string {
  const hash = createHash('sha256');
  const inputs = [
    ...filesUnder(path.join(app.dir, 'src')),
    ...filesUnder(path.join(app.dir, 'public')),
    path.join(app.dir, 'index.html'),
    path.join(app.dir, 'vite.config.ts'),
    path.join(app.dir, 'package.json'),
    ...filesUnder(path.join(packages, 'client', 'src')),
    ...filesUnder(path.join(packages, 'blocks', 'src')),
    ...filesUnder(path.join(packages, 'address', 'src')),
    path.join(root, 'package-lock.json'),
  ];
  for (const file of inputs) {
    if (!fs.existsSync(file)) continue;
    hash.update(path.relative(root, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

const hashFile = (app: WebApp) => path.join(app.dir, 'dist', '.source-hash');

export function isStale(app: WebApp): boolean {
  const file = hashFile(app);
  return !fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== sourceHash(app);
}

export async function buildWebApp(app: WebApp): Promise<void> {
  const { build } = await import('vite');
  const started = performance.now();
  // Vite sets NODE_ENV=production in this process; callers that go on running (npm test, npm
  // start) must keep their own (the dev mailbox exists only outside production).
  const nodeEnv = process.env.NODE_ENV;
  try {
    await build({ configFile: path.join(app.dir, 'vite.config.ts'), root: app.dir, logLevel: 'warn' });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  fs.writeFileSync(hashFile(app), sourceHash(app));
  process.stdout.write(
    `Built the ${app.name} (${path.relative(root, path.join(app.dir, 'dist'))}) in ${Math.round(performance.now() - started)} ms\n`,
  );
}

/** Builds the apps (only the stale ones with `ifStale`). */
export async function buildWebApps({ ifStale = false } = {}): Promise<void> {
  for (const app of WEB_APPS) {
    if (ifStale && !isStale(app)) continue;
    await buildWebApp(app);
  }
}

if (import.meta.main) {
  await buildWebApps({ ifStale: process.argv.includes('--if-stale') });
}
