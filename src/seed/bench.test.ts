import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { startTestApp, type TestApp } from '../test/harness.ts';
import { seedBench } from './bench.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

interface Card {
  id: string;
  title: string;
  priceAmount: number;
  currency: string;
}

async function listPage(
  publishableKey: string,
  cursor: string | null,
): Promise<{ items: Card[]; nextCursor: string | null }> {
  const response = await t.app.inject({
    method: 'GET',
    url: `/storefront/v1/products?limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    headers: { 'x-publishable-key': publishableKey },
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

/** Every card of the storefront list, page by page. */
async function allCards(publishableKey: string): Promise<Card[]> {
  const cards: Card[] = [];
  let cursor: string | null = null;
  do {
    const page = await listPage(publishableKey, cursor);
    cards.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return cards;
}

test('seed bench: batches of products on the storefront in order, with card prices, variants and progress', async () => {
  const calls: [number, number][] = [];
  const seeded = await seedBench(t.deps, {
    products: 23,
    slug: 'bench-test',
    batch: 5,
    parallel: 2,
    onProgress: (done, total) => calls.push([done, total]),
  });
  assert.equal(seeded.products, 23);
  assert.deepEqual(calls[0], [0, 23], 'a first report before any batch');
  assert.deepEqual(calls.at(-1), [23, 23]);
  assert.equal(calls.length, 1 + 5, 'one report per batch of 5');
  const counts = calls.map(([done]) => done);
  assert.deepEqual(
    counts,
    [...counts].sort((a, b) => a - b),
    'the count only grows',
  );

  // The planner's statistics were refreshed: it knows the products are there (decision
  // `analyze-after-bulk-import`).
  const { rows } = await sql<{
    reltuples: number;
  }>`SELECT reltuples::float8 AS reltuples FROM pg_class WHERE relname = 'products'`.execute(t.db.kysely);
  assert.ok(rows[0]!.reltuples >= 23, `reltuples ${rows[0]!.reltuples}`);

  const cards = await allCards(seeded.publishableKey);
  assert.deepEqual(
    cards.map((card) => card.title),
    Array.from({ length: 23 }, (_, n) => `Bench Product ${n}`),
    'every product once, oldest first',
  );
  assert.deepEqual(
    cards.map((card) => card.priceAmount),
    Array.from({ length: 23 }, (_, n) => 1000 + n * 10),
    'the card price is the lower variant price',
  );

  const detail = await t.app.inject({
    method: 'GET',
    url: `/admin/v1/products/${cards[7]!.id}`,
    headers: { authorization: `Bearer ${seeded.staffToken}` },
  });
  assert.equal(detail.statusCode, 200, detail.body);
  const product = detail.json<{
    status: string;
    tags: string[];
    variants: { sku: string; label: string; priceAmount: number; onHand: number }[];
  }>();
  assert.equal(product.status, 'active');
  assert.deepEqual(product.tags, ['group-7']);
  assert.deepEqual(
    product.variants.map((v) => [v.sku, v.label, v.priceAmount, v.onHand]),
    [
      ['B-7-S', 'S', 1070, 1_000_000],
      ['B-7-L', 'L', 1570, 1_000_000],
    ],
  );
});

test('seed bench into an existing store adds products numbered after its own (no SKU clash)', async () => {
  const first = await seedBench(t.deps, { products: 6, slug: 'bench-again', batch: 4 });
  const second = await seedBench(t.deps, { products: 5, slug: 'bench-again', batch: 4 });
  assert.equal(second.storeId, first.storeId);
  const titles = (await allCards(second.publishableKey)).map((card) => card.title).sort();
  assert.deepEqual(titles, Array.from({ length: 11 }, (_, n) => `Bench Product ${n}`).sort());
});
