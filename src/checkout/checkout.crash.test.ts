/**
 * A crash during concurrent checkouts, on PostgreSQL (decision `checkout-after-a-crash`): a real `storefront serve` process is
 * killed with SIGKILL while 120 checkouts are in flight, started again, and every key is retried
 * with its body. Every key ends with exactly one order (the same one it was first answered with),
 * never `cart_completed`, and the stock reserved is exactly the stock of the orders that exist.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import {
  startTestAppWithDb,
  serveProcess,
  type TestApp,
  type TestDb,
  skipUnlessPostgres,
} from '../test/harness.ts';
import { ShopDriver } from '../orders/orders.test-support.ts';

const BUYERS = 120;

let db: TestDb;
let t: TestApp;

before(async () => {
  if (skipUnlessPostgres) return;
  ({ db, t } = await startTestAppWithDb());
});
after(async () => {
  if (skipUnlessPostgres) return;
  await t.close();
});

/** `storefront serve` on the test's database, without Redis. */
const serve = () =>
  serveProcess(db, t.config.secretKey!, {
    IDEMPOTENCY_LEASE: '2s',
    DATABASE_POOL_SIZE: '20',
    REDIS_URL: undefined,
  });

interface Attempt {
  key: string;
  body: { cartId: string; email: string };
}

async function checkout(url: string, publishableKey: string, attempt: Attempt) {
  const response = await fetch(`${url}/storefront/v1/checkout`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-publishable-key': publishableKey,
      'idempotency-key': attempt.key,
    },
    body: JSON.stringify(attempt.body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

test(
  `SIGKILL during ${BUYERS} concurrent checkouts: every retried key gets its one order`,
  { skip: skipUnlessPostgres },
  async () => {
    const shop = await ShopDriver.open(t);
    const variantId = await shop.variant(BUYERS * 2);
    const attempts: Attempt[] = [];
    for (let i = 0; i < BUYERS; i++) {
      attempts.push({
        key: randomUUID(),
        body: { cartId: await shop.cart([{ variantId, quantity: 1 }]), email: `b${i}@example.com` },
      });
    }

    const first = await serve();
    const answered = new Map<string, string>();
    const inFlight = attempts.map((attempt) =>
      checkout(first.url, shop.shop.publishableKey, attempt)
        .then((result) => {
          if (result.status === 201) answered.set(attempt.key, (result.body.order as { id: string }).id);
        })
        .catch(() => undefined),
    );
    // Kill it while checkouts are committing: after the first answers, before the last.
    const deadline = Date.now() + 20_000;
    while (answered.size < 10 && Date.now() < deadline) await sleep(2);
    first.child.kill('SIGKILL');
    await Promise.all(inFlight);
    assert.ok(
      answered.size < BUYERS,
      `the kill came while checkouts were in flight (${answered.size} answered)`,
    );
    const committed = (
      await db.kysely.selectFrom('orders').select('id').where('store_id', '=', shop.storeId).execute()
    ).length;
    const unanswered = (
      await db.kysely
        .selectFrom('idempotency_keys')
        .select('key')
        .where('store_id', '=', shop.storeId)
        .where('status', '=', 'in_progress')
        .execute()
    ).length;
    // The answer commits with its order (decision `idempotency-keys`): no order the crash left has a key without its answer.
    const withoutAnswer = await db.kysely
      .selectFrom('orders as o')
      .leftJoin('idempotency_keys as k', (join) =>
        join
          .onRef('k.store_id', '=', 'o.store_id')
          .onRef('k.key', '=', 'o.idempotency_key')
          .on('k.route', '=', 'checkout'),
      )
      .select(['o.id', 'k.status'])
      .where('o.store_id', '=', shop.storeId)
      .where((eb) => eb.or([eb('k.status', 'is', null), eb('k.status', '<>', 'done')]))
      .execute();
    assert.deepEqual(withoutAnswer, [], 'every committed order has its stored answer');

    const second = await serve();
    try {
      const outcomes = new Map<string, { status: number; title?: string; orderId?: string }>();
      for (const attempt of attempts) {
        for (let tries = 0; ; tries++) {
          const result = await checkout(second.url, shop.shop.publishableKey, attempt);
          if (result.status === 409 && result.body.title === 'idempotency_in_progress' && tries < 200) {
            await sleep(50); // a key whose holder died: free once its lease ends
            continue;
          }
          outcomes.set(attempt.key, {
            status: result.status,
            title: result.body.title as string | undefined,
            orderId: (result.body.order as { id?: string } | undefined)?.id,
          });
          break;
        }
      }
      const statuses = [...outcomes.values()].map((o) => `${o.status} ${o.title ?? ''}`.trim());
      assert.deepEqual(
        [...new Set(statuses)],
        ['201'],
        `every key has its order, none is cart_completed: ${JSON.stringify(statuses.filter((s) => s !== '201'))}`,
      );
      for (const [key, orderId] of answered) {
        assert.equal(outcomes.get(key)?.orderId, orderId, 'a key keeps the order it was first answered with');
      }

      const orders = await db.kysely
        .selectFrom('orders')
        .select(['id', 'idempotency_key', 'status'])
        .where('store_id', '=', shop.storeId)
        .execute();
      assert.equal(orders.length, BUYERS, 'one order per key');
      assert.deepEqual(
        new Set(orders.map((o) => o.idempotency_key)),
        new Set(attempts.map((a) => a.key)),
        'every order carries its key',
      );
      const stock = await shop.stock(variantId);
      const pending = orders.filter((o) => o.status === 'pending').length;
      assert.equal(stock.reserved, pending, 'reserved units are exactly those of the pending orders');
      assert.equal(stock.on_hand, BUYERS * 2);
      process.stdout.write(
        `# crash test: ${answered.size} of ${BUYERS} answered before SIGKILL, ${committed} orders committed, ${unanswered} keys left in progress; after retries ${orders.length} orders, ${stock.reserved} units reserved\n`,
      );
    } finally {
      second.child.kill('SIGTERM');
      await new Promise((resolve) => second.child.once('exit', resolve));
    }
  },
);
