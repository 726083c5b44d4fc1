/**
 * The real service for the client's tests: the repository's test harness (a real app on PGlite, or
 * on a PostgreSQL clone when DATABASE_URL is set) listening on a loopback port, and a fresh store
 * with a publishable key and an owner's staff token. The clients under test are imported from
 * `@storefront/client`, i.e. the built package (dist), as its users import it.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';
import {
  createAdminClient,
  createStorefrontClient,
  type AdminClient,
  type AdminProduct,
  type Cart,
  type FetchLike,
  type Order,
  type StorefrontClient,
} from '@storefront/client';
import sharp from 'sharp';
import {
  createTestStore,
  startTestApp,
  type TestApp,
  type TestAppOptions,
  type TestStore,
} from '../../../src/test/harness.ts';
import { seedDemo, type DemoCredentials } from '../../../src/seed/demo.ts';

export interface LiveApp {
  t: TestApp;
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  close(): Promise<void>;
}

/** Starts the app with its worker loops (relay, expiry, mail) and listens on a free loopback port. */
export async function startLiveApp(options: TestAppOptions = {}): Promise<LiveApp> {
  const t = await startTestApp({ workers: true, ...options });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as AddressInfo;
  return { t, baseUrl: `http://127.0.0.1:${port}`, close: () => t.close() };
}

/**
 * What `start` makes (a plain object with `close`), made before the test file's first test and
 * closed after its last: `const live = startedForFile(startLiveApp)` at the top of the file. It is
 * filled in by the `before` hook, so read it in tests and hooks only.
 */
export function startedForFile<T extends { close(): Promise<void> }>(start: () => Promise<T>): T {
  const started = {} as T;
  before(async () => {
    Object.assign(started, await start());
  });
  after(() => started.close());
  return started;
}

/** The live app with the demo store seeded in it (as `storefront serve` makes it), and its credentials. */
export async function startDemoApp(
  options: TestAppOptions = {},
): Promise<{ live: LiveApp; demo: DemoCredentials }> {
  const live = await startLiveApp(options);
  const demo = await seedDemo({
    db: live.t.deps.db,
    clock: live.t.clock,
    sessions: live.t.deps.sessions,
    keyring: live.t.runtime.keyring,
    media: live.t.runtime.media,
  });
  assert.ok(demo, 'the demo store is seeded');
  return { live, demo };
}

export interface Shop {
  shop: TestStore;
  storefront: StorefrontClient;
  admin: AdminClient;
}

/** A new store of the live app, with a storefront client and an admin client for it. */
export async function openShop(
  live: LiveApp,
  options: { fetch?: FetchLike; adminFetch?: FetchLike } = {},
): Promise<Shop> {
  const shop = await createTestStore(live.t);
  return {
    shop,
    storefront: createStorefrontClient({
      baseUrl: live.baseUrl,
      publishableKey: shop.publishableKey,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      retry: { baseDelayMs: 10 },
    }),
    admin: createAdminClient({
      baseUrl: live.baseUrl,
      token: shop.staffToken,
      ...(options.adminFetch ? { fetch: options.adminFetch } : {}),
    }),
  };
}

/** An active product with one variant, made through the admin client. */
export function createProduct(
  admin: AdminClient,
  input: { title?: string; priceAmount?: number; onHand?: number } = {},
): Promise<AdminProduct> {
  return admin.products.create({
    title: input.title ?? 'Thing',
    status: 'active',
    variants: [{ label: 'One', priceAmount: input.priceAmount ?? 1000, onHand: input.onHand ?? 10 }],
  });
}

export interface RecordedCall {
  url: string;
  method: string;
  headers: Headers;
  body: string | undefined;
  /** What the client passed to fetch (its `signal` included). */
  init: RequestInit;
}

export type ScriptStep = (call: RecordedCall, real: () => Promise<Response>) => Promise<Response>;

/**
 * A fetch that records every request and lets a test decide, per call, what happens: pass it on
 * (`real`), answer with a made-up Response, or throw. `script[i]` handles call i (set it before that
 * call is made); calls without a step go to the real fetch.
 */
