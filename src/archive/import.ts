import { createHash } from 'node:crypto';
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
  PLATFORM_SECRETS,
  dataRows,
  keyCheckContext,
  type ArchiveTable,
  type Manifest,
} from './archive.format.ts';
import { noKeyOpens } from './archive.keys.ts';
import { checkArchive, entriesOf, tableLines, type CheckedArchive, type CheckOptions } from './check.ts';
import { readCatalog, textSettings, type CatalogTable } from './tables.ts';

export interface ImportOptions extends CheckOptions {
  file: string;
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
const NOT_DATA = new Set(['kysely_migration', 'kysely_migration_lock', 'read_versions', PLATFORM_SECRETS]);
/** Tables of at least this many rows are analysed as soon as they are loaded. */
const ANALYZE_FROM = 1000;

/**
 * `storefront import` (decision `archive-format`): loads an archive of `storefront export` into an empty database
 * of either kind, in one transaction, so a failure leaves the database as it was.
 *
 * 1. The archive is read once to check it (its format, its signature, the schema it was written
 *    with, and every table's checksum and row count) before the database is touched.
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
  const { manifest, platformSecrets, archiveRoot, limits } =
    options.checked ?? (await checkArchive(options.file, options));
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

  const total = dataRows(manifest);
  let rows = 0;
  const loaded = await db.kysely.transaction().execute(async (trx) => {
    await textSettings(trx);
    const catalog = new Map((await readCatalog(trx)).map((table) => [table.name, table]));
    await refuseData(trx, [...catalog.keys()]);

    // The keyring: this process's roots, plus the archive key (format 2) or the root the source
    // generated (format 1, if any). Without SECRET_KEY and without a root of its own, this database
    // takes a format-1 archive's root as its own: every value then opens as it is, and key-derived
    // values (cursors) stay the same.
    const archiveRoots = platformSecrets
      .map((row) => rootOfRow(row, 'generated root of the archive'))
      .filter((root): root is RootSecret => root !== null);
    const extraRoots = [...(archiveRoot ? [archiveRoot] : []), ...(options.keyFile ? [options.keyFile] : [])];
    const adoptedRoot =
      options.secrets.secretKey === null && archiveRoots.length > 0 && !(await hasGeneratedRoot(trx));
    if (adoptedRoot)
      await insertRows(
        trx,
        catalog.get(PLATFORM_SECRETS)!,
        manifest.tables.find((table) => table.name === PLATFORM_SECRETS)!,
        platformSecrets.map((row) => row.line),
        1,
      );
    const keyring = await loadKeyring(trx, options.secrets, [
      ...extraRoots,
      ...(adoptedRoot ? [] : archiveRoots),
    ]);
    try {
      keyring.open(
        KEY_CHECK_PURPOSE,
        manifest.secrets.keyCheck,
        keyCheckContext(manifest.createdAt),
        "The archive's key check",
      );
    } catch (error) {
      if (!(error instanceof SecretUnreadableError)) throw error;
      throw noKeyOpens(manifest, Boolean(options.keyFile));
    }

    options.onStage?.('Loading');
    options.onProgress?.(0, total);
    await loadTables(trx, { ...options, limits }, manifest, catalog, (n) => {
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

/** Reads the archive again and loads each table's lines, a batch per INSERT. */
async function loadTables(
  db: Kysely<Database>,
  options: ImportOptions & Pick<CheckedArchive, 'limits'>,
  manifest: Manifest,
  catalog: Map<string, CatalogTable>,
  onRows: (n: number) => void,
): Promise<void> {
  const byFile = new Map(manifest.tables.map((table) => [table.file, table]));
  const maxRows = options.batchRows ?? 2000;
  const maxBytes = options.batchBytes ?? 4 * 1024 * 1024;
  for await (const entry of entriesOf(options.file, options.limits.maxArchiveBytes)) {
    const archived = byFile.get(entry.name);
    if (!archived || archived.name === PLATFORM_SECRETS) continue;
    const table = catalog.get(archived.name);
    if (!table)
      throw new ArchiveError(
        `The archive's table ${archived.name} does not exist in this database's schema.`,
      );
    const hash = createHash('sha256');
    const reader = tableLines(entry.name, options.limits, true);
    let batch: string[] = [];
    let bytes = 0;
    let loaded = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      await insertRows(db, table, archived, batch, loaded + 1);
      loaded += batch.length;
      onRows(batch.length);
      batch = [];
      bytes = 0;
    };
    for await (const chunk of entry.body) {
      hash.update(chunk);
      for (const line of reader.push(chunk)) {
        batch.push(line);
        bytes += line.length;
        if (batch.length >= maxRows || bytes >= maxBytes) await flush();
      }
    }
    if (reader.rest > 0)
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

/** SQLSTATE classes of what is wrong with the data (22 data exception, 23 constraint, P0 a trigger's refusal). */
const DATA_ERROR = /^(22|23|P0)[0-9A-Z]{3}$/;

/**
 * One multi-row INSERT of archive lines (`first` is the number of the first in its table file):
 * the batch travels as one JSON array parameter, and each value is cast from its text form to this
 * database's type of the column. An identity column GENERATED ALWAYS takes the archived values
 * (OVERRIDING SYSTEM VALUE); generated columns are computed by the database. A line the database
 * cannot take (not JSON, not a row, a value of the wrong type) is an archive error naming its lines.
 */
async function insertRows(
  db: Kysely<Database>,
  table: CatalogTable,
  archived: ArchiveTable,
  lines: string[],
  first: number,
): Promise<void> {
  const where = `line${lines.length > 1 ? `s ${first}–${first + lines.length - 1}` : ` ${first}`} of table ${archived.name}`;
  let inserted: bigint | undefined;
  try {
    inserted = (await insertLines(db, table, archived, lines)).numAffectedRows;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'string' || !DATA_ERROR.test(code)) throw error;
    throw new ArchiveError(
      `The archive is damaged: ${where} cannot be loaded (${(error as Error).message}). Nothing was imported.`,
    );
  }
  if (inserted !== undefined && Number(inserted) !== lines.length)
    throw new ArchiveError(
      `The archive is damaged: ${where} hold ${inserted} rows, not one row a line. Nothing was imported.`,
    );
}

function insertLines(db: Kysely<Database>, table: CatalogTable, archived: ArchiveTable, lines: string[]) {
  const columns = archived.columns.map((column) => {
    const target = table.columns.find((candidate) => candidate.name === column.name);
    if (!target || target.generated)
      throw new ArchiveError(
        `The archive's column ${archived.name}.${column.name} does not exist in this database's schema.`,
      );
    return target;
  });
  const overriding = columns.some((column) => column.identity === 'a') ? sql`OVERRIDING SYSTEM VALUE` : sql``;
  return sql`
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
