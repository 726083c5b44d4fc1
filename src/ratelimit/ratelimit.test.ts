import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { loadConfig, type RateLimitConfig } from '../config.ts';
import type { Db } from '../db/database.ts';
import { createStorefrontKey } from '../keys/keys.service.ts';
import { createTestStore, openTestDatabase, startTestApp, type TestApp } from '../test/harness.ts';
import { clientBucketOf, RateLimiter, tierOf } from './ratelimit.limiter.ts';
import { MemoryCounterStore } from './ratelimit.memory-store.ts';
import { ROOMY, startRateLimitedApp } from './ratelimit.test-support.ts';

let db: Db;
before(async () => {
  db = await openTestDatabase();
});
after(() => db.close());

/** An app on the shared test database with small budgets (counters in Redis when REDIS_URL is set). */
async function withApp(rateLimits: Partial<RateLimitConfig>, fn: (t: TestApp) => Promise<void>) {
  const t = await startRateLimitedApp(db, rateLimits);
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

interface Call {
  key: string;
  method?: 'GET' | 'HEAD' | 'POST' | 'OPTIONS';
  url?: string;
  ip?: string;
  headers?: Record<string, string>;
}

function call(t: TestApp, { key, method = 'GET', url = '/storefront/v1/store', ip, headers = {} }: Call) {
  return t.app.inject({
    method,
    url,
    headers: { 'x-publishable-key': key, ...headers },
    ...(method === 'POST' ? { payload: { items: [] } } : {}),
    ...(ip ? { remoteAddress: ip } : {}),
  });
}

function limits(response: LightMyRequestResponse) {
  return {
    limit: Number(response.headers['ratelimit-limit']),
    remaining: Number(response.headers['ratelimit-remaining']),
    reset: Number(response.headers['ratelimit-reset']),
  };
}

async function exhaust(t: TestApp, request: Call, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const response = await call(t, request);
    assert.ok(response.statusCode < 400, `request ${i + 1} of ${times}: ${response.statusCode}`);
  }
}

