import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.ts';
import { readSnapshot } from '../db/snapshot.ts';
import type { Database } from '../db/tables.ts';
import { Keyring, type RootSecret } from '../lib/keyring.ts';
import { loadKeyring } from '../secrets/keyring.loader.ts';
import { findStoreWithSlug } from '../stores/stores.service.ts';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_FORMAT_VERSION,
  ArchiveError,
  DEFAULT_LIMITS,
  KEY_CHECK_PURPOSE,
  KEY_CHECK_TEXT,
  MAC_NAME,
  MANIFEST_NAME,
  dataRows,
  keyCheckContext,
  sizeText,
  tableFile,
  type ArchiveKeySource,
  type ArchiveTable,
  type Manifest,
} from './archive.format.ts';
import { exportKey, manifestMac, type ArchiveSecrets } from './archive.keys.ts';
import { lineResealer, type LineResealer } from './reseal.ts';
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

export interface ExportOptions {
  /** The archive to write; refused if it exists. */
  out: string;
  /** Only this store (`--store SLUG`). */
  storeSlug?: string | null;
  /** The process's root secrets: they open what the database holds sealed. */
  secrets: ArchiveSecrets;
  /** The archive key of `--key-file`; without it the archive is sealed and signed with SECRET_KEY. */
  keyFile?: RootSecret | null;
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
  /** The rows of data it holds (`dataRows`: what `storefront import` counts too). */
  rows: number;
  manifest: Manifest;
  /** Sealed values re-sealed under the archive key on the way (sealed by another root in the database). */
  resealed: number;
  sealedWith: ArchiveKeySource;
}

const storefrontVersion = (): string =>
  (
    JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    }
  ).version;

/**
 * `storefront export` (decision `archive-format`): writes every table the archive carries (decision
 * `archive-tables`), or one store's rows of them, into a versioned archive (decision
 * `archive-format`). Everything is read in one read-only REPEATABLE READ transaction, so the
 * archive is one consistent snapshot even while the service runs on PostgreSQL; each table is read
 * in primary-key order, a batch at a time, never as a whole. The archive is written under a
 * temporary name and renamed when complete, so a failed export leaves no half archive behind.
 *
 * Sealed values stay sealed, under one archive key (decision `archive-secrets`): the key file of
 * `--key-file`, else SECRET_KEY (without either the export refuses). A value the database holds
 * sealed by another root is opened and sealed again under the archive key on its way, so an archive
 * never carries a root secret of its source, and one store's archive under its own key opens
 * nothing of the source's. The archive key signs the manifest (`manifest.mac`, decision
 * `archive-signature`).
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
  const key = exportKey(options.secrets, options.keyFile ?? null);
  const keyring = await loadKeyring(db.kysely, options.secrets);
  const archiveKeyring = new Keyring([key.root]);
  const createdAt = new Date().toISOString();

  const partial = `${out}.partial`;
  const gzip = zlib.createGzip({ level: options.gzipLevel ?? 6 });
  const written = pipeline(gzip, fs.createWriteStream(partial, { mode: 0o600 }));
  written.catch(() => undefined); // awaited below; a failure also surfaces as the writes' error
  const tar = new TarWriter(gzip, new Date(createdAt));
  let rows = 0;
  let resealed = 0;
  try {
    const manifest = await readSnapshot(db.kysely, async (trx) => {
      await textSettings(trx);
      const catalog = await readCatalog(trx);
      const tables = carriedTables(catalog);
      const counts = new Map<string, number>();
      for (const { table, rule } of tables)
        counts.set(table.name, await countRows(trx, table, rule, store?.id ?? null));
      const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
      options.onProgress?.(0, total);

      const archived: ArchiveTable[] = [];
      for (const { table, rule } of tables) {
        const spool = new Spool(`${partial}.${table.name}.tmp`);
        const reseal = lineResealer(table, keyring, archiveKeyring);
        try {
          const count = await spoolTable(trx, table, rule, store?.id ?? null, spool, {
            batch: options.batchRows ?? 2000,
            reseal,
            onRows: (n) => {
              rows += n;
              options.onProgress?.(rows, total);
            },
            onLongLine: (line, bytes) =>
              options.onWarning?.(
                `line ${line} of table ${table.name} is ${sizeText(bytes)}, more than an import reads by default: import this archive with --max-line-mib ${Math.ceil(bytes / 1024 / 1024)}.`,
              ),
          });
          resealed += reseal?.resealed ?? 0;
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
          keyCheck: archiveKeyring.seal(KEY_CHECK_PURPOSE, KEY_CHECK_TEXT, keyCheckContext(createdAt)),
          sealedWith: key.source,
        },
        tables: archived,
      } satisfies Manifest;
    });
    const text = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8');
    await tar.add(MANIFEST_NAME, text.length, [text]);
    const mac = Buffer.from(manifestMac(key.root, text), 'utf8');
    await tar.add(MAC_NAME, mac.length, [mac]);
    await tar.finish();
    gzip.end();
    await written;
    fs.renameSync(partial, out);
    return {
      file: out,
      bytes: fs.statSync(out).size,
      rows: dataRows(manifest),
      manifest,
      resealed,
      sealedWith: key.source,
    };
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
 * `reseal` re-seals the lines' sealed values under the archive key; a line longer than an import
 * reads by default is reported (`onLongLine`). Returns the number of rows.
 */
async function spoolTable(
  db: Kysely<Database>,
  table: CatalogTable,
  rule: TableRule,
  storeId: string | null,
  spool: Spool,
  options: {
    batch: number;
    reseal: LineResealer | null;
    onRows: (n: number) => void;
    onLongLine: (line: number, bytes: number) => void;
  },
): Promise<number> {
  const { batch, reseal, onRows, onLongLine } = options;
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
    for (const [i, row] of rows.entries()) {
      const line = reseal ? reseal(row.line!) : row.line!;
      // A UTF-16 unit is at most 3 bytes of UTF-8: only a line that long can be over the bound.
      if (
        line.length * 3 > DEFAULT_LIMITS.maxLineBytes &&
        Buffer.byteLength(line) > DEFAULT_LIMITS.maxLineBytes
      )
        onLongLine(count + i + 1, Buffer.byteLength(line));
      text += `${line}\n`;
    }
    await spool.write(Buffer.from(text, 'utf8'));
    count += rows.length;
    onRows(rows.length);
    if (rows.length < batch) return count;
    const final: Record<string, string> = rows.at(-1)!;
    after = table.primaryKey.map((_, i) => final[`k${i}`]!);
  }
}
