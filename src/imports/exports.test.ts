/**
 * CSV exports (decision `csv-exports`) and their round trips (decision `csv-imports`): a catalog made
 * through the Admin API with every field a product has (options with unused values, images with alt
 * text and variant images, prices in a market's currency, tax classes, compare-at prices, weights,
 * gift cards, statuses, SEO) exports as Shopify's product CSV, and importing that file into another
 * store gives the same catalog, field for field; importing it into the same store changes nothing.
 * Customers the same; orders one row per line with their figures.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import sharp from 'sharp';
import type { AdminProduct } from '../catalog/catalog.schemas.ts';
import { createTestStore, type TestStore } from '../test/harness.ts';
import { imported, startImportTestApp, type ImportTestApp } from './imports.test-support.ts';

let h: ImportTestApp;
before(async () => (h = await startImportTestApp()));
after(() => h.close());

async function call(
  shop: TestStore,
  method: string,
  path: string,
  body?: unknown,
  status = 200,
): Promise<unknown> {
  const response = await fetch(`${h.base}/admin/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${shop.staffToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  assert.equal(response.status, status, `${method} ${path}: ${text}`);
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

async function exported(shop: TestStore, kind: string): Promise<string> {
  const response = await fetch(`${h.base}/admin/v1/exports?kind=${kind}`, {
    headers: { authorization: `Bearer ${shop.staffToken}` },
  });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  assert.match(response.headers.get('content-type') ?? '', /^text\/csv/);
  assert.match(
    response.headers.get('content-disposition') ?? '',
    new RegExp(`attachment; filename="${kind}-\\d{4}-\\d\\d-\\d\\d\\.csv"`),
  );
  return text;
}

async function uploadImage(shop: TestStore, shade: number): Promise<string> {
  const png = await sharp({
    create: { width: 30 + shade, height: 20, channels: 3, background: { r: shade, g: 9, b: 99 } },
  })
    .png()
    .toBuffer();
  const form = new FormData();
  form.append('file', new Blob([png], { type: 'image/png' }), 'p.png');
  const response = await fetch(`${h.base}/admin/v1/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${shop.staffToken}` },
    body: form,
  });
  assert.equal(response.status, 201);
  return ((await response.json()) as { id: string }).id;
}

/** A store set up alike: a market in EUR and the tax classes the catalog uses. */
async function storeLikeTheOther(): Promise<TestStore> {
  const shop = await createTestStore(h.t);
  await call(
    shop,
    'POST',
    '/markets',
    { name: 'Europe', countries: ['DE'], currency: 'EUR', exchangeRate: '0.9' },
    201,
  );
  await call(shop, 'POST', '/tax-classes', { code: 'reduced', name: 'Reduced' }, 201);
  await call(shop, 'POST', '/tax-classes', { code: 'exempt', name: 'Exempt' }, 201);
  return shop;
}

/** Everything a product is, without what is the database's (ids, times, media ids, stock held). */
function comparable(product: AdminProduct) {
  const imageIndex = new Map(product.images.map((image, i) => [image.id, i]));
  return {
    title: product.title,
    handle: product.handle,
    description: product.description,
    status: product.status,
    tags: product.tags,
    seo: product.seo,
    options: product.options,
    taxClass: product.taxClass,
    giftCard: product.giftCard,
    images: product.images.map((image) => [image.alt, image.width, image.height]),
    variants: product.variants
      .filter((variant) => !variant.archived)
      .map((variant) => ({
        sku: variant.sku,
        label: variant.label,
        options: variant.options,
        priceAmount: variant.priceAmount,
        compareAtAmount: variant.compareAtAmount,
        onHand: variant.onHand,
        weightGrams: variant.weightGrams,
        requiresShipping: variant.requiresShipping,
        taxClass: variant.taxClass,
        image: variant.imageId === null ? null : imageIndex.get(variant.imageId),
        prices: variant.prices,
      })),
  };
}

async function catalog(shop: TestStore) {
  const page = (await call(shop, 'GET', '/products?limit=100')) as { items: AdminProduct[] };
  return page.items.map(comparable).sort((a, b) => a.handle.localeCompare(b.handle));
}

