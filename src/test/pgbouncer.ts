/**
 * A real PgBouncer in transaction mode for the tests that run the service through one
 * (src/db/pgbouncer.test.ts, decision `behind-pgbouncer`): its own ini in a temporary directory, a
 * free loopback port, trust authentication, every database name passed on to the PostgreSQL of
 * DATABASE_URL. Debian's `pgbouncer` package provides the binary; `.ci/run` installs it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { waitFor } from './harness.ts';

/** The pgbouncer binary, if installed (Debian puts it in /usr/sbin, often not on a user's PATH). */
export function pgbouncerBinary(): string | null {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin', '/usr/local/sbin'];
  for (const dir of dirs) {
    const candidate = path.join(dir, 'pgbouncer');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** The `skip` reason of a test that needs pgbouncer, or false when it is installed. */
export const skipUnlessPgbouncer: false | string =
  pgbouncerBinary() === null
    ? 'needs pgbouncer (apt-get install pgbouncer; .ci/run installs it): the PgBouncer test was SKIPPED'
    : false;

export interface Pgbouncer {
  readonly port: number;
  /** `url` (a PostgreSQL URL) through this PgBouncer: same user and database, its host and port. */
  through(url: string): string;
  /** Stops it at once (SIGTERM: every client and server connection closed) and starts it again. */
  restart(): Promise<void>;
  /** What it logged. */
  output(): string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts PgBouncer in transaction mode in front of the PostgreSQL of `databaseUrl` (its host, port
 * and user), with `poolSize` server connections per database and user.
 */
export async function startPgbouncer(databaseUrl: string, poolSize = 8): Promise<Pgbouncer> {
  const binary = pgbouncerBinary();
  if (binary === null) throw new Error(String(skipUnlessPgbouncer));
  const target = new URL(databaseUrl);
  const user = decodeURIComponent(target.username || 'postgres');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-pgbouncer-'));
  // PgBouncer refuses to run as root; as root it is told to become nobody, who must read the files.
  fs.chmodSync(dir, 0o755);
  const port = await freePort();
  const authFile = path.join(dir, 'users.txt');
  fs.writeFileSync(authFile, `"${user}" ""\n`, { mode: 0o644 });
  const ini = path.join(dir, 'pgbouncer.ini');
  fs.writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${authFile}`,
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 500',
      // A client's connection to PgBouncer may wait for a server connection this long.
      'query_wait_timeout = 30',
      ...(process.getuid?.() === 0 ? ['user = nobody'] : []),
    ].join('\n') + '\n',
    { mode: 0o644 },
  );
  let child: ChildProcess | null = null;
  let output = '';
  const start = async (): Promise<void> => {
    const started = spawn(binary, [ini], { stdio: ['ignore', 'pipe', 'pipe'] });
    started.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child = started;
    await waitFor(
      async () => {
        if (started.exitCode !== null) throw new Error(`pgbouncer exited (${started.exitCode}):\n${output}`);
        return answers(port);
      },
      10_000,
      'pgbouncer to listen',
    );
  };
  const stop = async (): Promise<void> => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  };
  await start();
  return {
    port,
    through(url) {
      const via = new URL(url);
      via.hostname = '127.0.0.1';
      via.port = String(port);
      return via.href;
    },
    async restart() {
      await stop();
      await start();
    },
    output: () => output,
    async close() {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
