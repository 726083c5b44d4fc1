import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { openBlankPostgres, skipUnlessPostgres } from '../test/harness.ts';
import { runCli, type CliResult } from '../test/cli.ts';
import { dataDirFromTemplate } from '../test/template.ts';
import { migrationNames } from './migrate.ts';
import { pgliteOptions } from './pglite.ts';

/** A migration a later version of Storefront would have added. */
const FROM_THE_FUTURE = '9000_from_a_newer_version';
const ADD_IT = `INSERT INTO kysely_migration (name, timestamp) VALUES ('${FROM_THE_FUTURE}', now())`;

/**
 * What an older version says of a database a newer one migrated (docs/operations.md, "Upgrades"):
 * plainly that it is newer, which migrations it knows and found, what to do; exit 1, no stack.
 */
function assertRefusedAsNewer(result: CliResult, command: string): void {
  assert.equal(result.code, 1, `${command}: ${result.stderr}`);
  assert.match(result.stderr, /^storefront: This database was migrated by a newer version of Storefront/);
  assert.ok(result.stderr.includes(`it has migration ${FROM_THE_FUTURE}`), result.stderr);
  assert.ok(
    result.stderr.includes(`the newest migration this version knows is ${migrationNames().at(-1)}`),
    result.stderr,
  );
  assert.match(result.stderr, /upgrade this installation/);
  assert.match(result.stderr, /restore the backup taken before the upgrade/);
  assert.doesNotMatch(result.stderr, /unexpected error|MigrationError|corrupted/);
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
  assert.doesNotMatch(result.stdout, /running at|worker started/, `${command} did not start`);
}

describe('a database migrated by a newer version', () => {
  test('the embedded database: every command that opens it says so and exits 1', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-newer-'));
    try {
      await dataDirFromTemplate(dataDir);
      const pglite = await PGlite.create({ dataDir, ...pgliteOptions });
      await pglite.exec(ADD_IT);
      await pglite.close();
      const env = { DATA_DIR: dataDir, DATABASE_URL: undefined, REDIS_URL: undefined, PORT: '0' };
      for (const command of [['migrate'], ['serve']])
        assertRefusedAsNewer(await runCli(command, env), command.join(' '));
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('PostgreSQL: migrate, serve and worker say so and exit 1', { skip: skipUnlessPostgres }, async () => {
    const blank = await openBlankPostgres();
    if (!blank) throw new Error('DATABASE_URL is set, so a blank PostgreSQL database must open');
    try {
      const env = { DATABASE_URL: blank.url, PORT: '0', EMAIL_TRANSPORT: undefined };
      const migrated = await runCli(['migrate'], env);
      assert.equal(migrated.code, 0, migrated.stderr);
      const client = new pg.Client(blank.url);
      await client.connect();
      try {
        await client.query(ADD_IT);
      } finally {
        await client.end();
      }
      for (const command of [['migrate'], ['serve'], ['worker']])
        assertRefusedAsNewer(await runCli(command, env), command.join(' '));
    } finally {
      await blank.drop();
    }
  });
});
