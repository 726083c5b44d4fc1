/**
 * The storefront and admin clients against the real service: catalog reads and pagination, carts,
 * problem errors, network errors, timeouts and retries of reads.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import {
  createAdminClient,
  createStorefrontClient,
  isNotModified,
  StorefrontError,
  StorefrontNetworkError,
  type ProductCard,
} from '@storefront/client';
import { toWindowStart } from '../../../src/ratelimit/ratelimit.test-support.ts';
import { testConfig } from '../../../src/test/harness.ts';
import {
  createProduct,
  openShop,
  problemResponse,
  rejection,
  scriptedFetch,
  startedForFile,
  startLiveApp,
  type RecordedCall,
} from './server.test-support.ts';

const live = startedForFile(startLiveApp);

describe('catalog', () => {
  test('lists products page by page, and listAll follows nextCursor across pages', async () => {
    const { storefront, admin } = await openShop(live);
    const created = [];
    for (let i = 0; i < 5; i++)
      created.push(await createProduct(admin, { title: `P${i}`, priceAmount: 100 + i }));

    const first = await storefront.products.list({ limit: 2 });
    assert.deepEqual(
      first.items.map((card) => card.title),
      ['P0', 'P1'],
    );
    assert.equal(typeof first.nextCursor, 'string');
    const second = await storefront.products.list({ limit: 2, cursor: first.nextCursor! });
    assert.deepEqual(
      second.items.map((card) => card.title),
      ['P2', 'P3'],
    );

    const tracing = scriptedFetch();
    const traced = createStorefrontClient({
      baseUrl: live.baseUrl,
      publishableKey: (await admin.storefrontKeys.create({ label: 'walk', allowedOrigins: [] })).key,
      fetch: tracing,
    });
    const walked: ProductCard[] = [];
    for await (const card of traced.products.listAll({ limit: 2 })) walked.push(card);
    assert.deepEqual(
      walked.map((card) => card.id),
      created.map((product) => product.id),
      'every product once, in order',
    );
    assert.equal(tracing.calls.length, 3, 'three pages of 2, 2 and 1');
    assert.equal(new URL(tracing.calls[0]!.url).searchParams.get('cursor'), null);
    assert.equal(new URL(tracing.calls[1]!.url).searchParams.get('cursor'), first.nextCursor);
    assert.equal(new URL(tracing.calls[2]!.url).searchParams.get('limit'), '2');

    const product = await storefront.products.get(created[3]!.id);
    assert.equal(product.title, 'P3');
    assert.equal(product.variants[0]!.priceAmount, 103);
    assert.equal(product.variants[0]!.available, 10);
    assert.equal((await storefront.store.get()).currency, 'USD');
  });

  test('collections: get by slug and walk its products; the generic request and list work too', async () => {
    const { storefront, admin } = await openShop(live);
    const a = await createProduct(admin, { title: 'A' });
    const b = await createProduct(admin, { title: 'B' });
    await admin.request('adminCreateCollection', {
      body: { title: 'Picks', slug: 'picks', kind: 'manual', productIds: [b.id, a.id] },
    });
    const collection = await storefront.collections.get('picks');
    assert.equal(collection.title, 'Picks');
    const titles: string[] = [];
    for await (const card of storefront.collections.listAllProducts('picks', { limit: 1 }))
      titles.push(card.title);
    assert.deepEqual(titles, ['B', 'A'], "the merchant's order");
    const slugs: string[] = [];
    for await (const item of storefront.list('listCollections', { query: { limit: 1 } }))
      slugs.push(item.slug);
    assert.deepEqual(slugs, ['picks']);
    const viaRequest = await storefront.request('getProduct', { path: { id: a.id } });
    assert.equal(viaRequest.id, a.id);
  });

  test('admin lists are async iterators too', async () => {
    const { admin } = await openShop(live);
    const draft = await admin.products.create({ title: 'Draft', status: 'draft', variants: [] });
    const active = [await createProduct(admin), await createProduct(admin), await createProduct(admin)];
    const ids: string[] = [];
    for await (const product of admin.products.listAll({ status: 'active', limit: 2 })) ids.push(product.id);
    assert.deepEqual(ids.sort(), active.map((product) => product.id).sort());
    const all: string[] = [];
    for await (const product of admin.list('adminListProducts', { query: { limit: 1 } }))
      all.push(product.id);
    assert.equal(all.length, 4);
    assert.ok(all.includes(draft.id));
  });
});

describe('carts', () => {
  test('create, get and replace a cart; If-Match guards the replace', async () => {
    const { storefront, admin } = await openShop(live);
    const p = await createProduct(admin, { priceAmount: 1500 });
    const q = await createProduct(admin, { priceAmount: 250 });
    const variant = p.variants[0]!.id;
    const seen: { etag: string | null } = { etag: null };
    const cart = await storefront.carts.create(
      { items: [{ variantId: variant, quantity: 2 }] },
      { onResponse: (response) => (seen.etag = response.headers.get('etag')) },
    );
    const etag = seen.etag;
    assert.equal(cart.subtotal.amount, 3000);
    assert.equal(cart.items[0]!.title, 'Thing');
    assert.ok(etag, 'the ETag is readable through onResponse');
    assert.deepEqual(await storefront.carts.get(cart.id), cart);

    const replaced = await storefront.carts.replace(
      cart.id,
      { items: [{ variantId: q.variants[0]!.id, quantity: 3 }] },
      { ifMatch: etag },
    );
    assert.equal(replaced.subtotal.amount, 750);
    const stale = await rejection(storefront.carts.replace(cart.id, { items: [] }, { ifMatch: etag }));
    assert.ok(stale instanceof StorefrontError);
    assert.equal(stale.status, 412);
    assert.equal(stale.title, 'precondition_failed');
  });
});

describe('cart shipping (decision `cart-shipping-and-totals`)', () => {
  test('address, options, method and discount code through typed helpers; totals follow', async () => {
    const { storefront, admin } = await openShop(live);
    const product = await createProduct(admin, { priceAmount: 2000 });
    const zone = await admin.request('adminCreateShippingZone', {
      body: { name: 'Germany', areas: [{ country: 'DE' }] },
    });
    const method = await admin.request('adminCreateShippingMethod', {
      path: { id: zone.id },
      body: { name: 'DHL', kind: 'flat', amount: 490, minDeliveryDays: 1, maxDeliveryDays: 3 },
    });
    await admin.request('adminCreateDiscount', { body: { code: 'TEN', kind: 'percent', value: 10 } });
    const cart = await storefront.carts.create({
      items: [{ variantId: product.variants[0]!.id, quantity: 1 }],
    });

    const bad = await rejection(
      storefront.carts.setShippingAddress(cart.id, {
        name: 'Ada',
        line1: 'Unter den Linden 1',
        city: 'Berlin',
        postalCode: '1',
        country: 'DE',
      }),
    );
    assert.ok(bad instanceof StorefrontError);
    assert.equal(bad.status, 400);
    assert.deepEqual(
      bad.problem.errors?.map((error) => error.pointer),
      ['/postalCode'],
    );

    const addressed = await storefront.carts.setShippingAddress(cart.id, {
      name: 'Ada',
      line1: 'Unter den Linden 1',
      city: 'Berlin',
      postalCode: '10117',
      country: 'de',
    });
    assert.equal(addressed.shippingAddress?.country, 'DE');
    const options = await storefront.carts.shippingOptions(cart.id);
    assert.deepEqual(
      options.map((option) => [option.id, option.name, option.amount.amount]),
      [[method.id, 'DHL', 490]],
    );
    const shipped = await storefront.carts.setShippingMethod(cart.id, method.id);
    assert.equal(shipped.totals.shipping.amount, 490);
    const discounted = await storefront.carts.setDiscountCode(cart.id, 'ten');
    assert.deepEqual(
      [discounted.discountCode, discounted.totals.discount.amount, discounted.totals.total.amount],
      ['TEN', 200, 2290],
    );
    const removed = await storefront.carts.removeDiscountCode(cart.id);
    assert.equal(removed.totals.total.amount, 2490);
    const stale = await rejection(storefront.carts.setDiscountCode(cart.id, 'TEN', { ifMatch: '"1-x"' }));
    assert.ok(stale instanceof StorefrontError);
    assert.equal(stale.status, 412);
  });
});

describe('gift cards on the cart (decision `gift-card-tender`)', () => {
  test('addGiftCard pays part of the cart, amountDue is the rest; removeGiftCard takes it off; an unknown code is 409', async () => {
    const { storefront, admin } = await openShop(live);
    const product = await createProduct(admin, { priceAmount: 2000 });
    const card = await admin.request('adminIssueGiftCard', { body: { initialAmount: 500, currency: 'USD' } });
    const cart = await storefront.carts.create({
      items: [{ variantId: product.variants[0]!.id, quantity: 1 }],
    });
    const paid = await storefront.carts.addGiftCard(cart.id, card.code);
    assert.deepEqual(
      [paid.giftCards.map((entry) => [entry.last4, entry.amount.amount]), paid.totals.amountDue.amount],
      [[[card.last4, 500]], paid.totals.total.amount - 500],
    );
    const removed = await storefront.carts.removeGiftCard(cart.id, card.last4);
    assert.deepEqual([removed.giftCards, removed.totals.amountDue.amount], [[], removed.totals.total.amount]);
    const unknown = await rejection(storefront.carts.addGiftCard(cart.id, 'AAAA-BBBB-CCCC-DDDD'));
    assert.ok(unknown instanceof StorefrontError);
    assert.deepEqual([unknown.status, unknown.problem.title], [409, 'gift_card_invalid']);
  });
});

describe('conditional reads', () => {
  test('with ifNoneMatch, a current ETag resolves to NotModified (a 304), a changed resource to its body', async () => {
    const { storefront, admin, shop } = await openShop(live);
    const product = await createProduct(admin, { title: 'Lamp' });
    const tracing = scriptedFetch();
    const client = createStorefrontClient({
      baseUrl: live.baseUrl,
      publishableKey: shop.publishableKey,
      fetch: tracing,
    });
    let etag = '';
    const first = await client.products.get(product.id, {
      onResponse: (response) => (etag = response.headers.get('etag') ?? ''),
    });
    assert.equal(first.title, 'Lamp');
    assert.match(etag, /^"/);

    const statuses: number[] = [];
    const again = await client.products.get(product.id, {
      ifNoneMatch: etag,
      onResponse: (response) => statuses.push(response.status),
    });
    assert.deepEqual(statuses, [304], 'one answer, not retried');
    assert.equal(tracing.calls[1]!.headers.get('if-none-match'), etag);
    assert.ok(isNotModified(again));
    assert.deepEqual(again, { notModified: true, etag });

    // Lists and the generic request too.
    let listEtag = '';
    await client.products.list({ limit: 5 }, { onResponse: (r) => (listEtag = r.headers.get('etag') ?? '') });
    assert.deepEqual(await client.products.list({ limit: 5 }, { ifNoneMatch: listEtag }), {
      notModified: true,
      etag: listEtag,
    });
    const requested = await client.request('getProduct', {
      path: { id: product.id },
      header: { 'If-None-Match': etag },
    });
    assert.ok(isNotModified(requested));
    // No ETag held yet: ifNoneMatch undefined sends no If-None-Match and answers the body.
    const unconditional = await client.products.get(product.id, { ifNoneMatch: undefined });
    assert.ok(!isNotModified(unconditional) && unconditional.title === 'Lamp');
    assert.equal(tracing.calls.at(-1)!.headers.get('if-none-match'), null);

    await admin.products.update(product.id, { title: 'Desk lamp' });
    const changed = await client.products.get(product.id, { ifNoneMatch: etag });
    assert.ok(!isNotModified(changed), 'a changed product comes with its body');
    assert.equal(changed.title, 'Desk lamp');
    assert.equal(isNotModified(await storefront.products.get(product.id)), false);
  });

  test('a 304 to a conditional header sent in free-form headers is a StorefrontError that says what to do', async () => {
    const { storefront, admin } = await openShop(live);
    const product = await createProduct(admin);
    let etag = '';
    await storefront.products.get(product.id, { onResponse: (r) => (etag = r.headers.get('etag') ?? '') });
    const error = await rejection(
      storefront.products.get(product.id, { headers: { 'If-None-Match': etag } }),
    );
    assert.ok(error instanceof StorefrontError);
    assert.equal(error.status, 304);
    assert.equal(error.title, 'not_modified');
    assert.match(error.detail, /ifNoneMatch/);
    assert.equal(error.attempts, 1);
  });
});

describe('errors', () => {
  test('a 400 validation_failed carries its fields: title, detail, errors[], requestId', async () => {
    const { storefront } = await openShop(live);
    const error = await rejection(
      storefront.carts.create(
        { items: [{ variantId: 'not-a-uuid', quantity: 0 }] },
        { headers: { 'x-request-id': 'client-test-1' } },
      ),
    );
    assert.ok(error instanceof StorefrontError, String(error));
    assert.equal(error.name, 'StorefrontError');
    assert.equal(error.isNetworkError, false);
    assert.equal(error.status, 400);
    assert.equal(error.title, 'validation_failed');
    assert.equal(error.type, 'about:blank');
    assert.match(error.detail, /variantId/);
    assert.equal(error.requestId, 'client-test-1');
    assert.equal(error.retryAfter, null);
    assert.equal(error.method, 'POST');
    assert.match(error.url, /\/storefront\/v1\/carts$/);
    assert.deepEqual(error.errors.map((entry) => [entry.pointer, entry.in]).sort(), [
      ['/items/0/quantity', 'body'],
      ['/items/0/variantId', 'body'],
    ]);
    assert.equal(error.problem.status, 400);
    assert.equal(error.attempts, 1);
  });

  test('404 not_found, 401 unauthorized; neither is retried', async () => {
    const { shop } = await openShop(live);
    const tracing = scriptedFetch();
    const client = createStorefrontClient({
      baseUrl: live.baseUrl,
      publishableKey: shop.publishableKey,
      fetch: tracing,
    });
    const missing = await rejection(client.products.get(randomUUID()));
    assert.ok(missing instanceof StorefrontError);
    assert.equal(missing.status, 404);
    assert.equal(missing.title, 'not_found');
    assert.equal(tracing.calls.length, 1);
    assert.ok(missing.requestId, 'every response has a request id');

    const anonymous = createStorefrontClient({ baseUrl: live.baseUrl, publishableKey: 'pk_unknown' });
    const refused = await rejection(anonymous.store.get());
    assert.ok(refused instanceof StorefrontError);
    assert.equal(refused.status, 401);
    assert.equal(refused.title, 'unauthorized');
  });

  test('a real 429 rate_limited carries retryAfter; a Retry-After beyond the bound is not waited for', async () => {
    const limited = await startLiveApp({
      config: { rateLimits: { ...testConfig().rateLimits, publicRead: 2 } },
      workers: false,
    });
    try {
      const { shop } = await openShop(limited);
      const tracing = scriptedFetch();
      const client = createStorefrontClient({
        baseUrl: limited.baseUrl,
        publishableKey: shop.publishableKey,
        fetch: tracing,
        // Below the smallest Retry-After (whole seconds, at least 1): never waited for. (With 1000, a
        // third call near the end of the window got `Retry-After: 1`, waited, and succeeded.)
        retry: { maxRetryAfterMs: 500 },
      });
      // The three calls fall in one window.
      toWindowStart(limited.t);
      await client.store.get();
      await client.store.get();
      const error = await rejection(client.store.get());
      assert.ok(error instanceof StorefrontError);
      assert.equal(error.status, 429);
      assert.equal(error.title, 'rate_limited');
      assert.ok(
        error.retryAfter !== null && error.retryAfter >= 1 && error.retryAfter <= 60,
        String(error.retryAfter),
      );
      assert.equal(tracing.calls.length, 3, 'a wait longer than maxRetryAfterMs is not attempted');
    } finally {
      await limited.close();
    }
  });

  test('reads retry transient answers (503 with Retry-After) and then succeed', async () => {
    const { shop } = await openShop(live);
    const tracing = scriptedFetch([
      async () => problemResponse(503, 'service_unavailable', { 'retry-after': '1' }),
    ]);
    const client = createStorefrontClient({
      baseUrl: live.baseUrl,
      publishableKey: shop.publishableKey,
      fetch: tracing,
    });
    const started = Date.now();
    const store = await client.store.get();
    assert.equal(store.slug, shop.store.slug);
    assert.equal(tracing.calls.length, 2);
    assert.ok(Date.now() - started >= 950, 'waited for Retry-After: 1');
  });

  test('an answer whose body breaks off is a network error: retried for reads, thrown for writes', async () => {
    const { shop } = await openShop(live);
    const broken = async () =>
      new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('{"name":'));
            controller.error(new TypeError('terminated'));
          },
        }),
        { status: 200, headers: { 'content-type': 'application/json' } },
      );
    const tracing = scriptedFetch([broken, async (_call, real) => real(), broken]);
    const client = createStorefrontClient({
      baseUrl: live.baseUrl,
      publishableKey: shop.publishableKey,
      fetch: tracing,
    });
    assert.equal((await client.store.get()).slug, shop.store.slug);
    assert.equal(tracing.calls.length, 2);
    const error = await rejection(client.carts.create({ items: [] }));
    assert.ok(error instanceof StorefrontNetworkError, String(error));
    assert.equal((error.cause as Error).message, 'terminated');
    assert.equal(tracing.calls.length, 3);
  });

  test('a refused connection is a StorefrontNetworkError, retried up to maxAttempts for reads', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const tracing = scriptedFetch();
    const client = createStorefrontClient({
      baseUrl: `http://127.0.0.1:${port}`,
      publishableKey: 'pk_x',
      fetch: tracing,
      retry: { maxAttempts: 3, baseDelayMs: 5 },
    });
    const error = await rejection(client.products.list());
    assert.ok(error instanceof StorefrontNetworkError, String(error));
    assert.equal(error.isNetworkError, true);
    assert.equal(error.timedOut, false);
    assert.equal(error.attempts, 3);
    assert.equal(tracing.calls.length, 3);
    assert.ok(error.cause instanceof Error);

    const write = await rejection(client.carts.create({ items: [] }));
    assert.ok(write instanceof StorefrontNetworkError);
    assert.equal(tracing.calls.length, 4, 'a write that is not idempotent is sent once');
  });

  test('timeoutMs turns a hanging attempt into a timed-out network error; an abort is passed through', async () => {
    const hanging = (_url: string, init: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        init.signal?.addEventListener('abort', () => reject(init.signal!.reason as Error));
      });
    const hang = (call: RecordedCall) => hanging(call.url, call.init);
    const tracing = scriptedFetch([hang, hang]);
    const client = createStorefrontClient({
      baseUrl: live.baseUrl,
      publishableKey: 'pk_x',
      fetch: tracing,
      timeoutMs: 50,
      retry: { maxAttempts: 2, baseDelayMs: 5 },
    });
    const error = await rejection(client.store.get());
    assert.ok(error instanceof StorefrontNetworkError, String(error));
    assert.equal(error.timedOut, true);
    assert.equal(tracing.calls.length, 2);

    const controller = new AbortController();
    const aborting = createStorefrontClient({
      baseUrl: live.baseUrl,
      publishableKey: 'pk_x',
      fetch: hanging,
    });
    const pending = aborting.store.get({ signal: controller.signal });
    controller.abort(new Error('stop'));
    const aborted = await rejection(pending);
    assert.ok(!(aborted instanceof StorefrontNetworkError));
    assert.equal((aborted as Error).message, 'stop');
  });

  test('the clients refuse bad options and missing path parameters before any request', async () => {
    assert.throws(() => createStorefrontClient({ baseUrl: 'example.com', publishableKey: 'pk' }), TypeError);
    assert.throws(() => createStorefrontClient({ baseUrl: live.baseUrl, publishableKey: '' }), TypeError);
    assert.throws(() => createAdminClient({ baseUrl: live.baseUrl, token: '' }), TypeError);
    const tracing = scriptedFetch();
    const client = createStorefrontClient({
      baseUrl: `${live.baseUrl}/`,
      publishableKey: 'pk_x',
      fetch: tracing,
    });
    await assert.rejects(client.products.get(''), TypeError);
    assert.equal(tracing.calls.length, 0);
    await rejection(client.store.get());
    assert.equal(
      tracing.calls[0]!.url,
      `${live.baseUrl}/storefront/v1/store`,
      'a trailing slash of baseUrl is dropped',
    );
    assert.equal(tracing.calls[0]!.headers.get('x-publishable-key'), 'pk_x');
  });
});
