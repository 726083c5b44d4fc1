/**
 * Gift cards as a way to pay (decision `gift-card-tender`): entered on the cart by code, each pays
 * what is left after discounts, shipping and tax up to its balance (never gift-card lines); the
 * checkout holds it in its transaction and asks the provider only for the rest; an order the cards
 * pay whole is paid at once; the hold is spent on payment and given back on expiry or
 * cancellation; two checkouts spending one card's whole balance at once: one wins.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { expireOrders } from '../orders/expiry.service.ts';
import { applyProviderEvent } from '../orders/provider-events.service.ts';
import { paymentDeps } from '../orders/orders.test-support.ts';
import { ok, problem } from '../test/answers.ts';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../test/harness.ts';

let t: TestApp;
before(async () => (t = await startTestApp()));
after(() => t.close());

interface Money {
  amount: number;
  currency: string;
}
interface Cart {
  id: string;
  giftCards: { last4: string; amount: Money; balance: Money }[];
  totals: Record<'subtotal' | 'discount' | 'shipping' | 'tax' | 'total' | 'amountDue', Money>;
  items: { variantId: string; discount?: Money }[];
  notices: { code: string; giftCard?: string; reason?: string }[];
}
interface Order {
  id: string;
  status: string;
  total: Money;
  amountDue: Money;
  giftCards: { last4: string; amount: Money }[];
  paidAt: string | null;
}
interface Placed {
  order: Order;
  payment: { provider: string; ref: string; status: string; amount: Money; clientSecret: string };
}
interface Card {
  id: string;
  code?: string;
  last4: string;
  balance: Money;
}

/** A USD store: a shirt at 20.00, a $50 gift card product, no shipping zones (ships free, untaxed). */
async function store(): Promise<{ shop: TestStore; shirt: string; giftCardVariant: string }> {
  const shop = await createTestStore(t, { currency: 'USD' });
  const admin = t.admin(shop);
  const shirt = await ok<{ variants: { id: string }[] }>(
    admin.post('/products', {
      title: 'Shirt',
      status: 'active',
      variants: [{ label: 'M', onHand: 100, priceAmount: 2000 }],
    }),
    201,
  );
  const card = await ok<{ variants: { id: string }[] }>(
    admin.post('/products', {
      title: 'Gift card',
      status: 'active',
      giftCard: true,
      variants: [{ label: '$50', onHand: 100, priceAmount: 5000 }],
    }),
    201,
  );
  return { shop, shirt: shirt.variants[0]!.id, giftCardVariant: card.variants[0]!.id };
}

const issue = (shop: TestStore, amount: number, extra: object = {}) =>
  ok<Card>(t.admin(shop).post('/gift-cards', { initialAmount: amount, currency: 'USD', ...extra }), 201);

const balanceOf = async (shop: TestStore, card: Card) =>
  (await ok<Card>(t.admin(shop).get(`/gift-cards/${card.id}`))).balance.amount;

const newCart = (shop: TestStore, items: { variantId: string; quantity: number }[]) =>
  ok<Cart>(t.storefront(shop).post('/carts', { items }), 201);

const checkout = (shop: TestStore, cartId: string, extra: object = {}) =>
  t
    .storefront(shop)
    .post('/checkout', { cartId, email: 'ada@example.com', ...extra }, { 'idempotency-key': randomUUID() });

const ledgerKinds = async (shop: TestStore, card: Card) =>
  (
    await t.db.kysely
      .selectFrom('gift_card_ledger')
      .select('kind')
      .where('store_id', '=', shop.store.id)
      .where('gift_card_id', '=', card.id)
      .orderBy('created_at')
      .orderBy('id')
      .execute()
  ).map((row) => row.kind);

