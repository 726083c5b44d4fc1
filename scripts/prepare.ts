/**
 * The root `prepare`'s build step, run by scripts/prepare.js on Node.js 24 when the development
 * packages are installed: builds the typed client and the web front ends, and makes the embedded
 * database's cluster template (decision `cluster-template`: a first `npm start` copies it instead of
 * running PGlite's initdb, which peaks near 600 MiB).
 */
import { buildClient } from './build-client.ts';
import { buildWebApps } from './build-ui.ts';
import { ensureClusterTemplate } from '../src/db/pglite.ts';

buildClient();
await buildWebApps({ ifStale: false });
const started = performance.now();
const template = await ensureClusterTemplate();
process.stdout.write(
  `prepare: the embedded database's cluster template is in ${template} (${Math.round(performance.now() - started)} ms)\n`,
);
