/**
 * The archive of `storefront export` (decision `archive-format`): a gzip-compressed tar
 * holding one JSON-lines file per table, `tables/<table>.jsonl`, in the order the import loads
 * them (parents before the rows that reference them), then `manifest.json`, which carries the
 * checksums of what precedes it, then `manifest.mac`, the manifest's HMAC-SHA-256 under the archive
 * key (decision `archive-signature`).
 *
 * A line is one row: a JSON array of the row's values in the manifest's column order, each as
 * PostgreSQL's text form of the value (`"2026-05-01 09:30:00.123+00"`, `"{a,b}"`, `"\\x0a1b"`, the
 * JSON text of a jsonb value) or `null` for SQL NULL. Text is what PostgreSQL reads back exactly
 * for every type (COPY does the same), so timestamps, bigints, arrays, bytea and JSON survive the
 * trip bit for bit, and a jsonb `null` stays apart from SQL NULL.
 */

export const ARCHIVE_FORMAT = 'storefront-archive';
/**
 * 2: signed (`manifest.mac`), everything sealed under one archive key, never a root secret.
 * 1: what Storefront wrote before (unsigned; it carried the generated root): imported only when the
 * operator says they trust it (`--trust-unsigned`).
 */
export const ARCHIVE_FORMAT_VERSION = 2;
export const UNSIGNED_FORMAT_VERSION = 1;
export const MANIFEST_NAME = 'manifest.json';
export const MAC_NAME = 'manifest.mac';
export const tableFile = (table: string): string => `tables/${table}.jsonl`;
/** The table of a `tables/<table>.jsonl` entry, for messages. */
export const tableOfFile = (file: string): string => file.replace(/^tables\//, '').replace(/\.jsonl$/, '');

/** The keyring purpose of the manifest's key check (decision `archive-secrets`). */
export const KEY_CHECK_PURPOSE = 'archive-key-check';
export const KEY_CHECK_TEXT = 'storefront-archive';
export const keyCheckContext = (createdAt: string): string => `archive:${createdAt}`;
/** The keyring purpose of the manifest's MAC (decision `archive-signature`). */
export const MAC_PURPOSE = 'archive-manifest-mac';

/** The table a format-1 archive carried the source's generated root in; a format-2 one never does. */
export const PLATFORM_SECRETS = 'platform_secrets';

/** What an import reads at most (decision `archive-bounds`). */
export interface ArchiveLimits {
  /** One line (one row) of a table file, bytes. */
  maxLineBytes: number;
  /** Every entry of the tar together, uncompressed, bytes. */
  maxArchiveBytes: number;
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** A size for a message: `16 MiB`, `64 GiB`, `4096 bytes`. */
export function sizeText(bytes: number): string {
  if (bytes >= GiB) return `${+(bytes / GiB).toFixed(2)} GiB`;
  if (bytes >= MiB) return `${+(bytes / MiB).toFixed(2)} MiB`;
  return `${bytes} bytes`;
}
/** Far above real rows (a request body is at most 1 MiB) and real archives (a million products: 0.8 GiB). */
export const DEFAULT_LIMITS: Readonly<ArchiveLimits> = {
  maxLineBytes: 16 * MiB,
  maxArchiveBytes: 64 * GiB,
};

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
    /** A fixed text sealed by the archive key: the import finds the key by it. */
    keyCheck: string;
    /** Format 2: the archive key, which sealed every secret in it and signed the manifest. */
    sealedWith?: ArchiveKeySource;
    /** Format 1: sealed values its current root did not seal (older roots still needed). */
    sealedByOlderRoots?: number;
  };
  /** In load order. */
  tables: ArchiveTable[];
}

/** Where the archive key came from: the exporting SECRET_KEY, or `storefront export --key-file`. */
export type ArchiveKeySource = 'SECRET_KEY' | 'key file';

/**
 * The rows an archive holds, as `storefront export` and `storefront import` both count them: every
 * table's, but not a format-1 archive's generated root (a secret, not data; an import keeps it only
 * when it adopts it).
 */
export const dataRows = (manifest: Pick<Manifest, 'tables'>): number =>
  manifest.tables
    .filter((table) => table.name !== PLATFORM_SECRETS)
    .reduce((sum, table) => sum + table.rows, 0);

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
  if (
    typeof value.formatVersion !== 'number' ||
    !Number.isInteger(value.formatVersion) ||
    value.formatVersion < UNSIGNED_FORMAT_VERSION
  )
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
    (value.formatVersion === UNSIGNED_FORMAT_VERSION ||
      secrets.sealedWith === 'SECRET_KEY' ||
      secrets.sealedWith === 'key file') &&
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
