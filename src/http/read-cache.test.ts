/**
 * The read cache (decision `read-cache-invalidation`): storefront reads come from memory while nothing changed, and every
 * committed change is visible at once in the process that made it, within the re-check period in a
 * process that missed the notification, and within a second in another process (PostgreSQL).
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { pino } from 'pino';
import {
  createTestStore,
  startTestAppWithDb,
  serveProcess,
  type TestApp,
  type TestDb,
  type TestStore,
  skipUnlessPostgres,
  waitFor,
} from '../test/harness.ts';
import { ReadCache } from './read-cache.ts';
import { etagOf } from './caching.ts';

let db: TestDb;
let t: TestApp;
before(async () => ({ db, t } = await startTestAppWithDb()));
after(() => t.close());

const hits = (): number => t.app.readCache!.stats().hits;

interface Product {
  id: string;
  variants: { id: string }[];
}

async function product(shop: TestStore, title: string, onHand = 10): Promise<Product> {
  const response = await t.admin(shop).post('/products', {
    title,
    status: 'active',
    variants: [{ label: 'One', priceAmount: 1000, onHand }],
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<Product>();
}

/** Reads `url` until it is cached and checks that the next answer came from the cache, byte for byte. */
async function cachedRead(shop: TestStore, url: string): Promise<string> {
  // Nothing is kept for a store before its versions were read once.
  await t.storefront(shop).get(url);
  await t.app.readCache!.recheck();
  const first = await t.storefront(shop).get(url);
  assert.equal(first.statusCode, 200, first.body);
  const before = hits();
  const second = await t.storefront(shop).get(url);
  assert.equal(hits(), before + 1, `${url} was served from the cache`);
  assert.equal(second.body, first.body);
  assert.equal(second.headers.etag, first.headers.etag);
  assert.equal(second.headers['content-type'], 'application/json; charset=utf-8');
  assert.equal(second.headers['cache-control'], first.headers['cache-control']);
  return second.body;
}

