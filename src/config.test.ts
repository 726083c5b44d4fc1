import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import Fastify from 'fastify';
import { ConfigError, loadConfig } from './config.ts';

describe('loadConfig', () => {
  test('defaults describe the embedded quick start', () => {
    const config = loadConfig({}, '/srv/app');
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 3000);
    assert.equal(config.publicBaseUrl, 'http://127.0.0.1:3000');
    assert.equal(config.dataDir, path.resolve('/srv/app', 'data'));
    assert.equal(config.databaseUrl, null);
    assert.equal(config.seedDemo, true);
    assert.equal(config.keyCacheTtlMs, 500);
    assert.equal(config.staffSessionTtlMs, 12 * 3600 * 1000);
    assert.equal(config.platformMailDomain, 'storefront.test');
    assert.equal(config.pgliteSharedBuffersMb, 16);
    assert.equal(config.pgliteOptimizingCompiler, false);
    assert.equal(config.databaseStatementTimeoutMs, 15_000);
    assert.equal(config.databaseReadinessTimeoutMs, 2000);
  });

  test("customers' sign-in is limited as staff's unless set apart (decision `customer-sign-in-limit`)", () => {
    assert.equal(loadConfig({}).rateLimits.customerSignIn, 20);
    assert.equal(loadConfig({ RATE_LIMIT_SIGN_IN: '7' }).rateLimits.customerSignIn, 7);
    const apart = loadConfig({ RATE_LIMIT_SIGN_IN: '7', RATE_LIMIT_CUSTOMER_SIGN_IN: '90' }).rateLimits;
    assert.deepEqual([apart.signIn, apart.customerSignIn], [7, 90]);
  });

  test('MEDIA_MAX_PIXELS: 40 megapixels unless set, within 1 million and sharp’s own limit', () => {
    assert.equal(loadConfig({}).media.maxPixels, 40_000_000);
    assert.equal(loadConfig({ MEDIA_MAX_PIXELS: '12000000' }).media.maxPixels, 12_000_000);
    for (const bad of ['999999', '268402690', '4e7', 'many'])
      assert.throws(() => loadConfig({ MEDIA_MAX_PIXELS: bad }), ConfigError, bad);
  });

  test('PostgreSQL turns the demo seed off unless asked for', () => {
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://u@db/x' }).seedDemo, false);
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://u@db/x', SEED_DEMO: '1' }).seedDemo, true);
    assert.equal(loadConfig({ SEED_DEMO: '0' }).seedDemo, false);
  });

  test('production mode turns development conveniences off unless named', () => {
    assert.throws(() => loadConfig({ NODE_ENV: 'production' }), /EMAIL_TRANSPORT/);
    const production = loadConfig({ NODE_ENV: 'production', EMAIL_TRANSPORT: 'smtp://mail.internal:25' });
    assert.equal(production.devMailbox, false);
    assert.equal(production.seedDemo, false);
    assert.equal(production.webhooks.allowHttp, false);
    const development = loadConfig({});
    assert.equal(development.devMailbox, true);
    assert.equal(development.seedDemo, true);
    // Named explicitly, a convenience is on in production mode too (decision `production-mode`)…
    const named = loadConfig({
      NODE_ENV: 'production',
      EMAIL_TRANSPORT: 'file:./mail',
      DEV_MAILBOX: '1',
      SEED_DEMO: '1',
    });
    assert.deepEqual([named.devMailbox, named.seedDemo], [true, true]);
    // …and off in development when named off; the dev mailbox never without file mail.
    assert.equal(loadConfig({ DEV_MAILBOX: 'off' }).devMailbox, false);
    assert.throws(
      () => loadConfig({ DEV_MAILBOX: '1', EMAIL_TRANSPORT: 'smtp://mail.internal:25' }),
      /DEV_MAILBOX/,
    );
  });

  // `serve` hands TRUST_PROXY to Fastify (@fastify/proxy-addr), which throws at start on what it
  // cannot take (a /0 did): whatever the configuration accepts, Fastify must take.
  test('every TRUST_PROXY the configuration accepts, Fastify takes: no crash at start', () => {
    const address = fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom('::ffff:10.0.0.1', 'fe80::1'));
    const entry = fc.oneof(
      fc
        .tuple(address, fc.option(fc.integer({ min: 0, max: 129 }), { nil: undefined }))
        .map(([ip, bits]) => (bits === undefined ? ip : `${ip}/${bits}`)),
      fc.constantFrom('loopback', 'linklocal', 'uniquelocal', 'true', 'off'),
    );
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 4 }), (entries) => {
        let trustProxy;
        try {
          trustProxy = loadConfig({ TRUST_PROXY: entries.join(',') }).trustProxy;
        } catch (error) {
          if (error instanceof ConfigError && error.variable === 'TRUST_PROXY') return;
          throw error;
        }
        const app = Fastify({ trustProxy: typeof trustProxy === 'boolean' ? trustProxy : [...trustProxy] });
        void app.close();
      }),
      { numRuns: 2000 },
    );
  });

  test('parses durations and booleans', () => {
    const config = loadConfig({
      STAFF_SESSION_TTL: '30m',
      SHUTDOWN_TIMEOUT: '2s',
      TRUST_PROXY: 'yes',
      KEY_CACHE_TTL: '1s',
      DATABASE_STATEMENT_TIMEOUT: '5m',
      DATABASE_READINESS_TIMEOUT: '500ms',
    });
    assert.equal(config.databaseStatementTimeoutMs, 5 * 60 * 1000);
    assert.equal(config.databaseReadinessTimeoutMs, 500);
    assert.equal(config.staffSessionTtlMs, 30 * 60 * 1000);
    assert.equal(config.shutdownTimeoutMs, 2000);
    assert.equal(config.trustProxy, true);
    assert.equal(config.keyCacheTtlMs, 1000);
  });

  test('DATABASE_REPLICA_URL: a PostgreSQL replica beside DATABASE_URL, skipped past REPLICA_MAX_LAG', () => {
    const none = loadConfig({ DATABASE_URL: 'postgres://u@db/x' });
    assert.equal(none.databaseReplicaUrl, null);
    assert.equal(none.replicaMaxLagMs, 2000);
    const config = loadConfig({
      DATABASE_URL: 'postgres://u@primary/x',
      DATABASE_REPLICA_URL: 'postgresql://reader@standby:5433/x',
      REPLICA_MAX_LAG: '300ms',
    });
    assert.equal(config.databaseReplicaUrl, 'postgresql://reader@standby:5433/x');
    assert.equal(config.replicaMaxLagMs, 300);
    // Its pool: half the primary's by default (at least 2), or its own size.
    assert.equal(none.databaseReplicaPoolSize, 5);
    assert.equal(loadConfig({ DATABASE_POOL_SIZE: '3' }).databaseReplicaPoolSize, 2);
    assert.equal(
      loadConfig({ DATABASE_POOL_SIZE: '3', DATABASE_REPLICA_POOL_SIZE: '12' }).databaseReplicaPoolSize,
      12,
    );
    assert.throws(() => loadConfig({ DATABASE_REPLICA_POOL_SIZE: '0' }), /DATABASE_REPLICA_POOL_SIZE/);
  });

  test('refuses a replica without DATABASE_URL (the embedded database has none), its password hidden', () => {
    assert.throws(
      () => loadConfig({ DATABASE_REPLICA_URL: 'postgres://reader:hunter2@standby/x' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.variable === 'DATABASE_REPLICA_URL' &&
        /set DATABASE_URL too/.test(error.message) &&
        !error.message.includes('hunter2'),
    );
  });

  test('DATABASE_POOLER=transaction turns prepared statements off unless they are asked for; DATABASE_DIRECT_URL is read', () => {
    const plain = loadConfig({});
    assert.equal(plain.databasePooler, 'none');
    assert.equal(plain.databasePreparedStatements, true);
    assert.equal(plain.databaseDirectUrl, null);
    const pooled = loadConfig({
      DATABASE_URL: 'postgres://app@pgbouncer:6432/shop',
      DATABASE_POOLER: 'transaction',
      DATABASE_DIRECT_URL: 'postgres://app@db:5432/shop',
    });
    assert.equal(pooled.databasePooler, 'transaction');
    assert.equal(pooled.databasePreparedStatements, false);
    assert.equal(pooled.databaseDirectUrl, 'postgres://app@db:5432/shop');
    // PgBouncer 1.21 or newer with max_prepared_statements keeps them.
    assert.equal(
      loadConfig({ DATABASE_POOLER: 'transaction', DATABASE_PREPARED_STATEMENTS: 'true' })
        .databasePreparedStatements,
      true,
    );
  });

  test('TRUST_PROXY takes a list of proxy addresses, CIDR ranges and presets', () => {
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1, fd00::/8,Loopback' }).trustProxy, [
      '10.0.0.0/8',
      '127.0.0.1',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
    assert.equal(loadConfig({ TRUST_PROXY: 'off' }).trustProxy, false);
    assert.equal(loadConfig({}).trustProxy, false);
  });

  const bad: [Record<string, string>, string, RegExp][] = [
    [{ PORT: 'http' }, 'PORT', /integer from 0 to 65535/],
    [{ PORT: '70000' }, 'PORT', /integer/],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL', /postgres:/],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL', /postgres:/],
    [{ REDIS_URL: 'http://x' }, 'REDIS_URL', /redis:/],
    [{ SEED_DEMO: 'maybe' }, 'SEED_DEMO', /1\/true/],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', /info/],
    [{ SECRET_KEY: 'short' }, 'SECRET_KEY', /32 characters/],
    [{ KEY_CACHE_TTL: '5s' }, 'KEY_CACHE_TTL', /at most 1s/],
    [{ STAFF_SESSION_TTL: 'soon' }, 'STAFF_SESSION_TTL', /duration/],
    [{ PLATFORM_MAIL_DOMAIN: 'not a domain' }, 'PLATFORM_MAIL_DOMAIN', /domain name/],
    [{ DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE', /integer from 1/],
    [{ DATABASE_POOLER: 'session' }, 'DATABASE_POOLER', /none or transaction/],
    [{ DATABASE_DIRECT_URL: 'http://db' }, 'DATABASE_DIRECT_URL', /postgres:/],
    [{ DATABASE_STATEMENT_TIMEOUT: '10ms' }, 'DATABASE_STATEMENT_TIMEOUT', /from 100 ms to 3600 s/],
    [{ DATABASE_STATEMENT_TIMEOUT: '2h' }, 'DATABASE_STATEMENT_TIMEOUT', /from 100 ms to 3600 s/],
    [{ DATABASE_READINESS_TIMEOUT: '2m' }, 'DATABASE_READINESS_TIMEOUT', /from 100 ms to 60 s/],
    [{ TRUST_PROXY: 'maybe' }, 'TRUST_PROXY', /CIDR/],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY', /CIDR/],
    [{ TRUST_PROXY: '10.0.0.1,proxy.internal' }, 'TRUST_PROXY', /CIDR/],
    [{ TRUST_PROXY: '0.0.0.0/0' }, 'TRUST_PROXY', /0\.0\.0\.0\/0 is every client, not a proxy/],
    [{ TRUST_PROXY: '10.0.0.1, ::/00' }, 'TRUST_PROXY', /::\/00 is every client/],
    [{ SHOP_PUBLISHABLE_KEY: 'st_secret' }, 'SHOP_PUBLISHABLE_KEY', /pk_/],
    [{ SHOP_UI: 'maybe' }, 'SHOP_UI', /1\/true/],
    [{ PGLITE_SHARED_BUFFERS_MB: '16MB' }, 'PGLITE_SHARED_BUFFERS_MB', /integer from 1 to 1024/],
    [{ PGLITE_SHARED_BUFFERS_MB: '0' }, 'PGLITE_SHARED_BUFFERS_MB', /integer from 1 to 1024/],
    [{ DATABASE_REPLICA_URL: 'mysql://x' }, 'DATABASE_REPLICA_URL', /postgres:/],
    [{ REPLICA_MAX_LAG: 'soon' }, 'REPLICA_MAX_LAG', /duration/],
    [{ REPLICA_MAX_LAG: '20ms' }, 'REPLICA_MAX_LAG', /from 50 ms to 600 s/],
    [{ PGLITE_OPTIMIZING_COMPILER: 'fast' }, 'PGLITE_OPTIMIZING_COMPILER', /1\/true/],
  ];
  for (const [env, variable, accepts] of bad) {
    test(`rejects ${variable}=${Object.values(env)[0]} naming the variable and what it accepts`, () => {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.variable === variable &&
          error.message.includes(variable) &&
          accepts.test(error.message),
      );
    });
  }

  test('never echoes a database password or a secret key', () => {
    assert.throws(
      () => loadConfig({ DATABASE_URL: 'mysql://user:hunter2@db/x' }),
      (error: Error) => !error.message.includes('hunter2'),
    );
    assert.throws(
      () => loadConfig({ SECRET_KEY: 'tooshort-secret' }),
      (error: Error) => !error.message.includes('tooshort-secret'),
    );
  });
});
