/**
 * SQL span names (decision `sql-span-names`): the main statement's operation and its first table,
 * CTEs and subqueries followed to the table they read or write, never a value. The statements are
 * Kysely's as it compiles them for PostgreSQL, and the shapes of our raw ones.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
} from 'kysely';
import { summarizeSql } from './sql-summary.ts';

/** A Kysely that only compiles (its documented "compile only" set-up). */
const k = new Kysely<Record<string, Record<string, unknown>>>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

const name = (text: string): string => {
  const { operation, table } = summarizeSql(text);
  return table === undefined ? operation : `${operation} ${table}`;
};

describe('SQL span names', () => {
  test("Kysely's statements: operation and table, aliases and schemas left out", () => {
    const cases: [string, string][] = [
      [k.selectFrom('products').selectAll().where('id', '=', 'x').compile().sql, 'SELECT products'],
      [k.selectFrom('products as p').select('p.id').compile().sql, 'SELECT products'],
      [k.selectFrom('public.products').selectAll().compile().sql, 'SELECT products'],
      [
        k.insertInto('orders').values({ id: 'x', email: 'victim@example.com' }).compile().sql,
        'INSERT orders',
      ],
      [k.updateTable('carts').set({ email: 'a@b.c' }).where('id', '=', 'x').compile().sql, 'UPDATE carts'],
      [k.deleteFrom('sessions').where('id', '=', 'x').compile().sql, 'DELETE sessions'],
      [
        k
          .selectFrom('orders as o')
          .innerJoin('order_lines as l', 'l.order_id', 'o.id')
          .select('o.id')
          .compile().sql,
        'SELECT orders',
      ],
      [
        // A CTE read by the main statement: the table the CTE writes (was "SELECT r").
        k
          .with('r', (db) => db.updateTable('variants').set({ reserved: 1 }).returning('product_id'))
          .with('e', (db) => db.insertInto('events').values({ id: 'x' }).returning('id'))
          .selectFrom('r')
          .selectAll()
          .compile().sql,
        'SELECT variants',
      ],
      [
        k
          .selectFrom((db) => db.selectFrom('customers').select('id').as('c'))
          .selectAll()
          .compile().sql,
        'SELECT customers',
      ],
    ];
    for (const [text, expected] of cases) assert.equal(name(text), expected, text);
  });

  test('raw statements: WITH takes the main operation, followed to a table; no CTE name, no value', () => {
    const cases: [string, string][] = [
      // The relay's fan-out: its main SELECT reads only CTEs that name no table; the first that does.
      [
        `WITH fanout_lock AS (
          SELECT pg_try_advisory_xact_lock(hashtextextended('storefront:webhook-fanout', 0)) AS locked
        ),
        ev AS (SELECT store_id, id FROM events WHERE dispatched_at IS NULL FOR UPDATE SKIP LOCKED),
        summary AS (SELECT (SELECT locked FROM fanout_lock) AS locked)
        SELECT s.locked, c.* FROM summary s LEFT JOIN claimed c ON true`,
        'SELECT events',
      ],
      // The claim: WITH RECURSIVE, a self-referencing CTE, and the main SELECT from an UPDATE's CTE.
      [
        `WITH RECURSIVE stores_with_work(store_id) AS (
          (SELECT store_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY store_id LIMIT 1)
          UNION ALL
          SELECT (SELECT d.store_id FROM webhook_deliveries d WHERE d.store_id > s.store_id LIMIT 1)
          FROM stores_with_work s WHERE s.store_id IS NOT NULL
        ),
        claimed AS (
          UPDATE webhook_deliveries w SET locked_until = $1 FROM picked WHERE w.id = picked.id
          RETURNING w.store_id, w.id
        )
        SELECT w.store_id FROM claimed w JOIN webhook_endpoints e ON e.id = w.endpoint_id`,
        'SELECT webhook_deliveries',
      ],
      [
        `WITH v (store_id, id) AS (VALUES ($1::uuid, $2::uuid))
        UPDATE webhook_deliveries w SET status = v.status FROM v WHERE w.id = v.id`,
        'UPDATE webhook_deliveries',
      ],
      [
        `DELETE FROM events WHERE (store_id, id) IN (SELECT ev.store_id, ev.id FROM events ev LIMIT $1)`,
        'DELETE events',
      ],
      ['INSERT INTO mail_outbox (store_id, to_address) VALUES ($1, $2)', 'INSERT mail_outbox'],
      ['insert into "mail_outbox" ("to_address") select $1', 'INSERT mail_outbox'],
      ['SELECT count(*) FROM unnest($1::text[]) AS t', 'SELECT'],
      [
        'SELECT min(GREATEST(next_attempt_at, locked_until)) AS at FROM webhook_deliveries',
        'SELECT webhook_deliveries',
      ],
      ['SELECT 1 AS one', 'SELECT'],
      [
        `SELECT (SELECT json_build_object('byEmail', count(*) FILTER (WHERE email = $2)) FROM orders
          WHERE store_id = $3) AS held`,
        'SELECT orders',
      ],
      [
        `SELECT (SELECT count(pg_advisory_xact_lock(h)::text)
          FROM (SELECT hashtextextended(name, 0) AS h FROM unnest($1::text[]) AS name ORDER BY 1) AS ordered)`,
        'SELECT',
      ],
      ['SELECT extract(epoch FROM now()) AS at', 'SELECT'],
      ['SELECT current_database() AS name', 'SELECT'],
      ['-- a comment FROM x\nSELECT id FROM /* FROM y */ stores', 'SELECT stores'],
      ["SELECT 'FROM victim@example.com' AS a, $$ FROM secret $$ AS b FROM stores", 'SELECT stores'],
      [`SELECT E'it\\'s FROM nowhere' FROM "Odd ""Name"""`, 'SELECT Odd "Name"'],
      ['begin', 'BEGIN'],
      ['COMMIT', 'COMMIT'],
      ["SET LOCAL statement_timeout = '5s'", 'SET'],
      ['LISTEN storefront_webhooks', 'LISTEN'],
      ['', 'SQL'],
    ];
    for (const [text, expected] of cases) assert.equal(name(text), expected, text);
  });

  test('a value never becomes a name, whatever the statement', () => {
    const values = ['victim@example.com', 'Zoë Privatperson', '42'];
    const texts = [
      sql`SELECT * FROM customers WHERE email = ${values[0]}`.compile(k).sql,
      `SELECT 'victim@example.com' FROM 'Zoë Privatperson'`,
      `UPDATE 'victim@example.com' SET a = 1`,
      `INSERT INTO $1 VALUES ('Zoë Privatperson')`,
      `SELECT 42 FROM 42`,
    ];
    for (const text of texts) {
      const summary = JSON.stringify(summarizeSql(text));
      for (const value of values) assert.ok(!summary.includes(value), `${summary} (${text})`);
    }
  });
});