describe('the read cache', () => {
  test('a cached body keeps its ETag, answers If-None-Match with 304, and is per store', async () => {
    const a = await createTestStore(t);
    const b = await createTestStore(t);
    await product(a, 'Alpha');
    await product(b, 'Beta');
    const bodyA = await cachedRead(a, '/products?limit=5');
    const bodyB = await cachedRead(b, '/products?limit=5');
    assert.match(bodyA, /Alpha/);
    assert.doesNotMatch(bodyA, /Beta/);
    assert.match(bodyB, /Beta/);
    assert.equal(etagOf(bodyA), (await t.storefront(a).get('/products?limit=5')).headers.etag);

    const etag = (await t.storefront(a).get('/products?limit=5')).headers.etag as string;
    const before = hits();
    const notModified = await t.storefront(a).get('/products?limit=5', { 'if-none-match': etag });
    assert.equal(notModified.statusCode, 304);
    assert.equal(notModified.body, '');
    assert.equal(notModified.headers['content-type'], undefined);
    assert.equal(notModified.headers.etag, etag);
    assert.equal(hits(), before + 1);

    // Another key of the same store, with an allowed Origin: the same body, its own CORS headers.
    const cors = await t.storefront(a).get('/products?limit=5', { origin: 'https://shop.example' });
    assert.equal(cors.body, bodyA);
    assert.equal(cors.headers['access-control-allow-origin'], 'https://shop.example');
    // A refused origin is refused before the cache.
    assert.equal(
      (await t.storefront(a).get('/products?limit=5', { origin: 'https://evil.example' })).statusCode,
      403,
    );
  });

  test('a hit is answered before validation, but never to a request the normal path refuses', async () => {
    const shop = await createTestStore(t);
    await product(shop, 'Gate');
    await cachedRead(shop, '/products?limit=3');
    // The hit comes before validation and the input checks; headers are not fixed by the URL, so
    // a header with unsafe text still gets its 400 (decision `input-hygiene`), and an unknown key its 401.
    const before = hits();
    const unsafe = await t.storefront(shop).get('/products?limit=3', { 'x-note': 'a\ud800' });
    assert.equal(unsafe.statusCode, 400, unsafe.body);
    assert.equal(unsafe.json<{ title: string }>().title, 'validation_failed');
    assert.equal(hits(), before + 1, 'looked up, then left to the normal path');
    const unknown = await t.app.inject({
      method: 'GET',
      url: '/storefront/v1/products?limit=3',
      headers: { 'x-publishable-key': `pk_${'x'.repeat(32)}` },
    });
    assert.equal(unknown.statusCode, 401);
    // The same URL is refused alike with and without a cached body for its valid sibling.
    assert.equal((await t.storefront(shop).get('/products?limit=3&bogus=1')).statusCode, 400);
    // RateLimit-* headers are on hits too.
    const hit = await t.storefront(shop).get('/products?limit=3');
    assert.equal(hits(), before + 2);
    assert.match(String(hit.headers['ratelimit-remaining']), /^\d+$/);
  });

  test('every kind of admin change is served at once by the process that made it', async () => {
    const shop = await createTestStore(t);
    const { id, variants } = await product(shop, 'Lamp');
    const other = await product(shop, 'Chair');
    assert.equal(
      (await t.admin(shop).put('/menus/main', { items: [{ label: 'Home', url: '/' }] })).statusCode,
      200,
    );
    assert.equal(
      (await t.admin(shop).put('/pages/about', { title: 'About', body: 'Hello' })).statusCode,
      200,
    );
    const collection = await t.admin(shop).post('/collections', {
      title: 'Lights',
      slug: 'lights',
      kind: 'manual',
      productIds: [id],
    });
    assert.equal(collection.statusCode, 201, collection.body);
    const urls = [
      '/store',
      '/products?limit=10',
      `/products/${id}`,
      `/products/${other.id}`,
      '/collections',
      '/collections/lights',
      '/collections/lights/products',
      '/menus/main',
      '/pages/about',
    ];
    const warm = async () => {
      for (const url of urls) await cachedRead(shop, url);
    };
    await warm();

    const changes: [string, () => Promise<{ statusCode: number; body: string }>, string, RegExp][] = [
      [
        'product title',
        () => t.admin(shop).patch(`/products/${id}`, { title: 'Desk lamp' }),
        `/products/${id}`,
        /Desk lamp/,
      ],
      [
        'product title in lists',
        async () => ({ statusCode: 200, body: '' }),
        '/products?limit=10',
        /Desk lamp/,
      ],
      [
        'variant price',
        () => t.admin(shop).patch(`/variants/${variants[0]!.id}`, { priceAmount: 4321 }),
        `/products/${id}`,
        /4321/,
      ],
      [
        'collection title',
        () => t.admin(shop).patch(`/collections/${collection.json<{ id: string }>().id}`, { title: 'Lamps' }),
        '/collections/lights',
        /Lamps/,
      ],
      [
        'store name',
        () => t.admin(shop).put('/settings', { name: 'Renamed Store' }),
        '/store',
        /Renamed Store/,
      ],
      [
        'menu',
        () => t.admin(shop).put('/menus/main', { items: [{ label: 'Sale', url: '/sale' }] }),
        '/menus/main',
        /Sale/,
      ],
      [
        'page',
        () => t.admin(shop).put('/pages/about', { title: 'About us', body: 'Hi' }),
        '/pages/about',
        /About us/,
      ],
    ];
    for (const [what, change, url, expected] of changes) {
      const response = await change();
      assert.ok(response.statusCode < 300, `${what}: ${response.body}`);
      const after = await t.storefront(shop).get(url);
      assert.match(after.body, expected, `${what} is visible at once on ${url}`);
      await cachedRead(shop, url);
    }

    // A region: saving a draft leaves the published tree (and its cached body) alone; publishing shows it.
    const blocks = [{ id: 'h', type: 'heading', settings: { text: 'Welcome', level: 2 } }];
    assert.equal((await t.admin(shop).put('/regions/hero/draft', { blocks })).statusCode, 200);
    assert.equal((await t.admin(shop).post('/regions/hero/publish')).statusCode, 200);
    await cachedRead(shop, '/regions/hero');
    const draft = [{ id: 'h', type: 'heading', settings: { text: 'Goodbye', level: 2 } }];
    assert.equal((await t.admin(shop).put('/regions/hero/draft', { blocks: draft })).statusCode, 200);
    const before = hits();
    assert.match((await t.storefront(shop).get('/regions/hero')).body, /Welcome/);
    assert.equal(hits(), before + 1, 'a draft save keeps the published body cached');
    assert.equal((await t.admin(shop).post('/regions/hero/publish')).statusCode, 200);
    assert.match((await t.storefront(shop).get('/regions/hero')).body, /Goodbye/);

    // Archiving a product takes it off the storefront at once.
    assert.equal((await t.admin(shop).patch(`/products/${id}`, { status: 'archived' })).statusCode, 200);
    assert.equal((await t.storefront(shop).get(`/products/${id}`)).statusCode, 404);
    assert.doesNotMatch((await t.storefront(shop).get('/collections/lights/products')).body, new RegExp(id));
    assert.doesNotMatch((await t.storefront(shop).get('/products?limit=10')).body, new RegExp(id));
  });

  test("a stock change drops that product's detail, and leaves lists and content cached", async () => {
    const shop = await createTestStore(t);
    const lamp = await product(shop, 'Lamp', 5);
    const chair = await product(shop, 'Chair', 5);
    await cachedRead(shop, `/products/${lamp.id}`);
    await cachedRead(shop, `/products/${chair.id}`);
    await cachedRead(shop, '/products?limit=10');

    const cart = await t.app.inject({
      method: 'POST',
      url: '/storefront/v1/carts',
      headers: { 'x-publishable-key': shop.publishableKey },
      payload: { items: [{ variantId: lamp.variants[0]!.id, quantity: 2 }] },
    });
    assert.equal(cart.statusCode, 201, cart.body);
    const checkout = await t.app.inject({
      method: 'POST',
      url: '/storefront/v1/checkout',
      headers: { 'x-publishable-key': shop.publishableKey, 'idempotency-key': crypto.randomUUID() },
      payload: { cartId: cart.json<{ id: string }>().id, email: 'buyer@example.com' },
    });
    assert.equal(checkout.statusCode, 201, checkout.body);

    const before = hits();
    const detail = await t.storefront(shop).get(`/products/${lamp.id}`);
    assert.equal(detail.json<{ variants: { available: number }[] }>().variants[0]!.available, 3);
    assert.equal(hits(), before, "the lamp's detail was made again");
    await t.storefront(shop).get('/products?limit=10');
    assert.equal(hits(), before + 1, 'the list stayed cached');
    // (The chair's detail stays too, unless a re-read of the versions came first: a re-read sees that
    // some stock of the store moved, not whose, and drops every detail of the store.)
    assert.equal((await t.storefront(shop).get(`/products/${chair.id}`)).statusCode, 200);

    // On hand set by staff: the same.
    assert.equal(
      (await t.admin(shop).patch(`/variants/${lamp.variants[0]!.id}`, { onHand: 50 })).statusCode,
      200,
    );
    assert.equal(
      (await t.storefront(shop).get(`/products/${lamp.id}`)).json<{ variants: { available: number }[] }>()
        .variants[0]!.available,
      48,
    );
  });

  test('bodies of other requests are not cached: errors, and HEAD answers from what GET cached', async () => {
    const shop = await createTestStore(t);
    const before = t.app.readCache!.stats();
    assert.equal(
      (await t.storefront(shop).get('/products/00000000-0000-4000-8000-000000000000')).statusCode,
      404,
    );
    assert.equal((await t.storefront(shop).get('/products?limit=0')).statusCode, 400);
    assert.equal(t.app.readCache!.stats().entries, before.entries);
    const body = await cachedRead(shop, '/store');
    const head = await t.app.inject({
      method: 'HEAD',
      url: '/storefront/v1/store',
      headers: { 'x-publishable-key': shop.publishableKey },
    });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    assert.equal(head.headers.etag, etagOf(body));
  });
});

