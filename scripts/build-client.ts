/**
 * Builds the typed client (`packages/client`) into `packages/client/dist` (git-ignored): the JS and
 * declarations tsc emits, plus the generated `schema.d.ts` (tsc does not copy .d.ts inputs), with
 * relative `.ts` specifiers in the declarations rewritten to `.js`.
 *
 * Run by `npm run client:build`, by the root `prepare` (so `npm ci` leaves a built client) and by
 * `npm test` before the tests, which import the package as its users do (`@storefront/client` → dist).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const pkg = path.join(root, 'packages', 'client');
const dist = path.join(pkg, 'dist');

export function buildClient(): void {
  fs.rmSync(dist, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', pkg], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`tsc -p packages/client failed (exit ${result.status})`);
  fs.copyFileSync(path.join(pkg, 'src', 'schema.d.ts'), path.join(dist, 'schema.d.ts'));
  for (const name of fs.readdirSync(dist)) {
    if (!name.endsWith('.d.ts')) continue;
    const file = path.join(dist, name);
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, text.replace(/(from '\.\/[\w.-]+)\.ts'/g, "$1.js'"));
  }
}

if (import.meta.main) {
  buildClient();
  process.stdout.write(`Built ${path.relative(root, dist)}\n`);
}
