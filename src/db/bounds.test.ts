/**
 * The PostgreSQL pool's bounds (decision `database-faults`, src/db/bounds.ts) on a real server: a
 * session PostgreSQL terminates never goes back to the pool; a statement longer than the bound is
 * cancelled by the server and its connection kept; a connection that answers nothing is given up
 * after the deadline and never reused; a request's database work shares one deadline; the CLI's
 * commands are not bounded.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { loadConfig } from '../config.ts';
import { databaseOptions } from '../runtime.ts';
import { openBlankPostgres, skipUnlessPostgres, waitFor } from '../test/harness.ts';
import { startTcpProxy, type TcpProxy } from '../test/tcp-proxy.ts';
import { DEADLINE_MARGIN_MS, requestScope, runAsRequest, withFreshBound, withLongBound } from './bounds.ts';
import { COMMIT_MARK } from './pg-transactions.ts';
import { openDatabase, type Db } from './database.ts';
import { DatabaseDeadlineError, isDatabaseUnavailable } from './errors.ts';

const outcome = (pending: Promise<unknown>): Promise<unknown> =>
  pending.then(
    () => 'ok',
    (error: unknown) => error,
  );

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a blank database
async function backendPid(db: Kysely<any>): Promise<number> {
  return (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db)).rows[0]!.pid;
}

/**
 * What `pending` settles with while the proxy stalls, or 'still waiting' when it has not settled
 * 15 s later (far past every bound here); the proxy resumes either way.
 */
async function whileStalled(proxy: TcpProxy, pending: () => Promise<unknown>): Promise<unknown> {
  proxy.stall();
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      outcome(pending()),
      new Promise((resolve) => (timer = setTimeout(resolve, 15_000, 'still waiting'))),
    ]);
  } finally {
    clearTimeout(timer);
    proxy.resume();
  }
}

/**
 * Runs `fn` as the database work of a request that started `ago` ms before now; `fn` may move that
 * start back (the request's time going by).
 */
function asRequest<T>(ago: number, fn: (scope: { startedAt: number }) => Promise<T>): Promise<T> {
  const scope: { startedAt: number; answered: boolean } = {
    ...requestScope(),
    startedAt: performance.now() - ago,
  };
  return new Promise<T>((resolve, reject) => runAsRequest(scope, () => void fn(scope).then(resolve, reject)));
}