export function scriptedFetch(
  script: ScriptStep[] = [],
): FetchLike & { calls: RecordedCall[]; script: ScriptStep[] } {
  const calls: RecordedCall[] = [];
  const fetchLike = async (url: string, init: RequestInit): Promise<Response> => {
    const call: RecordedCall = {
      url,
      method: init.method ?? 'GET',
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? init.body : undefined,
      init,
    };
    const index = calls.length;
    calls.push(call);
    const real = () => fetch(url, init);
    const step = script[index];
    return step ? step(call, real) : real();
  };
  return Object.assign(fetchLike, { calls, script });
}

/** A problem+json response, as the service would send it. */
export function problemResponse(
  status: number,
  title: string,
  headers: Record<string, string> = {},
  extra: Record<string, unknown> = {},
): Response {
  return new Response(
    JSON.stringify({ type: 'about:blank', title, status, detail: `${title} (made up)`, ...extra }),
    {
      status,
      headers: { 'content-type': 'application/problem+json', 'x-request-id': `req-${title}`, ...headers },
    },
  );
}

/** The error a promise rejects with; fails the test when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('expected the call to fail');
}

/** What the tests set up in the demo store before a walkthrough, through the public APIs. */
export interface DemoShop {
  /** Uploads a small real JPEG (`POST /admin/v1/media`); its media id. */
  uploadImage(): Promise<string>;
  /** A cart with one unit of an available variant, and its ETag. */
  cart(): Promise<{ cart: Cart; etag: string }>;
  /** A paid order of `quantity` units of one variant (checkout, the sandbox's confirmation). */
  paidOrder(quantity: number): Promise<Order>;
}

/** A small real JPEG, a different picture each call (media are kept by content hash). */
export function jpeg(): Promise<Buffer> {
  const [r, g, b] = [0, 0, 0].map(() => Math.floor(Math.random() * 256));
  return sharp({ create: { width: 40, height: 30, channels: 3, background: { r: r!, g: g!, b: b! } } })
    .jpeg()
    .toBuffer();
}

export function demoShop(live: LiveApp, demo: DemoCredentials): DemoShop {
  const storefront = createStorefrontClient({ baseUrl: live.baseUrl, publishableKey: demo.publishableKey });
  const variantWith = async (quantity: number) => {
    for await (const card of storefront.products.listAll()) {
      const product = await storefront.products.get(card.id);
      const variant = product.variants.find((candidate) => candidate.available >= quantity);
      if (variant) return variant;
    }
    throw new Error(`no variant of the demo store has ${quantity} units`);
  };
  const address = {
    name: 'Ada Lovelace',
    line1: '1 Main St',
    city: 'Boston',
    region: 'MA',
    postalCode: '02108',
    country: 'US',
  };
  return {
    async uploadImage() {
      const form = new FormData();
      form.append('file', new Blob([await jpeg()], { type: 'image/jpeg' }), 'picture.jpg');
      const response = await fetch(`${live.baseUrl}/admin/v1/media`, {
        method: 'POST',
        headers: { authorization: `Bearer ${demo.staffToken}` },
        body: form,
      });
      assert.equal(response.status, 201, await response.clone().text());
      return ((await response.json()) as { id: string }).id;
    },
    async cart() {
      let etag = '';
      const variant = await variantWith(1);
      const cart = await storefront.carts.create(
        { items: [{ variantId: variant.id, quantity: 1 }] },
        { onResponse: (response) => (etag = response.headers.get('etag') ?? '') },
      );
      return { cart, etag };
    },
    async paidOrder(quantity) {
      const variant = await variantWith(quantity);
      const cart = await storefront.carts.create({ items: [{ variantId: variant.id, quantity }] });
      await storefront.carts.setShippingAddress(cart.id, address);
      const [option] = await storefront.carts.shippingOptions(cart.id);
      await storefront.carts.setShippingMethod(cart.id, option!.id);
      const { order, payment } = await storefront.checkout.create({
        cartId: cart.id,
        email: 'buyer@example.com',
      });
      await storefront.sandbox.confirm(payment, 'pm_card_visa');
      return storefront.orders.waitForPaid(order.id, { intervalMs: 50 });
    },
  };
}
