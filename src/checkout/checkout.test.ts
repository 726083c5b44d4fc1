import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { listEvents } from '../events/events.ts';
import { ordersDeps } from '../runtime.ts';
import {
  addressesOf,
  createTestStore,
  readMailDir,
  startTestApp,
  waitFor,
  waitForMail,
  type TestApp,
  type TestStore,
} from '../test/harness.ts';
import { expireOrders } from '../orders/expiry.service.ts';
import { maskEmail } from '../orders/orders.views.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp({ workers: true });
});
after(() => t.close());

interface Product {
  id: string;
  variants: { id: string }[];
}
interface CheckoutBody {
  order: {
    id: string;
    number: number;
    status: string;
    total: { amount: number; currency: string };
    subtotal: { amount: number };
    discount: { amount: number };
    tax: { amount: number };
    shipping: { amount: number };
  };
  payment: { provider: string; ref: string; status: string; clientSecret: string };
}

async function product(shop: TestStore, onHand: number, price = 1000): Promise<Product> {
  const response = await t.admin(shop).post('/products', {
    title: 'Thing',
    status: 'active',
    variants: [{ label: 'One', priceAmount: price, onHand }],
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<Product>();
}

async function cart(shop: TestStore, items: { variantId: string; quantity: number }[]): Promise<string> {
  const response = await t.storefront(shop).post('/carts', { items });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ id: string }>().id;
}

const checkout = (shop: TestStore, body: object, key: string | null = randomUUID()) =>
  t.storefront(shop).post('/checkout', body, key === null ? {} : { 'idempotency-key': key });

async function variant(shop: TestStore, id: string) {
  return t.db.kysely
    .selectFrom('variants')
    .select(['on_hand', 'reserved'])
    .where('store_id', '=', shop.store.id)
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

async function order(shop: TestStore, id: string) {
  return (await t.storefront(shop).get(`/orders/${id}`)).json<{
    status: string;
    refunded: { amount: number };
    payment: { status: string };
  }>();
}

const confirm = (ref: string, clientSecret: string, paymentMethod = 'pm_card_visa') =>
  t.app.inject({
    method: 'POST',
    url: `/sandbox/v1/payments/${ref}/confirm`,
    payload: { clientSecret, paymentMethod },
  });

/**
 * Checks out `cartId` with `step` run right after each payment intent checkout makes (between its
 * quote and its transaction), given the intent's index. Answers the response and the intents' refs.
 */
async function checkoutWhileIntents(shop: TestStore, cartId: string, step: (index: number) => Promise<void>) {
  const provider = t.runtime.payments.provider;
  const original = provider.createIntent.bind(provider);
  const refs: string[] = [];
  provider.createIntent = async (input) => {
    const made = await original(input);
    refs.push(made.ref);
    await step(refs.length - 1);
    return made;
  };
  try {
    return { response: await checkout(shop, { cartId, email: 'a@example.com' }), refs };
  } finally {
    provider.createIntent = original;
  }
}

/** A step for checkoutWhileIntents: the variant's price changes after each intent, one price each. */
const changePrice =
  (shop: TestStore, variantId: string, prices: number[]) =>
  async (index: number): Promise<void> => {
    const price = prices[index];
    if (price === undefined) return;
    const changed = await t.admin(shop).patch(`/variants/${variantId}`, { priceAmount: price });
    assert.equal(changed.statusCode, 200, changed.body);
  };

async function intentStates(refs: string[]) {
  const rows = await t.db.kysely
    .selectFrom('sandbox_intents')
    .select(['ref', 'amount', 'status'])
    .where('ref', 'in', refs)
    .execute();
  return refs.map((ref) => {
    const row = rows.find((r) => r.ref === ref);
    return { amount: row?.amount, status: row?.status };
  });
}

const paymentDeps = () => ordersDeps(t.runtime, pino({ level: 'silent' }));

/** Runs the order expiry as it would run once the orders' time to pay has passed; the clock then goes back. */
async function expireUnpaidOrders(): Promise<void> {
  t.clock.advance(t.config.payments.orderTtlMs + 1000);
  try {
    await expireOrders(paymentDeps());
  } finally {
    t.clock.advance(-(t.config.payments.orderTtlMs + 1000));
  }
}

/** The sandbox's webhook body saying the payment of `body`'s order succeeded, as event `id`. */
function paymentSucceeded(shop: TestStore, body: CheckoutBody, id: string): string {
  return JSON.stringify({
    id,
    type: 'payment_intent.succeeded',
    created: Math.floor(Date.now() / 1000),
    data: {
      ref: body.payment.ref,
      amount: body.order.total.amount,
      currency: 'USD',
      metadata: { storeId: shop.store.id, orderId: body.order.id },
    },
  });
}

describe('carts', () => {
  test('create, read and replace a cart; lines are priced from the catalog', async () => {
    const shop = await createTestStore(t);
    const a = await product(shop, 10, 1500);
    const b = await product(shop, 10, 250);
    const created = await t.storefront(shop).post('/carts', {
      items: [
        { variantId: a.variants[0]!.id, quantity: 1 },
        { variantId: b.variants[0]!.id, quantity: 2 },
        { variantId: a.variants[0]!.id, quantity: 2 },
      ],
    });
    assert.equal(created.statusCode, 201);
    const body = created.json<{
      id: string;
      items: {
        variantId: string;
        quantity: number;
        unitPrice: { amount: number };
        lineTotal: { amount: number; currency: string };
        productId: string;
        title: string;
        variantLabel: string;
      }[];
      subtotal: { amount: number; currency: string };
    }>();
    assert.deepEqual(
      body.items.map((i) => [i.variantId, i.quantity, i.unitPrice.amount, i.lineTotal.amount]),
      [
        [a.variants[0]!.id, 3, 1500, 4500],
        [b.variants[0]!.id, 2, 250, 500],
      ],
      'duplicates merged, first position kept',
    );
    assert.deepEqual(body.subtotal, { amount: 5000, currency: 'USD' });
    assert.equal(body.items[0]!.productId, a.id);
    assert.equal(body.items[0]!.title, 'Thing');
    assert.equal(body.items[0]!.variantLabel, 'One');
    assert.equal(created.headers['cache-control'], 'no-store');
    const etag = String(created.headers.etag);

    const read = await t.storefront(shop).get(`/carts/${body.id}`);
    assert.deepEqual(read.json(), body);

    const replaced = await t
      .storefront(shop)
      .put(
        `/carts/${body.id}`,
        { items: [{ variantId: b.variants[0]!.id, quantity: 1 }] },
        { 'if-match': etag },
      );
    assert.equal(replaced.statusCode, 200);
    assert.deepEqual(replaced.json<{ subtotal: { amount: number } }>().subtotal.amount, 250);
    assert.notEqual(replaced.headers.etag, etag);

    const stale = await t.storefront(shop).put(`/carts/${body.id}`, { items: [] }, { 'if-match': etag });
    assert.equal(stale.statusCode, 412);
    assert.equal(stale.json<{ title: string }>().title, 'precondition_failed');
    const lastWriteWins = await t.storefront(shop).put(`/carts/${body.id}`, { items: [] });
    assert.equal(lastWriteWins.statusCode, 200);
  });

  test('the ETag changes whenever the body does (a price change too); If-Match still guards the version', async () => {
    const shop = await createTestStore(t);
    const p = await product(shop, 10, 1500);
    const variantId = p.variants[0]!.id;
    const created = await t.storefront(shop).post('/carts', { items: [{ variantId, quantity: 2 }] });
    const before = String(created.headers.etag);
    const cartId = created.json<{ id: string }>().id;
    assert.equal(
      String((await t.storefront(shop).get(`/carts/${cartId}`)).headers.etag),
      before,
      'stable while nothing changes',
    );

    const repriced = await t.admin(shop).patch(`/variants/${variantId}`, { priceAmount: 900 });
    assert.equal(repriced.statusCode, 200);
    const read = await t.storefront(shop).get(`/carts/${cartId}`);
    assert.equal(read.json<{ subtotal: { amount: number } }>().subtotal.amount, 1800);
    const after = String(read.headers.etag);
    assert.notEqual(after, before, 'a new body, a new ETag');

    // Nobody wrote the cart: both tags name its version, so either guards a write.
    const write = await t
      .storefront(shop)
      .put(`/carts/${cartId}`, { items: [{ variantId, quantity: 1 }] }, { 'if-match': before });
    assert.equal(write.statusCode, 200, write.body);
    const stale = await t.storefront(shop).put(`/carts/${cartId}`, { items: [] }, { 'if-match': after });
    assert.equal(stale.statusCode, 412, 'the write moved the version on');
  });

  test('browser code can read the new cart’s Location (it is an exposed header)', async () => {
    const shop = await createTestStore(t);
    const p = await product(shop, 10, 100);
    const created = await t
      .storefront(shop)
      .post(
        '/carts',
        { items: [{ variantId: p.variants[0]!.id, quantity: 1 }] },
        { origin: 'https://shop.example' },
      );
    assert.equal(created.statusCode, 201);
    const exposed = String(created.headers['access-control-expose-headers'])
      .split(',')
      .map((h) => h.trim().toLowerCase());
    assert.ok(exposed.includes('location'), exposed.join(', '));
    assert.equal(created.headers.location, `/storefront/v1/carts/${created.json<{ id: string }>().id}`);
  });

  test('bad lines are 400 with pointers; stock is not checked', async () => {
    const shop = await createTestStore(t);
    const p = await product(shop, 1);
    const draft = (
      await t.admin(shop).post('/products', {
        title: 'Hidden',
        status: 'draft',
        variants: [{ label: 'x', priceAmount: 1, onHand: 5 }],
      })
    ).json<Product>();
    const cases: [object, string][] = [
      [{ items: [{ variantId: p.variants[0]!.id, quantity: 0 }] }, '/items/0/quantity'],
      [{ items: [{ variantId: p.variants[0]!.id, quantity: 1000 }] }, '/items/0/quantity'],
      [{ items: [{ variantId: p.variants[0]!.id, quantity: 1.5 }] }, '/items/0/quantity'],
      [{ items: [{ variantId: 'nope', quantity: 1 }] }, '/items/0/variantId'],
      [{ items: [{ variantId: randomUUID(), quantity: 1 }] }, '/items/0/variantId'],
      [{ items: [{ variantId: draft.variants[0]!.id, quantity: 1 }] }, '/items/0/variantId'],
      [
        {
          items: [
            { variantId: p.variants[0]!.id, quantity: 600 },
            { variantId: p.variants[0]!.id, quantity: 600 },
          ],
        },
        '/items/1/quantity',
      ],
      [{}, '/items'],
    ];
    for (const [payload, pointer] of cases) {
      const response = await t.storefront(shop).post('/carts', payload);
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      const errors = response.json<{ errors: { pointer: string }[] }>().errors;
      assert.ok(
        errors.some((e) => e.pointer === pointer),
        `${pointer} in ${JSON.stringify(errors)}`,
      );
    }
    assert.equal(
      (await t.storefront(shop).post('/carts', { items: [{ variantId: p.variants[0]!.id, quantity: 999 }] }))
        .statusCode,
      201,
      'stock is checked at checkout, not here',
    );
  });

  test("another store's cart is 404", async () => {
    const a = await createTestStore(t);
    const b = await createTestStore(t);
    const id = await cart(a, [{ variantId: (await product(a, 1)).variants[0]!.id, quantity: 1 }]);
    assert.equal((await t.storefront(b).get(`/carts/${id}`)).statusCode, 404);
    assert.equal((await t.storefront(b).put(`/carts/${id}`, { items: [] })).statusCode, 404);
    assert.equal((await checkout(b, { cartId: id, email: 'x@example.com' })).statusCode, 404);
  });
});

describe('checkout', () => {
  test('reserves stock, numbers orders from 1001, and answers order + payment', async () => {
    const shop = await createTestStore(t);
    const p = await product(shop, 5, 1200);
    const variantId = p.variants[0]!.id;
    const cartId = await cart(shop, [{ variantId, quantity: 2 }]);
    const response = await checkout(shop, { cartId, email: 'Buyer@Example.com', country: 'us' });
    assert.equal(response.statusCode, 201, response.body);
    const body = response.json<CheckoutBody>();
    assert.equal(body.order.number, 1001);
    assert.equal(body.order.status, 'pending');
    assert.deepEqual(body.order.total, { amount: 2400, currency: 'USD' });
    assert.equal(body.payment.provider, 'sandbox');
    assert.equal(body.payment.status, 'pending');
    assert.match(body.payment.ref, /^pi_sbx_/);
    assert.ok(body.payment.clientSecret.length > 20);
    assert.deepEqual(await variant(shop, variantId), { on_hand: 5, reserved: 2 });
    const events = await listEvents(t.db.kysely, shop.store.id);
    assert.deepEqual(
      events
        .filter((e) => e.type.startsWith('order') || e.type === 'inventory.updated')
        .map((e) => [e.type, e.data.available ?? e.data.number])
        // One transaction, two resources: the events commit together, in no promised order.
        .sort(([a], [b]) => String(a).localeCompare(String(b))),
      [
        ['inventory.updated', 3],
        ['order.created', 1001],
      ],
    );
    // The order, its lines, its payment and order.created are one statement (decision
    // `one-statement-order`).
    assert.deepEqual(events.find((e) => e.type === 'order.created')?.data, {
      orderId: body.order.id,
      number: 1001,
      status: 'pending',
      total: { amount: 2400, currency: 'USD' },
      storeId: shop.store.id,
    });

    const second = await checkout(shop, {
      cartId: await cart(shop, [{ variantId, quantity: 1 }]),
      email: 'b@example.com',
    });
    assert.equal(second.json<CheckoutBody>().order.number, 1002);

    const completed = await t.storefront(shop).put(`/carts/${cartId}`, { items: [] });
    assert.equal(completed.statusCode, 409);
    assert.equal(completed.json<{ title: string }>().title, 'cart_completed');
    const again = await checkout(shop, { cartId, email: 'b@example.com' });
    assert.equal(again.statusCode, 409);
    assert.equal(again.json<{ title: string }>().title, 'cart_completed');
  });

  test('Idempotency-Key: required, a UUID, replayed byte for byte, 422 on a different body', async () => {
    const shop = await createTestStore(t);
    const variantId = (await product(shop, 5)).variants[0]!.id;
    const cartId = await cart(shop, [{ variantId, quantity: 1 }]);

    const missing = await checkout(shop, { cartId, email: 'a@example.com' }, null);
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json<{ title: string }>().title, 'idempotency_key_required');
    const notUuid = await checkout(shop, { cartId, email: 'a@example.com' }, 'abc');
    assert.equal(notUuid.statusCode, 400);
    assert.equal(notUuid.json<{ title: string }>().title, 'validation_failed');

    const key = randomUUID();
    const first = await checkout(shop, { cartId, email: 'a@example.com' }, key);
    assert.equal(first.statusCode, 201);
    const replay = await checkout(shop, { email: 'a@example.com', cartId }, `"${key}"`);
    assert.equal(replay.statusCode, 201);
    assert.equal(replay.body, first.body, 'byte for byte');
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(first.headers['idempotent-replayed'], undefined);
    assert.deepEqual(await variant(shop, variantId), { on_hand: 5, reserved: 1 }, 'reserved once');

    const reused = await checkout(shop, { cartId, email: 'other@example.com' }, key);
    assert.equal(reused.statusCode, 422);
    assert.equal(reused.json<{ title: string }>().title, 'idempotency_key_reused');
  });

  test('concurrent identical checkouts with one key make one order', async () => {
    const shop = await createTestStore(t);
    const variantId = (await product(shop, 5)).variants[0]!.id;
    const cartId = await cart(shop, [{ variantId, quantity: 1 }]);
    const key = randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => checkout(shop, { cartId, email: 'a@example.com' }, key)),
    );
    const created = responses.filter((r) => r.statusCode === 201);
    assert.ok(created.length >= 1);
    for (const r of responses)
      assert.ok(
        r.statusCode === 201 ||
          (r.statusCode === 409 && r.json<{ title: string }>().title === 'idempotency_in_progress'),
        r.body,
      );
    assert.equal(new Set(created.map((r) => r.json<CheckoutBody>().order.id)).size, 1);
    const orders = await t.db.kysely
      .selectFrom('orders')
      .select('id')
      .where('store_id', '=', shop.store.id)
      .execute();
    assert.equal(orders.length, 1);
    assert.deepEqual(await variant(shop, variantId), { on_hand: 5, reserved: 1 });
  });

  test('a short line fails the whole checkout with each short variant; nothing is reserved; the refusal is replayed', async () => {
    const shop = await createTestStore(t);
    const a = (await product(shop, 5)).variants[0]!.id;
    const b = (await product(shop, 1)).variants[0]!.id;
    const c = (await product(shop, 0)).variants[0]!.id;
    const cartId = await cart(shop, [
      { variantId: a, quantity: 2 },
      { variantId: b, quantity: 3 },
      { variantId: c, quantity: 1 },
    ]);
    const key = randomUUID();
    const response = await checkout(shop, { cartId, email: 'a@example.com' }, key);
    assert.equal(response.statusCode, 409);
    const problem = response.json<{
      title: string;
      errors: { variantId: string; requested: number; available: number }[];
    }>();
    assert.equal(problem.title, 'insufficient_stock');
    assert.deepEqual(
      problem.errors.map((e) => [e.variantId, e.requested, e.available]).sort(),
      [
        [b, 3, 1],
        [c, 1, 0],
      ].sort(),
    );
    assert.deepEqual(await variant(shop, a), { on_hand: 5, reserved: 0 });
    const replay = await checkout(shop, { cartId, email: 'a@example.com' }, key);
    assert.equal(replay.statusCode, 409);
    assert.equal(replay.body, response.body);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(
      (await t.db.kysely.selectFrom('orders').select('id').where('store_id', '=', shop.store.id).execute())
        .length,
      0,
    );
  });

  test('N buyers race for fewer units: exactly the units are sold, order numbers unique', async () => {
    const shop = await createTestStore(t);
    const variantId = (await product(shop, 5)).variants[0]!.id;
    const carts = await Promise.all(
      Array.from({ length: 20 }, () => cart(shop, [{ variantId, quantity: 1 }])),
    );
    const responses = await Promise.all(
      carts.map((cartId) => checkout(shop, { cartId, email: 'race@example.com' })),
    );
    const won = responses.filter((r) => r.statusCode === 201);
    const lost = responses.filter((r) => r.statusCode === 409);
    assert.equal(won.length, 5);
    assert.equal(lost.length, 15);
    for (const r of lost) assert.equal(r.json<{ title: string }>().title, 'insufficient_stock');
    const numbers = won.map((r) => r.json<CheckoutBody>().order.number);
    assert.equal(new Set(numbers).size, 5);
    assert.deepEqual(await variant(shop, variantId), { on_hand: 5, reserved: 5 });
  });

  test('buyers racing for the last units who cannot get one are refused before a payment intent (decision `reservations-in-flight`)', async () => {
    const shop = await createTestStore(t);
    const variantId = (await product(shop, 4)).variants[0]!.id;
    const carts = await Promise.all(
      Array.from({ length: 40 }, () => cart(shop, [{ variantId, quantity: 1 }])),
    );
    const responses = await Promise.all(
      carts.map((cartId) => checkout(shop, { cartId, email: 'race@example.com' })),
    );
    assert.equal(responses.filter((r) => r.statusCode === 201).length, 4);
    assert.equal(responses.filter((r) => r.statusCode === 409).length, 36);
    const intents = await t.db.kysely
      .selectFrom('sandbox_intents')
      .select(['ref', 'status'])
      .where((eb) => eb(eb.ref('metadata', '->>').key('storeId'), '=', shop.store.id))
      .execute();
    // Without waiting for the reservations in flight, most of the 36 passed the pre-check, made an
    // intent, lost at the reservation and cancelled it.
    assert.ok(intents.length <= 8, `${intents.length} intents for 4 units`);
    assert.equal(intents.filter((intent) => intent.status !== 'canceled').length, 4);
    assert.deepEqual(await variant(shop, variantId), { on_hand: 4, reserved: 4 });
  });

  test('a price changed while the intent is made: the checkout quotes again and charges the new price', async () => {
    const shop = await createTestStore(t);
    const p = await product(shop, 5, 1000);
    const variantId = p.variants[0]!.id;
    const cartId = await cart(shop, [{ variantId, quantity: 2 }]);
    const { response, refs } = await checkoutWhileIntents(shop, cartId, changePrice(shop, variantId, [1500]));
    assert.equal(response.statusCode, 201, response.body);
    const body = response.json<CheckoutBody>();
    assert.deepEqual(body.order.total, { amount: 3000, currency: 'USD' });
    assert.deepEqual(await variant(shop, variantId), { on_hand: 5, reserved: 2 });
    // Two intents: the first, for the old total, cancelled; the second is the order's.
    assert.deepEqual(await intentStates(refs), [
      { amount: 2000, status: 'canceled' },
      { amount: 3000, status: 'requires_payment_method' },
    ]);
    assert.equal(refs[1], body.payment.ref);
  });

  test('prices that keep changing while checking out: 409 cart_changed, nothing reserved, every intent cancelled', async () => {
    const shop = await createTestStore(t);
    const p = await product(shop, 5, 1000);
    const variantId = p.variants[0]!.id;
    const cartId = await cart(shop, [{ variantId, quantity: 1 }]);
    const { response, refs } = await checkoutWhileIntents(
      shop,
      cartId,
      changePrice(shop, variantId, [1100, 1200, 1300]),
    );
    assert.equal(response.statusCode, 409, response.body);
    assert.equal(response.json<{ title: string }>().title, 'cart_changed');
    assert.deepEqual(await variant(shop, variantId), { on_hand: 5, reserved: 0 });
    assert.deepEqual(await intentStates(refs), [
      { amount: 1000, status: 'canceled' },
      { amount: 1100, status: 'canceled' },
      { amount: 1200, status: 'canceled' },
    ]);
    const orders = await t.db.kysely
      .selectFrom('orders')
      .select('id')
      .where('store_id', '=', shop.store.id)
      .execute();
    assert.deepEqual(orders, []);
    assert.equal(
      (await t.storefront(shop).put(`/carts/${cartId}`, { items: [] })).statusCode,
      200,
      'the cart is open',
    );
  });

  test('a product archived while the intent is made: 409 insufficient_stock, nothing reserved, the intent cancelled', async () => {
    const shop = await createTestStore(t);
    const p = await product(shop, 5, 1000);
    const variantId = p.variants[0]!.id;
    const cartId = await cart(shop, [{ variantId, quantity: 1 }]);
    const { response, refs } = await checkoutWhileIntents(shop, cartId, async () => {
      const archived = await t.admin(shop).patch(`/products/${p.id}`, { status: 'archived' });
      assert.equal(archived.statusCode, 200, archived.body);
    });
    assert.equal(response.statusCode, 409, response.body);
    assert.equal(response.json<{ title: string }>().title, 'insufficient_stock');
    assert.deepEqual(await variant(shop, variantId), { on_hand: 5, reserved: 0 });
    assert.deepEqual(await intentStates(refs), [{ amount: 1000, status: 'canceled' }]);
  });

  test('invalid checkout bodies are 400', async () => {
    const shop = await createTestStore(t);
    const cartId = await cart(shop, [{ variantId: (await product(shop, 5)).variants[0]!.id, quantity: 1 }]);
    for (const [body, pointer] of [
      [{ cartId, email: 'not-an-email' }, '/email'],
      [{ cartId, email: 'a@example.com', country: 'XX' }, '/country'],
      [{ cartId, email: 'a@example.com', country: 'USA' }, '/country'],
      [{ cartId: 'nope', email: 'a@example.com' }, '/cartId'],
      [{ email: 'a@example.com' }, '/cartId'],
      [{ cartId, email: 'a@example.com', extra: 1 }, '/extra'],
    ] as [object, string][]) {
      const response = await checkout(shop, body);
      assert.equal(response.statusCode, 400, JSON.stringify(body));
      assert.ok(
        response.json<{ errors: { pointer: string }[] }>().errors.some((e) => e.pointer === pointer),
        `${pointer}: ${response.body}`,
      );
    }
    assert.equal((await checkout(shop, { cartId: randomUUID(), email: 'a@example.com' })).statusCode, 404);
  });
});

