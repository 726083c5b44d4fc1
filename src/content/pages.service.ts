import { sql, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../db/tables.ts';
import { recordEvent } from '../events/events.ts';
import type { PageRow } from './content.tables.ts';
import { notFound, validationFailed, type FieldError } from '../lib/errors.ts';

export interface AdminPage {
  id: string;
  slug: string;
  title: string;
  body: string;
  createdAt: string;
  updatedAt: string;
}

export interface StorefrontPage {
  slug: string;
  title: string;
  body: string;
  updatedAt: string;
}

export function pageRowToAdmin(row: PageRow): AdminPage {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    body: row.body,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function pageRowToStorefront(
  row: Pick<PageRow, 'slug' | 'title' | 'body' | 'updated_at'>,
): StorefrontPage {
  return { slug: row.slug, title: row.title, body: row.body, updatedAt: row.updated_at.toISOString() };
}

/**
 * Creates the page or replaces its title and body. The body is plain text and is stored exactly as
 * sent (never rewritten or sanitised; clients render it as text). The title is trimmed. A write
 * that changes nothing is not a change: no update, no event. Otherwise content.updated
 * {kind: 'page', slug} in the same transaction.
 */
export async function putPage(
  db: Kysely<Database>,
  storeId: string,
  slug: string,
  input: { title: string; body: string },
): Promise<AdminPage> {
  const errors: FieldError[] = [];
  const title = input.title.trim();
  if (title === '') errors.push({ pointer: '/title', detail: 'must not be blank', in: 'body' });
  if (errors.length > 0) {
    const first = errors[0]!;
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    throw validationFailed(`The page is invalid: ${first.pointer.slice(1)} ${first.detail}${more}.`, errors);
  }

  return db.transaction().execute(async (trx) => {
    const written = await trx
      .insertInto('pages')
      .values({ store_id: storeId, slug, title, body: input.body })
      .onConflict((conflict) =>
        conflict
          .columns(['store_id', 'slug'])
          .doUpdateSet({
            title: (eb) => eb.ref('excluded.title'),
            body: (eb) => eb.ref('excluded.body'),
            updated_at: sql`now()`,
          })
          .where(sql<SqlBool>`(pages.title, pages.body) IS DISTINCT FROM (excluded.title, excluded.body)`),
      )
      .returningAll()
      .executeTakeFirst();
    if (written) {
      await recordEvent(trx, { storeId, type: 'content.updated', data: { kind: 'page', slug } });
      return pageRowToAdmin(written);
    }
    const current = await trx
      .selectFrom('pages')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('slug', '=', slug)
      .executeTakeFirstOrThrow();
    return pageRowToAdmin(current);
  });
}

export async function findPage(db: Kysely<Database>, storeId: string, slug: string): Promise<PageRow> {
  const row = await db
    .selectFrom('pages')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('slug', '=', slug)
    .executeTakeFirst();
  if (!row) throw notFound(`No page with the slug "${slug}".`);
  return row;
}

export async function deletePage(db: Kysely<Database>, storeId: string, slug: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const row = await trx
      .deleteFrom('pages')
      .where('store_id', '=', storeId)
      .where('slug', '=', slug)
      .returning('id')
      .executeTakeFirst();
    if (!row) throw notFound(`No page with the slug "${slug}".`);
    await recordEvent(trx, {
      storeId,
      type: 'content.updated',
      data: { kind: 'page', slug, deleted: true },
    });
  });
}
