/**
 * Prepared statements on the embedded database (decision `prepared-statements`): the same answers
 * as PGlite's own `query`, each statement parsed once, and what the read cache relies on (a
 * statement's notification heard before it resolves) kept.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { pgliteOptions } from './pglite.ts';
import { withPreparedStatements } from './pglite-prepared.ts';

let raw: PGlite;
let db: PGlite;

before(async () => {
  raw = await PGlite.create(pgliteOptions);
  db = withPreparedStatements(raw);
  await raw.exec(`
    CREATE TABLE things (
      id uuid PRIMARY KEY,
      n int NOT NULL,
      big bigint,
      tags text[],
      data jsonb,
      at timestamptz,
      ok boolean
    );
    CREATE FUNCTION things_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_notify('things', NEW.id::text); RETURN NEW; END $$;
    CREATE TRIGGER things_notify AFTER INSERT OR UPDATE ON things FOR EACH ROW EXECUTE FUNCTION things_notify();
  `);
});
after(() => raw.close());

const ID = '00000000-0000-4000-8000-000000000001';
const ID2 = '00000000-0000-4000-8000-000000000002';

async function preparedCount(): Promise<number> {
  const { rows } = await raw.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements');
  return rows[0]!.n;
}

describe('withPreparedStatements', () => {
  test('answers as PGlite does, for every kind of value, parsing each statement once', async () => {
    const at = new Date('2026-11-27T01:02:03.456Z');
    const insert =
      'INSERT INTO things (id, n, big, tags, data, at, ok) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *';
    const inserted = await db.query(insert, [ID, 7, 1234567890123, ['a', 'b,c'], { x: [1, 'y'] }, at, true]);
    assert.equal(inserted.affectedRows, 1);
    const before = await preparedCount();
    const select = 'SELECT * FROM things WHERE id = $1 AND n > $2';
    const fast = await db.query(select, [ID, 0]);
    const slow = await raw.query(select, [ID, 0]);
    assert.deepEqual(fast.rows, slow.rows);
    assert.deepEqual(
      fast.fields.map((field) => field.name),
      ['id', 'n', 'big', 'tags', 'data', 'at', 'ok'],
    );
    assert.deepEqual(fast.rows[0], {
      ...(slow.rows[0] as Record<string, unknown>),
      big: 1234567890123,
      tags: ['a', 'b,c'],
      data: { x: [1, 'y'] },
      at,
    });
    for (let i = 0; i < 5; i++) await db.query(select, [ID, i]);
    assert.equal(await preparedCount(), before + 1);
    // NULLs, an update's count, no rows.
    const updated = await db.query('UPDATE things SET big = $1, ok = $2 WHERE id = $3', [null, null, ID]);
    assert.equal(updated.affectedRows, 1);
    assert.deepEqual((await db.query(select, [ID2, 0])).rows, []);
  });

  test('an error is the database’s, and a transaction with one rolls back', async () => {
    await assert.rejects(
      db.query('INSERT INTO things (id, n) VALUES ($1, $2)', [ID, 1]),
      (error: { code?: string }) => error.code === '23505',
    );
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO things (id, n) VALUES ($1, $2)', [ID2, 1]);
        await tx.query('INSERT INTO things (id, n) VALUES ($1, $2)', [ID, 1]);
      }),
      (error: { code?: string }) => error.code === '23505',
    );
    assert.deepEqual((await db.query('SELECT id FROM things WHERE id = $1', [ID2])).rows, []);
    // The handle still works, in and out of transactions.
    await db.transaction(async (tx) => {
      await tx.query('INSERT INTO things (id, n) VALUES ($1, $2)', [ID2, 2]);
    });
    assert.equal((await db.query<{ n: number }>('SELECT n FROM things WHERE id = $1', [ID2])).rows[0]?.n, 2);
  });

  test('a statement’s notification is heard before it resolves (the read cache relies on it)', async () => {
    const heard: string[] = [];
    const unlisten = await raw.listen('things', (payload) => heard.push(payload));
    try {
      await db.query('UPDATE things SET n = n + $1 WHERE id = $2', [1, ID]);
      assert.deepEqual(heard, [ID]);
      await db.transaction(async (tx) => {
        await tx.query('UPDATE things SET n = n + $1 WHERE id = $2', [1, ID2]);
      });
      assert.deepEqual(heard, [ID, ID2]);
    } finally {
      await unlisten();
    }
  });

  test('a table changed under a prepared SELECT * is prepared again', async () => {
    const select = 'SELECT * FROM things WHERE id = $1';
    assert.equal((await db.query(select, [ID])).rows.length, 1);
    await raw.exec('ALTER TABLE things ADD COLUMN note text');
    const again = await db.query<{ note: string | null }>(select, [ID]);
    assert.equal(again.rows[0]?.note, null);
  });
});
