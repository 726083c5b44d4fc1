import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli, type CliResult } from './test/cli.ts';
import { dataDirFromTemplate } from './test/template.ts';

const MAIN = path.resolve(import.meta.dirname, 'main.ts');
let dataDir: string;

function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    SEED_DEMO: '0',
    ...extra,
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  return env;
}

type Result = CliResult;

/** A one-shot command on this file's embedded data directory (`env` adds to or overrides). */
function run(args: string[], env: Record<string, string> = {}, entry?: string): Promise<Result> {
  return runCli(args, { DATA_DIR: dataDir, DATABASE_URL: undefined, REDIS_URL: undefined, ...env }, entry);
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1) ?? '';
}

/** Starts `storefront serve` (src/main.ts, or `entry`) on a free port and resolves once it prints its URL. */
function serve(
  env: Record<string, string> = {},
  entry = MAIN,
): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [entry, 'serve'], { env: cliEnv({ PORT: '0', ...env }) });
    let output = '';
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /running at (http:\/\/\S+)/.exec(output);
      if (match) resolve({ child, url: match[1]!, output: () => output });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.on('exit', (code) => resolve(code));
  });
}

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-cli-'));
  await dataDirFromTemplate(dataDir);
});
after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('storefront CLI', () => {
  test('--help lists every command', async () => {
    const result = await run(['--help']);
    assert.equal(result.code, 0);
    for (const command of [
      'serve',
      'worker',
      'migrate',
      'stores create',
      'staff token',
      'keys create',
      'seed demo',
    ]) {
      assert.ok(result.stdout.includes(command), command);
    }
  });

  test('an unknown command or option is a usage error (exit 2)', async () => {
    const unknown = await run(['frobnicate']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command "frobnicate"/);
    const option = await run(['stores', 'create', '--bogus', 'x']);
    assert.equal(option.code, 2);
  });

  test('a bad environment variable stops start-up naming the variable', async () => {
    const result = await run(['migrate'], { PORT: 'eighty' });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /PORT/);
    assert.match(result.stderr, /integer/);
    assert.doesNotMatch(result.stderr, /at .*\.ts:\d+/, 'no stack trace');
  });

  test('migrate lists what it applied, then reports an up-to-date database', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-migrate-'));
    try {
      const first = await run(['migrate'], { DATA_DIR: empty, DATABASE_URL: '' });
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /^Applied: 0001_\w+, 0002_/);
      const again = await run(['migrate'], { DATA_DIR: empty, DATABASE_URL: '' });
      assert.match(again.stdout, /up to date/);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
    const result = await run(['migrate']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /up to date/);
  });

  test('stores create, staff token and keys create; the key works against serve; the lock refuses a second writer', async () => {
    const created = await run([
      'stores',
      'create',
      '--name',
      'CLI Shop',
      '--slug',
      'cli-shop',
      '--currency',
      'EUR',
      '--owner-email',
      'Owner@Example.com',
    ]);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /Created store cli-shop/);

    const duplicate = await run([
      'stores',
      'create',
      '--name',
      'Again',
      '--slug',
      'cli-shop',
      '--currency',
      'EUR',
      '--owner-email',
      'o@example.com',
    ]);
    assert.equal(duplicate.code, 1);
    assert.match(duplicate.stderr, /slug/i);

    const invalid = await run([
      'stores',
      'create',
      '--name',
      'Bad',
      '--slug',
      'Bad Slug!',
      '--currency',
      'euro',
      '--owner-email',
      'nope',
    ]);
    assert.equal(invalid.code, 1);
    assert.match(invalid.stderr, /slug/);

    const token = await run(['staff', 'token', '--store', 'cli-shop', '--email', 'owner@example.com']);
    assert.equal(token.code, 0, token.stderr);
    assert.match(lastLine(token.stdout), /^st_[0-9A-Za-z]+$/);

    const missing = await run(['staff', 'token', '--store', 'no-such-store', '--email', 'owner@example.com']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no store/);

    const key = await run([
      'keys',
      'create',
      '--store',
      'cli-shop',
      '--label',
      'web',
      '--origin',
      'https://cli.example',
      '--origin',
      'http://localhost:3001',
    ]);
    assert.equal(key.code, 0, key.stderr);
    const publishableKey = lastLine(key.stdout);
    assert.match(publishableKey, /^pk_[0-9A-Za-z]{32}$/);

    const server = await serve();
    try {
      const response = await fetch(`${server.url}/storefront/v1/store`, {
        headers: { 'x-publishable-key': publishableKey },
      });
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { name: 'CLI Shop', slug: 'cli-shop', currency: 'EUR' });
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200);

      // While the server holds the embedded database, a writing command refuses and names its pid.
      const refused = await run(['keys', 'create', '--store', 'cli-shop', '--label', 'second']);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, new RegExp(`in use by process ${server.child.pid}`));
      assert.doesNotMatch(refused.stdout, /pk_/);

      const secondServer = await serve().then(
        () => 'started',
        (error: Error) => error.message,
      );
      assert.match(secondServer, new RegExp(`process ${server.child.pid}`));
    } finally {
      server.child.kill('SIGTERM');
    }
    assert.equal(await exited(server.child), 0, 'SIGTERM shuts down cleanly');
    assert.equal(fs.existsSync(path.join(dataDir, 'storefront.lock')), false, 'the lock is released');

    // Once the server has stopped, writing commands work again and see the same data.
    const after = await run(['keys', 'create', '--store', 'cli-shop', '--label', 'after']);
    assert.equal(after.code, 0, after.stderr);
  });

  test('a lock left by a dead process is taken over', async () => {
    fs.writeFileSync(
      path.join(dataDir, 'storefront.lock'),
      JSON.stringify({ pid: 2 ** 22 + 12345, command: 'ghost' }),
    );
    const result = await run(['migrate']);
    assert.equal(result.code, 0, result.stderr);
  });

  test('secrets check reports each kind of sealed value; secrets rotate re-encrypts under SECRET_KEY', async () => {
    const check = await run(['secrets', 'check']);
    assert.equal(check.code, 0, check.stderr);
    assert.match(
      check.stdout,
      /webhook endpoint signing secrets: \d+ to re-encrypt, \d+ current, 0 unreadable/,
    );
    assert.match(check.stdout, /DKIM private keys: /);
    const rotate = await run(['secrets', 'rotate'], {
      SECRET_KEY: 'a-new-root-secret-for-the-cli-test-0123456789',
    });
    assert.equal(rotate.code, 0, rotate.stderr);
    assert.match(rotate.stdout, /payment client secrets: \d+ re-encrypted/);
  });

  test('seed demo creates the demo store once', async () => {
    const first = await run(['seed', 'demo']);
    assert.equal(first.code, 0, first.stderr);
    assert.match(lastLine(first.stdout), /^pk_[0-9A-Za-z]{32}$/);
    assert.match(first.stdout, /st_[0-9A-Za-z]+/);
    const second = await run(['seed', 'demo']);
    assert.equal(second.code, 0);
    assert.match(second.stdout, /exists already/);
  });

  test('seed bench adds a large catalog and prints a key', async () => {
    const result = await run(['seed', 'bench', '--products', '1200', '--store', 'bench-cli']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(lastLine(result.stdout), /^pk_[0-9A-Za-z]{32}$/);
    assert.match(result.stdout, /Added 1200 products/);
    // Not a terminal: plain progress lines on stderr, no bar redrawn with \r.
    assert.match(result.stderr, /^ {2}100 % {2}1,200\/1,200 products {2}[\d,]+\/s {2}in \d+s$/m);
    assert.ok(!result.stderr.includes('\r'));
    const bad = await run(['seed', 'bench', '--products', 'lots']);
    assert.equal(bad.code, 2);
  });

  test('serve in production mode: no dev mailbox, no demo seed, what is unsafe is printed', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-production-'));
    const unset = await run(['serve'], { DATA_DIR: empty, NODE_ENV: 'production' });
    assert.equal(unset.code, 2, 'production mode needs EMAIL_TRANSPORT named');
    assert.match(unset.stderr, /EMAIL_TRANSPORT/);
    const server = await serve({
      DATA_DIR: empty,
      NODE_ENV: 'production',
      EMAIL_TRANSPORT: `file:${path.join(empty, 'mail')}`,
    });
    try {
      const output = server.output();
      assert.doesNotMatch(output, /Publishable key:/, 'no demo store in production mode');
      // The banner names no store that does not exist.
      assert.doesNotMatch(output, /demo/i, output);
      assert.match(output, /Console: +http:\/\/\S+\/admin\/ +\(sign in with a store's slug/);
      assert.match(output, /Shop: +http:\/\/\S+\/shop\/ +\(no key: set SHOP_PUBLISHABLE_KEY/);
      assert.doesNotMatch(output, /dev\/mailbox/);
      assert.match(output, /Warning: Mail is written to files/);
      assert.match(output, /Warning: SECRET_KEY is not set/);
      assert.equal((await fetch(`${server.url}/admin/dev/mailbox`)).status, 404);
    } finally {
      server.child.kill('SIGTERM');
      await exited(server.child);
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  test('serve on an empty data dir seeds the demo store and prints working credentials', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-empty-'));
    const server = await serve({ DATA_DIR: empty, SEED_DEMO: '1' });
    try {
      const output = server.output();
      const key = /Publishable key: (pk_\S+)/.exec(output)?.[1];
      assert.ok(key, output);
      assert.match(output, /Staff token: +st_/);
      assert.match(output, /Console: +http:\/\/\S+\/admin\/ +\(store "demo", owner@demo\.storefront\.test\)/);
      assert.match(output, /\/docs/);
      assert.match(output, /Warning: The dev mailbox shows sign-in codes at \/admin\/dev\/mailbox/);
      const response = await fetch(`${server.url}/storefront/v1/store`, {
        headers: { 'x-publishable-key': key },
      });
      assert.deepEqual(await response.json(), { name: 'Demo Store', slug: 'demo', currency: 'USD' });
      const products = (await (
        await fetch(`${server.url}/storefront/v1/products?limit=100`, {
          headers: { 'x-publishable-key': key },
        })
      ).json()) as { items: { priceAmount: number; currency: string }[] };
      assert.equal(products.items.length, 19, 'the demo catalog: 19 active products (one draft)');
      const collections = (await (
        await fetch(`${server.url}/storefront/v1/collections`, { headers: { 'x-publishable-key': key } })
      ).json()) as { items: { slug: string }[] };
      assert.deepEqual(collections.items.map((c) => c.slug).sort(), ['new-arrivals', 'summer', 'under-50']);
      const read = async (route: string): Promise<unknown> => {
        const answer = await fetch(`${server.url}/storefront/v1${route}`, {
          headers: { 'x-publishable-key': key },
        });
        assert.equal(answer.status, 200, route);
        return answer.json();
      };
      const menus = (await read('/menus')) as { items: { handle: string }[] };
      assert.deepEqual(menus.items.map((m) => m.handle).sort(), ['footer', 'main']);
      const pages = (await read('/pages')) as { items: { slug: string }[] };
      assert.deepEqual(pages.items.map((p) => p.slug).sort(), ['about', 'shipping-returns']);
      const hero = (await read('/regions/home-hero')) as { blocks: { type: string }[] };
      assert.deepEqual(
        hero.blocks.map((b) => b.type),
        ['heading', 'text', 'columns', 'spacer'],
        'the demo home-hero region is published',
      );
    } finally {
      server.child.kill('SIGINT');
      assert.equal(await exited(server.child), 0);
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('data-dir lock', () => {
  test('a stale lock is moved aside, a live one is kept', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-lock-'));
    try {
      const { acquireDataDirLock, DataDirLockedError } = await import('./db/data-dir-lock.ts');
      const file = path.join(dir, 'storefront.lock');
      // A live holder (this test's parent process stands in for another storefront process).
      fs.writeFileSync(file, JSON.stringify({ pid: process.ppid, command: 'storefront serve' }));
      assert.throws(
        () => acquireDataDirLock(dir, 'test'),
        (error: unknown) => error instanceof DataDirLockedError && error.pid === process.ppid,
      );
      assert.ok(fs.existsSync(file), 'the live lock is still there');
      // A dead holder.
      fs.writeFileSync(file, JSON.stringify({ pid: 2 ** 22 + 777, command: 'ghost' }));
      const lock = acquireDataDirLock(dir, 'test');
      assert.equal((JSON.parse(fs.readFileSync(file, 'utf8')) as { pid: number }).pid, process.pid);
      lock.release();
      assert.equal(fs.existsSync(file), false);
      assert.deepEqual(fs.readdirSync(dir), [], 'nothing left aside');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('bin/storefront.js', () => {
  const BIN = path.resolve(import.meta.dirname, '..', 'bin', 'storefront.js');

  test('on Node 24 the bin runs the CLI', async () => {
    const result = await run(['--help'], {}, BIN);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Usage: storefront <command>/);
  });

  test(
    'serve on the embedded database keeps PostgreSQL to V8’s baseline compiler and bounds the young generation, in the same process (decisions `embedded-memory` and `young-generation-bound`)',
    { skip: process.platform !== 'linux' && 'reads /proc' },
    async () => {
      const argsOf = (pid: number | undefined): string[] =>
        fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      for (const [env, liftoffOnly, semiSpace] of [
        [{}, true, true],
        [{ PGLITE_OPTIMIZING_COMPILER: 'on' }, false, true],
        // A young-generation size of one's own wins over ours (decision `young-generation-bound`).
        [{ NODE_OPTIONS: '--max-semi-space-size=4' }, true, false],
      ] as const) {
        const server = await serve(env, BIN);
        try {
          // The pid this test started now runs with the flags (the process replaced itself).
          const args = argsOf(server.child.pid);
          assert.equal(args.includes('--liftoff-only'), liftoffOnly, JSON.stringify(env));
          assert.equal(args.includes('--max-semi-space-size=8'), semiSpace, JSON.stringify(env));
          assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
        } finally {
          server.child.kill('SIGTERM');
        }
        assert.equal(await exited(server.child), 0, 'SIGTERM reaches the replaced process');
      }
    },
  );

  test(
    'worker starts with the same bounds as serve: the young generation and two malloc arenas (decisions `young-generation-bound`, `malloc-arenas`)',
    { skip: process.platform !== 'linux' && 'reads /proc' },
    async () => {
      const env = cliEnv({ LOG_LEVEL: 'info' });
      delete env.MALLOC_ARENA_MAX;
      const child = spawn(process.execPath, [BIN, 'worker'], { env });
      try {
        let output = '';
        await new Promise<void>((resolve, reject) => {
          child.stdout.on('data', (chunk: Buffer) => {
            output += chunk.toString();
            if (output.includes('worker started')) resolve();
          });
          child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
          child.on('exit', (code) => reject(new Error(`worker exited with ${code}: ${output}`)));
        });
        // The pid this test started now runs with the flag and the variable (it replaced itself).
        const args = fs.readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
        assert.ok(args.includes('--max-semi-space-size=8'), args.join(' '));
        const environment = fs.readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0');
        assert.ok(environment.includes('MALLOC_ARENA_MAX=2'));
      } finally {
        child.kill('SIGTERM');
      }
      assert.equal(await exited(child), 0, 'SIGTERM reaches the replaced process');
    },
  );

  // On a Node.js older than 24: scripts/node-versions.test.ts.
});
