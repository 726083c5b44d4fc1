import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.ts';
import { readSnapshot } from '../db/snapshot.ts';
import type { Database } from '../db/tables.ts';
import { loadKeyring } from '../secrets/keyring.loader.ts';
import { rotateSecrets } from '../secrets/rotate.ts';
import { findStoreWithSlug } from '../stores/stores.service.ts';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_FORMAT_VERSION,
  ArchiveError,
  KEY_CHECK_PURPOSE,
  KEY_CHECK_TEXT,
  MANIFEST_NAME,
  keyCheckContext,
  tableFile,
  type ArchiveTable,
  type Manifest,
} from './archive.format.ts';
import { Spool } from './spool.ts';
import {
  carriedTables,
  readCatalog,
  rowsCarried,
  textSettings,
  type CatalogTable,
  type TableRule,
} from './tables.ts';
import { TarWriter } from './tar.ts';

/** The root secrets of the process (SECRET_KEY, SECRET_KEY_PREVIOUS), as the configuration holds them. */
export interface ArchiveSecrets {
  secretKey: string | null;
  secretKeyPrevious: readonly string[];
}

export interface ExportOptions {
  /** The archive to write; refused if it exists. */
  out: string;
  /** Only this store (`--store SLUG`). */
  storeSlug?: string | null;
  secrets: ArchiveSecrets;
  /** Rows written so far of all rows to write. */
  onProgress?: (done: number, total: number) => void;
  /** Something the operator should know (printed on stderr by the CLI). */
  onWarning?: (message: string) => void;
  /** Rows per keyset batch. */
  batchRows?: number;
  /** zlib level: 1 (fastest) to 9 (smallest). */
  gzipLevel?: number;
}

export interface ExportSummary {
  file: string;
  bytes: number;
  rows: number;
  manifest: Manifest;
}

const storefrontVersion = (): string =>
  (
    JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    }
  ).version;

/**
 * `storefront export` (DESIGN D50): writes every table the archive carries (decision
 * `archive-tables`), or one store's rows of them, into a versioned archive (decision
 * `archive-format`). Everything is read in one read-only REPEATABLE READ transaction, so the
 * archive is one consistent snapshot even while the service runs on PostgreSQL; each table is read
 * in primary-key order, a batch at a time, never as a whole. The archive is written under a
 * temporary name and renamed when complete, so a failed export leaves no half archive behind.
 *
 * Sealed values stay sealed (decision `archive-secrets`). Before anything is written the export
 * checks that its keyring opens every sealed value, so an archive never carries secrets nobody can
 * open: run it with the SECRET_KEY the service runs with.
 */
