/**
 * A product's and a variant's tax class (decision `tax-classes`): set on create and change, shown
 * in the admin views (`standard` for a product that names none, null for a variant that takes its
 * product's); a class the store does not have is 400 at its field with nothing written (the foreign
 * keys refuse it, another store's classes included); a class in use cannot be deleted until
 * nothing names it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestStore, startTestAppWithStore, type TestApp, type TestStore } from '../test/harness.ts';

let t: TestApp;
let shop: TestStore;

before(async () => {
  ({ t, shop } = await startTestAppWithStore());
  for (const code of ['reduced', 'zero']) await addClass(shop, code);
});
after(() => t.close());

interface Variant {
  id: string;
  label: string;
  priceAmount: number;
  taxClass: string | null;
  updatedAt: string;
}
interface Product {
  id: string;
  title: string;
  taxClass: string;
  variants: Variant[];
  updatedAt: string;
}
interface Problem {
  title: string;
  errors?: { pointer: string }[];
}

async function addClass(store: TestStore, code: string): Promise<void> {
  const response = await t.admin(store).post('/tax-classes', { code, name: code });
  assert.equal(response.statusCode, 201, response.body);
}

let titles = 0;
/** POST /products: an active product with one variant, unless `body` says otherwise. */
const postProduct = (body: object = {}, store = shop) =>
  t.admin(store).post('/products', {
    title: `Thing ${++titles}`,
    status: 'active',
    variants: [{ label: 'One', priceAmount: 1000, onHand: 5 }],
    ...body,
  });

async function createProduct(body: object = {}, store = shop): Promise<Product> {
  const response = await postProduct(body, store);
  assert.equal(response.statusCode, 201, response.body);
  return response.json<Product>();
}

const read = async (id: string): Promise<Product> => {
  const response = await t.admin(shop).get(`/products/${id}`);
  assert.equal(response.statusCode, 200, response.body);
  return response.json<Product>();
};

/** A 400 validation_failed whose pointers are exactly these. */
function assertUnknown(response: { statusCode: number; body: string }, pointers: string[]): void {
  assert.equal(response.statusCode, 400, response.body);
  const problem = JSON.parse(response.body) as Problem;
  assert.equal(problem.title, 'validation_failed');
  assert.deepEqual(problem.errors?.map((error) => error.pointer).sort(), [...pointers].sort());
}

async function productsTitled(title: string): Promise<number> {
  const response = await t.admin(shop).get(`/products?q=${encodeURIComponent(title)}`);
  return response.json<{ items: unknown[] }>().items.length;
}

