#!/usr/bin/env node
/* global process */
/**
 * The root `prepare`, run by `npm ci` and `npm install` with the Node.js that runs npm. Plain
 * JavaScript on purpose: it must run on any Node.js, as bin/storefront.js does.
 *
 * - With the development packages (`npm ci`), npm puts node_modules/.bin first on the PATH, so this
 *   runs on the project's Node.js 24 (the `node` devDependency) and builds the typed client and the
 *   web front ends (scripts/prepare.ts).
 * - A production install (`npm ci --omit=dev`, docs/operations.md) has no build tools: the front
 *   ends were built ahead by `npm run build`, and this only says whether their builds are there.
 * - On a Node.js older than 24 without the devDependency (a production install on Debian 12's Node
 *   20, say), it says what the host lacks instead of failing on the TypeScript sources.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REQUIRED_MAJOR = 24;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'packages', 'console', 'package.json'));

function installed(name) {
  try {
    require.resolve(`${name}/package.json`);
    return true;
  } catch {
    return false;
  }
}

const missing = ['console', 'shop'].filter(
  (app) => !fs.existsSync(path.join(root, 'packages', app, 'dist', 'index.html')),
);
const builds =
  missing.length === 0
    ? 'the console and shop built ahead (npm run build) are there'
    : `there is no build of the ${missing.join(' and ')}: run \`npm ci && npm run build\` before \`npm ci --omit=dev\` (docs/operations.md, "Production install"), or set ADMIN_UI=0 / SHOP_UI=0`;

if (Number(process.versions.node.split('.')[0]) < REQUIRED_MAJOR) {
  process.stdout.write(
    [
      `prepare: this is Node.js ${process.versions.node}, and Storefront runs on Node.js ${REQUIRED_MAJOR} or newer.`,
      `  This install has no Node.js ${REQUIRED_MAJOR} of its own (\`npm ci --omit=dev\` leaves out the \`node\` development package).`,
      `  Install Node.js ${REQUIRED_MAJOR} on this host (docs/operations.md, "Production install"); the packages installed now serve it as they are.`,
      `  Nothing was built; ${builds}.`,
      '',
    ].join('\n'),
  );
} else if (!(installed('vite') && installed('esbuild'))) {
  process.stdout.write(`prepare: no development dependencies: ${builds}.\n`);
} else {
  await import('./prepare.ts');
}
