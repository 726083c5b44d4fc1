/**
 * Browser tests of the reference shop: the console's harness (Debian's Chromium through
 * playwright-core, the real service on a loopback port with its worker loops, a page that fails
 * on any page error, CSP violation or request leaving the machine), with the shop's publishable key
 * set per store: each test makes its own store and the shop at /shop serves with its key.
 */
import assert from 'node:assert/strict';
import {
  createAdminClient,
  createStorefrontClient,
  type AdminClient,
  type StorefrontClient,
} from '@storefront/client';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { startLiveApp } from '../../client/test/server.test-support.ts';
import { launchBrowser, type ConsoleHarness } from '../../console/test/browser.test-support.ts';
import { createTestStore, type TestStore } from '../../../src/test/harness.ts';

export interface ShopHarness extends ConsoleHarness {
  /** Which store /shop sells from (its publishable key), until the next `openStore`. */
  useKey(key: string | null): void;
}

export async function startShop(): Promise<ShopHarness> {
  let key: string | null = null;
  const live = await startLiveApp({ shopKey: () => key });
  const browser = await launchBrowser();
  return {
    live,
    browser,
    useKey(next) {
      key = next;
    },
    async close() {
      await browser.close();
      await live.close();
    },
  };
}

export interface ShopStore {
  store: TestStore;
  admin: AdminClient;
  storefront: StorefrontClient;
}

/** A new store whose key allows the shop's own origin, now the one /shop sells from. */
export async function openStore(h: ShopHarness): Promise<ShopStore> {
  const store = await createTestStore(h.live.t, { allowedOrigins: [h.live.baseUrl] });
  h.useKey(store.publishableKey);
  return {
    store,
    admin: createAdminClient({ baseUrl: h.live.baseUrl, token: store.staffToken }),
    storefront: createStorefrontClient({ baseUrl: h.live.baseUrl, publishableKey: store.publishableKey }),
  };
}

export interface Catalog {
  /** `handle`: the product's handle, made from its title (`blue-mug`); the shop's URLs use it (decision `product-handles`). */
  mug: { id: string; handle: string; small: string; large: string };
  tee: { id: string; handle: string; variant: string };
}

/**
 * A small catalog: a mug in two sizes (the small one reduced from $15.00, the large one with two
 * left), a tee, twelve socks (so a collection of fourteen needs "Load more"), a `shop-all`
 * collection, `main` and `footer` menus, an `about` page and a published `home-hero` region.
 */
export async function seedCatalog({ admin }: ShopStore): Promise<Catalog> {
  const mug = await admin.products.create({
    title: 'Blue mug',
    description: 'Stoneware, glazed by hand.\n\nDishwasher safe.',
    status: 'active',
    tags: ['kitchen'],
    variants: [
      { label: 'Small', sku: 'MUG-S', priceAmount: 1200, compareAtAmount: 1500, onHand: 10 },
      { label: 'Large', sku: 'MUG-L', priceAmount: 1600, onHand: 2 },
    ],
  });
  const tee = await admin.products.create({
    title: 'Linen tee',
    status: 'active',
    tags: ['clothing'],
    variants: [{ label: 'One size', priceAmount: 3000, onHand: 20 }],
  });
  const socks = [];
  for (let i = 1; i <= 12; i++) {
    socks.push(
      await admin.products.create({
        title: `Wool socks no. ${String(i).padStart(2, '0')}`,
        status: 'active',
        variants: [{ label: 'One size', priceAmount: 900 + i, onHand: 5 }],
      }),
    );
  }
  await admin.request('adminCreateCollection', {
    body: {
      title: 'Shop all',
      slug: 'shop-all',
      kind: 'manual',
      productIds: [mug.id, tee.id, ...socks.map((sock) => sock.id)],
    },
  });
  await admin.request('adminPutMenu', {
    path: { handle: 'main' },
    body: {
      items: [
        { label: 'Shop all', url: '/collections/shop-all' },
        { label: 'About us', url: '/pages/about' },
      ],
    },
  });
  await admin.request('adminPutMenu', {
    path: { handle: 'footer' },
    body: { items: [{ label: 'About', url: '/pages/about' }] },
  });
  await admin.request('adminPutPage', {
    path: { slug: 'about' },
    body: { title: 'About us', body: 'We make mugs.\n\nAnd socks, <b>lots</b> of socks.' },
  });
  await admin.request('adminSaveRegionDraft', {
    path: { key: 'home-hero' },
    body: {
      blocks: [
        { id: 'title', type: 'heading', settings: { text: 'Made by hand', level: 1 } },
        { id: 'intro', type: 'text', settings: { text: 'Small batches, <i>no</i> shortcuts.' } },
        {
          id: 'cols',
          type: 'columns',
          settings: { columns: 2 },
          children: [
            { id: 'cta', type: 'button', settings: { text: 'Shop all', href: '/collections/shop-all' } },
          ],
        },
      ],
    },
  });
  await admin.request('adminPublishRegion', { path: { key: 'home-hero' } });
  const [small, large] = mug.variants;
  return {
    mug: { id: mug.id, handle: mug.handle, small: small!.id, large: large!.id },
    tee: { id: tee.id, handle: tee.handle, variant: tee.variants[0]!.id },
  };
}