describe('exports', () => {
  test('products: export, then import into another store, gives the same catalog; into the same, nothing changes', async () => {
    const source = await storeLikeTheOther();
    const [front, back] = [await uploadImage(source, 10), await uploadImage(source, 60)];
    await call(
      source,
      'POST',
      '/products',
      {
        title: 'Linen shirt, "washed"',
        handle: 'linen-shirt',
        description: 'Line one,\nline two; a comma, and "quotes".',
        status: 'active',
        tags: ['linen', 'summer'],
        seo: { title: 'Linen shirt', description: 'Washed linen.' },
        taxClass: 'reduced',
        options: [
          { name: 'Size', values: ['S', 'M', 'L'] },
          { name: 'Colour', values: ['Sand', 'Navy'] },
        ],
        images: [
          { mediaId: front, alt: 'Front' },
          { mediaId: back, alt: null },
        ],
        variants: [
          {
            sku: 'LS-S-SAND',
            options: { Size: 'S', Colour: 'Sand' },
            priceAmount: 4900,
            compareAtAmount: 5900,
            onHand: 3,
            weightGrams: 210,
            imageId: back,
            prices: [{ currency: 'EUR', amount: 4500, compareAtAmount: null }],
          },
          {
            sku: 'LS-M-NAVY',
            label: 'Medium navy',
            options: { Size: 'M', Colour: 'Navy' },
            priceAmount: 5100,
            onHand: 0,
            taxClass: 'exempt',
          },
        ],
      },
      201,
    );
    await call(
      source,
      'POST',
      '/products',
      {
        title: 'Draft poster',
        status: 'draft',
        variants: [{ label: 'A2', sku: null, priceAmount: 1999, onHand: 7, requiresShipping: true }],
      },
      201,
    );
    await call(
      source,
      'POST',
      '/products',
      {
        title: 'Gift card',
        status: 'archived',
        giftCard: true,
        variants: [
          { label: '$10', priceAmount: 1000, onHand: 0 },
          { label: '$20', priceAmount: 2000, onHand: 0 },
        ],
      },
      201,
    );
    // The images' URLs are on PUBLIC_BASE_URL: here, the port the test app listens on.
    const csv = (await exported(source, 'products')).replaceAll(h.t.config.publicBaseUrl, h.base);
    const rows = parse<Record<string, string>>(csv, { columns: true });
    assert.equal(rows.length, 5, 'a row per variant (the shirt has 2, its 2 images ride on them)');
    assert.equal(rows[0]!['Handle'], 'linen-shirt');
    assert.equal(rows[0]!['Variant Price'], '49.00');
    assert.equal(rows[0]!['Price / EUR'], '45.00');
    assert.equal(rows[0]!['Option1 Values'], '["S","M","L"]');
    assert.match(rows[0]!['Image Src']!, /^http:\/\/127\.0\.0\.1:\d+\/media\//);

    const expected = await catalog(source);
    const target = await storeLikeTheOther();
    const job = await imported(h.base, target, 'products', csv);
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.deepEqual(job.errors, []);
    assert.deepEqual(job.summary, { created: 3, updated: 0, unchanged: 0 });
    assert.deepEqual(await catalog(target), expected);

    const same = await imported(h.base, source, 'products', csv);
    assert.deepEqual(same.summary, { created: 0, updated: 0, unchanged: 3 });
    assert.deepEqual(await catalog(source), expected);
  });

  test('customers: export, then import into another store, gives the same customers', async () => {
    const source = await createTestStore(h.t);
    const file = [
      'First Name,Last Name,Email,Accepts Email Marketing,Default Address Company,Default Address Address1,Default Address Address2,Default Address City,Default Address Province Code,Default Address Country Code,Default Address Zip,Default Address Phone,Phone,Tags,Note',
      'Ada,Lovelace,ADA@example.com,yes,Analytical,1 Main St,,Boston,MA,US,02108,+1 617 555 0100,+1 617 555 0101,vip,likes tea',
      'Grace,Hopper,grace@example.com,no,,,,,,,,,,,',
    ].join('\n');
    const job = await imported(h.base, source, 'customers', file);
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.deepEqual(job.summary, { created: 2, updated: 0, unchanged: 0 });
    assert.deepEqual(job.ignoredColumns, ['Tags', 'Note']);

    const csv = await exported(source, 'customers');
    const rows = parse<Record<string, string>>(csv, { columns: true });
    const ada = rows.find((row) => row['Email'] === 'ada@example.com')!;
    assert.deepEqual(
      [
        ada['First Name'],
        ada['Default Address City'],
        ada['Default Address Province Code'],
        ada['Default Address Country Code'],
        ada['Accepts Email Marketing'],
        ada['Phone'],
      ],
      ['Ada Lovelace', 'Boston', 'MA', 'US', 'TRUE', '+1 617 555 0101'],
    );
    const target = await createTestStore(h.t);
    assert.equal((await imported(h.base, target, 'customers', csv)).summary.created, 2);
    const people = async (shop: TestStore) => {
      const page = (await call(shop, 'GET', '/customers?limit=100')) as {
        items: { id: string; email: string; name: string; phone: string; acceptsMarketing: boolean }[];
      };
      return Promise.all(
        page.items.map(async (c) => {
          const detail = (await call(shop, 'GET', `/customers/${c.id}`)) as { addresses: unknown[] };
          return [
            c.email,
            c.name,
            c.phone,
            c.acceptsMarketing,
            detail.addresses.map((a) => ({
              ...(a as object),
              id: undefined,
              createdAt: undefined,
              updatedAt: undefined,
            })),
          ];
        }),
      ).then((list) => JSON.stringify(list.sort()));
    };
    assert.equal(await people(target), await people(source));
    assert.deepEqual((await imported(h.base, source, 'customers', csv)).summary, {
      created: 0,
      updated: 0,
      unchanged: 2,
    });
  });

  test('inventory: counts by SKU; an unknown SKU is a row error; a count below what pending orders hold is refused', async () => {
    const shop = await createTestStore(h.t);
    await call(
      shop,
      'POST',
      '/products',
      {
        title: 'Mug',
        status: 'active',
        variants: [
          { label: 'Red', sku: 'MUG-R', priceAmount: 900, onHand: 1 },
          { label: 'Blue', sku: 'MUG-B', priceAmount: 900, onHand: 4 },
        ],
      },
      201,
    );
    const dry = await imported(h.base, shop, 'inventory', 'SKU,On hand\nMUG-R,10\nNOPE,3\nMUG-B,-1\n', {
      dryRun: true,
    });
    assert.deepEqual(
      dry.errors.map((e) => [e.row, e.column]),
      [
        [3, 'SKU'],
        [4, 'On hand'],
      ],
    );
    const job = await imported(h.base, shop, 'inventory', 'SKU,On hand\nMUG-R,10\nMUG-B,4\n');
    assert.deepEqual(job.summary, { created: 0, updated: 1, unchanged: 1 });
    const product = ((await call(shop, 'GET', '/products?limit=1')) as { items: AdminProduct[] }).items[0]!;
    assert.deepEqual(
      product.variants.map((v) => [v.sku, v.onHand]),
      [
        ['MUG-R', 10],
        ['MUG-B', 4],
      ],
    );
  });
});
