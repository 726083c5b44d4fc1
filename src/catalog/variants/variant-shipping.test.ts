/** Variants' shipping fields (decision `shipping-zones-and-methods`): weight in grams and whether the variant is shipped at all. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { listEvents } from '../../events/events.ts';
import { startTestAppWithStore, type TestApp, type TestStore } from '../../test/harness.ts';

let t: TestApp;
let shop: TestStore;
before(async () => ({ t, shop } = await startTestAppWithStore()));
after(() => t.close());

interface Variant {
  id: string;
  label: string;
  weightGrams: number | null;
  requiresShipping: boolean;
}

test('a variant is shipped and weightless unless told otherwise; both can be set and changed', async () => {
  const created = await t.admin(shop).post('/products', {
    title: 'Mug and gift card',
    status: 'active',
    variants: [
      { label: 'Mug', priceAmount: 1200, onHand: 5, weightGrams: 350 },
      { label: 'Gift card', priceAmount: 2500, onHand: 100, requiresShipping: false },
      { label: 'Plain', priceAmount: 900, onHand: 1 },
    ],
  });
  assert.equal(created.statusCode, 201, created.body);
  const variants = created.json<{ id: string; variants: Variant[] }>().variants;
  assert.deepEqual(
    variants.map((v) => [v.label, v.weightGrams, v.requiresShipping]),
    [
      ['Mug', 350, true],
      ['Gift card', null, false],
      ['Plain', null, true],
    ],
  );

  const productId = created.json<{ id: string }>().id;
  const added = await t.admin(shop).post(`/products/${productId}/variants`, {
    label: 'Big mug',
    priceAmount: 1500,
    onHand: 2,
    weightGrams: 600,
  });
  assert.equal(added.statusCode, 201, added.body);
  assert.deepEqual([added.json<Variant>().weightGrams, added.json<Variant>().requiresShipping], [600, true]);

  const before = (await listEvents(t.db.kysely, shop.store.id, { type: 'product.updated' })).length;
  const changed = await t
    .admin(shop)
    .patch(`/variants/${variants[2]!.id}`, { weightGrams: 80, requiresShipping: false });
  assert.equal(changed.statusCode, 200, changed.body);
  assert.deepEqual(
    [changed.json<Variant>().weightGrams, changed.json<Variant>().requiresShipping],
    [80, false],
  );
  const cleared = await t.admin(shop).patch(`/variants/${variants[2]!.id}`, { weightGrams: null });
  assert.equal(cleared.json<Variant>().weightGrams, null);
  const after = (await listEvents(t.db.kysely, shop.store.id, { type: 'product.updated' })).length;
  assert.equal(after - before, 2, 'each change of a visible product is a product.updated');
});

test('a weight must be whole grams from 0 to 10,000,000', async () => {
  for (const weightGrams of [-1, 1.5, 10_000_001, '100']) {
    const response = await t.admin(shop).post('/products', {
      title: 'Heavy',
      status: 'draft',
      variants: [{ label: 'One', priceAmount: 100, onHand: 1, weightGrams }],
    });
    assert.equal(response.statusCode, 400, `${String(weightGrams)}: ${response.body}`);
  }
});
