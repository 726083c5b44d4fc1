/**
 * Unpaid checkouts cannot hoard (decision `pending-orders-per-client`): at most PENDING_ORDERS_PER_CLIENT pending orders per
 * client address in a store (429 too_many_pending_orders, with Retry-After until the first of them
 * expires), counted exactly under concurrency, and never per email (anyone can type anyone's); a
 * discount's use is reserved at checkout and given back when the order expires, so unpaid checkouts
 * cannot use a limited code up; and an unpaid order whose buyer never tried to pay holds its stock
 * and code only for PAYMENT_HOLD.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startTestApp, testConfig, type TestApp } from '../test/harness.ts';
import { US_ADDRESS } from '../test/addresses.ts';
import { expireOrders } from './expiry.service.ts';
import { paymentDeps, ShopDriver, type CheckoutBody } from './orders.test-support.ts';

const LIMIT = 5;
let t: TestApp;
before(async () => {
  t = await startTestApp({
    config: { payments: { ...testConfig().payments, pendingOrdersPerClient: LIMIT } },
  });
});
after(() => t.close());

/** POST /checkout as the client at `ip`. */
function checkoutAt(shop: ShopDriver, ip: string, key: string, body: object) {
  return t.app.inject({
    method: 'POST',
    url: '/storefront/v1/checkout',
    remoteAddress: ip,
    headers: { 'x-publishable-key': shop.shop.publishableKey, 'idempotency-key': key },
    payload: body,
  });
}

/** A checkout of one unit from a client address, with an email. */
async function checkoutFrom(
  shop: ShopDriver,
  variantId: string,
  from: { ip: string; email: string; discountCode?: string },
) {
  const cartId = await shop.cart([{ variantId, quantity: 1 }]);
  return checkoutAt(shop, from.ip, randomUUID(), {
    cartId,
    email: from.email,
    ...(from.discountCode ? { discountCode: from.discountCode } : {}),
  });
}

const pendingOrders = async (shop: ShopDriver) =>
  (
    await t.db.kysely
      .selectFrom('orders')
      .select(['id', 'client_key'])
      .where('store_id', '=', shop.storeId)
      .where('status', '=', 'pending')
      .execute()
  ).length;

