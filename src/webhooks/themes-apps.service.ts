import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import { recordEvent } from '../events/events.ts';
import type { AppRow, ThemeRow } from './webhooks.tables.ts';
import { AppError, notFound, validationFailed } from '../lib/errors.ts';

/**
 * Themes and apps (DESIGN D19): minimal admin resources, so that `theme.published` and
 * `app.installed` have real sources. Each write records its event in the same transaction.
 */

const MAX_SETTINGS_BYTES = 64 * 1024;

export interface Theme {
  id: string;
  name: string;
  settings: Record<string, unknown>;
  live: boolean;
  publishedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export function themeRowToTheme(row: ThemeRow): Theme {
  return {
    id: row.id,
    name: row.name,
    settings: row.settings,
    live: row.live,
    publishedAt: row.published_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export async function createTheme(
  db: Kysely<Database>,
  storeId: string,
  input: { name: string; settings?: Record<string, unknown> | undefined },
  now: Date,
): Promise<Theme> {
  const settings = JSON.stringify(input.settings ?? {});
  if (Buffer.byteLength(settings) > MAX_SETTINGS_BYTES) {
    throw validationFailed('settings are larger than 64 KiB.', [
      { pointer: '/settings', detail: 'is larger than 64 KiB', in: 'body' },
    ]);
  }
  const row = await db
    .insertInto('themes')
    .values({ store_id: storeId, name: input.name, settings, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  return themeRowToTheme(row);
}

/**
 * Makes a theme the store's live theme and records `theme.published` {themeId, name,
 * previousThemeId}. Publishing the theme that is already live changes nothing and records nothing.
 * Publishes of one store are serialized (an advisory lock), so exactly one theme is live.
 */
export async function publishTheme(
  db: Kysely<Database>,
  storeId: string,
  id: string,
  now: Date,
): Promise<Theme> {
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`storefront:theme:${storeId}`}, 0))`.execute(
      trx,
    );
    const theme = await trx
      .selectFrom('themes')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!theme) throw notFound('No theme with that id in this store.');
    if (theme.live) return themeRowToTheme(theme);
    const previous = await trx
      .updateTable('themes')
      .set({ live: false, updated_at: now })
      .where('store_id', '=', storeId)
      .where('live', '=', true)
      .returning('id')
      .executeTakeFirst();
    const row = await trx
      .updateTable('themes')
      .set({ live: true, published_at: now, updated_at: now })
      .where('store_id', '=', storeId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordEvent(trx, {
      storeId,
      type: 'theme.published',
      data: { themeId: row.id, name: row.name, previousThemeId: previous?.id ?? null },
    });
    return themeRowToTheme(row);
  });
}

export interface InstalledApp {
  id: string;
  name: string;
  scopes: string[];
  installedAt: string;
}

export function appRowToApp(row: AppRow): InstalledApp {
  return { id: row.id, name: row.name, scopes: row.scopes, installedAt: row.created_at.toISOString() };
}

/** Installs an app (names are unique per store: 409 app_already_installed) and records `app.installed`. */
export async function installApp(
  db: Kysely<Database>,
  storeId: string,
  input: { name: string; scopes: string[] },
  now: Date,
): Promise<InstalledApp> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('apps')
      .values({ store_id: storeId, name: input.name, scopes: JSON.stringify(input.scopes), created_at: now })
      .onConflict((oc) => oc.columns(['store_id', 'name']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!row) {
      throw new AppError('app_already_installed', 409, `An app named "${input.name}" is already installed.`);
    }
    await recordEvent(trx, {
      storeId,
      type: 'app.installed',
      data: { appId: row.id, name: row.name, scopes: row.scopes },
    });
    return appRowToApp(row);
  });
}
