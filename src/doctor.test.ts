import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { loadConfig } from './config.ts';
import { doctorReport, findings, type DoctorFacts } from './doctor.ts';

const built: DoctorFacts = { built: () => true };
/** Random-looking values of the kind `openssl rand -base64 48` gives. */
const RANDOM_SECRET = 'q7Rk2LmZ8vX4pT1sWn9Yc3Ub6Hd0Jf5Ge_A-oNiE';
const RANDOM_TOKEN = 'Bx8uT2qLw5Zr9Kc1Vn7Sd3Mf6Hj0Pg4Ya';
const SAFE = {
  NODE_ENV: 'production',
  HOST: '0.0.0.0',
  PUBLIC_BASE_URL: 'https://shop.storefront-customer.com',
  DATABASE_URL: 'postgres://storefront@db.internal/storefront?sslmode=verify-full',
  REDIS_URL: 'redis://cache.internal:6379',
  EMAIL_TRANSPORT: 'smtp://mail.internal:25',
  SECRET_KEY: RANDOM_SECRET,
  PAYMENT_PROVIDER: 'stripe',
  STRIPE_SECRET_KEY: 'sk_live_0123456789',
  STRIPE_WEBHOOK_SECRET: 'whsec_0123456789',
  TRUST_PROXY: '10.0.0.0/8',
};

/** The variables of the unsafe findings of a configuration. */
function unsafeIn(env: Record<string, string>, facts: DoctorFacts = built): string[] {
  return findings(loadConfig(env), facts)
    .filter((finding) => finding.severity === 'unsafe')
    .map((finding) => finding.variable);
}

describe('storefront doctor (decision `production-mode`)', () => {
  test('a production configuration has nothing unsafe', () => {
    assert.deepEqual(findings(loadConfig(SAFE), built), []);
  });

  test('the out-of-the-box configuration lists every development convenience', () => {
    assert.deepEqual(unsafeIn({}), ['DEV_MAILBOX', 'EMAIL_TRANSPORT', 'SECRET_KEY', 'SEED_DEMO']);
  });

  test('each unsafe setting is found, with the variable that changes it', () => {
    const cases: [Record<string, string>, string][] = [
      [{ NODE_ENV: 'development' }, 'NODE_ENV, HOST'],
      [{ EMAIL_TRANSPORT: 'file:./mail' }, 'EMAIL_TRANSPORT'],
      [{ EMAIL_TRANSPORT: 'file:./mail', DEV_MAILBOX: '1' }, 'DEV_MAILBOX, EMAIL_TRANSPORT'],
      [{ SECRET_KEY: '' }, 'SECRET_KEY'],
      [{ SEED_DEMO: '1' }, 'SEED_DEMO'],
      [{ ALLOW_HTTP_WEBHOOKS: '1' }, 'ALLOW_HTTP_WEBHOOKS'],
      [{ PAYMENT_PROVIDER: 'sandbox' }, 'PAYMENT_PROVIDER'],
      [{ TRUST_PROXY: 'true' }, 'TRUST_PROXY'],
      [{ RATE_LIMIT_IP_READ: '10000000' }, 'RATE_LIMIT_IP_READ'],
      [
        { RATE_LIMIT_SIGN_IN: '1000000', RATE_LIMIT_ADMIN_IP: '5000000' },
        'RATE_LIMIT_SIGN_IN, RATE_LIMIT_CUSTOMER_SIGN_IN, RATE_LIMIT_ADMIN_IP',
      ],
      [{ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }, 'METRICS_HOST, METRICS_TOKEN'],
    ];
    for (const [change, variable] of cases) {
      assert.equal(unsafeIn({ ...SAFE, ...change }).join(', '), variable, JSON.stringify(change));
    }
    // A metrics listener on a private address is fine with a token, and on loopback without one.
    assert.deepEqual(
      unsafeIn({ ...SAFE, METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0', METRICS_TOKEN: RANDOM_TOKEN }),
      [],
    );
    assert.deepEqual(unsafeIn({ ...SAFE, METRICS_PORT: '9464' }), []);
    // A front end that is on but not built.
    assert.deepEqual(unsafeIn(SAFE, { built: (dir) => !dir.includes(`${path.sep}shop${path.sep}`) }), [
      'SHOP_UI',
    ]);
    assert.deepEqual(unsafeIn({ ...SAFE, SHOP_UI: '0' }, { built: () => false }), ['ADMIN_UI']);
  });

  test('advice is listed but is not unsafe', () => {
    const embedded = findings(loadConfig({ ...SAFE, DATABASE_URL: '' }), built);
    assert.deepEqual(
      embedded.map((finding) => [finding.severity, finding.variable]),
      [['advice', 'DATABASE_URL']],
    );
    const report = doctorReport(loadConfig(SAFE), embedded);
    assert.match(report, /^storefront doctor: production mode, PostgreSQL, listening on 0\.0\.0\.0:3000/);
    assert.match(report, /advice {2}DATABASE_URL: The embedded database/);
    assert.doesNotMatch(report, /unsafe setting/);
  });

  test('`storefront doctor` prints the list and exits 1 when anything is unsafe, 0 when nothing is', async () => {
    const run = (env: Record<string, string>) =>
      new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const child = spawn(process.execPath, ['src/main.ts', 'doctor'], {
          cwd: path.resolve(import.meta.dirname, '..'),
          env: { PATH: process.env.PATH ?? '', DATA_DIR: '/nonexistent/doctor-opens-no-database', ...env },
        });
        let stdout = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.on('exit', (code) => resolve({ code, stdout }));
      });
    const development = await run({});
    assert.equal(development.code, 1, development.stdout);
    assert.match(development.stdout, /^storefront doctor: development mode/);
    assert.match(development.stdout, /UNSAFE {2}SECRET_KEY: /);
    assert.match(development.stdout, /UNSAFE {2}DEV_MAILBOX: /);
    assert.match(development.stdout, /4 unsafe settings: fix before exposing the service\./);
    // The test run builds the console and the shop first, so this configuration is clean.
    const production = await run(SAFE);
    assert.equal(production.code, 0, production.stdout);
    assert.match(production.stdout, /Nothing unsafe found\./);
    assert.doesNotMatch(
      production.stdout,
      new RegExp(`sk_live|whsec_|${RANDOM_SECRET}`),
      'no secret is printed',
    );
  });
});

