/**
 * `node --liftoff-only src/db/pglite-initdb.ts DIR`: creates a PostgreSQL cluster in DIR (PGlite's
 * initdb) and exits. `ensureClusterTemplate` runs it in a process of its own to make the cluster
 * template (decision `cluster-template`), so that the ~600 MiB initdb takes go back when it ends.
 */
import { enableCompileCache } from 'node:module';

enableCompileCache();
const dataDir = process.argv[2];
if (!dataDir) {
  process.stderr.write('usage: pglite-initdb.ts DIR\n');
  process.exit(2);
}
const { PGlite } = await import('@electric-sql/pglite');
const pglite = await PGlite.create({ dataDir });
await pglite.close();
