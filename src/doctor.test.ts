import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';
import { loadConfig } from './config.ts';
import { doctorReport, findings, type DoctorFacts } from './doctor.ts';

const built: DoctorFacts = { built: () => true };
const SAFE = {
  NODE_ENV: 'production',
  HOST: '0.0.0.0',
  PUBLIC_BASE_URL: 'https://shop.example.com',
  DATABASE_URL: 'postgres://storefront@db.internal/storefront',
  REDIS_URL: 'redis://cache.internal:6379',
  EMAIL_TRANSPORT: 'smtp://mail.internal:25',
  SECRET_KEY: 's'.repeat(40),
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

describe('storefront doctor (D51)', () => {
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
      unsafeIn({ ...SAFE, METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0', METRICS_TOKEN: 'm'.repeat(32) }),
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
    assert.doesNotMatch(production.stdout, /sk_live|whsec_|s{40}/, 'no secret is printed');
  });
});
