/**
 * A checkout whose COMMIT's answer is lost, on PostgreSQL: a real `storefront serve` reaches the
 * database through a proxy that drops the connection as PostgreSQL answers the COMMIT of the
 * transaction that wrote the order. The order was written; the process cannot know it. Its payment
 * intent is kept (decision `intent-of-an-unknown-outcome`): the buyer's retry with the same key
 * answers that order, and its payment goes through. (Cancelled, as it once was, the intent made
 * the order unpayable: the confirmation was refused with 409.)
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { ShopDriver } from '../orders/orders.test-support.ts';
import {
  skipUnlessPostgres,
  startTestAppWithDb,
  waitFor,
  type ServiceProcess,
  type TestApp,
  type TestDb,
} from '../test/harness.ts';
import { logLinesSince, serveThroughProxy, stopProcess } from '../test/served.ts';
import type { TcpProxy } from '../test/tcp-proxy.ts';

let db: TestDb;
let t: TestApp;
let proxy: TcpProxy;
let server: ServiceProcess;

before(async () => {
  if (skipUnlessPostgres) return;
  ({ db, t } = await startTestAppWithDb());
  ({ proxy, server } = await serveThroughProxy(db, t, {
    LOG_LEVEL: 'warn',
    REDIS_URL: undefined,
    IDEMPOTENCY_LEASE: '1s',
  }));
});
after(async () => {
  if (skipUnlessPostgres) return;
  await stopProcess(server);
  await proxy.close();
  await t.close();
});

test(
  'the answer to the order’s COMMIT is lost: the retry answers that order, and it can be paid',
  { skip: skipUnlessPostgres },
  async () => {
    const shop = await ShopDriver.open(t);
    const variantId = await shop.variant(10, 2500);
    const storefront = (method: string, path: string, body?: object, headers: Record<string, string> = {}) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: {
          'x-publishable-key': shop.shop.publishableKey,
          ...(body ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    const cart = await storefront('POST', '/storefront/v1/carts', { items: [{ variantId, quantity: 2 }] });
    assert.equal(cart.status, 201, await cart.clone().text());
    const cartId = ((await cart.json()) as { id: string }).id;
    const offset = server.output().length;

    const lost = proxy.loseCommitAnswer('insert into "orders"');
    const key = randomUUID();
    const body = { cartId, email: 'lost-commit@example.com' };
    const first = await storefront('POST', '/storefront/v1/checkout', body, { 'idempotency-key': key });
    await Promise.race([
      lost,
      sleep(5000).then(() => assert.fail('no COMMIT answer of an order was dropped')),
    ]);
    assert.equal(first.status, 503, await first.clone().text());
    const written = await t.db.kysely
      .selectFrom('orders')
      .select(['id', 'status'])
      .where('store_id', '=', shop.storeId)
      .execute();
    assert.deepEqual(
      written.map((o) => o.status),
      ['pending'],
      'the order was committed',
    );

    // The buyer retries with the same key (409 while the first attempt's lease holds the key).
    let retried: Response | undefined;
    await waitFor(
      async () => {
        retried = await storefront('POST', '/storefront/v1/checkout', body, { 'idempotency-key': key });
        return retried.status !== 409;
      },
      10_000,
      'the retried checkout',
    );
    assert.equal(retried!.status, 201, await retried!.clone().text());
    const { order, payment } = (await retried!.json()) as {
      order: { id: string };
      payment: { ref: string; clientSecret: string };
    };
    assert.equal(order.id, written[0]!.id, 'the retry answers the order that was written');

    const confirm = await storefront('POST', `/sandbox/v1/payments/${payment.ref}/confirm`, {
      clientSecret: payment.clientSecret,
      paymentMethod: 'pm_card_visa',
    });
    assert.equal(confirm.status, 200, await confirm.clone().text());
    await waitFor(
      async () =>
        ((await (await storefront('GET', `/storefront/v1/orders/${order.id}`)).json()) as { status: string })
          .status === 'paid',
      15_000,
      'the order to be paid',
    );
    assert.deepEqual(await shop.stock(variantId), { on_hand: 8, reserved: 0 });
    const lines = logLinesSince(server, offset);
    assert.deepEqual(
      lines.filter((line) => line.level >= 50),
      [],
      'no error-level line: the lost answer is an outage of one request',
    );
  },
);