describe('taxClass on products and variants', () => {
  test('null is the default: standard on the product, the product’s on a variant', async () => {
    const product = await createProduct();
    assert.equal(product.taxClass, 'standard');
    assert.equal(product.variants[0]!.taxClass, null);
    assert.equal((await read(product.id)).taxClass, 'standard');
  });

  test('create, read, change: the product’s class and each variant’s own', async () => {
    const created = await createProduct({
      taxClass: 'reduced',
      variants: [
        { label: 'Paperback', priceAmount: 1000, onHand: 5 },
        { label: 'Audio', priceAmount: 1500, onHand: 5, taxClass: 'standard' },
        { label: 'Sample', priceAmount: 0, onHand: 5, taxClass: null },
      ],
    });
    assert.equal(created.taxClass, 'reduced');
    assert.deepEqual(
      created.variants.map((variant) => variant.taxClass),
      [null, 'standard', null],
    );
    assert.deepEqual(await read(created.id), created);

    const patched = await t.admin(shop).patch(`/products/${created.id}`, { taxClass: 'zero' });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json<Product>().taxClass, 'zero');
    assert.equal((await read(created.id)).taxClass, 'zero');

    const [paperback, audio] = created.variants;
    const own = await t.admin(shop).patch(`/variants/${paperback!.id}`, { taxClass: 'reduced' });
    assert.equal(own.statusCode, 200, own.body);
    assert.equal(own.json<Variant>().taxClass, 'reduced');
    const back = await t.admin(shop).patch(`/variants/${audio!.id}`, { taxClass: null });
    assert.equal(back.json<Variant>().taxClass, null);
    const untouched = await t.admin(shop).patch(`/variants/${paperback!.id}`, { priceAmount: 1100 });
    assert.equal(untouched.json<Variant>().taxClass, 'reduced', 'a change without taxClass keeps it');

    const added = await t.admin(shop).post(`/products/${created.id}/variants`, {
      label: 'Box',
      priceAmount: 5000,
      onHand: 1,
      taxClass: 'zero',
    });
    assert.equal(added.statusCode, 201, added.body);
    assert.equal(added.json<Variant>().taxClass, 'zero');
    assert.deepEqual(
      (await read(created.id)).variants.map((variant) => [variant.label, variant.taxClass]),
      [
        ['Paperback', 'reduced'],
        ['Audio', null],
        ['Sample', null],
        ['Box', 'zero'],
      ],
    );
  });

  test('an unknown class on a new product or its variants is 400 at each field; nothing is written', async () => {
    const title = 'Unknown class product';
    assertUnknown(await postProduct({ title, taxClass: 'books' }), ['/taxClass']);
    assertUnknown(
      await t.admin(shop).post('/products', {
        title,
        status: 'active',
        variants: [
          { label: 'One', priceAmount: 1000, onHand: 5, taxClass: 'reduced' },
          { label: 'Two', priceAmount: 1000, onHand: 5, taxClass: 'books' },
        ],
      }),
      ['/variants/1/taxClass'],
    );
    assertUnknown(
      await t.admin(shop).post('/products', {
        title,
        status: 'active',
        taxClass: 'food',
        variants: [
          { label: 'One', priceAmount: 1000, onHand: 5, taxClass: 'books' },
          { label: 'Two', priceAmount: 1000, onHand: 5, taxClass: 'zero' },
          { label: 'Three', priceAmount: 1000, onHand: 5, taxClass: 'food' },
        ],
      }),
      ['/taxClass', '/variants/0/taxClass', '/variants/2/taxClass'],
    );
    // Not a class code at all: refused by the schema, at the same pointer.
    assertUnknown(
      await t.admin(shop).post('/products', {
        title,
        status: 'draft',
        taxClass: 'Not A Class',
        variants: [],
      }),
      ['/taxClass'],
    );
    assert.equal(await productsTitled(title), 0, 'no product, no variant was written');
  });

  test('an unknown class in a change is 400 at /taxClass; nothing of the change is written', async () => {
    const product = await createProduct({ taxClass: 'reduced' });
    const variant = product.variants[0]!;
    assertUnknown(
      await t.admin(shop).patch(`/products/${product.id}`, { title: 'Renamed', taxClass: 'books' }),
      ['/taxClass'],
    );
    assertUnknown(
      await t.admin(shop).patch(`/variants/${variant.id}`, { priceAmount: 1, taxClass: 'books' }),
      ['/taxClass'],
    );
    assertUnknown(
      await t.admin(shop).post(`/products/${product.id}/variants`, {
        label: 'Two',
        priceAmount: 1,
        onHand: 1,
        taxClass: 'books',
      }),
      ['/taxClass'],
    );
    assert.deepEqual(await read(product.id), product, 'the product and its variants are as they were');
  });

  test('another store’s class is unknown here', async () => {
    const other = await createTestStore(t);
    await addClass(other, 'books');
    await createProduct({ taxClass: 'books' }, other);
    const title = 'Borrowed class';
    assertUnknown(await postProduct({ title, taxClass: 'books' }), ['/taxClass']);
    assert.equal(await productsTitled(title), 0);
    const mine = await createProduct();
    assertUnknown(await t.admin(shop).patch(`/products/${mine.id}`, { taxClass: 'books' }), ['/taxClass']);
    assertUnknown(await t.admin(shop).patch(`/variants/${mine.variants[0]!.id}`, { taxClass: 'books' }), [
      '/taxClass',
    ]);
  });

  test('a class a product or a variant names cannot be deleted until they move off it', async () => {
    const store = await createTestStore(t);
    await addClass(store, 'books');
    const product = await createProduct({ taxClass: 'books' }, store);
    const variant = product.variants[0]!;
    await t.admin(store).patch(`/variants/${variant.id}`, { taxClass: 'books' });

    const inUse = async () => {
      const response = await t.admin(store).delete('/tax-classes/books');
      assert.equal(response.statusCode, 409, response.body);
      assert.equal(response.json<Problem>().title, 'tax_class_in_use');
    };
    await inUse();
    const moved = await t.admin(store).patch(`/products/${product.id}`, { taxClass: 'standard' });
    assert.equal(moved.statusCode, 200, moved.body);
    await inUse(); // the variant still names it
    await t.admin(store).patch(`/variants/${variant.id}`, { taxClass: null });
    const deleted = await t.admin(store).delete('/tax-classes/books');
    assert.equal(deleted.statusCode, 204, deleted.body);
    const classes = (await t.admin(store).get('/tax-classes')).json<{ items: { code: string }[] }>();
    assert.deepEqual(
      classes.items.map((item) => item.code),
      ['standard'],
    );
  });
});
