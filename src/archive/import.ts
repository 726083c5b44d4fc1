import { createHash } from 'node:crypto';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { sql, type Kysely } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/tables.ts';
import { migrateTo, migrateToLatest, migrationNames } from '../db/migrate.ts';
import { SecretUnreadableError, type RootSecret } from '../lib/keyring.ts';
import { hasGeneratedRoot, loadKeyring, rootOfRow } from '../secrets/keyring.loader.ts';
import { rotateSecrets } from '../secrets/rotate.ts';
import {
  ArchiveError,
  KEY_CHECK_PURPOSE,
  MANIFEST_NAME,
  keyCheckContext,
  parseManifest,
  tableFile,
  type ArchiveTable,
  type Manifest,
} from './archive.format.ts';
import type { ArchiveSecrets } from './export.ts';
import { readCatalog, textSettings, type CatalogTable } from './tables.ts';
import { readTar, TarError, type TarEntry } from './tar.ts';

export interface ImportOptions {
  file: string;
  /** The importing process's root secrets: everything sealed is re-sealed under its SECRET_KEY. */
  secrets: ArchiveSecrets;
  /** Rows loaded so far of all rows. */
  onProgress?: (done: number, total: number) => void;
  /** What the import is doing now ("Checking the archive"), for the operator. */
  onStage?: (message: string) => void;
  /** Rows per INSERT, at most. */
  batchRows?: number;
  /** Bytes of JSON lines per INSERT, at most. */
  batchBytes?: number;
  /** What `checkArchive` found, when the caller checked the archive before opening the database. */
  checked?: CheckedArchive;
}

export interface ImportSummary {
  manifest: Manifest;
  rows: number;
  /** Sealed values re-sealed under this process's current root. */
  resealed: number;
  /** Migrations applied after the load (an archive of an older schema). */
  migrated: string[];
  /** The archive's generated root became this database's (no SECRET_KEY here, none generated yet). */
  adoptedRoot: boolean;
}

/** Tables that are not data: rows in them do not make a database "not empty". */
const NOT_DATA = new Set(['kysely_migration', 'kysely_migration_lock', 'read_versions', 'platform_secrets']);
const PLATFORM_SECRETS = 'platform_secrets';
/** manifest.json is small; a huge one is not ours. */
const MAX_MANIFEST = 16 * 1024 * 1024;
/** Tables of at least this many rows are analysed as soon as they are loaded. */
const ANALYZE_FROM = 1000;
/** The generated root's row is small; so is the table. */
const MAX_CAPTURED = 1024 * 1024;

/**
 * `storefront import` (DESIGN D50): loads an archive of `storefront export` into an empty database
 * of either kind, in one transaction, so a failure leaves the database as it was.
 *
 * 1. The archive is read once to check it (its format, the schema it was written with, and every
 *    table's checksum and row count) before the database is touched.
 * 2. The database is migrated to the archive's schema if it is behind (a blank database); a
 *    database migrated past it is refused, since the archive's rows would miss the migrations'
 *    data steps.
 * 3. In one transaction: the database must hold no data; the archive's key check must open with
 *    this process's keyring (else nothing is loaded); every table is loaded in the archive's order
 *    (parents first) with multi-row INSERTs, generated columns computed again; identity sequences
 *    are moved past the loaded values; then every sealed value is re-sealed under this process's
 *    current root, as `storefront secrets rotate` does (decision `archive-secrets`).
 * 4. Migrations that came after the archive's schema run on the loaded data; the tables are
 *    analysed for the planner.
 */