describe('ReadCache on its own', () => {
  const log = pino({ level: 'silent' });

  test('without notifications, a re-read of the versions drops what a change made stale', async () => {
    const shop = await createTestStore(t);
    const lamp = await product(shop, 'Lamp');
    const cache = new ReadCache({ db: t.db.kysely, maxBytes: 1 << 20, subscribe: null, log, recheckMs: 50 });
    const storeId = shop.store.id;
    const keep = (key: string, productId: string | null) => {
      const found = cache.lookup(storeId, key, productId);
      assert.ok('ticket' in found);
      cache.store(found.ticket, Buffer.from(key), `"${key}"`);
    };
    // Nothing is kept before the store's first re-read, nor what was being made across it.
    const early = cache.lookup(storeId, 'list', null);
    assert.ok('ticket' in early);
    keep('list', null);
    assert.ok('ticket' in cache.lookup(storeId, 'list', null));
    await cache.recheck();
    cache.store(early.ticket, Buffer.from('early'), '"early"');
    assert.ok('ticket' in cache.lookup(storeId, 'list', null));
    keep('list', null);
    keep('detail', lamp.id);
    await cache.recheck();
    assert.ok('entry' in cache.lookup(storeId, 'list', null), 'nothing changed: still cached');

    // A stock change: detail goes, the list stays.
    await sql`UPDATE variants SET reserved = reserved + 1 WHERE store_id = ${storeId}`.execute(t.db.kysely);
    assert.ok('entry' in cache.lookup(storeId, 'detail', lamp.id), 'not yet re-read');
    await cache.recheck();
    assert.ok('ticket' in cache.lookup(storeId, 'detail', lamp.id));
    assert.ok('entry' in cache.lookup(storeId, 'list', null));

    // A catalog change: everything goes. With the timer, within its period.
    cache.start();
    await sql`UPDATE products SET title = 'Desk lamp' WHERE store_id = ${storeId}`.execute(t.db.kysely);
    const changedAt = Date.now();
    while ('entry' in cache.lookup(storeId, 'list', null)) await sleep(5);
    assert.ok(Date.now() - changedAt < 1000, 'dropped within a second');
    await cache.close();
  });

  test('a body made while its store changed is not kept; notifications drop what they name', async () => {
    const cache = new ReadCache({ db: t.db.kysely, maxBytes: 1 << 20, subscribe: null, log });
    const storeId = crypto.randomUUID();
    cache.lookup(storeId, 'k', null);
    await cache.recheck();
    const found = cache.lookup(storeId, 'k', null);
    assert.ok('ticket' in found);
    cache.changed(`c ${storeId}`);
    cache.store(found.ticket, Buffer.from('old'), '"old"');
    assert.ok('ticket' in cache.lookup(storeId, 'k', null));

    // A product's stock notification drops that product's detail only.
    const [a, b] = ['aaaaaaaa-0000-4000-8000-0000000000a1', 'aaaaaaaa-0000-4000-8000-0000000000b2'];
    for (const [key, product] of [
      ['a', a],
      ['b', b],
      ['list', null],
    ] as const) {
      const ticket = cache.lookup(storeId, key, product);
      assert.ok('ticket' in ticket);
      cache.store(ticket.ticket, Buffer.from(key), `"${key}"`);
    }
    cache.changed(`s ${storeId} ${a}`);
    assert.ok('ticket' in cache.lookup(storeId, 'a', a));
    assert.ok('entry' in cache.lookup(storeId, 'b', b));
    assert.ok('entry' in cache.lookup(storeId, 'list', null));
    cache.changed(`c ${storeId}`);
    assert.ok('ticket' in cache.lookup(storeId, 'b', b));
    assert.ok('ticket' in cache.lookup(storeId, 'list', null));
    await cache.close();
  });

  test('memory is bounded by bytes, least recently used first', async () => {
    const cache = new ReadCache({ db: t.db.kysely, maxBytes: 64 * 1024, subscribe: null, log });
    const storeId = crypto.randomUUID();
    cache.lookup(storeId, 'first', null);
    await cache.recheck();
    const body = Buffer.alloc(1000, 'x');
    const put = (key: string) => {
      const found = cache.lookup(storeId, key, null);
      if ('ticket' in found) cache.store(found.ticket, body, '"x"');
    };
    put('first');
    for (let i = 0; i < 200; i++) {
      put(`key-${i}`);
      assert.ok('entry' in cache.lookup(storeId, 'first', null), 'used on every round: kept');
    }
    const stats = cache.stats();
    assert.ok(stats.bytes <= 64 * 1024, `${stats.bytes} bytes`);
    assert.ok(stats.evictions > 100);
    assert.ok('ticket' in cache.lookup(storeId, 'key-0', null), 'the oldest unused entry went');
    assert.ok('entry' in cache.lookup(storeId, 'key-199', null));
    // A body larger than a sixteenth of the bound is not kept at all.
    const big = cache.lookup(storeId, 'big', null);
    assert.ok('ticket' in big);
    cache.store(big.ticket, Buffer.alloc(8 * 1024), '"big"');
    assert.ok('ticket' in cache.lookup(storeId, 'big', null));
    await cache.close();
  });
});