describe('storefront rate limits over HTTP', () => {
  test('every authenticated response carries RateLimit-* headers, counting down', async () => {
    await withApp({ publicRead: 5 }, async (t) => {
      const shop = await createTestStore(t);
      const seen = [];
      for (let i = 0; i < 3; i++) {
        const response = await call(t, { key: shop.publishableKey });
        assert.equal(response.statusCode, 200);
        seen.push(limits(response));
      }
      assert.deepEqual(
        seen.map(({ limit, remaining }) => [limit, remaining]),
        [
          [5, 4],
          [5, 3],
          [5, 2],
        ],
      );
      for (const { reset } of seen)
        assert.ok(Number.isInteger(reset) && reset >= 0 && reset <= 60, `${reset}`);
    });
  });

  test('over budget is 429 problem+json rate_limited with Retry-After and the headers', async () => {
    await withApp({ publicRead: 3 }, async (t) => {
      const shop = await createTestStore(t);
      await exhaust(t, { key: shop.publishableKey }, 3);
      const response = await call(t, {
        key: shop.publishableKey,
        headers: { origin: 'https://shop.example' },
      });
      assert.equal(response.statusCode, 429);
      assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
      const problem = response.json<{ type: string; title: string; status: number; detail: string }>();
      assert.equal(problem.title, 'rate_limited');
      assert.equal(problem.status, 429);
      assert.equal(problem.type, 'about:blank');
      assert.match(problem.detail, /budget of 3 requests/);
      const { limit, remaining, reset } = limits(response);
      assert.equal(limit, 3);
      assert.equal(remaining, 0);
      const retryAfter = Number(response.headers['retry-after']);
      assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `${retryAfter}`);
      assert.equal(retryAfter, reset);
      // A browser can read the 429 and its headers.
      assert.equal(response.headers['access-control-allow-origin'], 'https://shop.example');
      assert.match(String(response.headers['access-control-expose-headers']), /Retry-After/);
    });
  });

  test('error answers keep the headers set before the route ran (400, 404, 304)', async () => {
    await withApp({ publicRead: 10 }, async (t) => {
      const shop = await createTestStore(t);
      const invalid = await call(t, { key: shop.publishableKey, url: '/storefront/v1/products?limit=0' });
      assert.equal(invalid.statusCode, 400);
      assert.equal(invalid.json<{ title: string }>().title, 'validation_failed');
      assert.deepEqual([limits(invalid).limit, limits(invalid).remaining], [10, 9]);

      const missing = await call(t, {
        key: shop.publishableKey,
        url: '/storefront/v1/products/00000000-0000-4000-8000-000000000000',
      });
      assert.equal(missing.statusCode, 404);
      assert.deepEqual([limits(missing).limit, limits(missing).remaining], [10, 8]);

      const first = await call(t, { key: shop.publishableKey });
      const cached = await call(t, {
        key: shop.publishableKey,
        headers: { 'if-none-match': String(first.headers.etag) },
      });
      assert.equal(cached.statusCode, 304);
      assert.deepEqual([limits(cached).limit, limits(cached).remaining], [10, 6]);
    });
  });

  test('preflights are never limited and unauthenticated answers carry no budget', async () => {
    await withApp({ publicRead: 1, publicWrite: 1 }, async (t) => {
      const shop = await createTestStore(t);
      await exhaust(t, { key: shop.publishableKey }, 1);
      assert.equal((await call(t, { key: shop.publishableKey })).statusCode, 429);
      for (let i = 0; i < 3; i++) {
        const preflight = await t.app.inject({
          method: 'OPTIONS',
          url: '/storefront/v1/store',
          headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET' },
        });
        assert.equal(preflight.statusCode, 204);
        assert.equal(preflight.headers['ratelimit-limit'], undefined);
      }
      const anonymous = await t.app.inject({ method: 'GET', url: '/storefront/v1/store' });
      assert.equal(anonymous.statusCode, 401);
      assert.equal(anonymous.headers['ratelimit-limit'], undefined);
    });
  });

  test('writes (POST) and reads (GET, HEAD) spend separate budgets', async () => {
    await withApp({ publicRead: 3, publicWrite: 2 }, async (t) => {
      const shop = await createTestStore(t);
      const key = shop.publishableKey;
      assert.equal((await call(t, { key, method: 'HEAD' })).statusCode, 200);
      await exhaust(t, { key }, 2);
      assert.equal((await call(t, { key })).statusCode, 429, 'HEAD counted as a read');

      const created = await call(t, { key, method: 'POST', url: '/storefront/v1/carts' });
      assert.equal(created.statusCode, 201);
      assert.deepEqual([limits(created).limit, limits(created).remaining], [2, 1]);
      assert.equal((await call(t, { key, method: 'POST', url: '/storefront/v1/carts' })).statusCode, 201);
      const refused = await call(t, { key, method: 'POST', url: '/storefront/v1/carts' });
      assert.equal(refused.statusCode, 429);
      assert.match(refused.json<{ detail: string }>().detail, /public-write budget of 2/);
    });
  });

  test("a key's own budget (rate_limit_read / rate_limit_write) overrides the default", async () => {
    await withApp({ publicRead: 100, publicWrite: 100 }, async (t) => {
      const shop = await createTestStore(t);
      const key = await createStorefrontKey(t.deps, shop.store.id, {
        label: 'small',
        allowedOrigins: [],
      });
      await t.db.kysely
        .updateTable('storefront_keys')
        .set({ rate_limit_read: 2, rate_limit_write: 1 })
        .where('store_id', '=', shop.store.id)
        .where('id', '=', key.id)
        .execute();
      const first = await call(t, { key: key.key });
      assert.deepEqual([limits(first).limit, limits(first).remaining], [2, 1]);
      await exhaust(t, { key: key.key }, 1);
      assert.equal((await call(t, { key: key.key })).statusCode, 429);
      await exhaust(t, { key: key.key, method: 'POST', url: '/storefront/v1/carts' }, 1);
      assert.equal(
        (await call(t, { key: key.key, method: 'POST', url: '/storefront/v1/carts' })).statusCode,
        429,
      );

      // A key already in use picks up a changed budget once its cached lookup expires.
      const before = await call(t, { key: shop.publishableKey });
      assert.equal(limits(before).limit, 100);
      await t.db.kysely
        .updateTable('storefront_keys')
        .set({ rate_limit_read: 50 })
        .where('store_id', '=', shop.store.id)
        .where('id', '=', shop.keyId)
        .execute();
      t.clock.advance(t.config.keyCacheTtlMs + 1);
      const afterChange = await call(t, { key: shop.publishableKey });
      assert.deepEqual([limits(afterChange).limit, limits(afterChange).remaining], [50, 48]);
    });
  });

  test('one client IP cannot spend the whole key budget', async () => {
    await withApp({ publicRead: 6, ipRead: 3 }, async (t) => {
      const shop = await createTestStore(t);
      const key = shop.publishableKey;
      const first = await call(t, { key, ip: '203.0.113.1' });
      assert.deepEqual([limits(first).limit, limits(first).remaining], [3, 2], 'the client budget binds');
      await exhaust(t, { key, ip: '203.0.113.1' }, 2);
      for (let i = 0; i < 3; i++) {
        const refused = await call(t, { key, ip: '203.0.113.1' });
        assert.equal(refused.statusCode, 429);
        assert.match(refused.json<{ detail: string }>().detail, /client's public-read budget of 3/);
      }
      // The refused requests did not spend the key's budget: another client gets its full share…
      await exhaust(t, { key, ip: '203.0.113.2' }, 3);
      // …and the key's own budget (6) still caps the sum over clients.
      const third = await call(t, { key, ip: '203.0.113.3' });
      assert.equal(third.statusCode, 429);
      assert.match(third.json<{ detail: string }>().detail, /publishable key's public-read budget of 6/);
      assert.deepEqual([limits(third).limit, limits(third).remaining], [6, 0]);
    });
  });

  test('fewer than 50 client addresses cannot use a key up for the others (decision `key-budget-is-a-safety-cap`)', async () => {
    // The key's write budget at its least: 50 clients' budgets of 2.
    await withApp({ ipWrite: 2, publicWrite: 100 }, async (t) => {
      const shop = await createTestStore(t);
      const key = shop.publishableKey;
      for (let client = 1; client <= 49; client++) {
        const ip = `198.51.100.${client}`;
        for (let i = 0; i < 4; i++) await call(t, { key, method: 'POST', url: '/storefront/v1/carts', ip });
        const refused = await call(t, { key, method: 'POST', url: '/storefront/v1/carts', ip });
        assert.equal(refused.statusCode, 429);
        assert.match(refused.json<{ detail: string }>().detail, /This client's/);
      }
      const shopper = await call(t, { key, method: 'POST', url: '/storefront/v1/carts', ip: '203.0.113.1' });
      assert.equal(shopper.statusCode, 201, 'a 50th client still buys');
    });
    // The defaults keep that ratio, and a configuration that breaks it does not start.
    const defaults = loadConfig({}).rateLimits;
    assert.ok(defaults.publicWrite >= 50 * defaults.ipWrite && defaults.publicRead >= 50 * defaults.ipRead);
    assert.throws(() => loadConfig({ RATE_LIMIT_WRITE: '600' }), /RATE_LIMIT_WRITE.*at least 15000/s);
    assert.equal(
      loadConfig({ RATE_LIMIT_IP_WRITE: '12', RATE_LIMIT_WRITE: '600' }).rateLimits.publicWrite,
      600,
    );
  });

  test('behind trusted proxies (TRUST_PROXY list) the client is the forwarded address, not the proxy', async () => {
    const t = await startTestApp({
      db,
      config: { rateLimits: { ...ROOMY, ipRead: 2 }, trustProxy: ['10.0.0.0/8'] },
    });
    try {
      t.clock.advance(60_000 - (t.clock.now().getTime() % 60_000));
      const shop = await createTestStore(t);
      const key = shop.publishableKey;
      const viaProxy = (client: string, proxy = '10.1.2.3') =>
        call(t, { key, ip: proxy, headers: { 'x-forwarded-for': client } });
      await exhaust(t, { key, ip: '10.1.2.3', headers: { 'x-forwarded-for': '198.51.100.7' } }, 2);
      assert.equal((await viaProxy('198.51.100.7')).statusCode, 429, 'that client is out of budget');
      assert.equal(
        (await viaProxy('198.51.100.8')).statusCode,
        200,
        'another client behind the proxy is not',
      );
      // A peer outside the trusted ranges cannot pick its sub-limit with X-Forwarded-For.
      await exhaust(t, { key, ip: '203.0.113.9', headers: { 'x-forwarded-for': '198.51.100.20' } }, 2);
      const spoofed = await call(t, {
        key,
        ip: '203.0.113.9',
        headers: { 'x-forwarded-for': '198.51.100.21' },
      });
      assert.equal(spoofed.statusCode, 429, 'counted as 203.0.113.9 whatever it forwards');
    } finally {
      await t.close();
    }
  });

  test('two keys have independent budgets', async () => {
    await withApp({ publicRead: 2 }, async (t) => {
      const shop = await createTestStore(t);
      const second = await createStorefrontKey(t.deps, shop.store.id, {
        label: 'second',
        allowedOrigins: [],
      });
      await exhaust(t, { key: shop.publishableKey }, 2);
      assert.equal((await call(t, { key: shop.publishableKey })).statusCode, 429);
      const other = await call(t, { key: second.key });
      assert.equal(other.statusCode, 200);
      assert.deepEqual([limits(other).limit, limits(other).remaining], [2, 1]);
    });
  });

  test('the budget comes back when the window resets (after Retry-After)', async () => {
    await withApp({ windowMs: 10_000, publicRead: 2 }, async (t) => {
      const shop = await createTestStore(t);
      await exhaust(t, { key: shop.publishableKey }, 2);
      const refused = await call(t, { key: shop.publishableKey });
      assert.equal(refused.statusCode, 429);
      const retryAfter = Number(refused.headers['retry-after']);
      assert.ok(retryAfter >= 9 && retryAfter <= 10, `${retryAfter}`);
      t.clock.advance(retryAfter * 1000);
      const again = await call(t, { key: shop.publishableKey });
      assert.equal(again.statusCode, 200);
      assert.deepEqual([limits(again).limit, limits(again).remaining], [2, 1]);
    });
  });
});

describe('the limiter', () => {
  test('tiers: GET and HEAD read, POST PUT PATCH DELETE write, OPTIONS none', () => {
    assert.equal(tierOf('GET'), 'public-read');
    assert.equal(tierOf('HEAD'), 'public-read');
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) assert.equal(tierOf(method), 'public-write');
    assert.equal(tierOf('OPTIONS'), null);
  });

  test('budgets: defaults per tier, key overrides, client sub-limit never above the key', () => {
    const limiter = new RateLimiter(
      { ...ROOMY, windowMs: 60_000, publicRead: 6000, publicWrite: 600, ipRead: 1200, ipWrite: 300 },
      new MemoryCounterStore(),
    );
    assert.deepEqual(limiter.budgetsOf({ tier: 'public-read', keyLimit: null }), { key: 6000, client: 1200 });
    assert.deepEqual(limiter.budgetsOf({ tier: 'public-write', keyLimit: null }), { key: 600, client: 300 });
    assert.deepEqual(limiter.budgetsOf({ tier: 'public-read', keyLimit: 20_000 }), {
      key: 20_000,
      client: 1200,
    });
    assert.deepEqual(limiter.budgetsOf({ tier: 'public-write', keyLimit: 100 }), { key: 100, client: 300 });
  });

  test("a client's budget is per store: rotating over a store's many keys does not multiply it (decision `per-client-budget`)", async () => {
    const limiter = new RateLimiter(
      { ...ROOMY, windowMs: 60_000, publicRead: 100, publicWrite: 100, ipRead: 3, ipWrite: 3 },
      new MemoryCounterStore(),
      () => Date.parse('2030-01-01T00:00:00.000Z'),
    );
    const hit = (keyId: string, storeId: string) =>
      limiter.hit({ keyId, storeId, keyLimit: null, ip: '198.51.100.9', tier: 'public-read' });
    for (const keyId of ['k1', 'k2', 'k3']) assert.equal((await hit(keyId, 's1')).allowed, true);
    const fourth = await hit('k4', 's1');
    assert.equal(fourth.allowed, false, 'a fourth key of the same store does not help');
    assert.equal(fourth.scope, 'client');
    assert.equal((await hit('other', 's2')).allowed, true, 'another store counts apart');
  });

  test('counts reads and writes apart, reports the binding budget and resets with the window', async () => {
    let now = Date.parse('2030-01-01T00:00:00.000Z');
    const limiter = new RateLimiter(
      { ...ROOMY, windowMs: 10_000, publicRead: 3, publicWrite: 2, ipRead: 2, ipWrite: 5 },
      new MemoryCounterStore(),
      () => now,
    );
    const subject = { keyId: 'k1', storeId: 's1', keyLimit: null, ip: '198.51.100.7' };
    const read = () => limiter.hit({ ...subject, tier: 'public-read' });
    const write = () => limiter.hit({ ...subject, tier: 'public-write' });
    /** The first read of a window: the client's budget (2) binds. */
    const firstRead = { allowed: true, scope: 'client', limit: 2, remaining: 1, resetSeconds: 10 };

    assert.deepEqual(await read(), firstRead);
    now += 2500;
    assert.deepEqual(await read(), {
      allowed: true,
      scope: 'client',
      limit: 2,
      remaining: 0,
      resetSeconds: 8,
    });
    assert.deepEqual(await read(), {
      allowed: false,
      scope: 'client',
      limit: 2,
      remaining: 0,
      resetSeconds: 8,
    });
    // Writes: the key's budget (2) is smaller than the client's (5), so it binds.
    assert.deepEqual(await write(), { allowed: true, scope: 'key', limit: 2, remaining: 1, resetSeconds: 8 });
    assert.equal((await write()).allowed, true);
    assert.equal((await write()).allowed, false);
    now += 7500;
    assert.deepEqual(await read(), firstRead, 'a new window counts from the start');
    assert.deepEqual(await write(), {
      allowed: true,
      scope: 'key',
      limit: 2,
      remaining: 1,
      resetSeconds: 10,
    });
  });

  test('clients are bucketed by IPv4 address and by IPv6 /64', () => {
    assert.equal(clientBucketOf('203.0.113.9'), '203.0.113.9');
    assert.equal(clientBucketOf('::ffff:203.0.113.9'), '203.0.113.9');
    assert.equal(clientBucketOf('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
    assert.equal(clientBucketOf('2001:0db8:0001:0002:ffff:0:0:9'), '2001:db8:1:2::/64');
    assert.equal(clientBucketOf('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(clientBucketOf('::1'), '0:0:0:0::/64');
    assert.equal(clientBucketOf('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.equal(clientBucketOf('64:ff9b::192.0.2.1'), '64:ff9b:0:0::/64');
  });

  test('the memory store drops expired windows and stays bounded within one', async () => {
    const store = new MemoryCounterStore({ maxCounters: 50 });
    const hit = (name: string, windowEndsAt: number, now: number) =>
      store.hit({ keyCounter: `k:${name}`, ipCounter: `ip:${name}`, ipLimit: 10, windowEndsAt, now });
    for (let i = 0; i < 20; i++) await hit(`w1:${i}`, 1000, 10);
    assert.equal(store.size, 40);
    await hit('w2:0', 2000, 1000);
    assert.equal(store.size, 2, 'counters of the finished window are gone');
    for (let i = 0; i < 100; i++) await hit(`w2:many:${i}`, 2000, 1500);
    assert.ok(store.size <= 50, 'bounded by maxCounters');
  });
});
