/**
 * The root `prepare` (run by `npm ci` and `npm install`): builds the typed client and the web front
 * ends when the development dependencies that build them are installed. A production install
 * (`npm ci --omit=dev`, docs/operations.md) has none: the front ends were built ahead by `npm run
 * build`, and this only says whether their builds are there.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const require = createRequire(path.join(root, 'packages', 'console', 'package.json'));

function installed(name: string): boolean {
  try {
    require.resolve(`${name}/package.json`);
    return true;
  } catch {
    return false;
  }
}

if (installed('vite') && installed('esbuild')) {
  const { buildClient } = await import('./build-client.ts');
  const { buildWebApps } = await import('./build-ui.ts');
  buildClient();
  await buildWebApps({ ifStale: false });
} else {
  const missing = ['console', 'shop'].filter(
    (app) => !fs.existsSync(path.join(root, 'packages', app, 'dist', 'index.html')),
  );
  process.stdout.write(
    missing.length === 0
      ? 'prepare: no development dependencies: using the console and shop built ahead (npm run build).\n'
      : `prepare: no development dependencies, and no build of the ${missing.join(' and ')}: run \`npm ci && npm run build\` before \`npm ci --omit=dev\` (docs/operations.md, "Production install"), or set ADMIN_UI=0 / SHOP_UI=0.\n`,
  );
}
