import type { EmittedData } from '../events/events.schemas.ts';
import type { MenuUpdatedData } from './content.events.ts';
import { keysetPage } from '../db/keyset.ts';
import { recordEvent } from '../events/events.ts';
import type { ListPage } from '../lib/cursors.ts';
import { notFound, validationFailed, type FieldError } from '../lib/errors.ts';
import type { ContentDeps } from './content.deps.ts';
import {
  deleteMenuByHandle,
  findMenu,
  menusQuery,
  storefrontMenusQuery,
  upsertMenu,
} from './content.repository.ts';
import type { AdminMenu, MenuInput, StorefrontMenu } from './content.schemas.ts';
import type { MenuRow, StorefrontMenuRow } from './content.tables.ts';
import { urlProblem } from '@storefront/blocks';
import type { MenuItem } from './content.types.ts';

export function menuRowToAdmin(row: MenuRow): AdminMenu {
  return {
    id: row.id,
    handle: row.handle,
    items: row.items,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function menuRowToStorefront(row: StorefrontMenuRow): StorefrontMenu {
  return { handle: row.handle, items: row.items };
}

const noMenu = (handle: string) => notFound(`No menu with the handle "${handle}".`);

/** Labels are trimmed; URLs follow the menu rules of @storefront/blocks (text.ts). 400 with a pointer per problem. */
function checkItems(items: MenuItem[]): MenuItem[] {
  const errors: FieldError[] = [];
  const checked = items.map((item, i) => {
    const label = item.label.trim();
    if (label === '') errors.push({ pointer: `/items/${i}/label`, detail: 'must not be blank', in: 'body' });
    const urlIssue = urlProblem(item.url, 'menu');
    if (urlIssue) errors.push({ pointer: `/items/${i}/url`, detail: urlIssue, in: 'body' });
    return { label, url: item.url };
  });
  if (errors.length > 0) {
    const first = errors[0]!;
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    throw validationFailed(
      `The menu is invalid: ${first.pointer.slice(1).replaceAll('/', '.')} ${first.detail}${more}.`,
      errors,
    );
  }
  return checked;
}

/** The admin list, ordered by handle. */
export function listAdminMenus(
  deps: ContentDeps,
  storeId: string,
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<ListPage<AdminMenu>> {
  return keysetPage({
    cursors: deps.cursors,
    scope: `${storeId}:admin-menus`,
    query: menusQuery(deps.db, storeId),
    columns: ['handle'],
    position: (row) => [row.handle],
    page,
    toItem: menuRowToAdmin,
  });
}

/** The storefront list, ordered by handle. */
export function listStorefrontMenus(
  deps: ContentDeps,
  storeId: string,
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<ListPage<StorefrontMenu>> {
  return keysetPage({
    cursors: deps.cursors,
    scope: `${storeId}:menus`,
    query: storefrontMenusQuery(deps.db, storeId),
    columns: ['handle'],
    position: (row) => [row.handle],
    page,
    toItem: menuRowToStorefront,
  });
}

async function menuRow(deps: Pick<ContentDeps, 'db'>, storeId: string, handle: string): Promise<MenuRow> {
  const row = await findMenu(deps.db, storeId, handle);
  if (!row) throw noMenu(handle);
  return row;
}

export async function getAdminMenu(
  deps: Pick<ContentDeps, 'db'>,
  storeId: string,
  handle: string,
): Promise<AdminMenu> {
  return menuRowToAdmin(await menuRow(deps, storeId, handle));
}

export async function getStorefrontMenu(
  deps: Pick<ContentDeps, 'db'>,
  storeId: string,
  handle: string,
): Promise<StorefrontMenu> {
  return menuRowToStorefront(await menuRow(deps, storeId, handle));
}

/**
 * Creates the menu or replaces its items. A write that changes nothing (same items) is not a
 * change: no update, no event. Otherwise content.updated {kind: 'menu', handle} in the same
 * transaction.
 */
export async function putMenu(
  deps: Pick<ContentDeps, 'db' | 'clock'>,
  storeId: string,
  handle: string,
  input: MenuInput,
): Promise<AdminMenu> {
  const items = checkItems(input.items);
  return deps.db.transaction().execute(async (trx) => {
    const written = await upsertMenu(trx, { storeId, handle, items, now: deps.clock.now() });
    if (written) {
      await recordEvent(trx, {
        storeId,
        type: 'content.updated',
        resource: `content:menu:${handle}`,
        data: { kind: 'menu', handle } satisfies EmittedData<typeof MenuUpdatedData>,
      });
      return menuRowToAdmin(written);
    }
    const current = await findMenu(trx, storeId, handle);
    if (!current) throw new Error(`menu "${handle}" vanished during its own upsert`);
    return menuRowToAdmin(current);
  });
}

/** Deletes the menu and records content.updated {kind: 'menu', handle, deleted: true}; 404 when unknown. */
export async function deleteMenu(
  deps: Pick<ContentDeps, 'db'>,
  storeId: string,
  handle: string,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const row = await deleteMenuByHandle(trx, storeId, handle);
    if (!row) throw noMenu(handle);
    await recordEvent(trx, {
      storeId,
      type: 'content.updated',
      resource: `content:menu:${handle}`,
      data: { kind: 'menu', handle, deleted: true } satisfies EmittedData<typeof MenuUpdatedData>,
    });
  });
}
