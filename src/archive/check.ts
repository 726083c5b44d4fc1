import { createHash } from 'node:crypto';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { migrationNames } from '../db/migrate.ts';
import type { RootSecret } from '../lib/keyring.ts';
import {
  ArchiveError,
  DEFAULT_LIMITS,
  MAC_NAME,
  MANIFEST_NAME,
  PLATFORM_SECRETS,
  UNSIGNED_FORMAT_VERSION,
  parseManifest,
  sizeText,
  tableFile,
  tableOfFile,
  type ArchiveLimits,
  type Manifest,
} from './archive.format.ts';
import {
  configuredRoots,
  macVerifies,
  noKeyOpens,
  rootOfArchive,
  type ArchiveSecrets,
} from './archive.keys.ts';
import { LineReader } from './lines.ts';
import { readTar, TarError, TarTooLargeError, type TarEntry } from './tar.ts';

/** manifest.json is small; a huge one is not ours. */
const MAX_MANIFEST = 16 * 1024 * 1024;
/** manifest.mac is one line. */
const MAX_MAC = 1024;
/** A format-1 archive's generated root: a row or two. */
const MAX_CAPTURED = 1024 * 1024;

export interface CheckOptions {
  /** The importing process's root secrets (they may be the archive key). */
  secrets: ArchiveSecrets;
  /** The key of `--key-file`, when given. */
  keyFile?: RootSecret | null;
  /** `--trust-unsigned`: an archive that is not signed, or whose signature fails, is imported with a warning. */
  trustUnsigned?: boolean;
  limits?: Partial<ArchiveLimits>;
  onStage?: (message: string) => void;
  onWarning?: (message: string) => void;
}

/** An archive read through once and found whole. */
export interface CheckedArchive {
  manifest: Manifest;
  /** Format 1: its platform_secrets rows (the source's generated root). */
  platformSecrets: CapturedRow[];
  /** Format 2: the archive key, among this process's keys. */
  archiveRoot: RootSecret | null;
  limits: ArchiveLimits;
}

interface CapturedRow {
  name: string;
  value: string;
  /** The row's line, to insert it as it is. */
  line: string;
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
  if (error instanceof TarTooLargeError)
    return new ArchiveError(
      `${file} holds more than ${sizeText(error.limit)} uncompressed, the most an import reads (--max-archive-gib). ` +
        'Raise the bound if a database that large is expected; otherwise the file is damaged or was not written by `storefront export`. Nothing was imported.',
    );
  if (error instanceof TarError)
    return new ArchiveError(`${file} is not a Storefront archive, or it is damaged: ${error.message}.`);
  return error;
}

