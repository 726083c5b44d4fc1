/**
 * Promotions in carts and checkout (decisions `cart-promotions` and `promotion-limits`): automatic
 * deals without a code, several codes, why a code does not apply, free shipping and how far it is,
 * the preview equal to the charge, and limits reserved in the checkout's transaction (a race on a
 * code limited to 10 uses), given back on expiry, and per buyer.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { expireOrders } from '../orders/expiry.service.ts';
import { paymentDeps } from '../orders/orders.test-support.ts';
import { ok } from '../test/answers.ts';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../test/harness.ts';

let t: TestApp;
before(async () => (t = await startTestApp()));
after(() => t.close());

interface Money {
  amount: number;
  currency: string;
}
interface Applied {
  id: string;
  name: string;
  code: string | null;
  amount: Money;
  shipping: Money;
}
interface Cart {
  id: string;
  items: { variantId: string; discount?: Money }[];
  discountCode: string | null;
  discountCodes: string[];
  promotions: Applied[];
  freeShippingRemaining: Money | null;
  totals: Record<'subtotal' | 'discount' | 'shipping' | 'tax' | 'total', Money>;
  notices: { code: string; discountCode?: string; reason?: string }[];
}
interface Placed {
  order: {
    id: string;
    promotions: Applied[];
    discountCode: string | null;
  } & Record<'subtotal' | 'discount' | 'shipping' | 'tax' | 'total', Money>;
}

const BOSTON = {
  name: 'Ada Lovelace',
  line1: '1 Main St',
  city: 'Boston',
  region: 'US-MA',
  postalCode: '02110',
  country: 'US',
};

/** A USD store: a shirt at 24.00 and a mug at 10.00, US flat shipping of 5.00. */
async function store(): Promise<{ shop: TestStore; shirt: string; mug: string; mugProduct: string }> {
  const shop = await createTestStore(t, { currency: 'USD' });
  const admin = t.admin(shop);
  const product = async (title: string, priceAmount: number) =>
    ok<{ id: string; variants: { id: string }[] }>(
      admin.post('/products', {
        title,
        status: 'active',
        variants: [{ label: title, onHand: 500, priceAmount }],
      }),
      201,
    );
  const shirt = await product('Shirt', 2400);
  const mug = await product('Mug', 1000);
  const zone = await ok<{ id: string }>(
    admin.post('/shipping/zones', { name: 'US', areas: [{ country: 'US' }] }),
    201,
  );
  await ok(
    admin.post(`/shipping/zones/${zone.id}/methods`, { name: 'Post', kind: 'flat', amount: 500 }),
    201,
  );
  return { shop, shirt: shirt.variants[0]!.id, mug: mug.variants[0]!.id, mugProduct: mug.id };
}

const promotion = (shop: TestStore, body: object) =>
  ok<{ id: string; usedCount: number }>(t.admin(shop).post('/promotions', body), 201);

const checkout = (shop: TestStore, cartId: string, email = 'ada@example.com', extra: object = {}) =>
  t.storefront(shop).post('/checkout', { cartId, email, ...extra }, { 'idempotency-key': randomUUID() });

const titleOf = (body: string) => (JSON.parse(body) as { title: string }).title;

const compared = (cart: Cart) => ({
  totals: { ...cart.totals, taxIncluded: undefined, amountDue: undefined },
  promotions: cart.promotions.map(({ name, code, amount }) => ({ name, code, amount })),
});