describe('gift cards on the cart', () => {
  test('a code in any case pays what is left, up to its balance; amountDue is the rest; removing it by its last 4', async () => {
    const { shop, shirt } = await store();
    const small = await issue(shop, 1500);
    const big = await issue(shop, 10_000);
    const cart = await newCart(shop, [{ variantId: shirt, quantity: 2 }]);
    const typed = small.code!.toLowerCase().replaceAll('-', ' ');
    const one = await ok<Cart>(t.storefront(shop).post(`/carts/${cart.id}/gift-cards`, { code: typed }));
    assert.deepEqual(one.giftCards, [
      {
        last4: small.last4,
        amount: { amount: 1500, currency: 'USD' },
        balance: { amount: 1500, currency: 'USD' },
      },
    ]);
    assert.equal(one.totals.total.amount, 4000);
    assert.equal(one.totals.amountDue.amount, 2500);
    const two = await ok<Cart>(t.storefront(shop).post(`/carts/${cart.id}/gift-cards`, { code: big.code }));
    assert.deepEqual(
      two.giftCards.map((card) => [card.last4, card.amount.amount]),
      [
        [small.last4, 1500],
        [big.last4, 2500],
      ],
    );
    assert.equal(two.totals.amountDue.amount, 0);
    // The same card again changes nothing; the cart keeps ids, never codes.
    const again = await ok<Cart>(t.storefront(shop).post(`/carts/${cart.id}/gift-cards`, { code: big.code }));
    assert.equal(again.giftCards.length, 2);
    const row = await t.db.kysely
      .selectFrom('carts')
      .selectAll()
      .where('id', '=', cart.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row.gift_card_ids, [small.id, big.id]);
    assert.ok(!JSON.stringify(row).includes(big.code!.replaceAll('-', '')));
    const removed = await ok<Cart>(
      t.storefront(shop).delete(`/carts/${cart.id}/gift-cards/${small.last4.toLowerCase()}`),
    );
    assert.deepEqual(
      removed.giftCards.map((card) => [card.last4, card.amount.amount]),
      [[big.last4, 4000]],
    );
    assert.equal(removed.totals.amountDue.amount, 0);
  });

  test('an unknown code, a disabled or foreign-currency card are 409 gift_card_invalid; a card disabled later pays nothing, with a notice', async () => {
    const { shop, shirt } = await store();
    const cart = await newCart(shop, [{ variantId: shirt, quantity: 1 }]);
    const storefront = t.storefront(shop);
    const unknown = await problem(
      storefront.post(`/carts/${cart.id}/gift-cards`, { code: 'AAAA-BBBB-CCCC-DDDD' }),
      409,
    );
    assert.equal(unknown.title, 'gift_card_invalid');
    const euro = await ok<Card>(
      t.admin(shop).post('/gift-cards', { initialAmount: 1000, currency: 'EUR' }),
      201,
    );
    const foreign = await problem(storefront.post(`/carts/${cart.id}/gift-cards`, { code: euro.code }), 409);
    assert.equal(foreign.title, 'gift_card_invalid');
    assert.match(foreign.detail!, /another currency/);
    const card = await issue(shop, 500);
    await ok(storefront.post(`/carts/${cart.id}/gift-cards`, { code: card.code }));
    await ok(t.admin(shop).patch(`/gift-cards/${card.id}`, { disabled: true }));
    const read = await ok<Cart>(storefront.get(`/carts/${cart.id}`));
    assert.equal(read.giftCards[0]!.amount.amount, 0);
    assert.equal(read.totals.amountDue.amount, read.totals.total.amount);
    assert.deepEqual(
      read.notices.map(({ code, giftCard, reason }) => ({ code, giftCard, reason })),
      [{ code: 'gift_card_unusable', giftCard: card.last4, reason: 'disabled' }],
    );
    const refused = await checkout(shop, cart.id);
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal((JSON.parse(refused.body) as { title: string }).title, 'gift_card_invalid');
  });

  test('each code a client tries spends one of its guesses: past RATE_LIMIT_GIFT_CARD, 429 even for the right code', async () => {
    const { shop, shirt } = await store();
    const card = await issue(shop, 500);
    const cart = await newCart(shop, [{ variantId: shirt, quantity: 1 }]);
    const budget = t.config.rateLimits.giftCardGuesses;
    for (let i = 0; i < budget; i++)
      await problem(
        t.storefront(shop).post(`/carts/${cart.id}/gift-cards`, { code: `AAAA-BBBB-CCCC-${1000 + i}` }),
        409,
      );
    const limited = await t.storefront(shop).post(`/carts/${cart.id}/gift-cards`, { code: card.code });
    assert.equal(limited.statusCode, 429, limited.body);
    assert.ok(Number(limited.headers['retry-after']) > 0);
    const checkedOut = await checkout(shop, cart.id, { giftCards: [card.code] });
    assert.equal(checkedOut.statusCode, 429, 'the checkout’s codes spend the same guesses');
  });

  test('gift cards never pay for gift-card lines, and promotions never discount them', async () => {
    const { shop, shirt, giftCardVariant } = await store();
    await ok(
      t.admin(shop).post('/promotions', {
        name: '10 % off everything',
        automatic: true,
        action: { kind: 'percent', value: 10 },
      }),
      201,
    );
    const card = await issue(shop, 100_000);
    const cart = await newCart(shop, [
      { variantId: shirt, quantity: 1 },
      { variantId: giftCardVariant, quantity: 1 },
    ]);
    const priced = await ok<Cart>(
      t.storefront(shop).post(`/carts/${cart.id}/gift-cards`, { code: card.code }),
    );
    assert.deepEqual(
      priced.items.map((item) => item.discount?.amount),
      [200, 0],
      'the shirt gets its 10 %, the gift card nothing',
    );
    assert.equal(priced.totals.total.amount, 1800 + 5000);
    assert.equal(priced.giftCards[0]!.amount.amount, 1800);
    assert.equal(priced.totals.amountDue.amount, 5000);
  });
});