describe('the versions the triggers keep', () => {
  const versions = async (storeId: string) => {
    const { rows } = await sql<{ scope: string; version: number }>`
      SELECT scope, sum(version)::int8 AS version FROM read_versions WHERE store_id = ${storeId} GROUP BY scope`.execute(
      t.db.kysely,
    );
    return Object.fromEntries(rows.map((row) => [row.scope, Number(row.version)]));
  };

  test('catalog changes bump the catalog; a change of sellable stock bumps stock only', async () => {
    const shop = await createTestStore(t);
    const storeId = shop.store.id;
    const lamp = await product(shop, 'Lamp', 10);
    const start = await versions(storeId);
    assert.ok(start.c! >= 1);
    const variantId = lamp.variants[0]!.id;
    const bump = async (statement: ReturnType<typeof sql>, expected: { c: number; s: number }) => {
      const before = await versions(storeId);
      await statement.execute(t.db.kysely);
      const now = await versions(storeId);
      assert.deepEqual(
        { c: (now.c ?? 0) - (before.c ?? 0), s: (now.s ?? 0) - (before.s ?? 0) },
        expected,
        statement.compile(t.db.kysely).sql,
      );
    };
    await bump(sql`UPDATE variants SET reserved = 2, updated_at = now() WHERE id = ${variantId}`, {
      c: 0,
      s: 1,
    });
    // Selling from reserved moves on hand and reserved together: the sellable figure stays.
    await bump(sql`UPDATE variants SET on_hand = 9, reserved = 1 WHERE id = ${variantId}`, { c: 0, s: 0 });
    await bump(sql`UPDATE variants SET price_amount = 999 WHERE id = ${variantId}`, { c: 1, s: 0 });
    await bump(sql`UPDATE products SET title = 'Desk lamp' WHERE id = ${lamp.id}`, { c: 1, s: 0 });
    await bump(sql`UPDATE stores SET name = 'New name' WHERE id = ${storeId}`, { c: 1, s: 0 });
    await bump(sql`UPDATE staff_members SET updated_at = now() WHERE store_id = ${storeId}`, { c: 0, s: 0 });
    // One transaction bumps a scope once, however many statements.
    await bump(
      sql`WITH a AS (UPDATE products SET title = 'A' WHERE id = ${lamp.id} RETURNING 1)
          UPDATE variants SET price_amount = 5 WHERE id = ${variantId}`,
      { c: 1, s: 0 },
    );
    await bump(sql`DELETE FROM products WHERE id = ${lamp.id}`, { c: 1, s: 0 });
  });
});

