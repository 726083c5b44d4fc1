/**
 * The service's database dropped while `storefront serve` runs (with its worker loops), on
 * PostgreSQL: every request that needs it answers 503 with Retry-After, and the log says so once
 * per interval without a stack (not an error with a stack from every loop, twice a second, for as
 * long as the database is missing); the process keeps running.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import {
  createTestStore,
  startTestAppWithDb,
  serveProcess,
  skipUnlessPostgres,
  type ServiceProcess,
  type TestApp,
  type TestDb,
  waitFor,
} from '../test/harness.ts';
import { hasStack, logLinesSince, stopProcess } from '../test/served.ts';

let db: TestDb;
let t: TestApp;
let server: ServiceProcess;

before(async () => {
  if (skipUnlessPostgres) return;
  ({ db, t } = await startTestAppWithDb());
  server = await serveProcess(db, t.config.secretKey!, { LOG_LEVEL: 'debug', REDIS_URL: undefined });
});
after(async () => {
  if (skipUnlessPostgres) return;
  await stopProcess(server);
  await t.close();
});

test(
  'a dropped database: requests answer 503, the log says so once per interval without a stack, the process runs on',
  { skip: skipUnlessPostgres },
  async () => {
    const shop = await createTestStore(t);
    const products = () =>
      fetch(`${server.url}/admin/v1/products`, { headers: { authorization: `Bearer ${shop.staffToken}` } });
    assert.equal((await products()).status, 200);
    const logsBefore = server.output().length;

    const admin = new URL(db.url!);
    const name = admin.pathname.slice(1);
    admin.pathname = '/postgres';
    const client = new pg.Client({ connectionString: admin.href });
    await client.connect();
    try {
      await client.query(`DROP DATABASE "${name}" WITH (FORCE)`);
    } finally {
      await client.end();
    }

    // Requests answer 503 until the loops that retry soonest have each failed again: the relay
    // (every second after a failure, twice) and its LISTEN connection (every 5 s). Their failures
    // in between are at debug level, which this process logs.
    const failures = (loop: string) =>
      logLinesSince(server, logsBefore).filter((line) => line.loop === loop).length;
    await waitFor(
      async () => {
        const response = await products();
        assert.equal(response.status, 503, await response.text());
        assert.equal(response.headers.get('retry-after'), '5');
        return failures('webhook relay') >= 2 && failures('webhook listener') >= 1;
      },
      15_000,
      'the webhook relay and its LISTEN connection to fail and retry',
    );
    assert.equal((await fetch(`${server.url}/readyz`)).status, 503);
    assert.equal(server.child.exitCode, null, 'the process is still running');

    const all = logLinesSince(server, logsBefore);
    const lines = all.filter((line) => line.level >= 40);
    process.stdout.write(
      `# dropped database: ${lines.length} log lines at warn or above, ${all.length - lines.length} at debug: ${JSON.stringify(lines.map((line) => line.msg))}\n`,
    );
    assert.deepEqual(
      lines.filter((line) => line.level >= 50),
      [],
      'no error-level line: a missing database is an outage',
    );
    assert.deepEqual(all.filter(hasStack), [], 'no stack trace');
    assert.ok(lines.length <= 2, `one line, then throttled (10 s): ${JSON.stringify(lines)}`);
    assert.ok(
      lines.some((line) => /database unavailable/.test(line.msg)),
      `the outage is logged: ${JSON.stringify(lines)}`,
    );
  },
);
