import { sql, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { pageSize, type CursorCodec, type ListPage } from '../lib/cursors.ts';
import { validationFailed } from '../lib/errors.ts';

/**
 * The keyset condition "row comes after this position" as a row-value comparison, e.g.
 * `(created_at, id) > ($1, $2)`, which PostgreSQL answers from an index on those columns.
 */
export function after(columns: readonly string[], position: readonly unknown[]): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${sql.join(columns.map((c) => sql.ref(c)))}) > (${sql.join(position)})`;
}

/** The keyset condition "row comes before this position" (descending lists). */
export function before(columns: readonly string[], position: readonly unknown[]): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${sql.join(columns.map((c) => sql.ref(c)))}) < (${sql.join(position)})`;
}

/**
 * Runs a keyset-paginated list query ordered by `columns` (ascending, or all descending with
 * `descending`; the last column must be unique, e.g. `id`): decodes the cursor, fetches one row more than the page to know whether there
 * is a next one, and builds the envelope. `position` reads the same columns from a row.
 */
export async function keysetPage<DB, TB extends keyof DB, O, Item>(options: {
  cursors: CursorCodec;
  scope: string;
  query: SelectQueryBuilder<DB, TB, O>;
  columns: readonly string[];
  position: (row: O) => (string | number)[];
  page: { limit?: number | undefined; cursor?: string | undefined };
  toItem: (row: O) => Item;
  /** Turns decoded cursor values back into column values (e.g. ISO strings into Dates). */
  revive?: (values: (string | number)[]) => unknown[];
  /** Newest first: every column descending. */
  descending?: boolean;
}): Promise<ListPage<Item>> {
  const size = pageSize(options.page.limit);
  const direction = options.descending ? 'desc' : 'asc';
  let query = options.query;
  for (const column of options.columns) query = query.orderBy(sql.ref(column), direction);
  if (options.page.cursor) {
    const values = options.cursors.decode(options.scope, options.page.cursor);
    if (values.length !== options.columns.length) {
      throw validationFailed('The cursor is invalid; pass back nextCursor exactly as received.', [
        { pointer: '/cursor', detail: 'is not a valid cursor', in: 'query' },
      ]);
    }
    const position = options.revive ? options.revive(values) : values;
    query = query.where((options.descending ? before : after)(options.columns, position));
  }
  const rows = await query.limit(size + 1).execute();
  return options.cursors.page(options.scope, rows, size, options.position, options.toItem);
}

/** The common case: lists ordered by `(created_at, id)`, newest last (or first, with `descending`). */
export function byCreated<DB, TB extends keyof DB, O extends { created_at: Date; id: string }, Item>(
  cursors: CursorCodec,
  scope: string,
  query: SelectQueryBuilder<DB, TB, O>,
  page: { limit?: number | undefined; cursor?: string | undefined },
  toItem: (row: O) => Item,
  prefix = '',
  descending = false,
): Promise<ListPage<Item>> {
  return keysetPage({
    cursors,
    scope,
    query,
    columns: [`${prefix}created_at`, `${prefix}id`],
    position: (row) => [row.created_at.toISOString(), row.id],
    page,
    toItem,
    revive: ([createdAt, id]) => [new Date(String(createdAt)), id],
    descending,
  });
}

/** Where a walk over every store's rows of a table stands: the key of the last row it read. */
export interface StoreRowKey {
  store_id: string;
  id: string;
}

/**
 * The next batch of a walk over a whole table, every store's rows in `(store_id, id)` order (e.g.
 * `secrets rotate` re-sealing each row): at most `limit` rows of `query` after `last`, or the first
 * ones without it.
 */
export function nextBatch<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  last: StoreRowKey | undefined,
  limit: number,
): Promise<O[]> {
  const rest = last ? query.where(after(['store_id', 'id'], [last.store_id, last.id])) : query;
  return rest.orderBy(sql.ref('store_id')).orderBy(sql.ref('id')).limit(limit).execute();
}