describe('gift cards at checkout', () => {
  test('a card pays part: the provider is asked for the rest; paying spends the hold; the order shows both', async () => {
    const { shop, shirt } = await store();
    const card = await issue(shop, 1500);
    const cart = await newCart(shop, [{ variantId: shirt, quantity: 2 }]);
    const placed = await ok<Placed>(checkout(shop, cart.id, { giftCards: [card.code] }), 201);
    assert.equal(placed.order.status, 'pending');
    assert.deepEqual(placed.payment.amount, { amount: 2500, currency: 'USD' });
    assert.equal(placed.payment.provider, 'sandbox');
    assert.deepEqual(placed.order.amountDue, { amount: 2500, currency: 'USD' });
    assert.deepEqual(placed.order.giftCards, [
      { last4: card.last4, amount: { amount: 1500, currency: 'USD' } },
    ]);
    assert.equal(await balanceOf(shop, card), 0, 'held at checkout');
    assert.deepEqual(await ledgerKinds(shop, card), ['issue', 'reserve']);
    const applied = await applyProviderEvent(paymentDeps(t), {
      id: `evt_${randomUUID()}`,
      kind: 'payment.succeeded',
      ref: placed.payment.ref,
      amount: 2500,
      metadata: { storeId: shop.store.id, orderId: placed.order.id },
    });
    assert.equal(applied, 'applied');
    const order = await ok<Order>(t.admin(shop).get(`/orders/${placed.order.id}`));
    assert.equal(order.status, 'paid');
    assert.deepEqual(await ledgerKinds(shop, card), ['issue', 'reserve', 'commit']);
    assert.equal(await balanceOf(shop, card), 0);
  });

  test('cards that pay it all: the order is paid at checkout, no provider asked; cancelling it gives the cards their money back', async () => {
    const { shop, shirt } = await store();
    const card = await issue(shop, 10_000);
    const cart = await newCart(shop, [{ variantId: shirt, quantity: 1 }]);
    await ok(t.storefront(shop).post(`/carts/${cart.id}/gift-cards`, { code: card.code }));
    const placed = await ok<Placed>(checkout(shop, cart.id), 201);
    assert.equal(placed.order.status, 'paid');
    assert.ok(placed.order.paidAt);
    assert.deepEqual(placed.order.amountDue, { amount: 0, currency: 'USD' });
    assert.deepEqual(
      [placed.payment.provider, placed.payment.status, placed.payment.amount.amount],
      ['gift_card', 'succeeded', 0],
    );
    assert.equal(await balanceOf(shop, card), 8000);
    assert.deepEqual(await ledgerKinds(shop, card), ['issue', 'reserve', 'commit']);
    const events = await t.db.kysely
      .selectFrom('events')
      .select('type')
      .where('store_id', '=', shop.store.id)
      .where('resource_key', '=', `order:${placed.order.id}`)
      .execute();
    assert.deepEqual(events.map((event) => event.type).sort(), ['order.created', 'order.paid']);
    const confirmation = await t.db.kysely
      .selectFrom('mail_outbox')
      .select(['kind', 'text_body'])
      .where('store_id', '=', shop.store.id)
      .where('kind', '=', 'order_confirmation')
      .execute();
    assert.equal(confirmation.length, 1);
    assert.match(confirmation[0]!.text_body, new RegExp(`Gift card ending ${card.last4} +−\\$20\\.00`));
    assert.match(confirmation[0]!.text_body, /Charged +\$0\.00/);

    await ok(t.admin(shop).post(`/orders/${placed.order.id}/cancel`, {}));
    assert.equal(await balanceOf(shop, card), 10_000);
    const order = await ok<Order & { refunded: Money }>(t.admin(shop).get(`/orders/${placed.order.id}`));
    assert.equal(order.status, 'cancelled');
    assert.equal(order.refunded.amount, 2000);
  });

  test('an order that expires unpaid gives its hold back; so does cancelling a pending one', async () => {
    const { shop, shirt } = await store();
    const card = await issue(shop, 1000);
    const first = await newCart(shop, [{ variantId: shirt, quantity: 1 }]);
    const placed = await ok<Placed>(checkout(shop, first.id, { giftCards: [card.code] }), 201);
    assert.equal(placed.payment.amount.amount, 1000);
    assert.equal(await balanceOf(shop, card), 0);
    t.clock.advance(t.config.payments.orderTtlMs + 60_000);
    try {
      await expireOrders(paymentDeps(t));
    } finally {
      t.clock.advance(-(t.config.payments.orderTtlMs + 60_000));
    }
    assert.equal((await ok<Order>(t.admin(shop).get(`/orders/${placed.order.id}`))).status, 'expired');
    assert.equal(await balanceOf(shop, card), 1000);
    assert.deepEqual(await ledgerKinds(shop, card), ['issue', 'reserve', 'release']);

    const second = await newCart(shop, [{ variantId: shirt, quantity: 1 }]);
    const again = await ok<Placed>(checkout(shop, second.id, { giftCards: [card.code] }), 201);
    assert.equal(await balanceOf(shop, card), 0);
    await ok(t.admin(shop).post(`/orders/${again.order.id}/cancel`, {}));
    assert.equal(await balanceOf(shop, card), 1000);
  });

  test('two checkouts spending one card’s whole balance at once: exactly one is placed, the other is 409', async () => {
    const { shop, shirt } = await store();
    const card = await issue(shop, 2000);
    const carts = await Promise.all([1, 2].map(() => newCart(shop, [{ variantId: shirt, quantity: 1 }])));
    const answers = await Promise.all(
      carts.map((cart) => checkout(shop, cart.id, { giftCards: [card.code] })),
    );
    const statuses = answers.map((answer) => answer.statusCode).sort();
    assert.deepEqual(statuses, [201, 409], answers.map((answer) => answer.body).join('\n'));
    const refused = answers.find((answer) => answer.statusCode === 409)!;
    assert.match(
      (JSON.parse(refused.body) as { title: string }).title,
      /^gift_card_(balance_too_low|invalid)$/,
    );
    assert.equal(await balanceOf(shop, card), 0);
    const orders = await t.db.kysely
      .selectFrom('orders')
      .select('id')
      .where('store_id', '=', shop.store.id)
      .execute();
    assert.equal(orders.length, 1, 'no order for the refused checkout');
  });
});

