/**
 * The money path after review (decisions `catalog-owns-stock`, `sweeps-reschedule`, `refund-path` and `checkout-after-a-crash`), with the sandbox provider: a paid buyer is never
 * stranded, one bad order never stalls another, a late payment is never kept without a refund,
 * a refused checkout costs no provider call, and a retried checkout finds its order.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { listEvents } from '../events/events.ts';
import { startTestApp, testConfig, waitFor, type TestApp } from '../test/harness.ts';
import { expireOrders } from './expiry.service.ts';
import { dueOrders } from './expiry.repository.ts';
import { capturingLog, paymentDeps, ShopDriver, type CheckoutBody } from './orders.test-support.ts';
import { applyProviderEvent } from './provider-events.service.ts';
import { reconcileRefunds } from './refund-reconciliation.service.ts';

let t: TestApp;
before(async () => {
  // A delayed sandbox payment stays "processing" for the whole file.
  t = await startTestApp({ config: { payments: { ...testConfig().payments, sandboxDelayMs: 3_600_000 } } });
});
after(() => t.close());

const sandbox = () => t.runtime.payments.sandbox!;

/** Moves the test clock past every order's expiry for the duration of `fn`. */
async function afterExpiry<T>(fn: () => Promise<T>): Promise<T> {
  const ms = t.config.payments.orderTtlMs + 60_000;
  t.clock.advance(ms);
  try {
    return await fn();
  } finally {
    t.clock.advance(-ms);
  }
}

async function sandboxIntents(storeId: string): Promise<number> {
  const rows = await t.db.kysely
    .selectFrom('sandbox_intents')
    .select('ref')
    .where((eb) => eb(eb.ref('metadata', '->>').key('storeId'), '=', storeId))
    .execute();
  return rows.length;
}

describe('stock recounts and payments (decision `catalog-owns-stock`)', () => {
  test('on hand below what pending orders hold is 409 stock_reserved; the payment still makes the order paid', async () => {
    const shop = await ShopDriver.open(t);
    const variantId = await shop.variant(1);
    const bought = await shop.buy(variantId, 1);
    assert.deepEqual(await shop.stock(variantId), { on_hand: 1, reserved: 1 });

    const recount = await shop.admin('PATCH', `/variants/${variantId}`, { onHand: 0 });
    assert.equal(recount.statusCode, 409, recount.body);
    const problem = recount.json<{ title: string; detail: string; errors: { pointer: string }[] }>();
    assert.equal(problem.title, 'stock_reserved');
    assert.equal(problem.errors[0]?.pointer, '/onHand');
    assert.match(problem.detail, /1 unit is reserved/);
    assert.deepEqual(await shop.stock(variantId), { on_hand: 1, reserved: 1 }, 'nothing written');

    const restock = await shop.admin('PATCH', `/variants/${variantId}`, { onHand: 4 });
    assert.equal(restock.statusCode, 200, restock.body);
    assert.equal(restock.json<{ available: number }>().available, 3);

    await shop.confirm(bought);
    await shop.waitForStatus(bought.order.id, 'paid');
    assert.deepEqual(await shop.stock(variantId), { on_hand: 3, reserved: 0 });
    assert.equal((await shop.adminOrder(bought.order.id)).oversold, false);
  });

  test('a payment for an order whose stock went short by hand is paid anyway, flagged oversold, owners told', async () => {
    const shop = await ShopDriver.open(t);
    const variantId = await shop.variant(2);
    const bought = await shop.buy(variantId, 2);
    // What a hand edit of the database (or a bug) could leave: fewer on hand than reserved.
    await t.db.kysely
      .updateTable('variants')
      .set({ on_hand: 1 })
      .where('store_id', '=', shop.storeId)
      .where('id', '=', variantId)
      .execute();

    await shop.confirm(bought);
    await shop.waitForStatus(bought.order.id, 'paid');
    const order = await shop.adminOrder(bought.order.id);
    assert.equal(order.oversold, true);
    assert.equal(order.payments[0]?.status, 'succeeded');
    assert.deepEqual(await shop.stock(variantId), { on_hand: 0, reserved: 0 });
    const paid = await listEvents(t.db.kysely, shop.storeId, { type: 'order.paid' });
    assert.equal(paid.length, 1);

    const notice = await waitFor(async () => {
      const outbox = await t.db.kysely
        .selectFrom('mail_outbox')
        .select(['to_address', 'tier', 'kind'])
        .where('store_id', '=', shop.storeId)
        .where('kind', '=', 'order_oversold')
        .execute();
      return outbox.length > 0 ? outbox : undefined;
    });
    assert.deepEqual(notice, [
      { to_address: shop.shop.ownerEmail, tier: 'platform', kind: 'order_oversold' },
    ]);
  });
});

