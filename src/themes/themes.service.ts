import type { EmittedData } from '../events/events.schemas.ts';
import type { ThemePublishedData } from './themes.events.ts';
import { lockScope } from '../db/advisory-lock.ts';
import { byCreated } from '../db/keyset.ts';
import { recordEvent } from '../events/events.ts';
import type { ListPage } from '../lib/cursors.ts';
import { notFound, validationFailed } from '../lib/errors.ts';
import { findTheme, insertTheme, markLive, themesQuery, unpublishLiveTheme } from './themes.repository.ts';
import type { NewTheme, Theme } from './themes.schemas.ts';
import type { ThemeRow } from './themes.tables.ts';
import type { ServiceDeps } from '../db/service-deps.ts';

/**
 * Themes (decision `themes-and-apps`): a minimal admin resource, so that `theme.published` has a real source.
 * Publishing records its event in the same transaction.
 */

export type ThemesDeps = ServiceDeps;

const MAX_SETTINGS_BYTES = 64 * 1024;

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

const noTheme = () => notFound('No theme with that id in this store.');

export async function createTheme(
  deps: Pick<ThemesDeps, 'db' | 'clock'>,
  storeId: string,
  input: NewTheme,
): Promise<Theme> {
  const settings = JSON.stringify(input.settings ?? {});
  if (Buffer.byteLength(settings) > MAX_SETTINGS_BYTES) {
    throw validationFailed('settings are larger than 64 KiB.', [
      { pointer: '/settings', detail: 'is larger than 64 KiB', in: 'body' },
    ]);
  }
  const row = await insertTheme(deps.db, { storeId, name: input.name, settings, now: deps.clock.now() });
  return themeRowToTheme(row);
}

export function listThemes(
  deps: Pick<ThemesDeps, 'db' | 'cursors'>,
  storeId: string,
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<ListPage<Theme>> {
  return byCreated(deps.cursors, `${storeId}:themes`, themesQuery(deps.db, storeId), page, themeRowToTheme);
}

export async function getTheme(deps: Pick<ThemesDeps, 'db'>, storeId: string, id: string): Promise<Theme> {
  const row = await findTheme(deps.db, storeId, id);
  if (!row) throw noTheme();
  return themeRowToTheme(row);
}

/**
 * Makes a theme the store's live theme and records `theme.published` {themeId, name,
 * previousThemeId}. Publishing the theme that is already live changes nothing and records nothing.
 * Publishes of one store are serialized (an advisory lock), so exactly one theme is live.
 */
export async function publishTheme(
  deps: Pick<ThemesDeps, 'db' | 'clock'>,
  storeId: string,
  id: string,
): Promise<Theme> {
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx) => {
    await lockScope(trx, 'theme', storeId);
    const theme = await findTheme(trx, storeId, id);
    if (!theme) throw noTheme();
    if (theme.live) return themeRowToTheme(theme);
    const previous = await unpublishLiveTheme(trx, storeId, now);
    const row = await markLive(trx, storeId, id, now);
    await recordEvent(trx, {
      storeId,
      type: 'theme.published',
      // One live theme per store: every publish of a store is ordered.
      resource: 'theme',
      data: { themeId: row.id, name: row.name, previousThemeId: previous?.id ?? null } satisfies EmittedData<
        typeof ThemePublishedData
      >,
    });
    return themeRowToTheme(row);
  });
}
