/**
 * Options (decision `product-options`): a product's options and values, each variant's combination (checked, unique per
 * product, the label made from it), on both the Admin API and the storefront's detail; a change of
 * options that would strand a variant is 409 option_in_use; two variants of one combination are
 * 409 option_combination_taken, even when they are added at the same moment.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../../test/harness.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

interface Product {
  id: string;
  options: { name: string; values: string[] }[];
  variants: { id: string; label: string; options: Record<string, string> }[];
}

interface Problem {
  title: string;
  detail: string;
  errors: { pointer: string; detail: string }[];
}

const OPTIONS = [
  { name: 'Size', values: ['S', 'M'] },
  { name: 'Colour', values: ['Blue', 'Red'] },
];

async function tee(shop: TestStore, variants?: object[]): Promise<Product> {
  const response = await t.admin(shop).post('/products', {
    title: 'Tee',
    status: 'active',
    options: OPTIONS,
    variants: variants ?? [
      { options: { Size: 'S', Colour: 'Blue' }, priceAmount: 1000, onHand: 2 },
      { options: { size: 'm', colour: 'blue' }, priceAmount: 1000, onHand: 2 },
    ],
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<Product>();
}

describe('options and variants (decision `product-options`)', () => {
  test('the label is made from the values, in the options’ spelling; both views show them', async () => {
    const shop = await createTestStore(t);
    const product = await tee(shop);
    assert.deepEqual(product.options, OPTIONS);
    assert.deepEqual(
      product.variants.map((v) => [v.label, v.options]),
      [
        ['S / Blue', { Size: 'S', Colour: 'Blue' }],
        ['M / Blue', { Size: 'M', Colour: 'Blue' }],
      ],
    );
    const detail = (await t.storefront(shop).get(`/products/${product.id}`)).json<Product>();
    assert.deepEqual(detail.options, OPTIONS);
    assert.deepEqual(
      detail.variants.map((v) => v.options),
      [
        { Size: 'S', Colour: 'Blue' },
        { Size: 'M', Colour: 'Blue' },
      ],
    );
    // A product without options: {} and [], and a label is required.
    const plain = await t.admin(shop).post('/products', {
      title: 'Mug',
      status: 'active',
      variants: [{ label: 'One', priceAmount: 500, onHand: 1 }],
    });
    assert.deepEqual(plain.json<Product>().options, []);
    assert.deepEqual(plain.json<Product>().variants[0]!.options, {});
    const unlabelled = await t.admin(shop).post('/products', {
      title: 'Mug',
      status: 'active',
      variants: [{ priceAmount: 500, onHand: 1 }],
    });
    assert.equal(unlabelled.statusCode, 400);
    assert.equal(unlabelled.json<Problem>().errors[0]!.pointer, '/variants/0/label');
  });

  test('a bad combination points at itself; a repeated one is 400; nothing is written', async () => {
    const shop = await createTestStore(t);
    const bad = async (variants: object[], options: object[] = OPTIONS) => {
      const response = await t
        .admin(shop)
        .post('/products', { title: 'Tee', status: 'active', options, variants });
      assert.equal(response.statusCode, 400, response.body);
      return response.json<Problem>().errors.map((e) => e.pointer);
    };
    const v = (options: object) => ({ options, priceAmount: 1000, onHand: 1 });
    assert.deepEqual(await bad([v({ Size: 'S' })]), ['/variants/0/options']);
    assert.deepEqual(await bad([v({ Size: 'XL', Colour: 'Blue' })]), ['/variants/0/options/Size']);
    assert.deepEqual(await bad([v({ Size: 'S', Colour: 'Blue', Fit: 'Slim' })]), ['/variants/0/options/Fit']);
    assert.deepEqual(await bad([v({ Size: 'S', Colour: 'Blue' }), v({ Size: 'S', Colour: 'Blue' })]), [
      '/variants/1/options',
    ]);
    assert.deepEqual(
      await bad(
        [],
        [
          { name: 'Size', values: ['S', 's'] },
          { name: 'size', values: ['M'] },
        ],
      ),
      // (an active product without variants is refused too)
      ['/variants', '/options/0/values/1', '/options/1/name'],
    );
    const four = [1, 2, 3, 4].map((n) => ({ name: `O${n}`, values: ['x'] }));
    const tooMany = await t
      .admin(shop)
      .post('/products', { title: 'T', status: 'draft', options: four, variants: [] });
    assert.equal(tooMany.statusCode, 400);
    assert.equal(
      (await t.admin(shop).get('/products')).json<{ items: unknown[] }>().items.length,
      0,
      'nothing was created',
    );
  });

  test('variants added and changed are checked; the same combination is 409 option_combination_taken, also at the same moment', async () => {
    const shop = await createTestStore(t);
    const product = await tee(shop);
    const added = await t.admin(shop).post(`/products/${product.id}/variants`, {
      options: { Size: 'S', Colour: 'Red' },
      priceAmount: 1100,
      onHand: 1,
    });
    assert.equal(added.statusCode, 201, added.body);
    assert.equal(added.json<{ label: string }>().label, 'S / Red');
    const again = await t.admin(shop).post(`/products/${product.id}/variants`, {
      options: { Size: 'S', Colour: 'Red' },
      priceAmount: 1100,
      onHand: 1,
    });
    assert.equal(again.statusCode, 409, again.body);
    assert.equal(again.json<Problem>().title, 'option_combination_taken');

    // Changed to M / Red: the label follows; to S / Blue (taken): 409.
    const id = added.json<{ id: string }>().id;
    const changed = await t.admin(shop).patch(`/variants/${id}`, { options: { Size: 'M', Colour: 'Red' } });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal(changed.json<{ label: string }>().label, 'M / Red');
    const clash = await t.admin(shop).patch(`/variants/${id}`, { options: { Size: 'S', Colour: 'Blue' } });
    assert.equal(clash.statusCode, 409);
    assert.equal(clash.json<Problem>().title, 'option_combination_taken');
    const invalid = await t.admin(shop).patch(`/variants/${id}`, { options: { Size: 'L', Colour: 'Red' } });
    assert.equal(invalid.statusCode, 400);

    // The last free combination, added twice at once: one variant.
    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        t.admin(shop).post(`/products/${product.id}/variants`, {
          options: { Size: 'S', Colour: 'Red' },
          priceAmount: 1100,
          onHand: 1,
        }),
      ),
    );
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [201, 409, 409]);
    const after = (await t.admin(shop).get(`/products/${product.id}`)).json<Product>();
    assert.equal(after.variants.length, 4);
  });

  test('changing the options: a value added is fine; one in use removed is 409 option_in_use; a new option gives the variants its first value', async () => {
    const shop = await createTestStore(t);
    const product = await tee(shop);
    const url = `/products/${product.id}`;
    const withL = [
      { name: 'Size', values: ['S', 'M', 'L'] },
      { name: 'Colour', values: ['Blue', 'Red'] },
    ];
    const added = await t.admin(shop).patch(url, { options: withL });
    assert.equal(added.statusCode, 200, added.body);
    assert.deepEqual(added.json<Product>().options, withL);

    const removed = await t.admin(shop).patch(url, {
      options: [
        { name: 'Size', values: ['M', 'L'] },
        { name: 'Colour', values: ['Blue', 'Red'] },
      ],
    });
    assert.equal(removed.statusCode, 409, removed.body);
    assert.equal(removed.json<Problem>().title, 'option_in_use');
    assert.match(removed.json<Problem>().detail, /"S \/ Blue"/);
    const none = await t.admin(shop).patch(url, { options: [] });
    assert.equal(none.statusCode, 409);
    assert.deepEqual((await t.admin(shop).get(url)).json<Product>().options, withL, 'unchanged');

    // A new option: every live variant takes its first value, and a label made from the values follows.
    const withFit = [...withL, { name: 'Fit', values: ['Slim', 'Loose'] }];
    const newOption = await t.admin(shop).patch(url, { options: withFit });
    assert.equal(newOption.statusCode, 200, newOption.body);
    for (const variant of newOption.json<Product>().variants) {
      assert.equal(variant.options.Fit, 'Slim');
      assert.match(variant.label, / \/ Slim$/);
    }

    // Red is unused: it may go.
    const redGone = await t.admin(shop).patch(url, {
      options: [
        { name: 'Size', values: ['S', 'M', 'L'] },
        { name: 'Colour', values: ['Blue'] },
        { name: 'Fit', values: ['Slim', 'Loose'] },
      ],
    });
    assert.equal(redGone.statusCode, 200, redGone.body);
  });
});