describe('pending orders per client', () => {
  test(`a client address holds at most ${LIMIT} pending orders; another address and a paid order free a slot`, async () => {
    const shop = await ShopDriver.open(t);
    const variantId = await shop.variant(100);
    const first: CheckoutBody[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const response = await checkoutFrom(shop, variantId, { ip: '203.0.113.7', email: `b${i}@example.com` });
      assert.equal(response.statusCode, 201, response.body);
      first.push(response.json<CheckoutBody>());
    }
    const refused = await checkoutFrom(shop, variantId, { ip: '203.0.113.7', email: 'other@example.com' });
    assert.equal(refused.statusCode, 429, refused.body);
    assert.match(String(refused.headers['content-type']), /^application\/problem\+json/);
    const problem = refused.json<{ title: string; detail: string }>();
    assert.equal(problem.title, 'too_many_pending_orders');
    assert.match(problem.detail, /device or network has 5 unpaid orders/);
    const retryAfter = Number(refused.headers['retry-after']);
    const holdSeconds = t.config.payments.paymentHoldMs / 1000;
    assert.ok(retryAfter > holdSeconds - 60 && retryAfter <= holdSeconds, `Retry-After ${retryAfter}`);
    assert.equal(await pendingOrders(shop), LIMIT, 'nothing was reserved for the refused checkout');
    const stock = await shop.stock(variantId);
    assert.equal(stock.reserved, LIMIT);

    // Another client is not affected; the same /64 of IPv6 counts as one client.
    const other = await checkoutFrom(shop, variantId, { ip: '198.51.100.4', email: 'x@example.com' });
    assert.equal(other.statusCode, 201);
    for (let i = 0; i < LIMIT - 1; i++) {
      const v6 = await checkoutFrom(shop, variantId, {
        ip: `2001:db8:1:2::${i + 1}`,
        email: `v6-${i}@example.com`,
      });
      assert.equal(v6.statusCode, 201);
    }
    const v6 = await checkoutFrom(shop, variantId, {
      ip: '2001:db8:1:2:ffff::9',
      email: 'v6-last@example.com',
    });
    assert.equal(v6.statusCode, 201, 'the fifth of its /64');
    const v6Over = await checkoutFrom(shop, variantId, {
      ip: '2001:db8:1:2:abcd::1',
      email: 'v6-over@example.com',
    });
    assert.equal(v6Over.statusCode, 429, 'an IPv6 client cannot escape by rotating through its /64');

    // Paying one of its orders frees a slot for the first client.
    await shop.confirm(first[0]!);
    await shop.waitForStatus(first[0]!.order.id, 'paid');
    const again = await checkoutFrom(shop, variantId, { ip: '203.0.113.7', email: 'again@example.com' });
    assert.equal(again.statusCode, 201, again.body);

    // Pending orders keep a keyed hash of the client, never its address; a paid order keeps neither.
    const rows = await t.db.kysely
      .selectFrom('orders')
      .select(['status', 'client_key'])
      .where('store_id', '=', shop.storeId)
      .execute();
    assert.ok(rows.every((row) => (row.status === 'pending') === (row.client_key !== null)));
    assert.ok(rows.every((row) => !row.client_key?.includes('203.0.113')));
  });

  test("another client's unpaid checkouts with a buyer's email do not block the buyer; the client cap still holds the other client", async () => {
    const shop = await ShopDriver.open(t);
    const variantId = await shop.variant(100);
    // Someone types the victim's email into five checkouts and never pays.
    for (let i = 0; i < LIMIT; i++) {
      const response = await checkoutFrom(shop, variantId, { ip: '192.0.2.66', email: 'Victim@Example.com' });
      assert.equal(response.statusCode, 201, response.body);
    }
    const capped = await checkoutFrom(shop, variantId, { ip: '192.0.2.66', email: 'victim@example.com' });
    assert.equal(capped.statusCode, 429, 'the other client is capped by its own pending orders');
    assert.match(capped.json<{ detail: string }>().detail, /device or network has 5 unpaid orders/);
    // The victim, from their own address, checks out as usual, again and again.
    for (let i = 0; i < 2; i++) {
      const own = await checkoutFrom(shop, variantId, { ip: '198.51.100.23', email: 'victim@example.com' });
      assert.equal(own.statusCode, 201, own.body);
    }
  });

  test('a retried Idempotency-Key still answers with its order when the client is at the limit', async () => {
    const shop = await ShopDriver.open(t);
    const variantId = await shop.variant(100);
    const made: { key: string; cartId: string; orderId: string }[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const key = randomUUID();
      const cartId = await shop.cart([{ variantId, quantity: 1 }]);
      const response = await checkoutAt(shop, '203.0.113.50', key, { cartId, email: `k${i}@example.com` });
      assert.equal(response.statusCode, 201);
      made.push({ key, cartId, orderId: response.json<CheckoutBody>().order.id });
    }
    const first = made[0]!;
    const retry = await checkoutAt(shop, '203.0.113.50', first.key, {
      cartId: first.cartId,
      email: 'k0@example.com',
    });
    assert.equal(retry.statusCode, 201, retry.body);
    assert.equal(retry.json<CheckoutBody>().order.id, first.orderId);
  });

  test('concurrent checkouts of one client are counted exactly: never more than the limit', async () => {
    const shop = await ShopDriver.open(t);
    // A variant each: one shared variant's row lock would order the checkouts by itself.
    const variants: string[] = [];
    for (let i = 0; i < 12; i += 1) variants.push(await shop.variant(100));
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        checkoutFrom(shop, variants[i]!, { ip: '203.0.113.77', email: `c${i}@example.com` }),
      ),
    );
    const statuses = answers.map((answer) => answer.statusCode).sort();
    assert.deepEqual(statuses, [...Array<number>(LIMIT).fill(201), ...Array<number>(12 - LIMIT).fill(429)]);
    assert.equal(await pendingOrders(shop), LIMIT);
    const reserved = await Promise.all(variants.map(async (id) => (await shop.stock(id)).reserved));
    assert.equal(
      reserved.reduce((sum, units) => sum + units, 0),
      LIMIT,
      'refused checkouts reserved nothing',
    );
  });
});