const METRICS_TOKEN = 'read-cache-test-metrics-token-0123456789';
const serve = () => serveProcess(db, t.config.secretKey!, { RUN_WORKERS: '0', METRICS_TOKEN });

/** The reads a served process answered from its read cache, from its /metrics. */
async function servedHits(server: { url: string }): Promise<number> {
  const response = await fetch(`${server.url}/metrics`, {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return Number(/^storefront_read_cache_requests_total\{result="hit"\} (\d+)$/m.exec(text)?.[1] ?? 0);
}

test(
  'two processes: a change committed by one is served by the other within a second',
  { skip: skipUnlessPostgres },
  async () => {
    const shop = await createTestStore(t);
    const lamp = await product(shop, 'Lamp', 10);
    const servers = [await serve(), await serve()];
    try {
      const get = async (server: { url: string }, url: string) => {
        const response = await fetch(`${server.url}/storefront/v1${url}`, {
          headers: { 'x-publishable-key': shop.publishableKey },
        });
        assert.equal(response.status, 200);
        return response.text();
      };
      const patch = async (server: { url: string }, url: string, body: object) => {
        const response = await fetch(`${server.url}/admin/v1${url}`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${shop.staffToken}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        assert.equal(response.status, 200, await response.text());
      };
      const [writer, reader] = [servers[0]!, servers[1]!];
      for (let round = 0; round < 5; round++) {
        // Warm both processes' caches: read until a read is a hit (the store's versions were re-read).
        for (const server of servers)
          for (const url of [`/products/${lamp.id}`, '/products?limit=5'])
            await waitFor(
              async () => {
                const before = await servedHits(server);
                await get(server, url);
                return (await servedHits(server)) > before;
              },
              20_000,
              `${url} cached (round ${round})`,
            );

        const title = `Lamp ${round}`;
        await patch(writer, `/products/${lamp.id}`, { title });
        assert.match(await get(writer, `/products/${lamp.id}`), new RegExp(title), 'the writer at once');
        const committed = Date.now();
        while (!(await get(reader, `/products/${lamp.id}`)).includes(title)) await sleep(5);
        const lag = Date.now() - committed;
        assert.ok(lag < 1000, `round ${round}: the other process served the old body for ${lag} ms`);
        assert.match(await get(reader, '/products?limit=5'), new RegExp(title));

        await patch(reader, `/variants/${lamp.variants[0]!.id}`, { onHand: 20 + round });
        const stockAt = Date.now();
        while (!(await get(writer, `/products/${lamp.id}`)).includes(`"available":${20 + round}`))
          await sleep(5);
        assert.ok(Date.now() - stockAt < 1000, `round ${round}: stock reached the other process late`);
      }
    } finally {
      for (const server of servers) server.child.kill('SIGTERM');
      await Promise.all(
        servers.map((server) => new Promise((resolve) => server.child.once('exit', resolve))),
      );
    }
  },
);