describe('expiry: each order on its own, fairly across stores (decision `worker-loops`)', () => {
  test("an order the provider cannot answer for is retried later with backoff; another store's order expires meanwhile", async () => {
    const broken = await ShopDriver.open(t);
    const healthy = await ShopDriver.open(t);
    const lost = await broken.buy(await broken.variant(5), 1);
    // The provider no longer knows the intent: every lookup fails.
    await t.db.kysely.deleteFrom('sandbox_intents').where('ref', '=', lost.payment.ref).execute();
    const variantId = await healthy.variant(5);
    const normal = await healthy.buy(variantId, 2);

    const { log, lines } = capturingLog();
    await afterExpiry(async () => {
      await expireOrders(paymentDeps(t, log));
      assert.equal((await healthy.order(normal.order.id)).status, 'expired');
      assert.deepEqual(await healthy.stock(variantId), { on_hand: 5, reserved: 0 });
      assert.equal((await broken.order(lost.order.id)).status, 'pending');

      const row = await t.db.kysely
        .selectFrom('orders')
        .select(['sweep_attempts', 'next_sweep_at'])
        .where('store_id', '=', broken.storeId)
        .where('id', '=', lost.order.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.sweep_attempts, 1);
      assert.ok(row.next_sweep_at > t.clock.now(), 'looked at again later, not in the next run');

      // Run again at once: the failed order is not due, so it is not tried (and not logged) again.
      const again = await expireOrders(paymentDeps(t, log));
      assert.ok(
        !lines.some((line) => line.orderId === normal.order.id),
        'the healthy order caused no warning',
      );
      assert.equal(lines.filter((line) => line.orderId === lost.order.id).length, 1, 'one warning');
      assert.equal(again.expired, 0);
    });
  });

  test('a store with 55 orders still processing never delays another store: its order expires in the first run', async () => {
    const busy = await ShopDriver.open(t);
    const other = await ShopDriver.open(t);
    const busyVariant = await busy.variant(100);
    for (let i = 0; i < 55; i++) {
      const bought = await busy.buy(busyVariant, 1);
      await busy.confirm(bought, 'pm_card_delayed'); // processing for an hour
    }
    const waiting = await other.buy(await other.variant(1), 1);

    const { log, lines } = capturingLog();
    await afterExpiry(async () => {
      // The three runs happen at one instant: however slow the machine, no backoff runs out between them.
      const instant = t.clock.now();
      const deps = { ...paymentDeps(t, log), clock: { now: () => instant } };
      // Orders of earlier tests whose retry came due meanwhile (on a slow machine, by wall-clock time).
      const earlier = (await dueOrders(t.db.kysely, instant, 1000)).filter(
        (order) => order.store_id !== busy.storeId && order.store_id !== other.storeId,
      ).length;
      const first = await expireOrders(deps);
      assert.equal(first.examined, 50, 'one full batch');
      assert.equal((await other.order(waiting.order.id)).status, 'expired', 'expired in the first run');
      // The processing ones wait for their outcome, each rescheduled, none expired.
      const second = await expireOrders(deps);
      assert.ok(
        second.examined <= 6 + earlier,
        `the rest of the backlog only (${second.examined}, ${earlier} of earlier tests)`,
      );
      const third = await expireOrders(deps);
      assert.equal(third.examined, 0, 'nothing is retried before its backoff');
      // Warnings about this test's orders only (an earlier test's unanswerable order may come due).
      const ours = new Set(
        (
          await t.db.kysely
            .selectFrom('orders')
            .select('id')
            .where('store_id', 'in', [busy.storeId, other.storeId])
            .execute()
        ).map((row) => row.id),
      );
      const warnings = lines.filter(
        (line) =>
          (line.level as number) >= 40 && (line.orderId === undefined || ours.has(line.orderId as string)),
      );
      assert.equal(warnings.length, 0, `waiting is not a warning: ${JSON.stringify(warnings)}`);
    });
    const statuses = await t.db.kysely
      .selectFrom('orders as o')
      .innerJoin('payments as p', (join) =>
        join.onRef('p.store_id', '=', 'o.store_id').onRef('p.order_id', '=', 'o.id'),
      )
      .select(['o.status as order', 'p.status as payment'])
      .where('o.store_id', '=', busy.storeId)
      .execute();
    assert.equal(statuses.length, 55);
    assert.ok(
      statuses.every((s) => s.order === 'pending' && s.payment === 'processing'),
      'mirrored, still pending',
    );
  });
});

