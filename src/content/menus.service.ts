import { sql, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../db/tables.ts';
import { recordEvent } from '../events/events.ts';
import type { MenuRow } from './content.tables.ts';
import { urlProblem } from './content.text.ts';
import type { MenuItem } from './content.types.ts';
import { notFound, validationFailed, type FieldError } from '../lib/errors.ts';

export interface AdminMenu {
  id: string;
  handle: string;
  items: MenuItem[];
  createdAt: string;
  updatedAt: string;
}

export function menuRowToAdmin(row: MenuRow): AdminMenu {
  return {
    id: row.id,
    handle: row.handle,
    items: row.items,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function menuRowToStorefront(row: Pick<MenuRow, 'handle' | 'items'>): {
  handle: string;
  items: MenuItem[];
} {
  return { handle: row.handle, items: row.items };
}

/** Labels are trimmed; URLs follow the menu rules of content.text.ts. 400 with a pointer per problem. */
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

/**
 * Creates the menu or replaces its items. A write that changes nothing (same items) is not a
 * change: no update, no event. Otherwise content.updated {kind: 'menu', handle} in the same
 * transaction.
 */
export async function putMenu(
  db: Kysely<Database>,
  storeId: string,
  handle: string,
  input: { items: MenuItem[] },
): Promise<AdminMenu> {
  const items = checkItems(input.items);
  return db.transaction().execute(async (trx) => {
    const written = await trx
      .insertInto('menus')
      .values({ store_id: storeId, handle, items: JSON.stringify(items) })
      .onConflict((conflict) =>
        conflict
          .columns(['store_id', 'handle'])
          .doUpdateSet({ items: (eb) => eb.ref('excluded.items'), updated_at: sql`now()` })
          .where(sql<SqlBool>`menus.items IS DISTINCT FROM excluded.items`),
      )
      .returningAll()
      .executeTakeFirst();
    if (written) {
      await recordEvent(trx, { storeId, type: 'content.updated', data: { kind: 'menu', handle } });
      return menuRowToAdmin(written);
    }
    const current = await trx
      .selectFrom('menus')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('handle', '=', handle)
      .executeTakeFirstOrThrow();
    return menuRowToAdmin(current);
  });
}

export async function findMenu(db: Kysely<Database>, storeId: string, handle: string): Promise<MenuRow> {
  const row = await db
    .selectFrom('menus')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('handle', '=', handle)
    .executeTakeFirst();
  if (!row) throw notFound(`No menu with the handle "${handle}".`);
  return row;
}

export async function deleteMenu(db: Kysely<Database>, storeId: string, handle: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const row = await trx
      .deleteFrom('menus')
      .where('store_id', '=', storeId)
      .where('handle', '=', handle)
      .returning('id')
      .executeTakeFirst();
    if (!row) throw notFound(`No menu with the handle "${handle}".`);
    await recordEvent(trx, {
      storeId,
      type: 'content.updated',
      data: { kind: 'menu', handle, deleted: true },
    });
  });
}
