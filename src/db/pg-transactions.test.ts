import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { openBlankPostgres, skipUnlessPostgres } from '../test/harness.ts';
import { openDatabase } from './database.ts';
import { transactionEndingWith } from './last-statement.ts';
import {
  COMMIT_MARK,
  CommittedAlready,
  forgetTransactionEdges,
  sendTransactionEdges,
} from './pg-transactions.ts';

/**
 * BEGIN sent with the transaction's first statement (decision `begin-with-first-statement`), on a
 * real PostgreSQL connection: the round trips are counted as the server's ReadyForQuery answers
 * (one per Sync or simple query), and the transaction's state as pg records it from them.
 */
describe('BEGIN with the first statement', { skip: skipUnlessPostgres }, () => {
  let blank: { url: string; drop(): Promise<void> } | null = null;
  let client: pg.Client;
  let answers = 0;
  const status = () => (client as unknown as { _txStatus: string })._txStatus;

  before(async () => {
    blank = await openBlankPostgres();
    if (!blank) throw new Error('DATABASE_URL is set, so a blank PostgreSQL database must open');
    client = new pg.Client({ connectionString: blank.url });
    await client.connect();
    sendTransactionEdges(client);
    (client as unknown as { connection: pg.Connection }).connection.on('readyForQuery', () => {
      answers += 1;
    });
    await client.query('CREATE TABLE things (id integer PRIMARY KEY, name text NOT NULL)');
    await client.query(
      'CREATE TABLE deferred (id integer, CONSTRAINT deferred_unique UNIQUE (id) DEFERRABLE INITIALLY DEFERRED)',
    );
  });
  beforeEach(() => {
    answers = 0;
  });
  after(async () => {
    await client?.end();
    await blank?.drop();
  });

  test('a transaction of two statements takes three round trips, not four, and commits', async () => {
    await client.query('begin');
    assert.equal(answers, 0, 'the BEGIN is kept');
    const inserted = await client.query('INSERT INTO things VALUES ($1, $2) RETURNING name', [1, 'one']);
    assert.deepEqual(inserted.rows, [{ name: 'one' }]);
    assert.equal(answers, 1);
    assert.equal(status(), 'T', 'inside the transaction BEGIN opened');
    const counted = await client.query('SELECT count(*)::int AS n FROM things');
    assert.deepEqual(counted.rows, [{ n: 1 }]);
    await client.query('commit');
    assert.equal(answers, 3);
    assert.equal(status(), 'I');
    assert.equal(
      (await client.query<{ name: string }>('SELECT name FROM things WHERE id = 1')).rows[0]?.name,
      'one',
    );
  });

  test('a first statement without parameters carries the BEGIN too; ROLLBACK undoes it', async () => {
    await client.query('begin');
    await client.query("INSERT INTO things VALUES (2, 'two')");
    assert.equal(answers, 1);
    assert.equal(status(), 'T');
    await client.query('rollback');
    assert.equal(
      (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM things WHERE id = 2')).rows[0]?.n,
      0,
    );
  });

  test('a first statement of several commands without parameters runs, BEGIN and all, in one round trip', async () => {
    await client.query('begin');
    const results = (await client.query(
      "INSERT INTO things VALUES (5, 'five'); SELECT name FROM things WHERE id = 5",
    )) as unknown as pg.QueryResult[];
    assert.deepEqual(
      results.map((result) => result.command),
      ['INSERT', 'SELECT'],
      "the commands' own results, not the BEGIN's",
    );
    assert.deepEqual(results[1]?.rows, [{ name: 'five' }]);
    assert.equal(answers, 1);
    assert.equal(status(), 'T');
    // Marked last, the COMMIT goes with it too.
    const last = await client.query(`DELETE FROM things WHERE id = 5; SELECT 7 AS n ${COMMIT_MARK}`);
    assert.deepEqual((last as unknown as pg.QueryResult[]).at(-1)?.rows, [{ n: 7 }]);
    assert.equal(status(), 'I', 'committed');
    await client.query('commit');
    assert.equal(answers, 2);
    assert.equal(
      (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM things WHERE id = 5')).rows[0]?.n,
      0,
    );
  });

  test('a transaction ended before any statement sends nothing', async () => {
    await client.query('begin');
    assert.equal((await client.query('commit')).command, 'COMMIT');
    await client.query('begin');
    assert.equal((await client.query('rollback')).command, 'ROLLBACK');
    assert.equal(answers, 0);
    assert.equal(status(), 'I');
  });

  test('START TRANSACTION keeps its isolation level and access mode', async () => {
    await client.query('start transaction isolation level repeatable read read only');
    const level = await client.query<{ transaction_isolation: string }>('SHOW transaction_isolation');
    assert.equal(level.rows[0]?.transaction_isolation, 'repeatable read');
    await assert.rejects(client.query("INSERT INTO things VALUES (3, 'three')"), { code: '25006' });
    await client.query('rollback');
    assert.equal(answers, 3);
  });

  test('a first statement that fails leaves the transaction aborted, as it would have; ROLLBACK mends it', async () => {
    await client.query('begin');
    await assert.rejects(client.query('SELECT 1 / $1::int AS n', [0]), { code: '22012' });
    // The BEGIN ran: the transaction is open and aborted.
    await assert.rejects(client.query('SELECT 1'), { code: '25P02' });
    assert.equal(status(), 'E');
    await client.query('rollback');
    assert.equal(status(), 'I');
    assert.deepEqual((await client.query('SELECT 2 AS n')).rows, [{ n: 2 }]);
  });

  test('a named statement first parsed with the BEGIN is kept prepared; one whose Parse failed is parsed again', async () => {
    await client.query('begin');
    const first = await client.query({ name: 'plus_one', text: 'SELECT $1::int + 1 AS n', values: [1] });
    assert.deepEqual(first.rows, [{ n: 2 }]);
    await client.query('commit');
    answers = 0;
    assert.deepEqual(
      (await client.query({ name: 'plus_one', text: 'SELECT $1::int + 1 AS n', values: [2] })).rows,
      [{ n: 3 }],
    );
    const prepared = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name = 'plus_one'",
    );
    assert.equal(prepared.rows[0]?.n, 1);

    // The BEGIN's own ParseComplete must not mark a statement parsed whose Parse then failed: the
    // second attempt parses it again (42703 again), instead of finding no such statement (26000).
    const broken = { name: 'broken', text: 'SELECT no_such_column FROM things WHERE id = $1', values: [1] };
    for (let attempt = 0; attempt < 2; attempt += 1) {
      await client.query('begin');
      await assert.rejects(client.query(broken), { code: '42703' });
      await client.query('rollback');
    }
  });

  test('a statement marked last carries the COMMIT: BEGIN, statement and COMMIT in one round trip', async () => {
    await client.query('begin');
    const inserted = await client.query(`INSERT INTO things VALUES ($1, $2) RETURNING name ${COMMIT_MARK}`, [
      10,
      'ten',
    ]);
    assert.deepEqual(inserted.rows, [{ name: 'ten' }], "the statement's own result, not the COMMIT's");
    assert.equal(answers, 1);
    assert.equal(status(), 'I', 'committed');
    assert.equal((await client.query('commit')).command, 'COMMIT', 'the COMMIT after it is answered here');
    assert.equal(answers, 1);
    assert.equal(
      (await client.query<{ name: string }>('SELECT name FROM things WHERE id = 10')).rows[0]?.name,
      'ten',
    );
  });

  test('a COMMIT that fails fails the statement that carried it, and nothing is kept', async () => {
    await client.query('INSERT INTO deferred VALUES (1)');
    await client.query('begin');
    await client.query('INSERT INTO deferred VALUES ($1)', [2]);
    // The unique check is deferred to the COMMIT: the statement itself succeeds, its COMMIT does not.
    await assert.rejects(client.query(`INSERT INTO deferred VALUES ($1) ${COMMIT_MARK}`, [1]), {
      code: '23505',
    });
    // (pg rejects on the error, before the ReadyForQuery that follows it: the ROLLBACK below is
    // sent after it, to a connection the failed COMMIT left outside any transaction.)
    await client.query('rollback');
    assert.equal(status(), 'I');
    const rows = await client.query('SELECT id FROM deferred ORDER BY id');
    assert.deepEqual(rows.rows, [{ id: 1 }]);
  });

  test('a marked statement that fails leaves the transaction aborted; ROLLBACK undoes the rest', async () => {
    await client.query('begin');
    await client.query("INSERT INTO things VALUES (11, 'eleven')");
    await assert.rejects(client.query(`SELECT 1 / $1::int AS n ${COMMIT_MARK}`, [0]), { code: '22012' });
    await assert.rejects(client.query('SELECT 1'), { code: '25P02' }, 'aborted, not committed');
    await client.query('rollback');
    assert.equal(
      (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM things WHERE id = 11')).rows[0]?.n,
      0,
    );
  });

  test('after a transaction committed with its last statement, a ROLLBACK or another statement is refused', async () => {
    await client.query('begin');
    await client.query(`INSERT INTO things VALUES ($1, $2) ${COMMIT_MARK}`, [12, 'twelve']);
    await assert.rejects(client.query('rollback'), CommittedAlready);
    await client.query('begin');
    await client.query(`INSERT INTO things VALUES ($1, $2) ${COMMIT_MARK}`, [13, 'thirteen']);
    await assert.rejects(client.query('SELECT 1'), CommittedAlready);
    assert.equal(
      (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM things WHERE id IN (12, 13)'))
        .rows[0]?.n,
      2,
    );
  });

  test('a connection given back with a kept BEGIN forgets it', async () => {
    await client.query('begin');
    forgetTransactionEdges(client);
    await client.query("INSERT INTO things VALUES (4, 'four')");
    assert.equal(status(), 'I', 'the statement ran on its own and committed');
    assert.equal(answers, 1);
  });
});

describe('BEGIN with the first statement, through the service’s pool', { skip: skipUnlessPostgres }, () => {
  let blank: { url: string; drop(): Promise<void> } | null = null;
  let db: Awaited<ReturnType<typeof openDatabase>> | null = null;

  before(async () => {
    blank = await openBlankPostgres();
    if (!blank) throw new Error('DATABASE_URL is set, so a blank PostgreSQL database must open');
    db = await openDatabase({ databaseUrl: blank.url, dataDir: '', poolSize: 1, pipelining: true });
    await sql`CREATE TABLE things (id integer PRIMARY KEY)`.execute(db.kysely);
  });
  after(async () => {
    await db?.close();
    await plain?.close();
    await blank?.drop();
  });

  test('a Kysely transaction whose first statement holds several commands without parameters commits them', async () => {
    const k = db!.kysely as Kysely<unknown>;
    await k.transaction().execute(async (trx) => {
      await sql.raw('INSERT INTO things VALUES (30); INSERT INTO things VALUES (31)').execute(trx);
    });
    const rows = await sql<{ id: number }>`SELECT id FROM things WHERE id >= 30 ORDER BY id`.execute(k);
    assert.deepEqual(rows.rows, [{ id: 30 }, { id: 31 }]);
    await sql`DELETE FROM things WHERE id >= 30`.execute(k);
  });

  test('transactionEndingWith: a throw before the last statement rolls back with its own error; so does a failing last statement', async () => {
    const k = db!.kysely as unknown as Kysely<{ things: { id: number } }>;
    // In the body, after a statement.
    await assert.rejects(
      transactionEndingWith(
        k,
        async (trx) => {
          await trx.insertInto('things').values({ id: 40 }).execute();
          throw new Error('the body changed its mind');
        },
        (trx) => trx.insertInto('things').values({ id: 41 }),
      ),
      /the body changed its mind/,
    );
    // While the last statement is built (the code that used to run after a marked statement).
    await assert.rejects(
      transactionEndingWith(
        k,
        (trx) => trx.insertInto('things').values({ id: 42 }).execute(),
        () => {
          throw new Error('no last statement after all');
        },
      ),
      /no last statement after all/,
    );
    // The last statement itself fails: its error, and the body's rows are undone.
    await assert.rejects(
      transactionEndingWith(
        k,
        (trx) => trx.insertInto('things').values({ id: 43 }).execute(),
        (trx) => trx.insertInto('things').values({ id: 43 }),
      ),
      { code: '23505' },
    );
    const rows = await k.selectFrom('things').select('id').where('id', '>=', 40).execute();
    assert.deepEqual(rows, [], 'nothing committed');
    // The connection is clean: the next transaction works (no CommittedAlready left behind).
    await transactionEndingWith(
      k,
      () => Promise.resolve(null),
      (trx) => trx.insertInto('things').values({ id: 44 }),
    );
    await k.deleteFrom('things').where('id', '=', 44).execute();
  });

  let plain: Awaited<ReturnType<typeof openDatabase>> | null = null;
  test('DATABASE_PIPELINING off: every transaction is a plain BEGIN … COMMIT, the mark only a comment', async () => {
    plain = await openDatabase({ databaseUrl: blank!.url, dataDir: '', poolSize: 1, pipelining: false });
    const k = plain.kysely as unknown as Kysely<{ things: { id: number } }>;
    const start = plain.poolStats();
    await transactionEndingWith(
      k,
      (trx) => sql`INSERT INTO things VALUES (${20})`.execute(trx),
      (trx) => trx.deleteFrom('things').where('id', '=', 20),
    );
    const end = plain.poolStats();
    assert.equal(end!.statements - start!.statements, 4, 'BEGIN, two statements and COMMIT, each sent');
    assert.equal(end!.transactions - start!.transactions, 1);
    const rows = await k.selectFrom('things').select('id').where('id', '>=', 20).execute();
    assert.deepEqual(rows, []);
  });

  test('a Kysely transaction is one transaction: its statements see each other, a throw undoes them all', async () => {
    const k = db!.kysely as Kysely<unknown>;
    const start = db!.poolStats();
    await k.transaction().execute(async (trx) => {
      await sql`INSERT INTO things VALUES (${1})`.execute(trx);
      const seen = await sql<{ n: number }>`SELECT count(*)::int AS n FROM things`.execute(trx);
      assert.equal(seen.rows[0]?.n, 1);
    });
    const end = db!.poolStats();
    assert.equal(end!.statements - start!.statements, 3, 'two statements and the COMMIT');
    assert.equal(end!.transactions - start!.transactions, 1);

    // The last statement named by transactionEndingWith: the COMMIT goes with it (two round trips).
    const marked = db!.poolStats();
    const inserted = await transactionEndingWith(
      db!.kysely as unknown as Kysely<{ things: { id: number } }>,
      async (trx) => (await sql`INSERT INTO things VALUES (${3})`.execute(trx)).numAffectedRows,
      (trx) => trx.deleteFrom('things').where('id', '=', 3),
    );
    assert.equal(inserted, 1n, "the body's result");
    const done = db!.poolStats();
    assert.equal(done!.statements - marked!.statements, 2);
    assert.equal(done!.transactions - marked!.transactions, 1);

    await assert.rejects(
      k.transaction().execute(async (trx) => {
        await sql`INSERT INTO things VALUES (${2})`.execute(trx);
        throw new Error('changed my mind');
      }),
      /changed my mind/,
    );
    // A transaction that never sent a statement: its BEGIN and ROLLBACK cost nothing.
    await assert.rejects(
      k.transaction().execute(async () => {
        throw new Error('before anything');
      }),
      /before anything/,
    );
    const rows = await sql<{ id: number }>`SELECT id FROM things ORDER BY id`.execute(k);
    assert.deepEqual(rows.rows, [{ id: 1 }]);
  });
});
