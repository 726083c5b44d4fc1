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
 * (pg_trgm and btree_gin, for search: D48). A PGlite loads an extension's code only when it is
 * listed here.
 */
export const pgliteOptions = { parsers: pgliteParsers, extensions: { pg_trgm, btree_gin } };

/** Opens the embedded database in `dataDir`, with PGlite's shared_buffers or `sharedBuffersMb`. */
export function createPglite(dataDir: string, sharedBuffersMb: number | undefined): Promise<PGlite> {
  return PGlite.create({
    dataDir,
    ...pgliteOptions,
    ...(sharedBuffersMb === undefined
      ? {}
      : { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffersMb}MB`] }),
  });
}