describe('storefront doctor: settings that look safe but are not', () => {
  const cases = (list: [Record<string, string>, string][]) => {
    for (const [change, variable] of list)
      assert.equal(unsafeIn({ ...SAFE, ...change }).join(', '), variable, JSON.stringify(change));
  };

  test('secrets: placeholders, guessable values, a Stripe test key in production mode', () => {
    cases([
      [{ SECRET_KEY: 'change-me-change-me-change-me-change-me' }, 'SECRET_KEY'],
      [{ SECRET_KEY: 's'.repeat(40) }, 'SECRET_KEY'],
      [{ SECRET_KEY: 'abc123'.repeat(8) }, 'SECRET_KEY'],
      [{ SECRET_KEY: '0110101001101010011010100110101001101011' }, 'SECRET_KEY'],
      [{ METRICS_TOKEN: 'x'.repeat(32) }, 'METRICS_TOKEN'],
      [{ METRICS_TOKEN: 'prometheus-prometheus-prometheus' }, 'METRICS_TOKEN'],
      [
        { STRIPE_SECRET_KEY: 'sk_live_change_me', STRIPE_WEBHOOK_SECRET: 'whsec_change_me' },
        'STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET',
      ],
      [{ STRIPE_SECRET_KEY: 'sk_test_0123456789' }, 'STRIPE_SECRET_KEY'],
      [{ STRIPE_SECRET_KEY: 'rk_test_0123456789' }, 'STRIPE_SECRET_KEY'],
    ]);
    // A test key is what development runs with.
    assert.deepEqual(
      unsafeIn({
        ...SAFE,
        NODE_ENV: 'development',
        HOST: '127.0.0.1',
        STRIPE_SECRET_KEY: 'sk_test_0123456789',
      }),
      [],
    );
    const messages = findings(loadConfig({ ...SAFE, SECRET_KEY: 's'.repeat(40) }), built).map(
      (f) => f.message,
    );
    assert.match(messages.join('\n'), /SECRET_KEY is easy to guess: 40 characters/);
    assert.doesNotMatch(messages.join('\n'), /s{40}/, 'the secret is not printed');
  });

  test('connections: credentials or rows in clear, example hosts', () => {
    cases([
      [{ EMAIL_TRANSPORT: 'smtp://mailer:s3cret-Pa55@mail.internal:587' }, 'EMAIL_TRANSPORT'],
      [
        { EMAIL_TRANSPORT: 'smtp://mailer:s3cret-Pa55@mail.internal:587?requireTLS=false' },
        'EMAIL_TRANSPORT',
      ],
      [{ EMAIL_TRANSPORT: 'smtps://user:password@smtp.example.com:465' }, 'EMAIL_TRANSPORT'],
      [{ DATABASE_URL: 'postgres://storefront:pw@db.internal/storefront' }, 'DATABASE_URL'],
      [{ DATABASE_URL: 'postgres://storefront@10.0.0.5/storefront?sslmode=disable' }, 'DATABASE_URL'],
      [{ DATABASE_URL: 'postgres://storefront@db.internal/storefront?ssl=0' }, 'DATABASE_URL'],
      [{ DATABASE_URL: 'postgres://storefront@localhost/storefront?host=db.internal' }, 'DATABASE_URL'],
      [{ DATABASE_URL: 'postgres://storefront@db.example.com/storefront?sslmode=require' }, 'DATABASE_URL'],
      [{ DATABASE_REPLICA_URL: 'postgres://reader:pw@standby.internal/storefront' }, 'DATABASE_REPLICA_URL'],
      [{ PUBLIC_BASE_URL: 'https://shop-platform.example.com' }, 'PUBLIC_BASE_URL'],
      [{ PLATFORM_MAIL_DOMAIN: 'mail.shop-platform.example.com' }, 'PLATFORM_MAIL_DOMAIN'],
      [{ REDIS_URL: 'redis://cache.example.net:6379' }, 'REDIS_URL'],
    ]);
    for (const fine of [
      { EMAIL_TRANSPORT: 'smtps://mailer:s3cret-Pa55@mail.internal:465' } as Record<string, string>,
      { EMAIL_TRANSPORT: 'smtp://mailer:s3cret-Pa55@mail.internal:587?requireTLS=true' },
      { EMAIL_TRANSPORT: 'smtp://mailer:s3cret-Pa55@127.0.0.1:25' },
      { DATABASE_URL: 'postgres://storefront@localhost/storefront?host=/var/run/postgresql' },
      { DATABASE_URL: 'postgres://storefront:pw@127.0.0.1:5432/storefront' },
      { DATABASE_URL: 'postgres://storefront:pw@[::1]/storefront' },
      { DATABASE_URL: 'postgres://storefront@db.internal/storefront?sslmode=require' },
      { DATABASE_URL: 'postgres://storefront@db.internal/storefront?ssl=true' },
      { DATABASE_URL: 'postgres://storefront@db.internal/storefront?sslrootcert=/etc/ssl/db-ca.pem' },
      { DATABASE_REPLICA_URL: 'postgres://reader@standby.internal/storefront?sslmode=verify-full' },
    ])
      assert.deepEqual(unsafeIn({ ...SAFE, ...fine }), [], JSON.stringify(fine));
  });

  test('an smtp:// password is in clear exactly when nodemailer would send it so', async () => {
    const { parseConnectionUrl } = await import('nodemailer/lib/shared');
    for (const url of [
      'smtp://u:p4ss-w0rd-x@mail.internal:587',
      'smtp://u:p4ss-w0rd-x@mail.internal:587?requireTLS=true',
      'smtp://u:p4ss-w0rd-x@mail.internal:587?requireTLS=1',
      'smtp://u:p4ss-w0rd-x@mail.internal:587?requireTLS=false&ignoreTLS=true',
      'smtp://mail.internal:25',
      'smtps://u:p4ss-w0rd-x@mail.internal:465',
    ]) {
      const options = parseConnectionUrl(url) as {
        secure?: boolean;
        requireTLS?: unknown;
        auth?: { pass?: string };
      };
      const clear = !options.secure && !options.requireTLS && Boolean(options.auth?.pass);
      assert.equal(unsafeIn({ ...SAFE, EMAIL_TRANSPORT: url }).includes('EMAIL_TRANSPORT'), clear, url);
    }
  });

  test('TRUST_PROXY ranges that trust a broad share of the internet, however they are split', () => {
    for (const broad of [
      '0.0.0.0/1,128.0.0.0/1,::/1,8000::/1',
      '0.0.0.0/1,128.0.0.0/1',
      '::/1',
      // An IPv4-mapped range holds IPv4 clients.
      '::ffff:0:0/96',
      '::ffff:1.0.0.0/104',
      '1.0.0.0/8',
      '10.0.0.1,2000::/3',
      '2600::/12',
    ])
      assert.deepEqual(unsafeIn({ ...SAFE, TRUST_PROXY: broad }), ['TRUST_PROXY'], broad);
    const cloudflare =
      '173.245.48.0/20,103.21.244.0/22,103.22.200.0/22,103.31.4.0/22,141.101.64.0/18,108.162.192.0/18,' +
      '190.93.240.0/20,188.114.96.0/20,197.234.240.0/22,198.41.128.0/17,162.158.0.0/15,104.16.0.0/13,' +
      '104.24.0.0/14,172.64.0.0/13,131.0.72.0/22,2400:cb00::/32,2606:4700::/32,2803:f800::/32,' +
      '2405:b500::/32,2405:8100::/32,2a06:98c0::/29,2c0f:f248::/32';
    for (const narrow of [
      'loopback,linklocal,uniquelocal',
      '10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,100.64.0.0/10,fc00::/7',
      '203.0.113.7,198.51.100.0/24,2001:db8::/32',
      '1.0.0.0/9',
      // An IPv4-mapped range shorter than /96 matches no client at all.
      '::ffff:10.0.0.0/8',
      cloudflare,
    ])
      assert.deepEqual(unsafeIn({ ...SAFE, TRUST_PROXY: narrow }), [], narrow);
    const [finding] = findings(
      loadConfig({ ...SAFE, TRUST_PROXY: '0.0.0.0/1,128.0.0.0/1,::/1,8000::/1' }),
      built,
    );
    assert.match(
      finding!.message,
      /trusts 100 % of the public IPv4 addresses and 100 % of the public IPv6 ones/,
    );
  });

  test('sign-in limits so high they limit nobody', () => {
    cases([
      [{ RATE_LIMIT_SIGN_IN: '500' }, 'RATE_LIMIT_SIGN_IN, RATE_LIMIT_CUSTOMER_SIGN_IN'],
      [{ RATE_LIMIT_SIGN_IN: '500', RATE_LIMIT_CUSTOMER_SIGN_IN: '20' }, 'RATE_LIMIT_SIGN_IN'],
      [{ RATE_LIMIT_CUSTOMER_SIGN_IN: '999999' }, 'RATE_LIMIT_CUSTOMER_SIGN_IN'],
      [
        { RATE_LIMIT_WINDOW: '10s', RATE_LIMIT_SIGN_IN: '40' },
        'RATE_LIMIT_SIGN_IN, RATE_LIMIT_CUSTOMER_SIGN_IN',
      ],
    ]);
    const fineOnes: Record<string, string>[] = [
      { RATE_LIMIT_SIGN_IN: '200' },
      { RATE_LIMIT_WINDOW: '1h', RATE_LIMIT_SIGN_IN: '1000' },
    ];
    for (const fine of fineOnes) assert.deepEqual(unsafeIn({ ...SAFE, ...fine }), [], JSON.stringify(fine));
  });
});

