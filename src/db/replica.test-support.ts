/**
 * A real PostgreSQL standby for the replica's tests (decision `replica-reads`): a base backup of the
 * primary of DATABASE_URL (`pg_basebackup -R`) started with `pg_ctl` on a free port of its own, in a
 * temporary directory removed at the end. The primary must accept replication connections from
 * 127.0.0.1 (a `host replication` line in pg_hba.conf, which `.ci/run` adds once); PostgreSQL will
 * not run as root, so a test run as root runs the standby's commands as the `postgres` user.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { parseLsn } from './replica.ts';

const run = promisify(execFile);

/** Debian's PostgreSQL binaries of the primary's major version, else those on PATH. */
function binary(name: string, major: number): string {
  const debian = `/usr/lib/postgresql/${major}/bin/${name}`;
  return fs.existsSync(debian) ? debian : name;
}

/** PostgreSQL refuses to run as root: as root, the commands run as `postgres`. */
const asPostgres = process.getuid?.() === 0;

async function command(file: string, args: string[]): Promise<string> {
  const [cmd, argv] = asPostgres ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
  const { stdout } = await run(cmd, argv, { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

export interface Standby {
  readonly port: number;
  /** `url` (a database of the primary) on the standby. */
  urlOf(url: string): string;
  /** Waits until the standby has replayed all the primary has written now. */
  caughtUp(timeoutMs?: number): Promise<void>;
  /** `pg_wal_replay_pause()` / `pg_wal_replay_resume()` on the standby. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** `pg_ctl stop -m fast` (its sessions are cut), and `pg_ctl start` again. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

/** A standby of the primary of `primaryUrl`, started and replaying. */
export async function startStandby(primaryUrl: string): Promise<Standby> {
  const primary = new URL(primaryUrl);
  const admin = new URL(primaryUrl);
  admin.pathname = '/postgres';
  // Hot standby needs these at least as large as the primary's.
  const settings = await query<{ name: string; setting: string }>(
    admin.href,
    `SELECT name, setting FROM pg_settings WHERE name IN ('server_version_num', 'max_connections',
       'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction')`,
  );
  const setting = new Map(settings.map((row) => [row.name, row.setting]));
  const major = Math.floor(Number(setting.get('server_version_num')) / 10000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-standby-'));
  if (asPostgres) await run('chown', ['postgres:', dir]);
  const port = await freePort();
  const dataDir = path.join(dir, 'data');
  const pgCtl = binary('pg_ctl', major);
  try {
    await command(binary('pg_basebackup', major), [
      '-R',
      '-D',
      dataDir,
      '-h',
      primary.hostname || '127.0.0.1',
      '-p',
      primary.port || '5432',
      '-U',
      decodeURIComponent(primary.username) || 'postgres',
      '-X',
      'stream',
      '-c',
      'fast',
      '--no-sync',
    ]);
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `pg_basebackup from ${primary.host} failed: does its pg_hba.conf allow replication from 127.0.0.1 (see .ci/run)? ${(error as Error).message}`,
      { cause: error },
    );
  }
  const conf = [
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    "unix_socket_directories = ''",
    'hot_standby = on',
    'fsync = off',
    'shared_buffers = 16MB',
    ...['max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions'].map(
      (name) => `${name} = ${setting.get(name)}`,
    ),
    `max_locks_per_transaction = ${setting.get('max_locks_per_transaction')}`,
    "log_min_messages = 'warning'",
    '',
  ].join('\n');
  const hba = ['host all all 127.0.0.1/32 trust', ''].join('\n');
  await command('sh', [
    '-c',
    `printf '%s' "$1" > "$3/postgresql.conf" && printf '%s' "$2" > "$3/pg_hba.conf" && : > "$3/pg_ident.conf"`,
    'sh',
    conf,
    hba,
    dataDir,
  ]);
  const logFile = path.join(dir, 'standby.log');
  const start = () =>
    command(pgCtl, ['start', '-D', dataDir, '-l', logFile, '-w', '-t', '60']).then(() => undefined);
  const stop = (mode: string) =>
    command(pgCtl, ['stop', '-D', dataDir, '-m', mode, '-w', '-t', '60']).then(() => undefined);
  const urlOf = (url: string): string => {
    const on = new URL(url);
    on.hostname = '127.0.0.1';
    on.port = String(port);
    return on.href;
  };
  const standbyAdmin = urlOf(admin.href);
  const standby: Standby = {
    port,
    urlOf,
    async caughtUp(timeoutMs = 30_000) {
      const [target] = await query<{ lsn: string }>(admin.href, 'SELECT pg_current_wal_lsn()::text AS lsn');
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const [row] = await query<{ lsn: string | null }>(
          standbyAdmin,
          'SELECT pg_last_wal_replay_lsn()::text AS lsn',
        ).catch(() => [{ lsn: null }]);
        if (row?.lsn && parseLsn(row.lsn) >= parseLsn(target!.lsn)) return;
        if (Date.now() > deadline) throw new Error(`the standby did not catch up within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    pauseReplay: () => query(standbyAdmin, 'SELECT pg_wal_replay_pause()').then(() => undefined),
    resumeReplay: () => query(standbyAdmin, 'SELECT pg_wal_replay_resume()').then(() => undefined),
    stop: () => stop('fast'),
    start,
    async close() {
      await stop('immediate').catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await start();
    await standby.caughtUp();
  } catch (error) {
    const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-2000) : '';
    await standby.close();
    throw new Error(`the standby did not start: ${(error as Error).message}\n${log}`, { cause: error });
  }
  return standby;
}
