/**
 * The archive of `storefront export` (DESIGN D50, decision `archive-format`): a gzip-compressed tar
 * holding one JSON-lines file per table, `tables/<table>.jsonl`, in the order the import loads
 * them (parents before the rows that reference them), then `manifest.json`, which comes last
 * because it carries the checksums of what precedes it.
 *
 * A line is one row: a JSON array of the row's values in the manifest's column order, each as
 * PostgreSQL's text form of the value (`"2026-05-01 09:30:00.123+00"`, `"{a,b}"`, `"\\x0a1b"`, the
 * JSON text of a jsonb value) or `null` for SQL NULL. Text is what PostgreSQL reads back exactly
 * for every type (COPY does the same), so timestamps, bigints, arrays, bytea and JSON survive the
 * trip bit for bit, and a jsonb `null` stays apart from SQL NULL.
 */

export const ARCHIVE_FORMAT = 'storefront-archive';
/** Raised when an import could no longer read what an older version wrote. */
export const ARCHIVE_FORMAT_VERSION = 1;
export const MANIFEST_NAME = 'manifest.json';
export const tableFile = (table: string): string => `tables/${table}.jsonl`;

/** The keyring purpose of the manifest's key check (decision `archive-secrets`). */
export const KEY_CHECK_PURPOSE = 'archive-key-check';
export const KEY_CHECK_TEXT = 'storefront-archive';
export const keyCheckContext = (createdAt: string): string => `archive:${createdAt}`;

export interface ArchiveColumn {
  name: string;
  /** The column's type in the source, as `format_type` names it (for readers; the import casts to its own). */
  type: string;
}

export interface ArchiveTable {
  name: string;
  file: string;
  columns: ArchiveColumn[];
  rows: number;
  bytes: number;
  sha256: string;
}

export interface Manifest {
  format: typeof ARCHIVE_FORMAT;
  formatVersion: number;
  /** The name of the last migration applied to the source. */
  schemaVersion: string;
  createdAt: string;
  source: { database: 'pglite' | 'postgres'; storefrontVersion: string };
  /** Set when the archive holds one store (`--store`). */
  store: { id: string; slug: string } | null;
  secrets: {
    /** A fixed text sealed by the exporting process's current root: the import tries to open it first. */
    keyCheck: string;
    /** Sealed values the exporting process's current root did not seal (older roots still needed). */
    sealedByOlderRoots: number;
  };
  /** In load order. */
  tables: ArchiveTable[];
}

/** What an operator did wrong or what is wrong with an archive: the CLI prints the message, no stack. */
export class ArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveError';
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Parses manifest.json, refusing what this version cannot read: another format, a newer format
 * version, or a shape it does not know.
 */
export function parseManifest(text: string): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ArchiveError('The archive is damaged: its manifest.json is not JSON.');
  }
  if (!isObject(value) || value.format !== ARCHIVE_FORMAT)
    throw new ArchiveError('This is not a Storefront archive (its manifest names another format).');
  if (typeof value.formatVersion !== 'number' || !Number.isInteger(value.formatVersion))
    throw new ArchiveError('The archive is damaged: its manifest has no format version.');
  if (value.formatVersion > ARCHIVE_FORMAT_VERSION)
    throw new ArchiveError(
      `The archive has format version ${value.formatVersion}; this Storefront reads up to version ${ARCHIVE_FORMAT_VERSION}. Upgrade Storefront to import it.`,
    );
  const tables = value.tables;
  const secrets = value.secrets;
  const wellFormed =
    typeof value.schemaVersion === 'string' &&
    typeof value.createdAt === 'string' &&
    isObject(value.source) &&
    isObject(secrets) &&
    typeof secrets.keyCheck === 'string' &&
    Array.isArray(tables) &&
    tables.every(
      (table) =>
        isObject(table) &&
        typeof table.name === 'string' &&
        typeof table.file === 'string' &&
        typeof table.rows === 'number' &&
        typeof table.sha256 === 'string' &&
        Array.isArray(table.columns) &&
        table.columns.every((column) => isObject(column) && typeof column.name === 'string'),
    );
  if (!wellFormed) throw new ArchiveError('The archive is damaged: its manifest is incomplete.');
  return value as unknown as Manifest;
}