describe('discounts, tax and shipping', () => {
  test('percent and fixed codes, tax by country, shipping; the parts add up', async () => {
    const shop = await createTestStore(t);
    const variantId = (await product(shop, 50, 1999)).variants[0]!.id;
    assert.equal(
      (await t.admin(shop).post('/discounts', { code: 'save10', kind: 'percent', value: 10 })).statusCode,
      201,
    );
    assert.equal(
      (await t.admin(shop).post('/discounts', { code: 'FIVE', kind: 'fixed', value: 500 })).statusCode,
      201,
    );
    assert.equal(
      (await t.admin(shop).put('/tax-rates/de', { taxRateBps: 1900, shippingAmount: 495 })).statusCode,
      200,
    );

    const percent = (
      await checkout(shop, {
        cartId: await cart(shop, [{ variantId, quantity: 3 }]),
        email: 'a@example.com',
        country: 'DE',
        discountCode: 'Save10',
      })
    ).json<CheckoutBody>();
    // 5997 − ⌊599.7⌋ = 5398; tax 19 % = 1025.62 → 1026; + 495 shipping.
    assert.deepEqual(
      [
        percent.order.subtotal.amount,
        percent.order.discount.amount,
        percent.order.tax.amount,
        percent.order.shipping.amount,
        percent.order.total.amount,
      ],
      [5997, 599, 1026, 495, 6919],
    );
    const fixed = (
      await checkout(shop, {
        cartId: await cart(shop, [{ variantId, quantity: 1 }]),
        email: 'a@example.com',
        country: 'FR',
        discountCode: 'five',
      })
    ).json<CheckoutBody>();
    assert.deepEqual(
      [
        fixed.order.subtotal.amount,
        fixed.order.discount.amount,
        fixed.order.tax.amount,
        fixed.order.shipping.amount,
        fixed.order.total.amount,
      ],
      [1999, 500, 0, 0, 1499],
    );
  });

  test('unknown, not yet started, expired and used-up codes are 409 discount_invalid', async () => {
    const shop = await createTestStore(t);
    const variantId = (await product(shop, 50)).variants[0]!.id;
    const day = 24 * 3600 * 1000;
    await t.admin(shop).post('/discounts', {
      code: 'LATER',
      kind: 'percent',
      value: 5,
      startsAt: new Date(Date.now() + day).toISOString(),
    });
    await t.admin(shop).post('/discounts', {
      code: 'OVER',
      kind: 'percent',
      value: 5,
      endsAt: new Date(Date.now() - 1000).toISOString(),
    });
    await t.admin(shop).post('/discounts', { code: 'ONCE', kind: 'fixed', value: 100, usageLimit: 1 });
    for (const code of ['NOPE', 'LATER', 'OVER']) {
      const response = await checkout(shop, {
        cartId: await cart(shop, [{ variantId, quantity: 1 }]),
        email: 'a@example.com',
        discountCode: code,
      });
      assert.equal(response.statusCode, 409, code);
      assert.equal(response.json<{ title: string }>().title, 'discount_invalid');
    }
    assert.equal(
      (
        await checkout(shop, {
          cartId: await cart(shop, [{ variantId, quantity: 1 }]),
          email: 'a@example.com',
          discountCode: 'ONCE',
        })
      ).statusCode,
      201,
    );
    const second = await checkout(shop, {
      cartId: await cart(shop, [{ variantId, quantity: 1 }]),
      email: 'a@example.com',
      discountCode: 'ONCE',
    });
    assert.equal(second.statusCode, 409);
    const list = (await t.admin(shop).get('/discounts')).json<{
      items: { code: string; usedCount: number }[];
    }>();
    assert.equal(list.items.find((d) => d.code === 'ONCE')?.usedCount, 1);
    assert.equal((await variant(shop, variantId)).reserved, 1, 'failed checkouts reserved nothing');
  });
});

