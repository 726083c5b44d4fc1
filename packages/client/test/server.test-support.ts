/**
 * The real service for the client's tests: the repository's test harness (a real app on PGlite, or
 * on a PostgreSQL clone when DATABASE_URL is set) listening on a loopback port, and a fresh store
 * with a publishable key and an owner's staff token. The clients under test are imported from
 * `@storefront/client`, i.e. the built package (dist), as its users import it.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import {
  createAdminClient,
  createStorefrontClient,
  type AdminClient,
  type AdminProduct,
  type FetchLike,
  type StorefrontClient,
} from '@storefront/client';
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
