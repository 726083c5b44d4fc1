import type { Config } from '../config.ts';
import { openDatabase, type Db } from '../db/database.ts';
import { databaseOptions } from '../runtime.ts';
import { MigrationError, migrateToLatest } from '../db/migrate.ts';
import { progressReporter } from '../lib/progress.ts';
import { ArchiveError } from './archive.format.ts';
import { exportArchive } from './export.ts';
import { checkArchive, importArchive } from './import.ts';

/** The CLI's `fail`: prints `storefront: <message>` and exits with `code`. */
type Fail = (message: string, code?: number) => never;

const progress = () =>
  progressReporter({
    write: (text) => process.stderr.write(text),
    tty: process.stderr.isTTY === true,
    unit: 'rows',
  });

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

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** `storefront export --out FILE [--store SLUG]`. */
export async function runExport(
  config: Readonly<Config>,
  options: { out: string; store: string | null },
  fail: Fail,
): Promise<void> {
  const summary = await operatorErrors(fail, async () => {
    const db = await open(config, 'storefront export');
    try {
      await migrateToLatest(db.kysely);
      return await exportArchive(db, {
        out: options.out,
        storeSlug: options.store,
        secrets: config,
        onProgress: progress(),
        onWarning: (message) => process.stderr.write(`storefront: warning: ${message}\n`),
      });
    } finally {
      await db.close();
    }
  });
  const { manifest } = summary;
  process.stdout.write(
    `Wrote ${summary.file}: ${summary.rows.toLocaleString('en-US')} rows of ${manifest.tables.length} tables, ${mib(summary.bytes)}, ` +
      `schema ${manifest.schemaVersion}${manifest.store ? `, store ${manifest.store.slug} only` : ''}.\n` +
      'It holds personal data (customers, addresses, orders) and sealed secrets: keep it as safe as the database, and delete it once it has served.\n',
  );
}

/** `storefront import FILE`. */
export async function runImport(config: Readonly<Config>, file: string, fail: Fail): Promise<void> {
  const summary = await operatorErrors(fail, async () => {
    const stage = (message: string) => process.stderr.write(`  ${message}…\n`);
    // The archive first: a file that is not one never creates or locks a database.
    const checked = await checkArchive(file, stage);
    const db = await open(config, 'storefront import');
    try {
      return await importArchive(db, {
        file,
        checked,
        secrets: config,
        onProgress: progress(),
        onStage: stage,
      });
    } finally {
      await db.close();
    }
  });
  const { manifest } = summary;
  const lines = [
    `Imported ${summary.rows.toLocaleString('en-US')} rows of ${manifest.tables.length} tables from ${file} ` +
      `(schema ${manifest.schemaVersion}, exported ${manifest.createdAt} from ${manifest.source.database === 'pglite' ? 'an embedded database' : 'PostgreSQL'}${manifest.store ? `, store ${manifest.store.slug}` : ''}) ` +
      `into ${config.databaseUrl ? 'PostgreSQL' : `the embedded database in ${config.dataDir}`}.`,
  ];
  if (summary.migrated.length > 0) lines.push(`Then applied: ${summary.migrated.join(', ')}.`);
  if (summary.adoptedRoot)
    lines.push(
      "Secrets: the archive's generated root secret is this database's root now (SECRET_KEY is unset), so everything opens as before.",
    );
  else
    lines.push(
      `Secrets: ${summary.resealed} re-sealed under ${config.secretKey ? 'SECRET_KEY' : "this database's generated root"}` +
        (summary.resealed > 0
          ? ' (SECRET_KEY_PREVIOUS can go once every archive of the old key is gone).'
          : '.'),
    );
  const media = manifest.tables.find((table) => table.name === 'media');
  if (media && media.rows > 0)
    lines.push(
      `The archive lists ${media.rows} uploaded images: copy the source's DATA_DIR/media to ${config.media.dir} (it is not in the archive).`,
    );
  process.stdout.write(`${lines.join('\n')}\n`);
}
