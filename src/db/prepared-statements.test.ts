import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { openBlankPostgres, skipUnlessPostgres } from '../test/harness.ts';
import { openDatabase, type Db } from './database.ts';

/**
 * Named prepared statements on PostgreSQL (decision `prepared-statements`). The embedded database
 * has no connection pool, so this file runs on PostgreSQL only (.ci/run runs the suite there too).
 */

describe('prepared statements', { skip: skipUnlessPostgres }, () => {
  let blank: { url: string; drop(): Promise<void> } | null = null;
  let db: Db | null = null;
  let k: Kysely<unknown>;

  before(async () => {
    blank = await openBlankPostgres();
    if (!blank) throw new Error('DATABASE_URL is set, so a blank PostgreSQL database must open');
    // One connection: every statement below runs in the same session, whose prepared statements
    // pg_prepared_statements lists.
    db = await openDatabase({ databaseUrl: blank.url, dataDir: '', poolSize: 1 });
    k = db.kysely as Kysely<unknown>;
    await sql`CREATE TABLE things (id integer PRIMARY KEY, name text NOT NULL)`.execute(k);
    await sql`INSERT INTO things VALUES (1, 'one'), (2, 'two')`.execute(k);
  });
  after(async () => {
    await db?.close();
    await blank?.drop();
  });

  const thing = (id: number) =>
    sql<Record<string, unknown>>`SELECT * FROM things WHERE id = ${id}`.execute(k);
  const preparedTexts = async () =>
    (await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(k)).rows.map(
      (row) => row.statement,
    );

  test('a statement with parameters is prepared once per connection and reused; one without is not', async () => {
    assert.deepEqual((await thing(1)).rows, [{ id: 1, name: 'one' }]);
    assert.deepEqual((await thing(2)).rows, [{ id: 2, name: 'two' }]);
    await sql`SELECT count(*) FROM things`.execute(k);
    const texts = await preparedTexts();
    assert.equal(texts.filter((text) => text.startsWith('SELECT * FROM things WHERE id = $1')).length, 1);
    assert.ok(!texts.some((text) => text.startsWith('SELECT count(*)')), 'no parameters: not prepared');
  });

  test('a column added under a prepared SELECT *: outside a transaction the statement is prepared again at once', async () => {
    await thing(1);
    await sql`ALTER TABLE things ADD COLUMN colour text`.execute(k);
    assert.deepEqual((await thing(1)).rows, [{ id: 1, name: 'one', colour: null }]);
  });

  test('inside a transaction the transaction fails once; the next one prepares it again', async () => {
    await thing(2);
    await sql`ALTER TABLE things ADD COLUMN size integer`.execute(k);
    await assert.rejects(
      k.transaction().execute((trx) => sql`SELECT * FROM things WHERE id = ${2}`.execute(trx)),
      (error: { code?: string }) => error.code === '0A000',
    );
    const again = await k
      .transaction()
      .execute((trx) => sql<Record<string, unknown>>`SELECT * FROM things WHERE id = ${2}`.execute(trx));
    assert.deepEqual(again.rows, [{ id: 2, name: 'two', colour: null, size: null }]);
  });
});
