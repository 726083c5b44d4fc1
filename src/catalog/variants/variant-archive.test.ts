/**
 * Archived variants (decision `product-options`): archiving instead of deleting when an option value goes. An archived
 * variant is kept (admin reads show it, `archived: true`), but is not on the storefront, not in
 * the card price, not searched, not sold; its combination is free again; a product keeps at least
 * one live variant while active; removing an option value with `strandedVariants: "archive"`
 * archives that value's variants in the same change.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestAppWithStore, type TestApp, type TestStore } from '../../test/harness.ts';

let t: TestApp;
let shop: TestStore;
before(async () => ({ t, shop } = await startTestAppWithStore()));
after(() => t.close());

interface Variant {
  id: string;
  label: string;
  options: Record<string, string>;
  priceAmount: number;
  archived: boolean;
}
interface Product {
  id: string;
  priceAmount: number | null;
  options: { name: string; values: string[] }[];
  variants: Variant[];
}

async function tee(title: string): Promise<Product> {
  const response = await t.admin(shop).post('/products', {
    title,
    status: 'active',
    options: [{ name: 'Size', values: ['S', 'M', 'L'] }],
    variants: [
      { options: { Size: 'S' }, priceAmount: 1000, onHand: 5, sku: `zq${[...title].reverse().join('')}` },
      { options: { Size: 'M' }, priceAmount: 1200, onHand: 5 },
      { options: { Size: 'L' }, priceAmount: 1400, onHand: 5 },
    ],
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<Product>();
}

const bySize = (product: Product, size: string) => product.variants.find((v) => v.options.Size === size)!;
const archive = (variantId: string, archived = true) =>
  t.admin(shop).patch(`/variants/${variantId}`, { archived });

describe('archived variants (decision `product-options`)', () => {
  test('an archived variant stays in admin reads, leaves the storefront, the card price, search and carts', async () => {
    const product = await tee('Archtee');
    const small = bySize(product, 'S');
    const before = await t.storefront(shop).get('/products?q=zqeethcra');
    assert.equal(before.json<{ items: unknown[] }>().items.length, 1, 'its SKU finds the product while live');
    const response = await archive(small.id);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json<Variant>().archived, true);

    const admin = (await t.admin(shop).get(`/products/${product.id}`)).json<Product>();
    assert.equal(admin.variants.length, 3, 'kept, never deleted');
    assert.equal(bySize(admin, 'S').archived, true);
    assert.equal(bySize(admin, 'M').archived, false);

    const detail = (await t.storefront(shop).get(`/products/${product.id}`)).json<Product>();
    assert.deepEqual(
      detail.variants.map((v) => v.options.Size),
      ['M', 'L'],
    );
    assert.equal(detail.priceAmount, 1200, 'the card price is the cheapest live variant');
    const found = await t.storefront(shop).get('/products?q=archtee&option.Size=S');
    assert.deepEqual(found.json<{ items: unknown[] }>().items, []);
    assert.deepEqual(
      (await t.storefront(shop).get('/products/facets?q=archtee'))
        .json<{ options: { values: { value: string }[] }[] }>()
        .options[0]!.values.map((v) => v.value)
        .sort(),
      ['L', 'M'],
    );
    const bySku = await t.storefront(shop).get('/products?q=zqeethcra');
    assert.deepEqual(bySku.json<{ items: unknown[] }>().items, [], 'its SKU no longer finds the product');

    const cart = await t.storefront(shop).post('/carts', { items: [{ variantId: small.id, quantity: 1 }] });
    assert.ok(cart.statusCode >= 400 && cart.statusCode < 500, `not sold: ${cart.statusCode} ${cart.body}`);

    const back = await archive(small.id, false);
    assert.equal(back.statusCode, 200, back.body);
    const again = (await t.storefront(shop).get(`/products/${product.id}`)).json<Product>();
    assert.equal(again.variants.length, 3);
    assert.equal(again.priceAmount, 1000);
  });

  test('its combination is free: a new variant may take it, and then the old one cannot come back', async () => {
    const product = await tee('Combotee');
    const medium = bySize(product, 'M');
    assert.equal((await archive(medium.id)).statusCode, 200);
    const added = await t.admin(shop).post(`/products/${product.id}/variants`, {
      options: { Size: 'M' },
      priceAmount: 1250,
      onHand: 2,
    });
    assert.equal(added.statusCode, 201, added.body);
    const restore = await archive(medium.id, false);
    assert.equal(restore.statusCode, 409, restore.body);
    assert.equal(restore.json<{ title: string }>().title, 'option_combination_taken');
  });

  test('an active product keeps one live variant', async () => {
    const response = await t.admin(shop).post('/products', {
      title: 'Lonely',
      status: 'active',
      variants: [{ label: 'One', priceAmount: 500, onHand: 1 }],
    });
    const only = response.json<Product>().variants[0]!;
    const refused = await archive(only.id);
    assert.equal(refused.statusCode, 400, refused.body);
    assert.equal(refused.json<{ errors: { pointer: string }[] }>().errors[0]!.pointer, '/archived');
  });

  test('removing an option value: 409 option_in_use, or its variants archived with strandedVariants "archive"', async () => {
    const product = await tee('Striptee');
    const options = [{ name: 'Size', values: ['S', 'M'] }];
    const refused = await t.admin(shop).patch(`/products/${product.id}`, { options });
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(refused.json<{ title: string }>().title, 'option_in_use');

    const changed = await t
      .admin(shop)
      .patch(`/products/${product.id}`, { options, strandedVariants: 'archive' });
    assert.equal(changed.statusCode, 200, changed.body);
    const after = changed.json<Product>();
    assert.deepEqual(after.options, options);
    assert.equal(after.variants.length, 3, 'L is archived, not deleted');
    assert.equal(bySize(after, 'L').archived, true);
    assert.equal(bySize(after, 'S').archived, false);
    const detail = (await t.storefront(shop).get(`/products/${product.id}`)).json<Product>();
    assert.deepEqual(
      detail.variants.map((v) => v.options.Size),
      ['S', 'M'],
    );
    // L is no value of the product any more: it cannot come back until L does.
    const restore = await archive(bySize(after, 'L').id, false);
    assert.equal(restore.statusCode, 409, restore.body);
    assert.equal(restore.json<{ title: string }>().title, 'option_in_use');
    const bad = await t.admin(shop).patch(`/products/${product.id}`, { options, strandedVariants: 'delete' });
    assert.equal(bad.statusCode, 400, bad.body);
  });

  test('a new option on an active product: its variants take the first value; two that would share a combination are not both kept', async () => {
    const created = await t.admin(shop).post('/products', {
      title: 'Plainbag',
      status: 'active',
      variants: [
        { label: 'Small', priceAmount: 900, onHand: 1 },
        { label: 'Large', priceAmount: 1100, onHand: 1 },
      ],
    });
    const product = created.json<Product>();
    const options = [{ name: 'Colour', values: ['Black', 'Tan'] }];
    const clash = await t.admin(shop).patch(`/products/${product.id}`, { options });
    assert.equal(clash.statusCode, 409, clash.body);
    assert.equal(clash.json<{ title: string }>().title, 'option_in_use');
    assert.match(clash.json<{ detail: string }>().detail, /"Large"/);

    const archived = await t
      .admin(shop)
      .patch(`/products/${product.id}`, { options, strandedVariants: 'archive' });
    assert.equal(archived.statusCode, 200, archived.body);
    const [small, large] = archived.json<Product>().variants;
    assert.deepEqual([small!.options, small!.archived, small!.label], [{ Colour: 'Black' }, false, 'Small']);
    assert.equal(large!.archived, true);

    // One variant and a second option: it simply takes the first value, in one request.
    const second = await t.admin(shop).patch(`/products/${product.id}`, {
      options: [...options, { name: 'Strap', values: ['Short', 'Long'] }],
    });
    assert.equal(second.statusCode, 200, second.body);
    const live = second.json<Product>().variants.filter((v) => !v.archived);
    assert.deepEqual(
      live.map((v) => v.options),
      [{ Colour: 'Black', Strap: 'Short' }],
    );
  });
});