describe('promotions in carts and checkout', () => {
  test('automatic deals and several codes: the best total, why a code does not apply, free shipping, the preview charged', async () => {
    const { shop, shirt, mug, mugProduct } = await store();
    const storefront = t.storefront(shop);
    await promotion(shop, {
      name: '10 % off over $50',
      automatic: true,
      conditions: { minSubtotal: 5000 },
      action: { kind: 'percent', value: 10 },
      combinesWith: { items: true, shipping: true },
    });
    await promotion(shop, {
      name: 'Half-price mugs',
      code: 'mugs',
      conditions: { productIds: [mugProduct] },
      action: { kind: 'percent', value: 50, target: 'items' },
      combinesWith: { order: true, shipping: true },
    });
    await promotion(shop, {
      name: '$100 off big orders',
      code: 'big',
      conditions: { minSubtotal: 100000 },
      action: { kind: 'amount', value: 10000 },
    });
    await promotion(shop, {
      name: 'Free shipping over $80',
      automatic: true,
      conditions: { minSubtotal: 8000 },
      action: { kind: 'free_shipping' },
      combinesWith: { order: true, items: true },
    });
    for (const code of ['C1', 'C2', 'C3'])
      await promotion(shop, { name: code, code, action: { kind: 'amount', value: 1 } });

    const created = await ok<Cart>(
      storefront.post('/carts', {
        items: [
          { variantId: shirt, quantity: 2 },
          { variantId: mug, quantity: 1 },
        ],
      }),
      201,
    );
    await ok(storefront.put(`/carts/${created.id}/shipping-address`, BOSTON));
    await ok(storefront.post(`/carts/${created.id}/discount-codes/mugs`, {}));
    const cart = await ok<Cart>(storefront.post(`/carts/${created.id}/discount-codes/Big`, {}));
    assert.deepEqual(cart.discountCodes, ['MUGS', 'BIG']);
    assert.equal(cart.discountCode, 'MUGS');
    // Items first (half of the mug: 5.00), then 10 % of what is left (53.00 → 5.30).
    assert.deepEqual(
      cart.promotions.map((applied) => [applied.name, applied.code, applied.amount.amount]),
      [
        ['Half-price mugs', 'MUGS', 500],
        ['10 % off over $50', null, 530],
      ],
    );
    assert.equal(cart.totals.discount.amount, 1030);
    assert.equal(cart.totals.shipping.amount, 500);
    assert.deepEqual(
      cart.items.map((item) => item.discount?.amount),
      [480, 550],
      'each line’s share: the shirts 10 % of 48.00, the mug 5.00 and 10 % of 5.00',
    );
    assert.deepEqual(
      cart.notices.map(({ code, discountCode, reason }) => ({ code, discountCode, reason })),
      [{ code: 'discount_not_applicable', discountCode: 'BIG', reason: 'minimum_not_met' }],
    );
    assert.deepEqual(cart.freeShippingRemaining, { amount: 8000 - 5800, currency: 'USD' });

    // Unknown: refused, the cart unchanged; a sixth code: refused.
    const unknown = await storefront.post(`/carts/${created.id}/discount-codes/NOPE`, {});
    assert.equal(unknown.statusCode, 409, unknown.body);
    assert.equal(titleOf(unknown.body), 'discount_invalid');
    for (const code of ['c1', 'c2', 'C3'])
      await ok(storefront.post(`/carts/${created.id}/discount-codes/${code}`, {}));
    const sixth = await storefront.post(`/carts/${created.id}/discount-codes/MUGS2`, {});
    assert.equal(sixth.statusCode, 409, sixth.body);
    assert.equal(titleOf(sixth.body), 'too_many_discount_codes');
    for (const code of ['C1', 'c2', 'C3', 'absent'])
      await ok(storefront.delete(`/carts/${created.id}/discount-codes/${code}`));

    // A third shirt: 82.00 reaches the free shipping.
    const more = await ok<Cart>(
      storefront.put(`/carts/${created.id}`, {
        items: [
          { variantId: shirt, quantity: 3 },
          { variantId: mug, quantity: 1 },
        ],
      }),
    );
    assert.deepEqual(more.discountCodes, ['MUGS', 'BIG']);
    assert.equal(more.totals.shipping.amount, 0);
    assert.equal(more.freeShippingRemaining, null);
    const free = more.promotions.find((applied) => applied.name === 'Free shipping over $80');
    assert.deepEqual(free?.amount, { amount: 500, currency: 'USD' });
    assert.deepEqual(free?.shipping, { amount: 500, currency: 'USD' }, 'all of it shipping');
    assert.ok(
      more.promotions.filter((applied) => applied !== free).every((applied) => applied.shipping.amount === 0),
      'the others took nothing off shipping',
    );
    assert.equal(more.totals.total.amount, 8200 - 500 - 770);

    const placed = await ok<Placed>(checkout(shop, created.id), 201);
    assert.deepEqual(
      compared({ ...more, totals: more.totals }),
      compared({
        ...more,
        totals: {
          subtotal: placed.order.subtotal,
          discount: placed.order.discount,
          shipping: placed.order.shipping,
          tax: placed.order.tax,
          total: placed.order.total,
        },
        promotions: placed.order.promotions,
      }),
    );
    assert.equal(placed.order.discountCode, 'MUGS');
    const promotions = await ok<{ items: { name: string; usedCount: number }[] }>(
      t.admin(shop).get('/promotions?limit=20'),
    );
    assert.deepEqual(
      promotions.items.filter((item) => item.usedCount > 0).map((item) => item.name),
      ['10 % off over $50', 'Half-price mugs', 'Free shipping over $80'],
    );
  });

  test('50 checkouts at once on a code limited to 10 uses: exactly 10 orders have it; an expired one gives its use back', async () => {
    const { shop, shirt } = await store();
    const storefront = t.storefront(shop);
    const limited = await promotion(shop, {
      name: 'Ten only',
      code: 'TEN',
      action: { kind: 'percent', value: 10 },
      usageLimit: 10,
    });
    const carts = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const cart = await ok<Cart>(
          storefront.post('/carts', { items: [{ variantId: shirt, quantity: 1 }] }),
          201,
        );
        await ok(storefront.put(`/carts/${cart.id}/discount-code`, { code: 'ten' }));
        return cart.id;
      }),
    );
    const answers = await Promise.all(
      carts.map((id, index) => checkout(shop, id, `buyer${index}@example.com`)),
    );
    const placed = answers.filter((answer) => answer.statusCode === 201);
    const refused = answers.filter((answer) => answer.statusCode !== 201);
    assert.equal(placed.length, 10, answers.map((answer) => answer.statusCode).join(','));
    for (const answer of refused) {
      assert.equal(answer.statusCode, 409, answer.body);
      assert.match(titleOf(answer.body), /^(discount_invalid|cart_changed)$/);
    }
    for (const answer of placed)
      assert.deepEqual(
        (JSON.parse(answer.body) as Placed).order.promotions.map((applied) => applied.code),
        ['TEN'],
      );
    const withCode = await t.db.kysely
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('store_id', '=', shop.store.id)
      .where('discount_code', '=', 'TEN')
      .executeTakeFirstOrThrow();
    assert.equal(Number(withCode.n), 10);
    const used = await ok<{ usedCount: number }>(t.admin(shop).get(`/promotions/${limited.id}`));
    assert.equal(used.usedCount, 10);

    // Nobody pays: the orders expire and give their uses back.
    const ms = t.config.payments.orderTtlMs + 60_000;
    t.clock.advance(ms);
    try {
      await expireOrders(paymentDeps(t));
    } finally {
      t.clock.advance(-ms);
    }
    const back = await ok<{ usedCount: number }>(t.admin(shop).get(`/promotions/${limited.id}`));
    assert.equal(back.usedCount, 0);
  });

  test('a limit per buyer counts their orders by email; a second checkout with the code is refused', async () => {
    const { shop, shirt } = await store();
    const storefront = t.storefront(shop);
    await promotion(shop, {
      name: 'Once each',
      code: 'ONCE',
      action: { kind: 'amount', value: 300 },
      perCustomerLimit: 1,
    });
    const cartWith = async () => {
      const cart = await ok<Cart>(
        storefront.post('/carts', { items: [{ variantId: shirt, quantity: 1 }] }),
        201,
      );
      await ok(storefront.post(`/carts/${cart.id}/discount-codes/once`, {}));
      return cart.id;
    };
    const first = await ok<Placed>(checkout(shop, await cartWith(), 'Grace@Example.com'), 201);
    assert.equal(first.order.discount.amount, 300);
    const second = await checkout(shop, await cartWith(), 'grace@example.com');
    assert.equal(second.statusCode, 409, second.body);
    assert.equal(titleOf(second.body), 'discount_invalid');
    // Another buyer may.
    const other = await ok<Placed>(checkout(shop, await cartWith(), 'alan@example.com'), 201);
    assert.equal(other.order.discount.amount, 300);
  });

  test('a code in the cart that has since ended is named `ended` (not unknown), and checkout refuses it', async () => {
    const { shop, shirt } = await store();
    const storefront = t.storefront(shop);
    const endsAt = new Date(t.clock.now().getTime() + 3_600_000).toISOString();
    await promotion(shop, { name: 'Flash', code: 'FLASH', action: { kind: 'amount', value: 300 }, endsAt });
    const created = await ok<Cart>(
      storefront.post('/carts', { items: [{ variantId: shirt, quantity: 1 }] }),
      201,
    );
    const applied = await ok<Cart>(storefront.post(`/carts/${created.id}/discount-codes/flash`, {}));
    assert.equal(applied.totals.discount.amount, 300);
    t.clock.advance(2 * 3_600_000);
    try {
      const later = await ok<Cart>(storefront.get(`/carts/${created.id}`));
      assert.equal(later.totals.discount.amount, 0);
      assert.deepEqual(
        later.notices.map(({ code, discountCode, reason }) => ({ code, discountCode, reason })),
        [{ code: 'discount_code_invalid', discountCode: 'FLASH', reason: 'ended' }],
      );
      const refused = await checkout(shop, created.id);
      assert.equal(refused.statusCode, 409, refused.body);
      assert.equal(titleOf(refused.body), 'discount_invalid');
    } finally {
      t.clock.advance(-2 * 3_600_000);
    }
  });

  test('30 checkouts at once, each applying the same code and automatic deal: every one is placed (uses are locked in one order, no deadlock)', async () => {
    const { shop, shirt } = await store();
    const storefront = t.storefront(shop);
    // Created in this order, the automatic deal is the later row; the code's row is updated first.
    const code = await promotion(shop, {
      name: 'Ten',
      code: 'TENOFF',
      action: { kind: 'percent', value: 10 },
      combinesWith: { order: true },
    });
    const deal = await promotion(shop, {
      name: 'Five for all',
      automatic: true,
      action: { kind: 'percent', value: 5 },
      combinesWith: { order: true },
    });
    const carts = await Promise.all(
      Array.from(
        { length: 30 },
        async () =>
          (await ok<Cart>(storefront.post('/carts', { items: [{ variantId: shirt, quantity: 1 }] }), 201)).id,
      ),
    );
    const answers = await Promise.all(
      carts.map((id, index) => checkout(shop, id, `buyer${index}@example.com`, { discountCode: 'tenoff' })),
    );
    assert.deepEqual(
      answers.map((answer) => answer.statusCode).filter((status) => status !== 201),
      [],
      answers.find((answer) => answer.statusCode !== 201)?.body,
    );
    for (const id of [code.id, deal.id])
      assert.equal((await ok<{ usedCount: number }>(t.admin(shop).get(`/promotions/${id}`))).usedCount, 30);
  });
});
