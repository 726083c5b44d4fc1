/**
 * Test helpers for the catalog's tests (not a test file itself): a product with two variants made
 * through the Admin API, a product by title, the store's events, and a walk over a list's pages.
 */
import assert from 'node:assert/strict';
import { listEvents } from '../events/events.ts';
import type { TestApp, TestStore } from '../test/harness.ts';

type ApiCaller = ReturnType<TestApp['admin']>;

export interface AdminProduct {
  id: string;
  title: string;
  status: string;
  priceAmount: number | null;
  currency: string;
  tags: string[];
  variants: {
    id: string;
    sku: string | null;
    onHand: number;
    reserved: number;
    available: number;
    priceAmount: number;
  }[];
}

let counter = 0;

/** An active product with a stocked small variant (1500, was 2000) and a sold-out large one (1200). */
export async function createProduct(
  t: TestApp,
  shop: TestStore,
  overrides: Record<string, unknown> = {},
): Promise<AdminProduct> {
  counter++;
  const response = await t.admin(shop).post('/products', {
    title: `Product ${counter}`,
    description: 'A fine thing.',
    status: 'active',
    image: 'https://cdn.example/p.jpg',
    tags: ['new'],
    variants: [
      { sku: `SKU-${counter}-S`, label: 'Small', priceAmount: 1500, compareAtAmount: 2000, onHand: 5 },
      { sku: null, label: 'Large', priceAmount: 1200, onHand: 0 },
    ],
    ...overrides,
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<AdminProduct>();
}

/** The store's events, oldest first, as type and data. */
export async function catalogEvents(t: TestApp, shop: TestStore) {
  return (await listEvents(t.db.kysely, shop.store.id)).map((e) => ({ type: e.type, data: e.data }));
}

/** Every id of a paginated list (Admin or Storefront API), `limit` at a time, asserting the walk ends. */
export async function walkPages(api: ApiCaller, url: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  const separator = url.includes('?') ? '&' : '?';
  for (let page = 0; page < 100; page++) {
    const response = await api.get(
      `${url}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json<{ items: { id: string }[]; nextCursor: string | null }>();
    assert.ok(body.items.length <= limit);
    ids.push(...body.items.map((item) => item.id));
    cursor = body.nextCursor;
    if (cursor === null) return ids;
  }
  throw new Error('pagination did not end');
}

/** A product as the admin list shows it. */
export interface ListedProduct {
  id: string;
  title: string;
  status: string;
  variants: { sku: string | null }[];
}

/** A product named `title` with a variant per SKU (one without by default), 1 unit each. */
export async function titledProduct(
  t: TestApp,
  shop: TestStore,
  title: string,
  options: { skus?: (string | null)[]; status?: string; tags?: string[]; price?: number } = {},
): Promise<ListedProduct> {
  const response = await t.admin(shop).post('/products', {
    title,
    status: options.status ?? 'active',
    tags: options.tags ?? [],
    variants: (options.skus ?? [null]).map((sku, i) => ({
      sku,
      label: `V${i}`,
      priceAmount: options.price ?? 1000,
      onHand: 1,
    })),
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<ListedProduct>();
}

/** The helpers above, bound to a test file's app (read when called: the app starts in `before`). */
export function catalogHelpers(app: () => TestApp) {
  return {
    product: (shop: TestStore, overrides?: Record<string, unknown>) => createProduct(app(), shop, overrides),
    titled: (shop: TestStore, title: string, options?: Parameters<typeof titledProduct>[3]) =>
      titledProduct(app(), shop, title, options),
    events: (shop: TestStore) => catalogEvents(app(), shop),
    /** Every id of a Storefront API list. */
    walk: (shop: TestStore, url: string, limit: number) => walkPages(app().storefront(shop), url, limit),
    /** Every id of an Admin API list. */
    walkAdmin: (shop: TestStore, url: string, limit: number) => walkPages(app().admin(shop), url, limit),
  };
}