/** Adds `quantity` of the product to the cart from its page and opens the checkout. */
export async function toCheckout(page: Page, handle: string, quantity = 1): Promise<void> {
  await page.goto(`/shop/products/${handle}`);
  await page.getByLabel('Quantity').selectOption(String(quantity));
  await page.getByRole('button', { name: 'Add to cart' }).click();
  await page.getByRole('link', { name: 'View cart' }).click();
  await page.getByRole('link', { name: 'Check out' }).click();
  await page.getByRole('heading', { name: 'Checkout', level: 1 }).waitFor();
}

/** A zone and its methods, made through the Admin API; returns the methods' ids by name. */
export async function seedZone(
  { admin }: ShopStore,
  zone: { name: string; areas: { country: string; regions?: string[] }[] },
  methods: Record<string, unknown>[],
): Promise<Record<string, string>> {
  const created = await admin.request('adminCreateShippingZone', { body: zone });
  const ids: Record<string, string> = {};
  for (const method of methods) {
    const made = await admin.request('adminCreateShippingMethod', {
      path: { id: created.id },
      // Each kind has its own fields; the service checks them.
      body: method as never,
    });
    ids[made.name] = made.id;
  }
  return ids;
}

/**
 * Waits (up to 2 s) until `expression` is `expected`: the focus moves after the frame is drawn. Read
 * with `page.evaluate` every 50 ms: `waitForFunction`'s frame-driven polling was seen (in CI and then
 * on every local run for a while) never to see a focus that one `evaluate` right after found in place.
 */
export async function focusOn(page: Page, expression: string, expected: string, what: string): Promise<void> {
  const deadline = Date.now() + 2000;
  let seen = await page.evaluate<string>(`String(${expression})`);
  while (seen !== expected && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    seen = await page.evaluate<string>(`String(${expression})`);
  }
  assert.equal(seen, expected, `${what}: the focus is on ${seen}`);
}

/** First contentful paint of the page's load, in milliseconds. */
export async function firstContentfulPaint(page: Page): Promise<number> {
  return page.evaluate<number>(
    `new Promise((resolve) => {
      const found = () => performance.getEntriesByName('first-contentful-paint')[0];
      if (found()) return resolve(found().startTime);
      new PerformanceObserver((list, observer) => {
        const entry = list.getEntriesByName('first-contentful-paint')[0];
        if (entry) { observer.disconnect(); resolve(entry.startTime); }
      }).observe({ type: 'paint', buffered: true });
    })`,
  );
}

/** An uploaded image, as `POST /admin/v1/media` answers it (decision `media-uploads`). */
export interface UploadedMedia {
  id: string;
  url: string;
  width: number;
  height: number;
}

/**
 * A PNG drawn by sharp, `width` × `height`: a diagonal gradient in `hue` with a mug's silhouette
 * (its body and handle) in the middle, so that a screenshot shows a picture of something.
 */
export function drawPicture(width: number, height: number, hue: number): Promise<Buffer> {
  const unit = Math.min(width, height) / 10;
  const [x, y] = [width / 2 - 2.5 * unit, height / 2 - 3 * unit];
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="hsl(${hue} 60% 82%)"/><stop offset="1" stop-color="hsl(${(hue + 40) % 360} 55% 62%)"/>
    </linearGradient></defs>
    <rect width="${width}" height="${height}" fill="url(#g)"/>
    <path d="M${x + 4.5 * unit} ${y + 1.5 * unit} h${unit} a${1.5 * unit} ${1.5 * unit} 0 0 1 0 ${3 * unit} h-${unit}"
      fill="none" stroke="hsl(${hue} 45% 30%)" stroke-width="${0.6 * unit}"/>
    <rect x="${x}" y="${y}" width="${5 * unit}" height="${6 * unit}" rx="${0.6 * unit}" fill="hsl(${hue} 45% 30%)"/>
  </svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** Uploads `bytes` as a media of the store through the Admin API (`POST /admin/v1/media`, multipart). */
export async function uploadMedia(
  h: ShopHarness,
  { store }: ShopStore,
  bytes: Buffer,
): Promise<UploadedMedia> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'picture.png');
  const response = await fetch(`${h.live.baseUrl}/admin/v1/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${store.staffToken}` },
    body: form,
  });
  const body = await response.text();
  if (response.status !== 201) throw new Error(`upload: ${response.status} ${body}`);
  return JSON.parse(body) as UploadedMedia;
}
