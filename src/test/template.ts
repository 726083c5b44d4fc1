import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pgliteOptions } from '../db/pglite.ts';
import { openDatabase } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CACHE_DIR = path.join(ROOT, 'node_modules', '.cache', 'storefront-test');

/** The template's file name changes whenever a migration changes, so a stale template is never used. */
function templatePath(): string {
  const hash = createHash('sha256');
  const dir = path.join(ROOT, 'src', 'db', 'migrations');
  for (const file of fs.readdirSync(dir).sort())
    hash.update(file).update(fs.readFileSync(path.join(dir, file)));
  hash.update(fs.readFileSync(path.join(ROOT, 'src', 'db', 'migrate.ts')));
  return path.join(CACHE_DIR, `pglite-${hash.digest('hex').slice(0, 16)}.tar.gz`);
}

/**
 * A migrated, empty PGlite data directory as a tarball. Creating a PGlite database takes seconds;
 * loading this tarball takes a fraction of that, so every test file starts from it.
 */
export async function ensurePgliteTemplate(): Promise<string> {
  const file = templatePath();
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const pglite = await PGlite.create({ ...pgliteOptions });
  const db = await openDatabase({ databaseUrl: null, dataDir: '', pglite });
  await migrateToLatest(db.kysely);
  const dump = await pglite.dumpDataDir('gzip');
  await db.close();
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, Buffer.from(await dump.arrayBuffer()));
  fs.renameSync(temp, file);
  return file;
}

/** A fresh in-memory PGlite loaded from the template. */
export async function pgliteFromTemplate(): Promise<PGlite> {
  const file = await ensurePgliteTemplate();
  return PGlite.create({ loadDataDir: new Blob([fs.readFileSync(file)]), ...pgliteOptions });
}

/** Unpacks the template into a real data directory (for CLI and lock tests). */
export async function dataDirFromTemplate(dataDir: string): Promise<void> {
  const file = await ensurePgliteTemplate();
  const pglite = await PGlite.create({
    dataDir,
    loadDataDir: new Blob([fs.readFileSync(file)]),
    ...pgliteOptions,
  });
  await pglite.close();
}
