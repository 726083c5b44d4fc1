import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { INT8_OID, parseInt8 } from './int8.ts';
import { withPreparedStatements } from './pglite-prepared.ts';

/**
 * The embedded database's package, loaded by `openDatabase` only when it opens one (decision
 * `optional-packages-on-demand`): a process on PostgreSQL never loads PGlite.
 */

export { withPreparedStatements };

export const pgliteParsers = { [INT8_OID]: parseInt8 };

/**
 * What every embedded database opens with: the int8 parser and the extensions the migrations use
 * (pg_trgm and btree_gin, for search: decision `search-in-the-database`). A PGlite loads an extension's code only when it is
 * listed here.
 */
export const pgliteOptions = { parsers: pgliteParsers, extensions: { pg_trgm, btree_gin } };

/**
 * Opens the embedded database in `dataDir`, with PGlite's shared_buffers or `sharedBuffersMb`. A
 * new data directory starts as a copy of the cluster template when there is one (decision
 * `cluster-template`); without one, PGlite runs initdb in this process.
 */
export async function createPglite(
  dataDir: string,
  sharedBuffersMb: number | undefined,
  template: string = CLUSTER_TEMPLATE,
): Promise<PGlite> {
  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION')) && fs.existsSync(path.join(template, 'PG_VERSION')))
    copyCluster(template, dataDir);
  return PGlite.create({
    dataDir,
    ...pgliteOptions,
    ...(sharedBuffersMb === undefined
      ? {}
      : { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffersMb}MB`] }),
  });
}

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const INITDB = path.join(import.meta.dirname, 'pglite-initdb.ts');
/** The installed PGlite's version: a cluster is made by, and for, one version. */
const PGLITE_VERSION = (
  JSON.parse(
    fs.readFileSync(
      path.join(
        path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')),
        '..',
        'package.json',
      ),
      'utf8',
    ),
  ) as { version: string }
).version;

/**
 * A fresh cluster of this PGlite version, made once by the root `prepare` (`npm ci` in a
 * development checkout): a new embedded data directory starts as a copy of it, without initdb.
 */
export const CLUSTER_TEMPLATE = path.join(
  ROOT,
  'node_modules',
  '.cache',
  'storefront',
  `pglite-${PGLITE_VERSION}-cluster`,
);

/** Makes the cluster template at `dir` unless it is there (scripts/prepare.ts). */
export async function ensureClusterTemplate(dir: string = CLUSTER_TEMPLATE): Promise<string> {
  if (fs.existsSync(path.join(dir, 'PG_VERSION'))) return dir;
  const temp = `${dir}.${process.pid}.tmp`;
  fs.rmSync(temp, { recursive: true, force: true });
  await initdbApart(temp);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(temp, dir);
  return dir;
}

/** Copies a cluster into `dataDir`, PG_VERSION last: a copy cut short is no cluster and is made again. */
function copyCluster(from: string, dataDir: string): void {
  fs.cpSync(from, dataDir, { recursive: true, filter: (source) => source !== path.join(from, 'PG_VERSION') });
  fs.copyFileSync(path.join(from, 'PG_VERSION'), path.join(dataDir, 'PG_VERSION'));
}

/**
 * PGlite's initdb runs PostgreSQL's bootstrap in a second WebAssembly instance and copies and
 * restores its 128 MiB heap between steps: the process that runs it peaks near 600 MiB and keeps
 * about 70 MiB more for good. The template is made in a child process of its own, which gives all
 * of it back when it ends. Liftoff only: TurboFan would compile the bootstrap's hot code again for
 * a run of seconds (~1 GiB more).
 */
function initdbApart(dataDir: string): Promise<void> {
  fs.mkdirSync(dataDir, { recursive: true });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--liftoff-only', INITDB, dataDir], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new Error(
            `Creating the embedded database in ${dataDir} failed (${signal ?? `exit status ${code}`}): ${stderr.trim()}`,
          ),
        );
    });
  });
}
