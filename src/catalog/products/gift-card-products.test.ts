/**
 * Gift card products in the catalog (decision `gift-card-products`): `giftCard` on the Admin API and
 * the storefront's cards and details; their variants are never shipped; carts and checkout read the
 * flag with the variant. Buying one is src/gift-cards/gift-card-products.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { listEvents } from '../../events/events.ts';
import { ok } from '../../test/answers.ts';
import { startTestAppWithStore, type TestApp, type TestStore } from '../../test/harness.ts';
import { sellableVariants } from '../inventory/sellable.ts';

let t: TestApp;
let shop: TestStore;
before(async () => ({ t, shop } = await startTestAppWithStore()));
after(() => t.close());

interface Product {
  id: string;
  giftCard: boolean;
  variants: { id: string; requiresShipping: boolean }[];
}

const pointers = async (response: Promise<{ statusCode: number; body: string }>) =>
  (await ok<{ errors: { pointer: string }[] }>(response, 400)).errors.map((e) => e.pointer);

const updates = async () =>
  (await listEvents(t.db.kysely, shop.store.id, { type: 'product.updated' })).length;

test('a gift card product’s variants are never shipped: false when left out, true refused', async () => {
  const admin = t.admin(shop);
  const card = await ok<Product>(
    admin.post('/products', {
      title: 'Gift card',
      status: 'active',
      giftCard: true,
      variants: [
        { label: '25', priceAmount: 2500, onHand: 100 },
        { label: '50', priceAmount: 5000, onHand: 100, requiresShipping: false },
      ],
    }),
    201,
  );
  assert.equal(card.giftCard, true);
  assert.deepEqual(
    card.variants.map((v) => v.requiresShipping),
    [false, false],
  );
  assert.deepEqual(
    await pointers(
      admin.post('/products', {
        title: 'Shipped card',
        status: 'draft',
        giftCard: true,
        variants: [
          { label: 'A', priceAmount: 100, onHand: 1 },
          { label: 'B', priceAmount: 100, onHand: 1, requiresShipping: true },
        ],
      }),
    ),
    ['/variants/1/requiresShipping'],
  );
  const added = await ok<{ id: string; requiresShipping: boolean }>(
    admin.post(`/products/${card.id}/variants`, { label: '100', priceAmount: 10000, onHand: 5 }),
    201,
  );
  assert.equal(added.requiresShipping, false);
  assert.deepEqual(
    await pointers(
      admin.post(`/products/${card.id}/variants`, {
        label: '200',
        priceAmount: 20000,
        onHand: 5,
        requiresShipping: true,
      }),
    ),
    ['/requiresShipping'],
  );
  assert.deepEqual(await pointers(admin.patch(`/variants/${added.id}`, { requiresShipping: true })), [
    '/requiresShipping',
  ]);
  await ok(admin.patch(`/variants/${added.id}`, { requiresShipping: false, label: 'Hundred' }));
});

test('making a product a gift card stops shipping its variants (product.updated); the storefront and the sellable read say so', async () => {
  const admin = t.admin(shop);
  const plain = await ok<Product>(
    admin.post('/products', {
      title: 'Voucher',
      status: 'active',
      variants: [{ label: 'One', priceAmount: 900, onHand: 3 }],
    }),
    201,
  );
  assert.deepEqual([plain.giftCard, plain.variants[0]!.requiresShipping], [false, true]);
  const before = await updates();
  const made = await ok<Product>(admin.patch(`/products/${plain.id}`, { giftCard: true }));
  assert.deepEqual([made.giftCard, made.variants[0]!.requiresShipping], [true, false]);
  assert.equal((await updates()) - before, 1);
  const again = await ok<Product>(admin.patch(`/products/${plain.id}`, { giftCard: true }));
  assert.deepEqual(again, made, 'the same change again changes nothing');
  assert.equal((await updates()) - before, 1);

  const storefront = t.storefront(shop);
  assert.equal((await ok<{ giftCard: boolean }>(storefront.get(`/products/${plain.id}`))).giftCard, true);
  const cards = await ok<{ items: { id: string; giftCard: boolean }[] }>(storefront.get('/products'));
  assert.equal(cards.items.find((item) => item.id === plain.id)?.giftCard, true);
  assert.equal(
    (await sellableVariants({ db: t.db.kysely }, shop.store.id, [plain.variants[0]!.id])).get(
      plain.variants[0]!.id,
    )?.giftCard,
    true,
  );

  // No longer one: its variants stay unshipped until staff say otherwise.
  const unmade = await ok<Product>(admin.patch(`/products/${plain.id}`, { giftCard: false }));
  assert.deepEqual([unmade.giftCard, unmade.variants[0]!.requiresShipping], [false, false]);
  await ok(admin.patch(`/variants/${plain.variants[0]!.id}`, { requiresShipping: true }));
  assert.equal(
    (await sellableVariants({ db: t.db.kysely }, shop.store.id, [plain.variants[0]!.id])).get(
      plain.variants[0]!.id,
    )?.giftCard,
    false,
  );
  assert.equal((await ok<{ giftCard: boolean }>(storefront.get(`/products/${plain.id}`))).giftCard, false);
});
