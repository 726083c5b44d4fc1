/**
 * An import worker killed in the middle of an import, on PostgreSQL (decision `csv-imports`): a real
 * `storefront worker` runs a products import and is killed with SIGKILL after some batches are
 * recorded; a second worker takes the import over once the first one's lease ends and carries on
 * from the last batch recorded. Every product is there once, as the file says, and each was created
 * once (one `product.created` per product: a product of the interrupted batch that was written
 * already is found as it is and left alone).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  createTestStore,
  serveProcess,
  skipUnlessPostgres,
  startTestAppWithDb,
  waitFor,
  type TestApp,
  type TestDb,
} from '../test/harness.ts';
import { finished, readImport, upload } from './imports.test-support.ts';

const PRODUCTS = 400;

let db: TestDb;
let t: TestApp;
let base: string;

before(async () => {
  if (skipUnlessPostgres) return;
  ({ db, t } = await startTestAppWithDb());
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  if (skipUnlessPostgres) return;
  await t.close();
});

const worker = () =>
  serveProcess(db, t.config.secretKey!, { IMPORT_LEASE: '2s', REDIS_URL: undefined }, 'worker');

function file(): string {
  const rows = [
    'Handle,Title,Option1 Name,Option1 Value,Variant SKU,Variant Price,Variant Inventory Qty,Status',
  ];
  for (let i = 0; i < PRODUCTS; i++) {
    rows.push(`item-${i},Item ${i},Size,S,ITEM-${i}-S,${10 + (i % 7)}.50,${i % 13},active`);
    rows.push(`item-${i},,,M,ITEM-${i}-M,${11 + (i % 7)}.00,${i % 5},`);
  }
  return rows.join('\n');
}

test(
  'SIGKILL of the import worker mid-import: a second worker finishes it, every product once',
  { skip: skipUnlessPostgres },
  async () => {
    const shop = await createTestStore(t);
    const response = await upload(base, shop, 'products', file());
    assert.equal(response.status, 202);
    const { id } = (await response.json()) as { id: string };

    const first = await worker();
    await waitFor(
      async () => (await readImport(base, shop, id)).progress.done >= 100,
      60_000,
      'batches recorded',
    );
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    const interrupted = await readImport(base, shop, id);
    assert.equal(interrupted.status, 'running');
    assert.ok(
      interrupted.progress.done < PRODUCTS * 2,
      `killed before the end (${interrupted.progress.done} rows done)`,
    );

    const second = await worker();
    try {
      const job = await finished(base, shop, id, 120_000);
      assert.equal(job.status, 'completed', JSON.stringify(job));
      assert.deepEqual(job.progress, { rows: PRODUCTS * 2, done: PRODUCTS * 2 });
      assert.equal((job.summary.created ?? 0) + (job.summary.unchanged ?? 0), PRODUCTS);
    } finally {
      second.child.kill('SIGTERM');
      await new Promise((resolve) => second.child.once('exit', resolve));
    }

    const products = await t.deps.db
      .selectFrom('products')
      .select(['handle', 'title'])
      .where('store_id', '=', shop.store.id)
      .execute();
    assert.equal(products.length, PRODUCTS);
    assert.equal(new Set(products.map((p) => p.handle)).size, PRODUCTS);
    const variants = await t.deps.db
      .selectFrom('variants')
      .select(['sku', 'price_amount', 'on_hand'])
      .where('store_id', '=', shop.store.id)
      .execute();
    assert.equal(variants.length, PRODUCTS * 2);
    const item7 = variants.find((v) => v.sku === 'ITEM-7-S')!;
    assert.deepEqual([item7.price_amount, item7.on_hand], [1050, 7]);
    const created = await t.deps.db
      .selectFrom('events')
      .select(['data'])
      .where('store_id', '=', shop.store.id)
      .where('type', '=', 'product.created')
      .execute();
    assert.equal(created.length, PRODUCTS, 'one product.created per product');
  },
);