describe('the PostgreSQL pool', { skip: skipUnlessPostgres }, () => {
  let blank: { url: string; drop(): Promise<void> } | null = null;
  let admin: Db;
  let proxy: TcpProxy;
  const opened: Db[] = [];
  const open = async (options: { statementTimeoutMs: number | null; viaProxy?: boolean }): Promise<Db> => {
    const url = new URL(blank!.url);
    if (options.viaProxy) {
      url.hostname = '127.0.0.1';
      url.port = String(proxy.port);
    }
    const db = await openDatabase({
      databaseUrl: url.href,
      dataDir: '',
      poolSize: 1,
      command: 'storefront bounds test',
      listen: false,
      statementTimeoutMs: options.statementTimeoutMs,
    });
    opened.push(db);
    return db;
  };

  before(async () => {
    blank = await openBlankPostgres();
    if (!blank) throw new Error('DATABASE_URL is set, so a blank PostgreSQL database must open');
    admin = await openDatabase({ databaseUrl: blank.url, dataDir: '', poolSize: 1, listen: false });
    const target = new URL(blank.url);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  });
  after(async () => {
    proxy?.resume();
    for (const db of opened) await db.close();
    await admin?.close();
    await proxy?.close();
    await blank?.drop();
  });

  test('a session terminated during a statement outside a transaction leaves the pool: the next statement gets a new one', async () => {
    const db = await open({ statementTimeoutMs: null });
    for (let run = 0; run < 5; run++) {
      const pid = await backendPid(db.kysely);
      const sleeping = outcome(sql`SELECT pg_sleep(10)`.execute(db.kysely));
      await waitFor(
        async () => {
          const { rows } = await sql<{ state: string | null }>`
          SELECT state FROM pg_stat_activity WHERE pid = ${pid}`.execute(admin.kysely);
          return rows[0]?.state === 'active';
        },
        5000,
        'the statement to run',
      );
      await sql`SELECT pg_terminate_backend(${pid})`.execute(admin.kysely);
      const failed = await sleeping;
      assert.equal((failed as { code?: string }).code, '57P01', 'the statement failed with the termination');
      assert.ok(isDatabaseUnavailable(failed));
      // The pool has one connection: without the fix this is the terminated one.
      const next = await backendPid(db.kysely);
      assert.notEqual(next, pid, `run ${run}: a new session`);
    }
  });

  test('a session terminated inside a transaction leaves the pool too', async () => {
    const db = await open({ statementTimeoutMs: null });
    const pid = await backendPid(db.kysely);
    const failed = await outcome(
      db.kysely.transaction().execute(async (trx) => {
        await sql`SELECT 1`.execute(trx);
        await sql`SELECT pg_terminate_backend(${pid})`.execute(admin.kysely);
        await sql`SELECT pg_sleep(1)`.execute(trx);
      }),
    );
    assert.ok(isDatabaseUnavailable(failed), String(failed));
    assert.notEqual(await backendPid(db.kysely), pid);
  });

  test('a statement longer than the bound is cancelled by the server, an outage error, and the connection stays', async () => {
    const db = await open({ statementTimeoutMs: 200 });
    const pid = await backendPid(db.kysely);
    const failed = await outcome(sql`SELECT pg_sleep(5)`.execute(db.kysely));
    assert.equal((failed as { code?: string }).code, '57014', String(failed));
    assert.ok(isDatabaseUnavailable(failed), 'answered 503, not 500');
    assert.equal(await backendPid(db.kysely), pid, 'the same session serves the next statement');
  });

  test('a connection that answers nothing is given up after the deadline and never reused', async () => {
    const db = await open({ statementTimeoutMs: 100, viaProxy: true });
    const pid = await backendPid(db.kysely);
    const failed = await whileStalled(proxy, () => sql`SELECT 1`.execute(db.kysely));
    assert.ok(failed instanceof DatabaseDeadlineError, String(failed));
    assert.match(failed.message, new RegExp(`did not answer within ${100 + DEADLINE_MARGIN_MS} ms`));
    assert.ok(isDatabaseUnavailable(failed));
    assert.notEqual(await backendPid(db.kysely), pid, 'a new session, not the stalled one');
  });

  test('the deadline covers a BEGIN sent with the first statement and a COMMIT sent with the last', async () => {
    const db = await open({ statementTimeoutMs: 100, viaProxy: true });
    await sql`CREATE TABLE IF NOT EXISTS bounded (id int PRIMARY KEY)`.execute(admin.kysely);
    const pid = await backendPid(db.kysely);
    const failed = await whileStalled(proxy, () =>
      db.kysely.transaction().execute(async (trx) => {
        // One message group: BEGIN, the insert and COMMIT (the mark), under one Sync.
        await sql`INSERT INTO bounded VALUES (1) ${sql.raw(COMMIT_MARK)}`.execute(trx);
      }),
    );
    assert.ok(failed instanceof DatabaseDeadlineError, String(failed));
    assert.notEqual(await backendPid(db.kysely), pid, 'a new session');
    // Whatever the stalled group did, the table is consistent and the pool serves.
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM bounded`.execute(db.kysely);
    assert.ok(rows[0]!.n <= 1);
  });

  test("a request's database work shares one deadline from the request's start", async () => {
    const db = await open({ statementTimeoutMs: 100, viaProxy: true });
    const deadline = 100 + DEADLINE_MARGIN_MS;
    // Spent already: nothing is sent, no connection is taken.
    const refused = await asRequest(deadline + 1, () => outcome(sql`SELECT 1`.execute(db.kysely)));
    assert.ok(refused instanceof DatabaseDeadlineError);
    assert.match(refused.message, /the request's database work did not end within/);

    // Spent inside a transaction: the next statement is not sent and the connection, its
    // transaction open, is given up.
    const pid = await backendPid(db.kysely);
    const inTransaction = await asRequest(deadline - 300, (scope) =>
      outcome(
        db.kysely.transaction().execute(async (trx) => {
          await sql`SELECT 1`.execute(trx);
          scope.startedAt -= 400; // the request's work takes 400 ms more
          await sql`SELECT 2`.execute(trx);
        }),
      ),
    );
    assert.ok(isDatabaseUnavailable(inTransaction), String(inTransaction));
    assert.notEqual(await backendPid(db.kysely), pid, 'a new session, not the one left in a transaction');

    // Nearly spent: a stalled statement fails when the request's time runs out, not its own.
    const failed = await whileStalled(proxy, () =>
      asRequest(deadline - 50, () => sql`SELECT 1`.execute(db.kysely)),
    );
    assert.ok(failed instanceof DatabaseDeadlineError, String(failed));
    assert.match(failed.message, /the request's database work did not end within/);

    // Answered: what the request left behind is bounded per statement only.
    const answered = { ...requestScope(), startedAt: performance.now() - 10 * deadline, answered: true };
    const later = await new Promise<unknown>((resolve) =>
      runAsRequest(answered, () => void outcome(sql`SELECT 1 AS one`.execute(db.kysely)).then(resolve)),
    );
    assert.equal(later, 'ok');
  });

  test('a streamed answer’s page (an export’s) reads under a bound counted from the page, not from the request', async () => {
    const db = await open({ statementTimeoutMs: 100, viaProxy: true });
    const deadline = 100 + DEADLINE_MARGIN_MS;
    // A request streaming for longer than its deadline: each page still reads, under its own bound.
    const pages = await asRequest(deadline + 1, () =>
      Promise.all(
        [1, 2].map((n) => outcome(withFreshBound(() => sql`SELECT ${n}::int AS n`.execute(db.kysely)))),
      ),
    );
    assert.deepEqual(pages, ['ok', 'ok']);
    // A page's own bound still holds: a page that stalls fails at its deadline.
    const stalled = await whileStalled(proxy, () =>
      asRequest(deadline + 1, () => withFreshBound(() => sql`SELECT 1`.execute(db.kysely))),
    );
    assert.ok(stalled instanceof DatabaseDeadlineError || isDatabaseUnavailable(stalled), String(stalled));
    // Outside it, the same read in that request is refused.
    const refused = await asRequest(deadline + 1, () => outcome(sql`SELECT 1`.execute(db.kysely)));
    assert.ok(refused instanceof DatabaseDeadlineError);
  });

  test('long work (a market pricing a whole catalog) runs under its own bound, and its time is not the request’s', async () => {
    const db = await open({ statementTimeoutMs: 100 });
    const deadline = 100 + DEADLINE_MARGIN_MS;
    const result = await asRequest(0, async (scope) => {
      const started = scope.startedAt;
      // Longer than the request's whole deadline, in a transaction that lifts the server's bound too.
      const long = await outcome(
        withLongBound(60_000, () =>
          db.kysely.transaction().execute(async (trx) => {
            await sql`SET LOCAL statement_timeout = '1min'`.execute(trx);
            await sql`SELECT pg_sleep(${(deadline + 300) / 1000})`.execute(trx);
          }),
        ),
      );
      const after = await outcome(sql`SELECT 1`.execute(db.kysely));
      return { long, after, moved: scope.startedAt - started };
    });
    assert.deepEqual([result.long, result.after], ['ok', 'ok']);
    assert.ok(result.moved >= deadline, `the request's clock moved on by the long work (${result.moved} ms)`);
    // Without it, the same work fails at the request's deadline.
    const bounded = await asRequest(0, () =>
      outcome(
        db.kysely.transaction().execute(async (trx) => {
          await sql`SET LOCAL statement_timeout = '1min'`.execute(trx);
          await sql`SELECT pg_sleep(${(deadline + 300) / 1000})`.execute(trx);
        }),
      ),
    );
    assert.ok(isDatabaseUnavailable(bounded), String(bounded));
  });

  test('serve and worker are bounded by DATABASE_STATEMENT_TIMEOUT; the other commands are not', () => {
    const config = loadConfig({ DATABASE_URL: blank!.url, DATABASE_STATEMENT_TIMEOUT: '7s' });
    assert.equal(databaseOptions(config, 'storefront serve').statementTimeoutMs, 7000);
    assert.equal(databaseOptions(config, 'storefront worker').statementTimeoutMs, 7000);
    for (const command of ['migrate', 'seed bench', 'export', 'import', 'secrets rotate'])
      assert.equal(databaseOptions(config, `storefront ${command}`).statementTimeoutMs, null, command);
  });
});