export async function importArchive(db: Db, options: ImportOptions): Promise<ImportSummary> {
  const { manifest, platformSecrets } =
    options.checked ?? (await checkArchive(options.file, options.onStage));
  const known = migrationNames();
  const applied = await appliedMigrations(db.kysely);
  const archived = known.indexOf(manifest.schemaVersion);
  const past = applied.filter((name) => !known.includes(name) || known.indexOf(name) > archived);
  if (past.length > 0)
    throw new ArchiveError(
      `This database is migrated past the archive's schema (${manifest.schemaVersion}; the database has ${applied.at(-1)!}). ` +
        `Import into a blank database (without running \`storefront migrate\` first), so that the archive's rows go through the migrations that came after it.`,
    );
  if (applied.at(-1) !== manifest.schemaVersion) await migrateTo(db.kysely, manifest.schemaVersion);

  const total = manifest.tables
    .filter((table) => table.name !== PLATFORM_SECRETS)
    .reduce((sum, table) => sum + table.rows, 0);
  let rows = 0;
  const loaded = await db.kysely.transaction().execute(async (trx) => {
    await textSettings(trx);
    const catalog = new Map((await readCatalog(trx)).map((table) => [table.name, table]));
    await refuseData(trx, [...catalog.keys()]);

    // The keyring: this process's roots, plus the root the archive's source generated (if any).
    // Without SECRET_KEY and without a root of its own, this database takes the archive's root as
    // its own: every value then opens as it is, and key-derived values (cursors) stay the same.
    const archiveRoots = platformSecrets
      .map((row) => rootOfRow(row, 'generated root of the archive'))
      .filter((root): root is RootSecret => root !== null);
    const adoptedRoot =
      options.secrets.secretKey === null && archiveRoots.length > 0 && !(await hasGeneratedRoot(trx));
    if (adoptedRoot)
      await insertRows(
        trx,
        catalog.get(PLATFORM_SECRETS)!,
        manifest.tables.find((table) => table.name === PLATFORM_SECRETS)!,
        platformSecrets.map((row) => row.line),
      );
    const keyring = await loadKeyring(trx, options.secrets, adoptedRoot ? [] : archiveRoots);
    try {
      keyring.open(
        KEY_CHECK_PURPOSE,
        manifest.secrets.keyCheck,
        keyCheckContext(manifest.createdAt),
        "The archive's key check",
      );
    } catch (error) {
      if (!(error instanceof SecretUnreadableError)) throw error;
      throw new ArchiveError(
        "The archive's secrets were sealed with a SECRET_KEY this process does not have. " +
          'Set SECRET_KEY_PREVIOUS to the SECRET_KEY of the process that exported it (and SECRET_KEY to the key this installation keeps), then import again.',
      );
    }

    options.onStage?.('Loading');
    options.onProgress?.(0, total);
    await loadTables(trx, options, manifest, catalog, (n) => {
      rows += n;
      options.onProgress?.(rows, total);
    });
    await moveSequences(
      trx,
      manifest.tables.map((table) => catalog.get(table.name)!),
    );

    const rotated = await rotateSecrets(trx, keyring, options.secrets, false);
    const unreadable = rotated.reports.filter((report) => report.unreadable > 0);
    if (unreadable.length > 0)
      throw new ArchiveError(
        `Some of the archive's secrets cannot be decrypted with this process's keyring: ${unreadable
          .map((report) => `${report.unreadable} ${report.what}`)
          .join(', ')}. ` +
          'Set SECRET_KEY_PREVIOUS to every SECRET_KEY the source used (comma-separated), then import again. Nothing was imported.',
      );
    return {
      resealed: rotated.reports.reduce((sum, report) => sum + report.resealed, 0),
      adoptedRoot,
    };
  });
  options.onProgress?.(total, total);
  options.onStage?.('Migrating and analysing');
  const migrated = await migrateToLatest(db.kysely);
  await sql`ANALYZE`.execute(db.kysely);
  return { manifest, rows, migrated, ...loaded };
}

async function appliedMigrations(db: Kysely<Database>): Promise<string[]> {
  try {
    const { rows } = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(db);
    return rows.map((row) => row.name);
  } catch {
    return []; // a blank database: no migration table yet
  }
}

async function refuseData(db: Kysely<Database>, tables: string[]): Promise<void> {
  const occupied: string[] = [];
  for (const table of tables.filter((name) => !NOT_DATA.has(name)).sort()) {
    const { rows } = await sql<{ found: boolean }>`
      SELECT EXISTS (SELECT 1 FROM ${sql.table(table)}) AS found`.execute(db);
    if (rows[0]!.found) occupied.push(table);
  }
  if (occupied.length > 0)
    throw new ArchiveError(
      `The database is not empty (${occupied.slice(0, 5).join(', ')}${occupied.length > 5 ? ', …' : ''} have rows). ` +
        'An import needs an empty database: create a new one (or point DATA_DIR at a new directory), then import again. Nothing was imported.',
    );
}

/** An error of reading the file, of gzip or of tar, as the operator should read it. */
function readError(file: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new ArchiveError(`Cannot read ${file}: there is no such file.`);
  if (code === 'EACCES') return new ArchiveError(`Cannot read ${file}: permission denied.`);
  if (code === 'EISDIR') return new ArchiveError(`Cannot read ${file}: it is a directory.`);
  if (typeof code === 'string' && code.startsWith('Z_'))
    return new ArchiveError(
      `${file} is not a Storefront archive, or it is damaged or truncated (gzip: ${(error as Error).message}).`,
    );
  if (error instanceof TarError)
    return new ArchiveError(`${file} is not a Storefront archive, or it is damaged: ${error.message}.`);
  return error;
}