describe('deploy/storefront.env.example and the documented doctor command', () => {
  const ROOT = path.resolve(import.meta.dirname, '..');
  const EXAMPLE = path.join(ROOT, 'deploy', 'storefront.env.example');
  /** docs/operations.md: the file's variables exported in a subshell, then the command. */
  const documented = (command: string) => `(set -a; . "$1"; set +a; ${command})`;
  /** What the example sets and that a deployment may keep as it is. */
  const KEPT = [
    'NODE_ENV',
    'HOST',
    'PORT',
    'TRUST_PROXY',
    'DATABASE_URL',
    'DATABASE_POOL_SIZE',
    'REDIS_URL',
    'PAYMENT_PROVIDER',
    'PAYMENT_HOLD',
    'ORDER_TTL',
    'METRICS_PORT',
    'METRICS_HOST',
    'LOG_LEVEL',
  ];

  test('left as is, every other value it sets is unsafe', () => {
    const shell = spawnSync('sh', ['-c', documented('env -0'), 'sh', EXAMPLE], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    });
    assert.equal(shell.status, 0, shell.stderr);
    assert.equal(shell.stderr, '', 'the shell reads the file without a complaint');
    const env = Object.fromEntries(
      shell.stdout
        .split('\0')
        .filter((line) => line.includes('='))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    const assigned = [...fs.readFileSync(EXAMPLE, 'utf8').matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map(
      (m) => m[1]!,
    );
    const flagged = new Set(unsafeIn(env).flatMap((variables) => variables.split(', ')));
    assert.deepEqual(
      assigned.filter((name) => !KEPT.includes(name)).sort(),
      [...flagged].filter((name) => assigned.includes(name)).sort(),
      'each placeholder is flagged, and nothing the example may keep',
    );
    assert.deepEqual([...flagged].sort(), [
      'EMAIL_TRANSPORT',
      'PLATFORM_MAIL_DOMAIN',
      'PUBLIC_BASE_URL',
      'SECRET_KEY',
      'STRIPE_SECRET_KEY',
      'STRIPE_WEBHOOK_SECRET',
    ]);
  });

  test('the documented command runs doctor on it and lists the placeholders (exit 1)', () => {
    const run = spawnSync('sh', ['-c', documented('exec node bin/storefront.js doctor'), 'sh', EXAMPLE], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}` },
    });
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.equal(run.stderr, '');
    assert.match(run.stdout, /^storefront doctor: production mode, PostgreSQL, listening on 0\.0\.0\.0:3000/);
    for (const variable of ['SECRET_KEY', 'STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET', 'PUBLIC_BASE_URL'])
      assert.ok(run.stdout.includes(`UNSAFE  ${variable}: `), variable);
    assert.doesNotMatch(run.stdout, /change-me|change_me/, 'no secret is printed');
  });
});
