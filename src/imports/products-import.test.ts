/**
 * Products from Shopify's CSV (decisions `csv-imports` and `shopify-product-csv`), through real HTTP
 * and the real import worker: the sample Shopify export moves in as it is (options, variants,
 * images fetched from a real server, prices, stock, statuses, SEO, a gift card); a dry run writes
 * nothing; the same file again changes nothing and records no event; bad rows are all reported by
 * row and column before anything is written.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { AdminProduct } from '../catalog/catalog.schemas.ts';
import { createTestStore, type TestStore } from '../test/harness.ts';
import {
  imageServer,
  imported,
  sampleProducts,
  startImportTestApp,
  upload,
  type ImportTestApp,
} from './imports.test-support.ts';

let h: ImportTestApp;
let images: Awaited<ReturnType<typeof imageServer>>;
before(async () => {
  h = await startImportTestApp();
  images = await imageServer();
});
after(async () => {
  await images.close();
  await h.close();
});

async function products(shop: TestStore): Promise<AdminProduct[]> {
  const response = await fetch(`${h.base}/admin/v1/products?limit=100`, {
    headers: { authorization: `Bearer ${shop.staffToken}` },
  });
  return ((await response.json()) as { items: AdminProduct[] }).items;
}

async function eventCount(shop: TestStore): Promise<number> {
  const row = await h.t.deps.db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('store_id', '=', shop.store.id)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('products import (Shopify CSV)', () => {
  test('a dry run checks every row and writes nothing', async () => {
    const shop = await createTestStore(h.t);
    const events = await eventCount(shop);
    const job = await imported(h.base, shop, 'products', sampleProducts(images.url), { dryRun: true });
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.deepEqual(job.errors, []);
    assert.equal(job.progress.rows, 7);
    assert.equal(job.progress.done, 0);
    assert.deepEqual(job.ignoredColumns.sort(), [
      'Cost per item',
      'Google Shopping / Gender',
      'Google Shopping / Google Product Category',
      'Option1 Linked To',
      'Option2 Linked To',
      'Option3 Linked To',
      'Product Category',
      'Type',
      'Variant Barcode',
      'Variant Fulfillment Service',
      'Variant Inventory Policy',
      'Variant Inventory Tracker',
      'Variant Weight Unit',
      'Vendor',
    ]);
    assert.deepEqual(await products(shop), []);
    assert.equal(images.hits.size, 0, 'a dry run fetches no image');
    assert.equal(await eventCount(shop), events + 1, 'only import.completed');
  });

  test('the sample Shopify export moves in unchanged; the same file again changes nothing', async () => {
    const shop = await createTestStore(h.t);
    const job = await imported(h.base, shop, 'products', sampleProducts(images.url));
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.deepEqual(job.errors, []);
    assert.deepEqual(job.summary, { created: 3, updated: 0, unchanged: 0 });
    assert.deepEqual(job.progress, { rows: 7, done: 7 });

    const byHandle = new Map((await products(shop)).map((product) => [product.handle, product]));
    const tee = byHandle.get('organic-cotton-tee')!;
    assert.equal(tee.title, 'Organic Cotton Tee');
    assert.equal(
      tee.description,
      '<p>Soft, heavy cotton.</p>\n<ul><li>Made in Portugal</li><li>GOTS certified, "organic"</li></ul>',
    );
    assert.equal(tee.status, 'active');
    assert.deepEqual(tee.tags, ['cotton', 'summer', 'tees']);
    assert.deepEqual(tee.seo, {
      title: 'Organic Cotton Tee | Northwind',
      description: 'A heavy organic cotton tee.',
    });
    assert.deepEqual(tee.options, [
      { name: 'Size', values: ['S', 'M'] },
      { name: 'Color', values: ['Black', 'White'] },
    ]);
    assert.deepEqual(
      tee.images.map((image) => image.alt),
      ['The tee in black', 'The tee in white', 'Stitching, close up'],
    );
    const [black, white] = tee.images;
    assert.deepEqual(
      tee.variants.map((v) => [
        v.sku,
        v.label,
        v.options,
        v.priceAmount,
        v.compareAtAmount,
        v.onHand,
        v.weightGrams,
        v.requiresShipping,
        v.imageId,
      ]),
      [
        ['TEE-S-BLK', 'S / Black', { Size: 'S', Color: 'Black' }, 2500, 3000, 12, 180, true, black!.id],
        ['TEE-M-BLK', 'M / Black', { Size: 'M', Color: 'Black' }, 2500, 3000, 20, 190, true, black!.id],
        // Shopify's oversold count (-2) comes in as 0.
        ['TEE-M-WHT', 'M / White', { Size: 'M', Color: 'White' }, 2750, null, 0, 190, true, white!.id],
      ],
    );
    const mug = byHandle.get('enamel-mug')!;
    assert.equal(mug.status, 'draft');
    assert.deepEqual(mug.options, []);
    assert.deepEqual(
      mug.variants.map((v) => [v.sku, v.label, v.priceAmount, v.onHand]),
      [['MUG-1', 'Default Title', 120000, 40]],
    );
    const card = byHandle.get('gift-card')!;
    assert.equal(card.giftCard, true);
    assert.deepEqual(
      card.variants.map((v) => [v.label, v.priceAmount, v.requiresShipping, v.sku]),
      [
        ['$25', 2500, false, null],
        ['$50', 5000, false, null],
      ],
    );
    const fetched = [...images.hits.values()].reduce((a, b) => a + b, 0);
    assert.equal(fetched, 3, 'each image fetched once');

    const events = await eventCount(shop);
    const again = await imported(h.base, shop, 'products', sampleProducts(images.url));
    assert.deepEqual(again.summary, { created: 0, updated: 0, unchanged: 3 });
    assert.deepEqual(again.errors, []);
    assert.equal(await eventCount(shop), events + 1, 'no product event: only import.completed');
    const after = await products(shop);
    assert.deepEqual(
      after.map((p) => [p.handle, p.updatedAt]).sort(),
      [...byHandle.values()].map((p) => [p.handle, p.updatedAt]).sort(),
    );
  });

  test('a changed file updates what changed, matching variants by SKU, and adds new ones', async () => {
    const shop = await createTestStore(h.t);
    await imported(h.base, shop, 'products', sampleProducts(images.url));
    const changed =
      sampleProducts(images.url)
        .replace('TEE-M-WHT,190,shopify,-2,deny,manual,27.50', 'TEE-M-WHT,190,shopify,9,deny,manual,26.00')
        .replace('enamel-mug,Enamel Mug,', 'enamel-mug,Enamel Camp Mug,') +
      `gift-card,,,,,,,,,$100,,,,,,,,,,,0,deny,gift_card,100.00,,FALSE,FALSE,,,,,,,,,,,,,,\n`;
    const job = await imported(h.base, shop, 'products', changed);
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.deepEqual(job.summary, { created: 0, updated: 3, unchanged: 0 });
    const byHandle = new Map((await products(shop)).map((product) => [product.handle, product]));
    const white = byHandle.get('organic-cotton-tee')!.variants.find((v) => v.sku === 'TEE-M-WHT')!;
    assert.deepEqual([white.priceAmount, white.onHand], [2600, 9]);
    assert.equal(byHandle.get('enamel-mug')!.title, 'Enamel Camp Mug');
    assert.deepEqual(
      byHandle.get('gift-card')!.variants.map((v) => v.label),
      ['$25', '$50', '$100'],
    );
  });

  test('every bad row is reported by row and column, and a real import of it writes nothing', async () => {
    const shop = await createTestStore(h.t);
    const csv = [
      'Handle,Title,Option1 Name,Option1 Value,Variant SKU,Variant Price,Variant Inventory Qty,Variant Requires Shipping,Status',
      'good-one,Good,Title,Default Title,G-1,10.00,5,TRUE,active',
      'Bad Handle,Bad,Title,Default Title,B-1,10.00,5,TRUE,active',
      'no-price,No price,Title,Default Title,N-1,,5,TRUE,active',
      'odd,Odd,Size,S,O-1,12.345,five,maybe,live',
      ',Orphan,Title,Default Title,X-1,1.00,1,TRUE,active',
      'twice,Twice,Title,Default Title,G-1,3.00,1,TRUE,active',
      'good-one,Again,Title,Default Title,G-2,1.00,1,TRUE,active',
    ].join('\n');
    const dry = await imported(h.base, shop, 'products', csv, { dryRun: true });
    assert.equal(dry.status, 'completed');
    assert.deepEqual(
      dry.errors.map((e) => [e.row, e.column]),
      [
        [3, 'Handle'],
        [4, 'Variant Price'],
        [5, 'Status'],
        [5, 'Variant Price'],
        [5, 'Variant Inventory Qty'],
        [5, 'Variant Requires Shipping'],
        [6, 'Handle'],
        [7, 'Variant SKU'],
        [8, 'Handle'],
      ],
      JSON.stringify(dry.errors, null, 1),
    );
    assert.equal(dry.errorCount, 9);
    for (const error of dry.errors)
      assert.doesNotMatch(error.detail, /12\.345|five|maybe|live/, 'no cell value in a detail');

    const real = await imported(h.base, shop, 'products', csv);
    assert.equal(real.status, 'failed');
    assert.equal(real.errorCount, 9);
    assert.deepEqual(await products(shop), [], 'nothing written');
  });

  test('an unreadable or incomplete file fails with a reason; bad forms are 400, other stores 404', async () => {
    const shop = await createTestStore(h.t);
    const unclosed = await imported(h.base, shop, 'products', 'Handle,Title,Variant Price\na,"A,1.00\n');
    assert.equal(unclosed.status, 'failed');
    assert.match(unclosed.failure ?? '', /not valid CSV/);
    const missing = await imported(h.base, shop, 'products', 'Handle,Name\na,A\n');
    assert.equal(missing.status, 'failed');
    assert.match(missing.failure ?? '', /lacks the columns Title, Variant Price/);

    const badKind = await upload(h.base, shop, 'orders', 'a,b\n');
    assert.equal(badKind.status, 400);
    const problem = (await badKind.json()) as { errors: { pointer: string }[] };
    assert.deepEqual(
      problem.errors.map((e) => e.pointer),
      ['/kind'],
    );
    const json = await fetch(`${h.base}/admin/v1/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.staffToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(json.status, 415);

    const other = await createTestStore(h.t);
    const theirs = await fetch(`${h.base}/admin/v1/imports/${unclosed.id}`, {
      headers: { authorization: `Bearer ${other.staffToken}` },
    });
    assert.equal(theirs.status, 404);
  });
  test('an import of more than a batch refreshes the statistics of the tables it grew (decision `analyze-during-import`)', async () => {
    const shop = await createTestStore(h.t);
    const lastAnalyzed = async () => {
      const result = await sql<{ at: Date | null }>`
        SELECT greatest(last_analyze, last_autoanalyze) AS at FROM pg_stat_user_tables WHERE relname = 'variants'`.execute(
        h.t.deps.db,
      );
      return result.rows[0]?.at ?? null;
    };
    const before = await lastAnalyzed();
    const rows = Array.from({ length: 60 }, (_, i) => `stat-${i},Product ${i},12.00,STAT-${i}`);
    const job = await imported(
      h.base,
      shop,
      'products',
      ['Handle,Title,Variant Price,Variant SKU', ...rows].join('\n'),
    );
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.equal(job.summary.created, 60);
    const after = await lastAnalyzed();
    assert.ok(
      after !== null && (before === null || after > before),
      `variants analyzed: ${String(before)} → ${String(after)}`,
    );
  });
});