describe('payment', () => {
  test('a confirmed payment arrives by signed webhook: paid, reservation becomes a sale, order.paid, confirmation mail', async () => {
    const shop = await createTestStore(t);
    await t.admin(shop).put('/settings', { replyToEmail: 'help@shop.example' });
    const variantId = (await product(shop, 5, 700)).variants[0]!.id;
    const body = (
      await checkout(shop, {
        cartId: await cart(shop, [{ variantId, quantity: 2 }]),
        email: 'buyer@example.com',
      })
    ).json<CheckoutBody>();
    const confirmed = await confirm(body.payment.ref, body.payment.clientSecret);
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    await waitFor(async () => (await order(shop, body.order.id)).status === 'paid', 5000, 'order paid');
    assert.equal((await order(shop, body.order.id)).payment.status, 'succeeded');
    assert.deepEqual(await variant(shop, variantId), { on_hand: 3, reserved: 0 });
    const paid = (await listEvents(t.db.kysely, shop.store.id, { type: 'order.paid' }))[0];
    assert.deepEqual(paid?.data, {
      orderId: body.order.id,
      number: 1001,
      total: { amount: 1400, currency: 'USD' },
      storeId: shop.store.id,
    });

    const mail = await waitForMail(t, 'buyer@example.com');
    assert.match(mail.subject ?? '', /Order #1001/);
    assert.equal(mail.replyTo?.value[0]?.address, 'help@shop.example');
    assert.equal(mail.from?.value[0]?.name, shop.store.name);
  });

  test('a wrong client secret is 404 and a declined card leaves the order pending for another try', async () => {
    const shop = await createTestStore(t);
    const variantId = (await product(shop, 5)).variants[0]!.id;
    const body = (
      await checkout(shop, { cartId: await cart(shop, [{ variantId, quantity: 1 }]), email: 'b@example.com' })
    ).json<CheckoutBody>();
    assert.equal((await confirm(body.payment.ref, 'wrong')).statusCode, 404);
    assert.equal(
      (await confirm(body.payment.ref, body.payment.clientSecret, 'pm_card_declined')).statusCode,
      200,
    );
    await waitFor(
      async () => (await order(shop, body.order.id)).payment.status === 'failed',
      5000,
      'payment failed',
    );
    assert.equal((await order(shop, body.order.id)).status, 'pending');
    assert.equal(
      (await confirm(body.payment.ref, body.payment.clientSecret, 'pm_card_visa')).statusCode,
      200,
    );
    await waitFor(async () => (await order(shop, body.order.id)).status === 'paid', 5000, 'paid on retry');
  });

  test('unsigned or tampered webhooks are 400 and change nothing; a repeated event has one effect', async () => {
    const shop = await createTestStore(t);
    const variantId = (await product(shop, 5)).variants[0]!.id;
    const body = (
      await checkout(shop, { cartId: await cart(shop, [{ variantId, quantity: 1 }]), email: 'c@example.com' })
    ).json<CheckoutBody>();
    const sandbox = t.runtime.payments.sandbox!;
    const event = paymentSucceeded(shop, body, `evt_test_${randomUUID()}`);
    const post = (payload: string, headers: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: '/payments/webhooks/sandbox',
        headers: { 'content-type': 'application/json', ...headers },
        payload,
      });

    const unsigned = await post(event, {});
    assert.equal(unsigned.statusCode, 400);
    assert.equal(unsigned.json<{ title: string }>().title, 'invalid_signature');
    const tampered = await post(event.replace(body.payment.ref, 'pi_sbx_other'), {
      'sandbox-signature': sandbox.sign(event),
    });
    assert.equal(tampered.statusCode, 400);
    const old = await post(event, {
      'sandbox-signature': sandbox.sign(event, Math.floor(Date.now() / 1000) - 3600),
    });
    assert.equal(old.statusCode, 400);
    assert.equal((await order(shop, body.order.id)).status, 'pending');
    assert.equal(
      (
        await t.db.kysely
          .selectFrom('provider_events')
          .select('event_id')
          .where('store_id', '=', shop.store.id)
          .execute()
      ).length,
      0,
    );

    const signed = { 'sandbox-signature': sandbox.sign(event) };
    const first = await post(event, signed);
    assert.equal(first.statusCode, 200);
    assert.equal(first.json<{ result: string }>().result, 'applied');
    const second = await post(event, signed);
    assert.equal(second.json<{ result: string }>().result, 'duplicate');
    assert.deepEqual(await variant(shop, variantId), { on_hand: 4, reserved: 0 });
    assert.equal((await listEvents(t.db.kysely, shop.store.id, { type: 'order.paid' })).length, 1);
  });
});