describe('late payments and refunds (decision `refund-path`)', () => {
  test('a late payment for an expired, sold-out order is refunded automatically; staff may refund captured money of an expired order', async () => {
    const shop = await ShopDriver.open(t);
    const variantId = await shop.variant(1);
    const late = await shop.buy(variantId, 1);
    await afterExpiry(() => expireOrders(paymentDeps(t)));
    assert.equal((await shop.order(late.order.id)).status, 'expired');
    await shop.buy(variantId, 1); // someone else takes the unit

    // The buyer's payment had gone through at the provider just before the cancel.
    await shop.latePaymentSucceeded(late);
    await waitFor(async () => (await shop.order(late.order.id)).refunded.amount === 1000, 5000, 'refunded');
    const order = await shop.adminOrder(late.order.id);
    assert.equal(order.status, 'expired');
    assert.deepEqual(
      order.refunds.map((r) => [r.reason, r.status, r.amount.amount]),
      [['expired_out_of_stock', 'succeeded', 1000]],
    );
    // Nothing left to refund; the staff refund route says so rather than "not paid".
    const more = await shop.admin('POST', `/orders/${late.order.id}/refunds`, { amount: 1 });
    assert.equal(more.statusCode, 409, more.body);
    assert.equal(more.json<{ title: string }>().title, 'refund_too_large');
  });

  test('a late payment for an expired order whose stock is still there takes the stock again: paid, order.paid, no refund', async () => {
    const shop = await ShopDriver.open(t);
    const variantId = await shop.variant(3);
    const late = await shop.buy(variantId, 2);
    await afterExpiry(() => expireOrders(paymentDeps(t)));
    assert.equal((await shop.order(late.order.id)).status, 'expired');
    assert.deepEqual(await shop.stock(variantId), { on_hand: 3, reserved: 0 });

    await shop.latePaymentSucceeded(late);
    const order = await shop.adminOrder(late.order.id);
    assert.equal(order.status, 'paid');
    assert.deepEqual(order.refunds, []);
    assert.deepEqual(await shop.stock(variantId), { on_hand: 1, reserved: 0 }, 'sold from on hand');
    const paid = await listEvents(t.db.kysely, shop.storeId, { type: 'order.paid' });
    assert.deepEqual(
      paid.map((e) => e.data),
      [
        {
          orderId: late.order.id,
          number: late.order.number,
          total: late.order.total,
          storeId: shop.storeId,
        },
      ],
    );
  });

  test('refund.succeeded settles a refund that was marked failed; refund.failed does not undo a success', async () => {
    const shop = await ShopDriver.open(t);
    const bought = await shop.buy(await shop.variant(3), 1);
    await shop.confirm(bought);
    await shop.waitForStatus(bought.order.id, 'paid');
    const payment = await t.db.kysely
      .selectFrom('payments')
      .select('id')
      .where('store_id', '=', shop.storeId)
      .where('order_id', '=', bought.order.id)
      .executeTakeFirstOrThrow();
    const refund = await t.db.kysely
      .insertInto('refunds')
      .values({
        store_id: shop.storeId,
        order_id: bought.order.id,
        payment_id: payment.id,
        amount: 400,
        status: 'failed',
        provider_ref: 're_sbx_timedout',
        reason: 'merchant',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const send = async (type: string) => {
      const body = JSON.stringify({
        id: `evt_${randomUUID()}`,
        type,
        created: Math.floor(Date.now() / 1000),
        data: {
          ref: bought.payment.ref,
          amount: 400,
          currency: 'USD',
          refundRef: 're_sbx_timedout',
          metadata: { storeId: shop.storeId, orderId: bought.order.id, refundId: refund.id },
        },
      });
      return t.app.inject({
        method: 'POST',
        url: '/payments/webhooks/sandbox',
        headers: { 'content-type': 'application/json', 'sandbox-signature': sandbox().sign(body) },
        payload: body,
      });
    };
    const settled = await send('refund.succeeded');
    assert.equal(settled.json<{ result: string }>().result, 'applied');
    const order = await shop.adminOrder(bought.order.id);
    assert.equal(order.refunded.amount, 400);
    assert.equal(order.refunds[0]?.status, 'succeeded');
    assert.equal((await listEvents(t.db.kysely, shop.storeId, { type: 'order.refunded' })).length, 1);

    const undo = await applyProviderEvent(paymentDeps(t), {
      id: `evt_${randomUUID()}`,
      kind: 'refund.failed',
      ref: bought.payment.ref,
      refundRef: 're_sbx_timedout',
      metadata: { storeId: shop.storeId, refundId: refund.id },
    });
    assert.equal(undo, 'ignored');
    assert.equal((await shop.adminOrder(bought.order.id)).refunds[0]?.status, 'succeeded');
  });

  test('the payment webhook and the expiry sweep lock payment then order: racing them never deadlocks', async () => {
    const shop = await ShopDriver.open(t);
    const variantId = await shop.variant(40);
    const orders: CheckoutBody[] = [];
    for (let i = 0; i < 20; i++) orders.push(await shop.buy(variantId, 1));
    await afterExpiry(async () => {
      await Promise.all([
        expireOrders(paymentDeps(t)),
        ...orders.map(async (bought) => {
          await t.db.kysely
            .updateTable('sandbox_intents')
            .set({ status: 'succeeded' })
            .where('ref', '=', bought.payment.ref)
            .execute();
          const body = JSON.stringify({
            id: `evt_race_${randomUUID()}`,
            type: 'payment_intent.succeeded',
            created: Math.floor(Date.now() / 1000),
            data: {
              ref: bought.payment.ref,
              amount: 1000,
              currency: 'USD',
              metadata: { storeId: shop.storeId },
            },
          });
          const response = await t.app.inject({
            method: 'POST',
            url: '/payments/webhooks/sandbox',
            headers: { 'content-type': 'application/json', 'sandbox-signature': sandbox().sign(body) },
            payload: body,
          });
          assert.equal(response.statusCode, 200, response.body);
        }),
      ]);
    });
    for (const bought of orders) assert.equal((await shop.order(bought.order.id)).status, 'paid');
    assert.deepEqual(await shop.stock(variantId), { on_hand: 20, reserved: 0 });
  });
});

describe('checkout refusals and retries (decision `checkout-after-a-crash`)', () => {
  test('a checkout that cannot be served is refused before the provider is asked', async () => {
    const shop = await ShopDriver.open(t);
    const variantId = await shop.variant(1);
    await shop.buy(variantId, 1);
    const before = await sandboxIntents(shop.storeId);
    const refused = await shop.checkout({
      cartId: await shop.cart([{ variantId, quantity: 1 }]),
      email: 'b@example.com',
    });
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(refused.json<{ title: string }>().title, 'insufficient_stock');
    assert.equal(await sandboxIntents(shop.storeId), before, 'no intent was created (and none cancelled)');
  });

  test('a retry whose first attempt committed its order but never stored the answer gets that order, not cart_completed', async () => {
    const shop = await ShopDriver.open(t);
    const variantId = await shop.variant(3);
    const body = { cartId: await shop.cart([{ variantId, quantity: 1 }]), email: 'crash@example.com' };
    const key = randomUUID();
    const first = await shop.checkout(body, key);
    assert.equal(first.statusCode, 201, first.body);
    const made = first.json<{ order: { id: string } }>();

    // What a crash between the order's commit and the stored answer leaves: a key still in progress.
    const inProgress = (lockedUntil: Date) =>
      t.db.kysely
        .updateTable('idempotency_keys')
        .set({
          status: 'in_progress',
          locked_until: lockedUntil,
          lease_token: randomUUID(),
          response_body: null,
          response_status: null,
          response_type: null,
        })
        .where('store_id', '=', shop.storeId)
        .where('key', '=', key)
        .execute();
    for (const lockedUntil of [new Date(Date.now() + 60_000), new Date(Date.now() - 1000)]) {
      await inProgress(lockedUntil);
      const retry = await shop.checkout(body, key);
      assert.equal(retry.statusCode, 201, retry.body);
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      assert.equal(retry.json<{ order: { id: string } }>().order.id, made.order.id);
    }
    const orders = await t.db.kysely
      .selectFrom('orders')
      .select('id')
      .where('store_id', '=', shop.storeId)
      .execute();
    assert.equal(orders.length, 1);
    assert.deepEqual(await shop.stock(variantId), { on_hand: 3, reserved: 1 }, 'reserved once');
  });

  test('the sandbox mirrors a delayed payment: pending, then processing', async () => {
    const shop = await ShopDriver.open(t);
    const bought = await shop.buy(await shop.variant(2), 1);
    assert.equal((await shop.order(bought.order.id)).payment.status, 'pending');
    await shop.confirm(bought, 'pm_card_delayed');
    await waitFor(
      async () => (await shop.order(bought.order.id)).payment.status === 'processing',
      5000,
      'processing',
    );
    assert.equal((await shop.order(bought.order.id)).status, 'pending');
  });
});

describe('the sandbox answers a confirmation after its webhook (decision `sandbox-webhooks-in-process`)', () => {
  test('the order read right after the answer is paid; a declined card is failed, a delayed one processing', async () => {
    const shop = await ShopDriver.open(t);
    const variantId = await shop.variant(5);
    const paid = await shop.buy(variantId);
    await shop.confirm(paid);
    const order = await shop.order(paid.order.id);
    assert.equal(order.status, 'paid', 'no waiting: the webhook was applied before the answer');
    assert.equal(order.payment.status, 'succeeded');

    const declined = await shop.buy(variantId);
    await shop.confirm(declined, 'pm_card_declined');
    const refused = await shop.order(declined.order.id);
    assert.equal(refused.status, 'pending');
    assert.equal(refused.payment.status, 'failed');

    const delayed = await shop.buy(variantId);
    await shop.confirm(delayed, 'pm_card_delayed');
    assert.equal((await shop.order(delayed.order.id)).payment.status, 'processing');
  });

  test('a failed delivery does not fail the confirmation; it is retried after the answer', async () => {
    const shop = await ShopDriver.open(t);
    const bought = await shop.buy(await shop.variant(1));
    const attempts: number[] = [];
    sandbox().setDelivery(async (body, headers) => {
      attempts.push(Date.now());
      if (attempts.length === 1) return 503;
      return (
        await t.app.inject({ method: 'POST', url: '/payments/webhooks/sandbox', headers, payload: body })
      ).statusCode;
    });
    try {
      await shop.confirm(bought);
      assert.equal(attempts.length, 1, 'the answer waited for the first attempt only');
      assert.equal((await shop.order(bought.order.id)).status, 'pending');
      await shop.waitForStatus(bought.order.id, 'paid');
      assert.equal(attempts.length, 2);
    } finally {
      sandbox().setDelivery(
        async (body, headers) =>
          (await t.app.inject({ method: 'POST', url: '/payments/webhooks/sandbox', headers, payload: body }))
            .statusCode,
      );
    }
  });
});

describe('reconciliation is fair and contained (decision `worker-loops`)', () => {
  test('a refund the provider cannot find is retried later and does not block other stores', async () => {
    const a = await ShopDriver.open(t);
    const b = await ShopDriver.open(t);
    const paid: CheckoutBody[] = [];
    for (const shop of [a, b]) {
      const bought = await shop.buy(await shop.variant(2), 1);
      await shop.confirm(bought);
      await shop.waitForStatus(bought.order.id, 'paid');
      paid.push(bought);
    }
    const payment = await t.db.kysely
      .selectFrom('payments')
      .select('id')
      .where('store_id', '=', a.storeId)
      .executeTakeFirstOrThrow();
    // Store a: a refund whose provider reference the provider does not know.
    const stuck = await t.db.kysely
      .insertInto('refunds')
      .values({
        store_id: a.storeId,
        order_id: paid[0]!.order.id,
        payment_id: payment.id,
        amount: 100,
        status: 'pending',
        provider_ref: 're_sbx_unknown',
        reason: 'merchant',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    // Store b: a refund whose webhook is lost.
    sandbox().setDelivery(() => Promise.resolve(200));
    try {
      const requested = await b.admin('POST', `/orders/${paid[1]!.order.id}/refunds`, { amount: 300 });
      assert.equal(requested.statusCode, 202, requested.body);
    } finally {
      sandbox().setDelivery(
        async (body, headers) =>
          (await t.app.inject({ method: 'POST', url: '/payments/webhooks/sandbox', headers, payload: body }))
            .statusCode,
      );
    }
    t.clock.advance(11 * 60_000);
    try {
      const result = await reconcileRefunds(paymentDeps(t));
      assert.ok(result.settled >= 1);
      assert.equal((await b.order(paid[1]!.order.id)).refunded.amount, 300);
      const row = await t.db.kysely
        .selectFrom('refunds')
        .select(['status', 'attempts', 'next_check_at', 'last_error'])
        .where('store_id', '=', a.storeId)
        .where('id', '=', stuck.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.status, 'pending');
      assert.equal(row.attempts, 1);
      assert.match(String(row.last_error), /No sandbox refund/);
      assert.ok(row.next_check_at! > t.clock.now());
    } finally {
      t.clock.advance(-11 * 60_000);
    }
  });
});
