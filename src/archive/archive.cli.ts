import type { Config } from '../config.ts';
import { openDatabase, type Db } from '../db/database.ts';
import { databaseOptions } from '../runtime.ts';
import { MigrationError, migrateToLatest } from '../db/migrate.ts';
import { progressReporter } from '../lib/progress.ts';
import type { RootSecret } from '../lib/keyring.ts';
import { missingMediaFiles, type MediaInventory } from '../media/media.inventory.ts';
import { LocalMediaStorage } from '../media/media.storage.ts';
import { ArchiveError, DEFAULT_LIMITS, dataRows, sizeText, type ArchiveLimits } from './archive.format.ts';
import { readKeyFile } from './archive.keys.ts';
import { checkArchive } from './check.ts';
import { exportArchive } from './export.ts';
import { importArchive, type ImportSummary } from './import.ts';

/** The CLI's `fail`: prints `storefront: <message>` and exits with `code`. */
type Fail = (message: string, code?: number) => never;

const progress = () =>
  progressReporter({
    write: (text) => process.stderr.write(text),
    tty: process.stderr.isTTY === true,
    unit: 'rows',
  });

const warn = (message: string) => process.stderr.write(`storefront: warning: ${message}\n`);

function open(config: Readonly<Config>, command: string): Promise<Db> {
  return openDatabase(databaseOptions(config, command));
}

/** An archive's or a migration's problem is the operator's to fix: its message, exit 1, no stack. */
async function operatorErrors<T>(fail: Fail, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ArchiveError || error instanceof MigrationError) fail(error.message, 1);
    throw error;
  }
}

const keyOf = (file: string | null): RootSecret | null => (file === null ? null : readKeyFile(file));

/** `storefront export --out FILE [--store SLUG] [--key-file FILE]`. */
export async function runExport(
  config: Readonly<Config>,
  options: { out: string; store: string | null; keyFile: string | null },
  fail: Fail,
): Promise<void> {
  const summary = await operatorErrors(fail, async () => {
    const keyFile = keyOf(options.keyFile);
    const db = await open(config, 'storefront export');
    try {
      await migrateToLatest(db.kysely);
      return await exportArchive(db, {
        out: options.out,
        storeSlug: options.store,
        secrets: config,
        keyFile,
        onProgress: progress(),
        onWarning: warn,
      });
    } finally {
      await db.close();
    }
  });
  const { manifest } = summary;
  const sealed =
    summary.sealedWith === 'key file'
      ? `Its secrets are sealed, and it is signed, with the key in ${options.keyFile!}: \`storefront import --key-file\` needs that file. Keep it apart from the archive.`
      : 'Its secrets are sealed, and it is signed, with SECRET_KEY: the import needs the same key (or it in SECRET_KEY_PREVIOUS).' +
        (manifest.store
          ? ' Whoever imports it needs the SECRET_KEY of this whole installation: to hand one store to someone else, export it with --key-file.'
          : '');
  process.stdout.write(
    `Wrote ${summary.file}: ${summary.rows.toLocaleString('en-US')} rows of ${manifest.tables.length} tables, ${sizeText(summary.bytes)}, ` +
      `schema ${manifest.schemaVersion}${manifest.store ? `, store ${manifest.store.slug} only` : ''}.\n` +
      `${sealed}\n` +
      'It holds personal data (customers, addresses, orders) and sealed secrets: keep it as safe as the database, and delete it once it has served.\n',
  );
}

/** What `storefront import` is told besides the file (the bounds as typed). */
export interface ImportFlags {
  keyFile: string | null;
  trustUnsigned: boolean;
  maxLineMib?: string;
  maxArchiveGib?: string;
}

