import type { Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationResultSet } from 'kysely/migration';
import * as foundation from './migrations/0001_foundation.ts';

/** Migrations in order. A static list: no directory scanning, works the same everywhere. */
const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
};

export class MigrationError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'MigrationError';
  }
}

export function migrationNames(): string[] {
  return Object.keys(migrations);
}

/** Applies every pending migration (Kysely's Migrator takes a lock, so concurrent callers are safe). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema may be migrated
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: () => Promise.resolve(migrations) } });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    const reason = result.error instanceof Error ? result.error.message : JSON.stringify(result.error);
    throw new MigrationError(`Migration ${failed} failed: ${reason}`, { cause: result.error });
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
