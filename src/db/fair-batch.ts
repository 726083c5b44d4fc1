import { sql, type RawBuilder } from 'kysely';

export interface FairBatch {
  /** The table to pick from; it is aliased `t` in every fragment below. */
  table: string;
  /** Which rows are open work (the predicate of a partial `(store_id, …)` index), e.g. `t.status = 'pending'`. */
  open: RawBuilder<unknown>;
  /** Which open rows are due now, e.g. `t.next_check_at <= ${now}`. */
  due: RawBuilder<unknown>;
  /** Order within one store (oldest first). */
  orderBy: RawBuilder<unknown>;
  /** Columns of `t` to return. */
  columns: RawBuilder<unknown>;
  limit: number;
}

/**
 * A batch of due work picked fairly across stores (decision `worker-loops`): each store's due rows are ranked,
 * and the batch takes every store's first row before any store's second, so one store with a large
 * backlog never delays another's work. The stores with open work are found by skipping through
 * the `(store_id, …)` index (one index probe per store that has open rows, never a table scan),
 * then each store's due rows are read from the same index.
 */
export function fairBatch<Row>(batch: FairBatch): RawBuilder<Row> {
  const table = sql.table(batch.table);
  return sql<Row>`
    WITH RECURSIVE stores_with_work(store_id) AS (
      (SELECT t.store_id FROM ${table} t WHERE ${batch.open} ORDER BY t.store_id LIMIT 1)
      UNION ALL
      SELECT (
        SELECT t.store_id FROM ${table} t
        WHERE ${batch.open} AND t.store_id > s.store_id
        ORDER BY t.store_id LIMIT 1
      )
      FROM stores_with_work s
      WHERE s.store_id IS NOT NULL
    )
    SELECT picked.* FROM stores_with_work s
    CROSS JOIN LATERAL (
      SELECT ${batch.columns}, row_number() OVER (ORDER BY ${batch.orderBy}) AS fair_rank
      FROM ${table} t
      WHERE t.store_id = s.store_id AND ${batch.open} AND ${batch.due}
      ORDER BY ${batch.orderBy}
      LIMIT ${batch.limit}
    ) picked
    WHERE s.store_id IS NOT NULL
    ORDER BY picked.fair_rank, picked.store_id
    LIMIT ${batch.limit}`;
}