/** The archive as a stream of tar entries; errors of the file, gzip and tar become ArchiveErrors. */
async function* entriesOf(file: string): AsyncGenerator<TarEntry> {
  const input = fs.createReadStream(file);
  const gunzip = zlib.createGunzip();
  input.on('error', (error) => gunzip.destroy(error));
  input.pipe(gunzip);
  // The body is read by the caller: its errors are the stream's too.
  const body = async function* (chunks: AsyncIterable<Buffer>) {
    try {
      yield* chunks;
    } catch (error) {
      throw readError(file, error);
    }
  };
  try {
    for await (const entry of readTar(gunzip)) yield { ...entry, body: body(entry.body) };
  } catch (error) {
    throw readError(file, error);
  } finally {
    input.destroy();
    gunzip.destroy();
  }
}

async function readAll(body: AsyncIterable<Buffer>, limit: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) throw new ArchiveError(`The archive is damaged: ${what} is too large.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** An archive read through once and found whole: its manifest and its platform_secrets rows. */
export interface CheckedArchive {
  manifest: Manifest;
  platformSecrets: CapturedRow[];
}

interface CapturedRow {
  name: string;
  value: string;
  /** The row's line, to insert it as it is. */
  line: string;
}

/**
 * Reads the whole archive once: the manifest (last), and every table file's SHA-256 and line count,
 * which must match it, in its order. Returns the manifest and the archive's platform_secrets rows.
 * Touches no database: `storefront import` checks the archive before it opens one.
 */
export async function checkArchive(
  file: string,
  onStage?: (message: string) => void,
): Promise<CheckedArchive> {
  onStage?.('Checking the archive');
  const seen: { name: string; sha256: string; rows: number }[] = [];
  let manifestText: string | null = null;
  let captured = '';
  for await (const entry of entriesOf(file)) {
    if (entry.name === MANIFEST_NAME) {
      manifestText = (await readAll(entry.body, MAX_MANIFEST, 'its manifest')).toString('utf8');
      continue;
    }
    const hash = createHash('sha256');
    let lines = 0;
    const capture = entry.name === tableFile(PLATFORM_SECRETS);
    for await (const chunk of entry.body) {
      hash.update(chunk);
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
      if (capture) {
        captured += chunk.toString('utf8');
        if (captured.length > MAX_CAPTURED)
          throw new ArchiveError('The archive is damaged: platform_secrets is too large.');
      }
    }
    seen.push({ name: entry.name, sha256: hash.digest('hex'), rows: lines });
  }
  if (manifestText === null)
    throw new ArchiveError(
      `${file} has no manifest.json: it is not a Storefront archive, or it is truncated.`,
    );
  const manifest = parseManifest(manifestText);
  const known = migrationNames();
  if (!known.includes(manifest.schemaVersion))
    throw new ArchiveError(
      `The archive was written by a newer Storefront (schema ${manifest.schemaVersion}); this one knows migrations up to ${known.at(-1)!}. Upgrade Storefront, then import.`,
    );
  const files = manifest.tables.map((table) => table.file);
  const order = seen.map((entry) => entry.name);
  const strangers = order.filter((name) => !files.includes(name));
  if (strangers.length > 0)
    throw new ArchiveError(
      `The archive is damaged: it holds files its manifest does not list (${strangers.join(', ')}).`,
    );
  for (const table of manifest.tables) {
    const found = seen.find((entry) => entry.name === table.file);
    if (!found) throw new ArchiveError(`The archive is damaged: ${table.file} is missing.`);
    if (found.sha256 !== table.sha256)
      throw new ArchiveError(
        `The archive is damaged: the checksum of ${table.file} does not match its manifest. Export again, or use an intact copy.`,
      );
    if (found.rows !== table.rows)
      throw new ArchiveError(
        `The archive is damaged: ${table.file} has ${found.rows} rows, its manifest says ${table.rows}.`,
      );
  }
  if (order.join('\n') !== files.join('\n'))
    throw new ArchiveError('The archive is damaged: its tables are not in the order of its manifest.');
  const platformSecrets = captured
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const columns = manifest.tables.find((table) => table.name === PLATFORM_SECRETS)!.columns;
      const values = JSON.parse(line) as (string | null)[];
      const at = (name: string) => values[columns.findIndex((column) => column.name === name)] ?? '';
      return { name: at('name'), value: at('value'), line };
    });
  return { manifest, platformSecrets };
}

/** Reads the archive again and loads each table's lines, a batch per INSERT. */
async function loadTables(
  db: Kysely<Database>,
  options: ImportOptions,
  manifest: Manifest,
  catalog: Map<string, CatalogTable>,
  onRows: (n: number) => void,
): Promise<void> {
  const byFile = new Map(manifest.tables.map((table) => [table.file, table]));
  const maxRows = options.batchRows ?? 2000;
  const maxBytes = options.batchBytes ?? 4 * 1024 * 1024;
  for await (const entry of entriesOf(options.file)) {
    const archived = byFile.get(entry.name);
    if (!archived || archived.name === PLATFORM_SECRETS) continue;
    const table = catalog.get(archived.name);
    if (!table)
      throw new ArchiveError(
        `The archive's table ${archived.name} does not exist in this database's schema.`,
      );
    const hash = createHash('sha256');
    let batch: string[] = [];
    let bytes = 0;
    let rest = '';
    const flush = async () => {
      if (batch.length === 0) return;
      await insertRows(db, table, archived, batch);
      onRows(batch.length);
      batch = [];
      bytes = 0;
    };
    for await (const chunk of entry.body) {
      hash.update(chunk);
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop()!;
      for (const line of lines) {
        batch.push(line);
        bytes += line.length;
        if (batch.length >= maxRows || bytes >= maxBytes) await flush();
      }
    }
    if (rest !== '')
      throw new ArchiveError(`The archive is damaged: ${archived.file} does not end with a line break.`);
    await flush();
    // Statistics at once, inside the transaction (ANALYZE counts its own transaction's rows): the
    // triggers of the tables loaded next join this one (a variant's SKUs update its product's
    // search text), and without statistics the planner scans the whole table for each batch.
    if (archived.rows >= ANALYZE_FROM) await sql`ANALYZE ${sql.table(table.name)}`.execute(db);
    if (hash.digest('hex') !== archived.sha256)
      throw new ArchiveError(
        `The archive changed while it was being imported (${archived.file}). Nothing was imported.`,
      );
  }
}

/**
 * One multi-row INSERT of archive lines: the batch travels as one JSON array parameter, and each
 * value is cast from its text form to this database's type of the column. An identity column
 * GENERATED ALWAYS takes the archived values (OVERRIDING SYSTEM VALUE); generated columns are
 * computed by the database.
 */
async function insertRows(
  db: Kysely<Database>,
  table: CatalogTable,
  archived: ArchiveTable,
  lines: string[],
): Promise<void> {
  const columns = archived.columns.map((column) => {
    const target = table.columns.find((candidate) => candidate.name === column.name);
    if (!target || target.generated)
      throw new ArchiveError(
        `The archive's column ${archived.name}.${column.name} does not exist in this database's schema.`,
      );
    return target;
  });
  const overriding = columns.some((column) => column.identity === 'a') ? sql`OVERRIDING SYSTEM VALUE` : sql``;
  await sql`
    INSERT INTO ${sql.table(table.name)} (${sql.join(columns.map((column) => sql.ref(column.name)))}) ${overriding}
    SELECT ${sql.join(columns.map((column, i) => sql`(r ->> ${sql.lit(i)})::${sql.raw(column.type)}`))}
    FROM jsonb_array_elements(${`[${lines.join(',')}]`}::jsonb) AS e(r)`.execute(db);
}

/** Moves every identity or serial sequence of the loaded tables past their highest value. */
async function moveSequences(db: Kysely<Database>, tables: CatalogTable[]): Promise<void> {
  const loaded = new Set(tables.map((table) => table.name));
  const { rows } = await sql<{ table: string; column: string; sequence: string }>`
    SELECT c.relname AS table, a.attname AS column,
           pg_get_serial_sequence(format('%I.%I', n.nspname, c.relname), a.attname) AS sequence
    FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
      AND pg_get_serial_sequence(format('%I.%I', n.nspname, c.relname), a.attname) IS NOT NULL`.execute(db);
  for (const row of rows.filter((candidate) => loaded.has(candidate.table))) {
    await sql`
      SELECT setval(${row.sequence}::regclass, m)
      FROM (SELECT max(${sql.ref(row.column)}) AS m FROM ${sql.table(row.table)}) AS s
      WHERE m IS NOT NULL`.execute(db);
  }
}