export async function exportArchive(db: Db, options: ExportOptions): Promise<ExportSummary> {
  const out = path.resolve(options.out);
  if (fs.existsSync(out))
    throw new ArchiveError(`${options.out} exists already: remove it or choose another name.`);
  if (!fs.existsSync(path.dirname(out)))
    throw new ArchiveError(`The directory of ${options.out} does not exist.`);
  const store = options.storeSlug ? await findStoreWithSlug({ db: db.kysely }, options.storeSlug) : null;
  if (options.storeSlug && !store)
    throw new ArchiveError(`There is no store with slug "${options.storeSlug}".`);
  const keyring = await loadKeyring(db.kysely, options.secrets);
  const createdAt = new Date().toISOString();

  const partial = `${out}.partial`;
  const gzip = zlib.createGzip({ level: options.gzipLevel ?? 6 });
  const written = pipeline(gzip, fs.createWriteStream(partial, { mode: 0o600 }));
  written.catch(() => undefined); // awaited below; a failure also surfaces as the writes' error
  const tar = new TarWriter(gzip, new Date(createdAt));
  let rows = 0;
  try {
    const manifest = await readSnapshot(db.kysely, async (trx) => {
      await textSettings(trx);
      const catalog = await readCatalog(trx);
      const tables = carriedTables(catalog);
      const report = await rotateSecrets(trx, keyring, options.secrets, true);
      const unreadable = report.reports.reduce((sum, kind) => sum + kind.unreadable, 0);
      if (unreadable > 0)
        throw new ArchiveError(
          `${unreadable} stored secrets cannot be decrypted with this process's SECRET_KEY (and SECRET_KEY_PREVIOUS), ` +
            `so no one could open them from the archive. Run the export with the SECRET_KEY the service runs with; ` +
            `\`storefront secrets check\` lists what cannot be decrypted.`,
        );
      const sealedByOlderRoots = report.reports.reduce((sum, kind) => sum + kind.resealed, 0);
      if (sealedByOlderRoots > 0)
        options.onWarning?.(
          `${sealedByOlderRoots} stored secrets are sealed with a key from SECRET_KEY_PREVIOUS: the import will need that key too ` +
            `(run \`storefront secrets rotate\` before exporting to avoid this).`,
        );
      const counts = new Map<string, number>();
      for (const { table, rule } of tables)
        counts.set(table.name, await countRows(trx, table, rule, store?.id ?? null));
      const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
      options.onProgress?.(0, total);

      const archived: ArchiveTable[] = [];
      for (const { table, rule } of tables) {
        const spool = new Spool(`${partial}.${table.name}.tmp`);
        try {
          const count = await spoolTable(
            trx,
            table,
            rule,
            store?.id ?? null,
            spool,
            options.batchRows ?? 2000,
            (n) => {
              rows += n;
              options.onProgress?.(rows, total);
            },
          );
          const file = tableFile(table.name);
          await tar.add(file, spool.size, spool.read());
          archived.push({
            name: table.name,
            file,
            columns: table.columns.filter((c) => !c.generated).map((c) => ({ name: c.name, type: c.type })),
            rows: count,
            bytes: spool.size,
            sha256: spool.digest(),
          });
        } finally {
          await spool.dispose();
        }
      }
      options.onProgress?.(total, total);
      const { rows: applied } = await sql<{ name: string }>`
        SELECT name FROM kysely_migration ORDER BY name DESC LIMIT 1`.execute(trx);
      return {
        format: ARCHIVE_FORMAT,
        formatVersion: ARCHIVE_FORMAT_VERSION,
        schemaVersion: applied[0]!.name,
        createdAt,
        source: { database: db.kind, storefrontVersion: storefrontVersion() },
        store: store ? { id: store.id, slug: store.slug } : null,
        secrets: {
          keyCheck: keyring.seal(KEY_CHECK_PURPOSE, KEY_CHECK_TEXT, keyCheckContext(createdAt)),
          sealedByOlderRoots,
        },
        tables: archived,
      } satisfies Manifest;
    });
    const text = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8');
    await tar.add(MANIFEST_NAME, text.length, [text]);
    await tar.finish();
    gzip.end();
    await written;
    fs.renameSync(partial, out);
    return { file: out, bytes: fs.statSync(out).size, rows, manifest };
  } catch (error) {
    gzip.destroy();
    await written.catch(() => undefined);
    fs.rmSync(partial, { force: true });
    throw error;
  }
}

async function countRows(
  db: Kysely<Database>,
  table: CatalogTable,
  rule: TableRule,
  storeId: string | null,
): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM ${sql.table(table.name)} WHERE ${rowsCarried(rule, storeId)}`.execute(db);
  return rows[0]!.n;
}

/**
 * Writes a table's rows as JSON lines into `spool`, in primary-key order, `batch` rows per query:
 * keyset pagination (`WHERE (pk) > (last pk)`), never OFFSET, so each batch costs the same however
 * deep into the table it is. Generated columns are left out (the import computes them again).
 * Returns the number of rows.
 */
async function spoolTable(
  db: Kysely<Database>,
  table: CatalogTable,
  rule: TableRule,
  storeId: string | null,
  spool: Spool,
  batch: number,
  onRows: (n: number) => void,
): Promise<number> {
  if (table.primaryKey.length === 0)
    throw new ArchiveError(`Table ${table.name} has no primary key: the archive cannot read it in order.`);
  const values = table.columns
    .filter((column) => !column.generated)
    .map((column) => sql`${sql.ref(column.name)}::text`);
  const typeOf = new Map(table.columns.map((column) => [column.name, column.type]));
  const key = sql.join(table.primaryKey.map((column) => sql.ref(column)));
  const keyText = sql.join(
    table.primaryKey.map((column, i) => sql`${sql.ref(column)}::text AS ${sql.ref(`k${i}`)}`),
  );
  const carried = rowsCarried(rule, storeId);
  let after: string[] | null = null;
  let count = 0;
  for (;;) {
    const last: string[] | null = after;
    const past: RawBuilder<unknown> = last
      ? sql`AND (${key}) > (${sql.join(
          table.primaryKey.map((column, i) => sql`${last[i]}::${sql.raw(typeOf.get(column)!)}`),
        )})`
      : sql``;
    const { rows }: { rows: Record<string, string>[] } = await sql<Record<string, string>>`
      SELECT to_json(ARRAY[${sql.join(values)}]::text[])::text AS line, ${keyText}
      FROM ${sql.table(table.name)}
      WHERE ${carried} ${past}
      ORDER BY ${key}
      LIMIT ${batch}`.execute(db);
    if (rows.length === 0) return count;
    let text = '';
    for (const row of rows) text += `${row.line}\n`;
    await spool.write(Buffer.from(text, 'utf8'));
    count += rows.length;
    onRows(rows.length);
    if (rows.length < batch) return count;
    const final: Record<string, string> = rows.at(-1)!;
    after = table.primaryKey.map((_, i) => final[`k${i}`]!);
  }
}