describe('expiry', () => {
  test('an unpaid order expires, releasing its stock; a late payment takes the stock again', async () => {
    const shop = await createTestStore(t);
    const variantId = (await product(shop, 3)).variants[0]!.id;
    const body = (
      await checkout(shop, { cartId: await cart(shop, [{ variantId, quantity: 2 }]), email: 'd@example.com' })
    ).json<CheckoutBody>();
    await expireUnpaidOrders();
    assert.equal((await order(shop, body.order.id)).status, 'expired');
    assert.equal((await order(shop, body.order.id)).payment.status, 'canceled');
    assert.deepEqual(await variant(shop, variantId), { on_hand: 3, reserved: 0 });
    const inventory = await listEvents(t.db.kysely, shop.store.id, { type: 'inventory.updated' });
    assert.deepEqual(
      inventory.map((e) => e.data.available),
      [1, 3],
    );

    // The provider reports success late (the intent was confirmed just before it was cancelled).
    await t.db.kysely
      .updateTable('sandbox_intents')
      .set({ status: 'succeeded' })
      .where('ref', '=', body.payment.ref)
      .execute();
    const sandbox = t.runtime.payments.sandbox!;
    const event = paymentSucceeded(shop, body, `evt_late_${randomUUID()}`);
    const late = await t.app.inject({
      method: 'POST',
      url: '/payments/webhooks/sandbox',
      headers: { 'content-type': 'application/json', 'sandbox-signature': sandbox.sign(event) },
      payload: event,
    });
    assert.equal(late.statusCode, 200);
    assert.equal((await order(shop, body.order.id)).status, 'paid');
    assert.deepEqual(await variant(shop, variantId), { on_hand: 1, reserved: 0 });
  });

  test('a late payment for an expired order whose stock is gone is refunded in full', async () => {
    const shop = await createTestStore(t);
    const variantId = (await product(shop, 1)).variants[0]!.id;
    const body = (
      await checkout(shop, { cartId: await cart(shop, [{ variantId, quantity: 1 }]), email: 'e@example.com' })
    ).json<CheckoutBody>();
    await expireUnpaidOrders();
    // Someone else buys the last unit.
    const other = (
      await checkout(shop, { cartId: await cart(shop, [{ variantId, quantity: 1 }]), email: 'f@example.com' })
    ).json<CheckoutBody>();
    assert.equal(other.order.status, 'pending');
    // The first buyer's payment succeeds after all.
    await t.db.kysely
      .updateTable('sandbox_intents')
      .set({ status: 'requires_payment_method' })
      .where('ref', '=', body.payment.ref)
      .execute();
    assert.equal((await confirm(body.payment.ref, body.payment.clientSecret)).statusCode, 200);
    await waitFor(
      async () => {
        const refund = await t.db.kysely
          .selectFrom('refunds')
          .selectAll()
          .where('store_id', '=', shop.store.id)
          .where('order_id', '=', body.order.id)
          .executeTakeFirst();
        return refund?.status === 'succeeded' ? refund : undefined;
      },
      5000,
      'automatic refund settled',
    );
    const current = await order(shop, body.order.id);
    assert.equal(current.status, 'expired');
    assert.equal(current.refunded.amount, body.order.total.amount);
    assert.deepEqual(
      await variant(shop, variantId),
      { on_hand: 1, reserved: 1 },
      "the other buyer's reservation is untouched",
    );
  });

  test('an order whose payment already succeeded at the provider is paid, not expired', async () => {
    const shop = await createTestStore(t);
    const variantId = (await product(shop, 2)).variants[0]!.id;
    const body = (
      await checkout(shop, { cartId: await cart(shop, [{ variantId, quantity: 1 }]), email: 'g@example.com' })
    ).json<CheckoutBody>();
    // Succeeded at the provider, but its webhook was lost.
    await t.db.kysely
      .updateTable('sandbox_intents')
      .set({ status: 'succeeded' })
      .where('ref', '=', body.payment.ref)
      .execute();
    await expireUnpaidOrders();
    assert.equal((await order(shop, body.order.id)).status, 'paid');
    assert.deepEqual(await variant(shop, variantId), { on_hand: 1, reserved: 0 });
  });
});