/** `storefront import [--key-file FILE] [--trust-unsigned] [--max-line-mib N] [--max-archive-gib N] FILE`. */
export async function runImport(
  config: Readonly<Config>,
  file: string,
  flags: ImportFlags,
  fail: Fail,
): Promise<void> {
  const limits = importLimits(flags, (message) => fail(message, 2));
  const { summary, media } = await operatorErrors(fail, async () => {
    const stage = (message: string) => process.stderr.write(`  ${message}…\n`);
    const keyFile = keyOf(flags.keyFile);
    const options = {
      secrets: config,
      keyFile,
      trustUnsigned: flags.trustUnsigned,
      limits,
      onStage: stage,
      onWarning: warn,
    };
    // The archive first: a file that is not one never creates or locks a database.
    const checked = await checkArchive(file, options);
    const db = await open(config, 'storefront import');
    try {
      const imported = await importArchive(db, { ...options, file, checked, onProgress: progress() });
      const listed = imported.manifest.tables.some((table) => table.name === 'media' && table.rows > 0);
      return {
        summary: imported,
        media: listed
          ? await missingMediaFiles({ db: db.kysely, storage: new LocalMediaStorage(config.media.dir) })
          : null,
      };
    } finally {
      await db.close();
    }
  });
  process.stdout.write(`${importReport(config, file, summary, media).join('\n')}\n`);
}

/** What `storefront import` says it did, and what is left to the operator. */
export function importReport(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'secretKey' | 'secretKeyPrevious' | 'media'>,
  file: string,
  summary: ImportSummary,
  media: MediaInventory | null,
): string[] {
  const { manifest } = summary;
  const lines = [
    `Imported ${dataRows(manifest).toLocaleString('en-US')} rows of ${manifest.tables.length} tables from ${file} ` +
      `(schema ${manifest.schemaVersion}, exported ${manifest.createdAt} from ${manifest.source.database === 'pglite' ? 'an embedded database' : 'PostgreSQL'}${manifest.store ? `, store ${manifest.store.slug}` : ''}) ` +
      `into ${config.databaseUrl ? 'PostgreSQL' : `the embedded database in ${config.dataDir}`}.`,
  ];
  if (summary.migrated.length > 0) lines.push(`Then applied: ${summary.migrated.join(', ')}.`);
  if (summary.adoptedRoot)
    lines.push(
      "Secrets: the archive's generated root secret is this database's root now (SECRET_KEY is unset), so everything opens as before.",
    );
  else if (summary.resealed === 0) lines.push('Secrets: none needed re-sealing.');
  else
    lines.push(
      `Secrets: ${summary.resealed} re-sealed under ${config.secretKey ? 'SECRET_KEY' : "this database's generated root"}, so this installation needs no other key for them` +
        (config.secretKeyPrevious.length > 0
          ? ' (SECRET_KEY_PREVIOUS is needed only to import other archives sealed with an old key).'
          : '.'),
    );
  if (media && media.missing > 0)
    lines.push(
      `The archive lists ${media.listed} uploaded images, and ${media.missing === media.listed ? 'none is' : `${media.missing} are not`} in ${config.media.dir}: ` +
        "copy the source's DATA_DIR/media there (images are not in the archive).",
    );
  else if (media)
    lines.push(`The archive lists ${media.listed} uploaded images: all are in ${config.media.dir} already.`);
  return lines;
}

/** The bounds of `--max-line-mib` and `--max-archive-gib` (positive numbers; unset: the defaults). */
function importLimits(flags: ImportFlags, usage: (message: string) => never): ArchiveLimits {
  const size = (flag: string, text: string | undefined, unit: number, otherwise: number): number => {
    if (text === undefined) return otherwise;
    const value = Number(text);
    if (text.trim() === '' || !Number.isFinite(value) || value <= 0)
      usage(`--${flag} takes a positive number, not "${text}"`);
    return Math.floor(value * unit);
  };
  return {
    maxLineBytes: size('max-line-mib', flags.maxLineMib, 1024 * 1024, DEFAULT_LIMITS.maxLineBytes),
    maxArchiveBytes: size('max-archive-gib', flags.maxArchiveGib, 1024 ** 3, DEFAULT_LIMITS.maxArchiveBytes),
  };
}