describe('refunds of orders gift cards paid (decision `gift-card-tender`)', () => {
  interface Refund {
    amount: Money;
    status: string;
    giftCards: boolean;
    reason: string | null;
  }
  interface Started {
    refund: Refund;
    giftCardRefund?: Refund;
  }

  /** An order of two shirts (40.00), 15.00 of it paid by a card, the rest by the provider, paid. */
  async function paidMixed() {
    const { shop, shirt } = await store();
    const card = await issue(shop, 1500);
    const cart = await newCart(shop, [{ variantId: shirt, quantity: 2 }]);
    const placed = await ok<Placed>(checkout(shop, cart.id, { giftCards: [card.code] }), 201);
    // The buyer pays the rest at the sandbox (so that it can refund), and its event arrives.
    const confirmed = await t.app.inject({
      method: 'POST',
      url: `/sandbox/v1/payments/${placed.payment.ref}/confirm`,
      payload: { clientSecret: placed.payment.clientSecret, paymentMethod: 'pm_card_visa' },
    });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    await applyProviderEvent(paymentDeps(t), {
      id: `evt_${randomUUID()}`,
      kind: 'payment.succeeded',
      ref: placed.payment.ref,
      amount: placed.payment.amount.amount,
      metadata: { storeId: shop.store.id, orderId: placed.order.id },
    });
    return { shop, shirt, card, orderId: placed.order.id };
  }

  test('a staff refund goes back to the cards first, at once; the provider refunds the rest', async () => {
    const { shop, card, orderId } = await paidMixed();
    const started = await ok<Started>(
      t.admin(shop).post(`/orders/${orderId}/refunds`, { amount: 2000 }),
      202,
    );
    assert.deepEqual(
      [started.refund.amount.amount, started.refund.giftCards, started.refund.status],
      [500, false, 'pending'],
    );
    assert.deepEqual(
      [
        started.giftCardRefund?.amount.amount,
        started.giftCardRefund?.giftCards,
        started.giftCardRefund?.status,
      ],
      [1500, true, 'succeeded'],
    );
    assert.equal(await balanceOf(shop, card), 1500);
    assert.deepEqual(await ledgerKinds(shop, card), ['issue', 'reserve', 'commit', 'refund']);
    // The cards' refund mail says where that money went (the provider's, when it settles, says the
    // statement).
    const notices = await t.db.kysely
      .selectFrom('mail_outbox')
      .select('text_body')
      .where('store_id', '=', shop.store.id)
      .where('kind', '=', 'refund_notice')
      .execute();
    const cardsNotice = notices.find((notice) => notice.text_body.includes('has refunded $15.00'));
    assert.match(cardsNotice?.text_body ?? '', /It is back on the balance of the gift card it was paid with/);
    assert.doesNotMatch(cardsNotice?.text_body ?? '', /statement/);
    const order = await ok<{ refunded: Money; refunds: Refund[] }>(t.admin(shop).get(`/orders/${orderId}`));
    assert.ok(
      [1500, 2000].includes(order.refunded.amount),
      `the cards’ part is refunded already; the provider’s when the sandbox settles it (${order.refunded.amount})`,
    );
    // Nothing more than was paid: 40.00 − 20.00 = 20.00 left, all of it the provider’s.
    const over = await t.admin(shop).post(`/orders/${orderId}/refunds`, { amount: 2001 });
    assert.equal(over.statusCode, 409, over.body);
    assert.equal((JSON.parse(over.body) as { title: string }).title, 'refund_too_large');
  });

  test('giftCardsFirst: false refunds through the provider first; the cards take only what is over', async () => {
    const { shop, card, orderId } = await paidMixed();
    const first = await ok<Started>(
      t.admin(shop).post(`/orders/${orderId}/refunds`, { amount: 2000, giftCardsFirst: false }),
      202,
    );
    assert.deepEqual([first.refund.amount.amount, first.giftCardRefund], [2000, undefined]);
    assert.equal(await balanceOf(shop, card), 0);
    const second = await ok<Started>(
      t.admin(shop).post(`/orders/${orderId}/refunds`, { amount: 1000, giftCardsFirst: false }),
      202,
    );
    assert.deepEqual([second.refund.amount.amount, second.refund.giftCards], [500, false]);
    assert.equal(second.giftCardRefund?.amount.amount, 500);
    assert.equal(await balanceOf(shop, card), 500);
  });

  test('an order the cards paid whole: a refund and a return pay back to the card', async () => {
    const { shop, shirt } = await store();
    const card = await issue(shop, 10_000);
    const cart = await newCart(shop, [{ variantId: shirt, quantity: 2 }]);
    const placed = await ok<Placed>(checkout(shop, cart.id, { giftCards: [card.code] }), 201);
    assert.equal(placed.order.status, 'paid');
    const started = await ok<Started>(
      t.admin(shop).post(`/orders/${placed.order.id}/refunds`, { amount: 700 }),
      202,
    );
    assert.deepEqual(
      [started.refund.amount.amount, started.refund.giftCards, started.giftCardRefund],
      [700, true, undefined],
    );
    assert.equal(await balanceOf(shop, card), 10_000 - 4000 + 700);
    await ok(
      t
        .admin(shop)
        .post(`/orders/${placed.order.id}/fulfillments`, { lines: [{ variantId: shirt, quantity: 2 }] }),
      201,
    );
    const returned = await ok<{ refundAmount: Money }>(
      t.admin(shop).post(`/orders/${placed.order.id}/returns`, {
        lines: [{ variantId: shirt, quantity: 1 }],
        refundAmount: 2000,
      }),
      201,
    );
    assert.equal(returned.refundAmount.amount, 2000);
    assert.equal(await balanceOf(shop, card), 10_000 - 4000 + 2700);
  });
});