/** The archive as a stream of tar entries; errors of the file, gzip and tar become ArchiveErrors. */
export async function* entriesOf(file: string, maxBytes: number): AsyncGenerator<TarEntry> {
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
    for await (const entry of readTar(gunzip, maxBytes)) yield { ...entry, body: body(entry.body) };
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

/** The LineReader of a table file under the import's bound, refusing a longer line by its number. */
export function tableLines(file: string, limits: ArchiveLimits, keep: boolean): LineReader {
  return new LineReader({
    maxBytes: limits.maxLineBytes,
    keep,
    tooLong: (line) =>
      new ArchiveError(
        `The archive is damaged: line ${line} of table ${tableOfFile(file)} is longer than ${sizeText(limits.maxLineBytes)}, ` +
          'the most an import reads (--max-line-mib). Rows of Storefront are far smaller: the archive was not written by `storefront export`, ' +
          'or, if it was and you expect such a row, raise the bound. Nothing was imported.',
      ),
  });
}

/**
 * Reads the whole archive once, within `limits`: the manifest, its signature, and every table
 * file's SHA-256 and line count, which must match the manifest, in its order. The signature must
 * verify under a key of this process (decision `archive-signature`) unless the operator trusts the
 * archive (`trustUnsigned`). Touches no database: `storefront import` checks the archive before it
 * opens one.
 */
export async function checkArchive(file: string, options: CheckOptions): Promise<CheckedArchive> {
  options.onStage?.('Checking the archive');
  const limits: ArchiveLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const seen: { name: string; sha256: string; rows: number }[] = [];
  let manifestBytes: Buffer | null = null;
  let mac: string | null = null;
  let captured = '';
  for await (const entry of entriesOf(file, limits.maxArchiveBytes)) {
    if (entry.name === MANIFEST_NAME) {
      manifestBytes = await readAll(entry.body, MAX_MANIFEST, 'its manifest');
      continue;
    }
    if (entry.name === MAC_NAME) {
      mac = (await readAll(entry.body, MAX_MAC, 'its manifest.mac')).toString('utf8');
      continue;
    }
    const hash = createHash('sha256');
    const lines = tableLines(entry.name, limits, false);
    const capture = entry.name === tableFile(PLATFORM_SECRETS);
    for await (const chunk of entry.body) {
      hash.update(chunk);
      lines.push(chunk);
      if (capture) {
        captured += chunk.toString('utf8');
        if (captured.length > MAX_CAPTURED)
          throw new ArchiveError('The archive is damaged: platform_secrets is too large.');
      }
    }
    if (lines.rest > 0)
      throw new ArchiveError(`The archive is damaged: ${entry.name} does not end with a line break.`);
    seen.push({ name: entry.name, sha256: hash.digest('hex'), rows: lines.lines });
  }
  if (manifestBytes === null)
    throw new ArchiveError(
      `${file} has no manifest.json: it is not a Storefront archive, or it is truncated.`,
    );
  const manifest = parseManifest(manifestBytes.toString('utf8'));
  const known = migrationNames();
  if (!known.includes(manifest.schemaVersion))
    throw new ArchiveError(
      `The archive was written by a newer Storefront (schema ${manifest.schemaVersion}); this one knows migrations up to ${known.at(-1)!}. Upgrade Storefront, then import.`,
    );
  const archiveRoot = checkSignature(manifest, manifestBytes, mac, options);
  checkTables(manifest, seen);
  return { manifest, platformSecrets: capturedRows(manifest, captured), archiveRoot, limits };
}

/**
 * The archive key among this process's keys, once the manifest's MAC verifies under it (format 2);
 * null for format 1, which has no signature. An archive that is not signed, or whose signature
 * fails, is refused unless the operator trusts it.
 */
function checkSignature(
  manifest: Manifest,
  manifestBytes: Buffer,
  mac: string | null,
  options: CheckOptions,
): RootSecret | null {
  const trusted = (refusal: string, warning: string): void => {
    if (!options.trustUnsigned) throw new ArchiveError(refusal);
    options.onWarning?.(warning);
  };
  if (manifest.formatVersion === UNSIGNED_FORMAT_VERSION) {
    trusted(
      'This archive was written by an earlier Storefront (format 1), which did not sign its archives, so nothing shows that it is what was exported. ' +
        'Nothing was imported. If you made it yourself and kept it safe, `storefront import --trust-unsigned FILE` imports it.',
      'importing an archive of format 1, which is not signed (--trust-unsigned): nothing shows that it is what `storefront export` wrote.',
    );
    return null;
  }
  if (manifest.tables.some((table) => table.name === PLATFORM_SECRETS))
    throw new ArchiveError(
      'The archive is damaged: it carries platform_secrets, which no archive of format 2 does.',
    );
  const root = rootOfArchive(manifest, [
    ...(options.keyFile ? [options.keyFile] : []),
    ...configuredRoots(options.secrets),
  ]);
  if (!root) throw noKeyOpens(manifest, Boolean(options.keyFile));
  if (!macVerifies(root, manifestBytes, mac))
    trusted(
      `The archive's signature does not verify: its manifest (which holds the checksum of every table) was changed after \`storefront export\` wrote it${mac === null ? ', or its manifest.mac is missing' : ''}. ` +
        'Nothing was imported. Import only archives you know; if you know how this one came to differ and trust every row of it, `storefront import --trust-unsigned` imports it anyway.',
      "the archive's signature does not verify (--trust-unsigned): its manifest was changed after `storefront export` wrote it; importing it anyway.",
    );
  return root;
}

/** Every table file of the manifest is there, in its order, with its checksum and row count. */
function checkTables(manifest: Manifest, seen: { name: string; sha256: string; rows: number }[]): void {
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
}

/** The rows of a format-1 archive's platform_secrets. */
function capturedRows(manifest: Manifest, captured: string): CapturedRow[] {
  const table = manifest.tables.find((candidate) => candidate.name === PLATFORM_SECRETS);
  if (!table) return [];
  return captured
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      let values: unknown;
      try {
        values = JSON.parse(line);
      } catch {
        throw new ArchiveError('The archive is damaged: a row of platform_secrets is not JSON.');
      }
      if (!Array.isArray(values))
        throw new ArchiveError('The archive is damaged: a row of platform_secrets is not a row.');
      const at = (name: string) => {
        const value: unknown = values[table.columns.findIndex((column) => column.name === name)];
        return typeof value === 'string' ? value : '';
      };
      return { name: at('name'), value: at('value'), line };
    });
}