describe('pending orders per client, with a shipping method', () => {
  test('concurrent checkouts that ship are counted exactly too (the locks taken with the method’s row)', async () => {
    const shop = await ShopDriver.open(t);
    // A variant each: one shared variant's row lock would order the checkouts by itself.
    const variants: string[] = [];
    for (let i = 0; i < 12; i += 1) variants.push(await shop.variant(100));
    const zone = (
      await shop.admin('POST', '/shipping/zones', { name: 'US', areas: [{ country: 'US' }] })
    ).json<{
      id: string;
    }>().id;
    const method = (
      await shop.admin('POST', `/shipping/zones/${zone}/methods`, {
        name: 'Ground',
        kind: 'flat',
        amount: 500,
      })
    ).json<{ id: string }>().id;
    const answers = await Promise.all(
      Array.from({ length: 12 }, async (_, i) =>
        checkoutAt(shop, '203.0.113.78', randomUUID(), {
          cartId: await shop.cart([{ variantId: variants[i]!, quantity: 1 }]),
          email: `s${i}@example.com`,
          shippingAddress: US_ADDRESS,
          shippingMethodId: method,
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.statusCode).sort();
    assert.deepEqual(
      statuses,
      [...Array<number>(LIMIT).fill(201), ...Array<number>(12 - LIMIT).fill(429)],
      answers.find((answer) => answer.statusCode !== 201 && answer.statusCode !== 429)?.body,
    );
    assert.equal(await pendingOrders(shop), LIMIT);
    const placed = answers.find((answer) => answer.statusCode === 201)!;
    assert.equal(placed.json<CheckoutBody>().order.total.amount, 1000 + 500, 'the unit and its shipping');
  });
});

describe('discount uses are reserved at checkout and given back on expiry', () => {
  test('unpaid checkouts cannot use a limited code up; an expired order gives its use back', async () => {
    const shop = await ShopDriver.open(t);
    const variantId = await shop.variant(100);
    const created = await shop.admin('POST', '/discounts', {
      code: 'three',
      kind: 'fixed',
      value: 100,
      usageLimit: 3,
    });
    assert.equal(created.statusCode, 201, created.body);
    const usedCount = async () =>
      (
        await t.db.kysely
          .selectFrom('promotions')
          .select('used_count')
          .where('store_id', '=', shop.storeId)
          .where('code', '=', 'THREE')
          .executeTakeFirstOrThrow()
      ).used_count;

    const unpaid: CheckoutBody[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await checkoutFrom(shop, variantId, {
        ip: `192.0.2.${10 + i}`,
        email: `d${i}@example.com`,
        discountCode: 'three',
      });
      assert.equal(response.statusCode, 201, response.body);
      unpaid.push(response.json<CheckoutBody>());
    }
    assert.equal(await usedCount(), 3);
    const fourth = await checkoutFrom(shop, variantId, {
      ip: '192.0.2.20',
      email: 'd4@example.com',
      discountCode: 'THREE',
    });
    assert.equal(fourth.statusCode, 409);
    assert.equal(fourth.json<{ title: string }>().title, 'discount_invalid');

    // The three orders expire unpaid: their uses come back, and the code works again.
    t.clock.advance(t.config.payments.orderTtlMs + 1000);
    try {
      await expireOrders(paymentDeps(t));
    } finally {
      t.clock.advance(-(t.config.payments.orderTtlMs + 1000));
    }
    for (const body of unpaid) assert.equal((await shop.order(body.order.id)).status, 'expired');
    assert.equal(await usedCount(), 0, 'each expired order gave its use back');
    const paid = await checkoutFrom(shop, variantId, {
      ip: '192.0.2.21',
      email: 'd5@example.com',
      discountCode: 'three',
    });
    assert.equal(paid.statusCode, 201, paid.body);
    assert.equal(await usedCount(), 1);

    // A late payment revives an expired order: its use counts again.
    await shop.latePaymentSucceeded(unpaid[0]!);
    assert.equal((await shop.order(unpaid[0]!.order.id)).status, 'paid');
    assert.equal(await usedCount(), 2);
  });
});

describe('the short hold of an unpaid checkout (PAYMENT_HOLD)', () => {
  /** Runs the expiry sweep with the clock `ms` ahead, as the worker would then. */
  async function sweepAfter(ms: number) {
    t.clock.advance(ms);
    try {
      return await expireOrders(paymentDeps(t));
    } finally {
      t.clock.advance(-ms);
    }
  }

  test('a client holding the last units and a limited code through unpaid checkouts loses them after PAYMENT_HOLD; a buyer who tried to pay keeps theirs', async () => {
    const { paymentHoldMs, orderTtlMs } = t.config.payments;
    assert.ok(paymentHoldMs < orderTtlMs, 'the hold is shorter than ORDER_TTL by default');
    const shop = await ShopDriver.open(t);
    const variantId = await shop.variant(4);
    const code = await shop.admin('POST', '/discounts', {
      code: 'few',
      kind: 'fixed',
      value: 100,
      usageLimit: 3,
    });
    assert.equal(code.statusCode, 201, code.body);
    // One client takes three units and every use of the code, and never pays.
    const hoarded: CheckoutBody[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await checkoutFrom(shop, variantId, {
        ip: '203.0.113.90',
        email: `h${i}@example.com`,
        discountCode: 'few',
      });
      assert.equal(response.statusCode, 201, response.body);
      hoarded.push(response.json<CheckoutBody>());
    }
    // A buyer takes the last unit and tries to pay: the card is declined (they may try another).
    const trying = await checkoutFrom(shop, variantId, { ip: '198.51.100.31', email: 'tries@example.com' });
    assert.equal(trying.statusCode, 201, trying.body);
    const tried = trying.json<CheckoutBody>();
    await shop.confirm(tried, 'pm_card_declined');
    const shut = await checkoutFrom(shop, variantId, { ip: '198.51.100.32', email: 'next@example.com' });
    assert.equal(shut.statusCode, 409, 'sold out while the orders hold the stock');

    // The short hold ends: the untried orders expire, giving back their units and code uses.
    await sweepAfter(paymentHoldMs - 1000);
    for (const body of hoarded) assert.equal((await shop.order(body.order.id)).status, 'pending');
    await sweepAfter(paymentHoldMs + 1000);
    for (const body of hoarded) assert.equal((await shop.order(body.order.id)).status, 'expired');
    const intents = await t.db.kysely
      .selectFrom('sandbox_intents')
      .select('status')
      .where(
        'ref',
        'in',
        hoarded.map((body) => body.payment.ref),
      )
      .execute();
    assert.deepEqual(
      intents.map((row) => row.status),
      ['canceled', 'canceled', 'canceled'],
      'their intents are cancelled: nobody can pay them any more',
    );
    const { used_count: used } = await t.db.kysely
      .selectFrom('promotions')
      .select('used_count')
      .where('store_id', '=', shop.storeId)
      .where('code', '=', 'FEW')
      .executeTakeFirstOrThrow();
    assert.equal(used, 0);
    assert.deepEqual(
      await shop.stock(variantId),
      { on_hand: 4, reserved: 1 },
      'the buyer who tried keeps theirs',
    );

    // The buyer who tried keeps the order to ORDER_TTL from checkout, and pays.
    const kept = (await shop.storefront('GET', `/orders/${tried.order.id}`)).json<{
      status: string;
      createdAt: string;
      expiresAt: string;
    }>();
    assert.equal(kept.status, 'pending');
    assert.equal(
      Date.parse(kept.expiresAt),
      Date.parse(kept.createdAt) + orderTtlMs,
      'held to ORDER_TTL from checkout',
    );
    // Another buyer gets the released units and the code.
    const next = await checkoutFrom(shop, variantId, {
      ip: '198.51.100.32',
      email: 'next@example.com',
      discountCode: 'few',
    });
    assert.equal(next.statusCode, 201, next.body);
    await shop.confirm(tried);
    await shop.waitForStatus(tried.order.id, 'paid');
  });

  test('a hold extended for a buyer who tried to pay still ends at ORDER_TTL', async () => {
    const shop = await ShopDriver.open(t);
    const variantId = await shop.variant(1);
    const placed = await checkoutFrom(shop, variantId, { ip: '198.51.100.40', email: 'slow@example.com' });
    assert.equal(placed.statusCode, 201, placed.body);
    const body = placed.json<CheckoutBody>();
    await shop.confirm(body, 'pm_card_declined');
    await sweepAfter(t.config.payments.paymentHoldMs + 1000);
    assert.equal((await shop.order(body.order.id)).status, 'pending');
    await sweepAfter(t.config.payments.orderTtlMs + 1000);
    assert.equal((await shop.order(body.order.id)).status, 'expired');
    assert.deepEqual(await shop.stock(variantId), { on_hand: 1, reserved: 0 });
  });
});