describe('refunds and order reads', () => {
  test('partial and full refunds settle by webhook; over-refunds are refused', async () => {
    const shop = await createTestStore(t);
    const variantId = (await product(shop, 5, 1000)).variants[0]!.id;
    const body = (
      await checkout(shop, { cartId: await cart(shop, [{ variantId, quantity: 2 }]), email: 'h@example.com' })
    ).json<CheckoutBody>();
    const unpaid = await t.admin(shop).post(`/orders/${body.order.id}/refunds`, { amount: 100 });
    assert.equal(unpaid.statusCode, 409);
    await confirm(body.payment.ref, body.payment.clientSecret);
    await waitFor(async () => (await order(shop, body.order.id)).status === 'paid', 5000, 'paid');

    const partial = await t.admin(shop).post(`/orders/${body.order.id}/refunds`, { amount: 500 });
    assert.equal(partial.statusCode, 202, partial.body);
    await waitFor(
      async () => (await order(shop, body.order.id)).refunded.amount === 500,
      5000,
      'partial refund',
    );
    const tooMuch = await t.admin(shop).post(`/orders/${body.order.id}/refunds`, { amount: 1501 });
    assert.equal(tooMuch.statusCode, 409);
    assert.equal(
      (await t.admin(shop).post(`/orders/${body.order.id}/refunds`, { amount: 1500 })).statusCode,
      202,
    );
    await waitFor(
      async () => (await order(shop, body.order.id)).refunded.amount === 2000,
      5000,
      'full refund',
    );
    const refunded = await listEvents(t.db.kysely, shop.store.id, { type: 'order.refunded' });
    assert.deepEqual(
      refunded.map((e) => [
        (e.data.amount as { amount: number }).amount,
        (e.data.refunded as { amount: number }).amount,
      ]),
      [
        [500, 500],
        [1500, 2000],
      ],
    );
    // The confirmation and the two refund notices; the mail worker may send them in one batch, in
    // any order within a millisecond, so they are counted, not taken in order.
    await waitForMail(t, 'h@example.com', 3);
    const dir = t.config.emailTransport.kind === 'file' ? t.config.emailTransport.dir : '';
    const subjects = (await readMailDir(dir))
      .filter((mail) => addressesOf(mail).includes('h@example.com'))
      .map((mail) => mail.subject ?? '');
    assert.equal(subjects.filter((subject) => /Refund/.test(subject)).length, 2, subjects.join(' | '));
    assert.equal(subjects.filter((subject) => /confirmed/.test(subject)).length, 1, subjects.join(' | '));

    const detail = (await t.admin(shop).get(`/orders/${body.order.id}`)).json<{
      refunds: { status: string }[];
      payments: { status: string }[];
      lines: unknown[];
    }>();
    assert.deepEqual(
      detail.refunds.map((r) => r.status),
      ['succeeded', 'succeeded'],
    );
    assert.deepEqual(
      detail.payments.map((p) => p.status),
      ['succeeded'],
    );
    assert.equal(detail.lines.length, 1);
  });

  test('admin lists orders by status; buyers read only their store', async () => {
    const shop = await createTestStore(t);
    const other = await createTestStore(t);
    const variantId = (await product(shop, 5)).variants[0]!.id;
    const body = (
      await checkout(shop, { cartId: await cart(shop, [{ variantId, quantity: 1 }]), email: 'i@example.com' })
    ).json<CheckoutBody>();
    const list = (await t.admin(shop).get('/orders?status=pending')).json<{ items: { id: string }[] }>();
    assert.deepEqual(
      list.items.map((o) => o.id),
      [body.order.id],
    );
    assert.deepEqual((await t.admin(shop).get('/orders?status=paid')).json<{ items: unknown[] }>().items, []);
    assert.equal((await t.storefront(other).get(`/orders/${body.order.id}`)).statusCode, 404);
    assert.equal((await t.admin(other).get(`/orders/${body.order.id}`)).statusCode, 404);
    const read = await t.storefront(shop).get(`/orders/${body.order.id}`);
    assert.equal(read.statusCode, 200);
    assert.equal(read.headers['cache-control'], 'no-store');
    assert.equal(read.json<{ payment: { provider: string } }>().payment.provider, 'sandbox');
  });

  test("the storefront order view masks the buyer's address; the checkout answer and the Admin API show it", async () => {
    const shop = await createTestStore(t);
    const variantId = (await product(shop, 5)).variants[0]!.id;
    const cartId = await cart(shop, [{ variantId, quantity: 1 }]);
    const made = await checkout(shop, { cartId, email: 'Buyer.Name@Example.com' });
    const body = made.json<CheckoutBody & { order: { email: string } }>();
    assert.equal(body.order.email, 'buyer.name@example.com', 'the buyer who typed it sees it');

    const read = await t.storefront(shop).get(`/orders/${body.order.id}`);
    assert.equal(read.json<{ email: string }>().email, 'b•••@example.com');
    assert.doesNotMatch(read.body, /buyer\.name/, 'the address is nowhere in the view');
    const staff = await t.admin(shop).get(`/orders/${body.order.id}`);
    assert.equal(staff.json<{ email: string }>().email, 'buyer.name@example.com');
  });

  test('how an address is masked', () => {
    assert.equal(maskEmail('buyer@example.com'), 'b•••@example.com');
    assert.equal(maskEmail('bo@example.com'), 'b•••@example.com');
    assert.equal(maskEmail('i@example.com'), '•••@example.com', 'a one-character local part is not shown');
    assert.equal(maskEmail('"a@b"@example.com'), '"•••@example.com', 'the domain follows the last @');
    assert.equal(maskEmail('😀x@example.com'), '😀•••@example.com', 'a character, not half of one');
    assert.equal(maskEmail('erased'), '•••');
  });
});
