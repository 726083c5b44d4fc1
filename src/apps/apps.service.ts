import type { EmittedData } from '../events/events.schemas.ts';
import type { AppInstalledData } from './apps.events.ts';
import { byCreated } from '../db/keyset.ts';
import { recordEvent } from '../events/events.ts';
import type { ListPage } from '../lib/cursors.ts';
import { AppError } from '../lib/errors.ts';
import { appsQuery, insertApp } from './apps.repository.ts';
import type { InstalledApp, NewApp } from './apps.schemas.ts';
import type { AppRow } from './apps.tables.ts';
import type { ServiceDeps } from '../db/service-deps.ts';

/**
 * Apps (decision `themes-and-apps`): a minimal admin resource, so that `app.installed` has a real source.
 * Installing records its event in the same transaction.
 */

export type AppsDeps = ServiceDeps;

export function appRowToApp(row: AppRow): InstalledApp {
  return { id: row.id, name: row.name, scopes: row.scopes, installedAt: row.created_at.toISOString() };
}

/** Installs an app (names are unique per store: 409 app_already_installed) and records `app.installed`. */
export async function installApp(
  deps: Pick<AppsDeps, 'db' | 'clock'>,
  storeId: string,
  input: NewApp,
): Promise<InstalledApp> {
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx) => {
    const row = await insertApp(trx, { storeId, name: input.name, scopes: input.scopes, now });
    if (!row) {
      throw new AppError('app_already_installed', 409, `An app named "${input.name}" is already installed.`);
    }
    await recordEvent(trx, {
      storeId,
      type: 'app.installed',
      resource: `app:${row.id}`,
      data: { appId: row.id, name: row.name, scopes: row.scopes } satisfies EmittedData<
        typeof AppInstalledData
      >,
    });
    return appRowToApp(row);
  });
}

export function listApps(
  deps: Pick<AppsDeps, 'db' | 'cursors'>,
  storeId: string,
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<ListPage<InstalledApp>> {
  return byCreated(deps.cursors, `${storeId}:apps`, appsQuery(deps.db, storeId), page, appRowToApp);
}
