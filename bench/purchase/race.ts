/** Scenario 2: the hot-variant race. */
import { randomUUID } from 'node:crypto';
import { percentile } from '../lib/results.ts';
import { inParallel } from '../lib/tasks.ts';
import { sortedOf, tally } from './format.ts';
import { call, closePool, expectAnswer, field, newPool, stringAt } from './http.ts';
import { clientOf, payAndWait } from './one-purchase.ts';
import type { Options } from './options.ts';
import { databaseCpu, read } from './readings.ts';
import type { Target } from './target.ts';

export interface Race {
  target: string;
  buyers: number;
  units: number;
  /** Cart creation, all buyers at once: response times. */
  cartMs: Float64Array;
  cartFailures: Record<string, number>;
  /** Every checkout's response time. */
  checkoutMs: Float64Array;
  orders: number;
  insufficient: number;
  otherFailures: Record<string, number>;
  /** Winners: checkout sent → order read back paid. */
  purchaseMs: Float64Array;
  paid: number;
  payFailures: Record<string, number>;
  onHand: number;
  reserved: number;
  oversoldOrders: number;
  serverCpuSeconds: number;
  /** NaN without a separate worker. */
  workerCpuSeconds: number;
  databaseCpuSeconds: number;
}

export async function race(target: Target, options: Options): Promise<Race> {
  const admin = newPool(target.server.url, 8);
  const product = await expectAnswer(
    call(admin, 'POST', '/admin/v1/products', target.admin, {
      title: 'Race product',
      status: 'active',
      variants: [{ label: 'Last units', priceAmount: 2500, onHand: options.raceUnits }],
    }),
    201,
    'POST /admin/v1/products',
  );
  const productId = stringAt(product, 'id');
  const variants = field(product, 'variants');
  const variantId = Array.isArray(variants) ? stringAt(variants[0], 'id') : '';

  const buyers = options.raceBuyers;
  const pool = newPool(target.server.url, buyers);
  const before = await read(target, false);
  // Every buyer puts the variant in a cart at the same moment (this also opens the connections)…
  const cartIds: (string | null)[] = Array.from({ length: buyers }, () => null);
  const cartMs: number[] = [];
  const cartFailures: Record<string, number> = {};
  await Promise.all(
    cartIds.map(async (_, index) => {
      const cart = await call(pool, 'POST', '/storefront/v1/carts', clientOf(target, index), {
        items: [{ variantId, quantity: 1 }],
      });
      cartMs.push(cart.ms);
      if (cart.status === 201) cartIds[index] = stringAt(cart.body, 'id');
      else tally(cartFailures, `cart ${cart.status}`);
    }),
  );
  // …then everyone checks out at once; the winners pay and wait for `paid`.
  const checkoutMs: number[] = [];
  const purchaseMs: number[] = [];
  const otherFailures: Record<string, number> = {};
  const payFailures: Record<string, number> = {};
  const winners: string[] = [];
  let insufficient = 0;
  await Promise.all(
    cartIds.map(async (cartId, index) => {
      if (cartId === null) return;
      const started = performance.now();
      const checkout = await call(
        pool,
        'POST',
        '/storefront/v1/checkout',
        { ...clientOf(target, index), 'idempotency-key': randomUUID() },
        { cartId, email: `racer-${index}@example.com` },
      );
      checkoutMs.push(checkout.ms);
      if (checkout.status === 409 && field(checkout.body, 'title') === 'insufficient_stock') {
        insufficient += 1;
        return;
      }
      if (checkout.status !== 201) {
        tally(
          otherFailures,
          `checkout ${checkout.status}${checkout.status === 409 ? ` ${String(field(checkout.body, 'title'))}` : ''}`,
        );
        return;
      }
      winners.push(stringAt(checkout.body, 'order', 'id'));
      const paid = await payAndWait(pool, clientOf(target, index), checkout.body, options.pollMs, {});
      if (paid.ok) purchaseMs.push(performance.now() - started);
      else tally(payFailures, paid.failure ?? '?');
    }),
  );
  const after = await read(target, false);
  await closePool(pool);

  // The stock and the orders, as staff see them.
  const stock = await expectAnswer(
    call(admin, 'GET', `/admin/v1/products/${productId}`, target.admin),
    200,
    'GET /admin/v1/products/:id',
  );
  const variant = (field(stock, 'variants') as unknown[] | undefined)?.[0];
  let oversoldOrders = 0;
  await inParallel(winners.length, 8, async (index) => {
    const order = await expectAnswer(
      call(admin, 'GET', `/admin/v1/orders/${winners[index]}`, target.admin),
      200,
      'GET /admin/v1/orders/:id',
    );
    if (field(order, 'oversold') === true) oversoldOrders += 1;
  });
  await closePool(admin);
  return {
    target: target.label,
    buyers,
    units: options.raceUnits,
    cartMs: sortedOf(cartMs),
    cartFailures,
    checkoutMs: sortedOf(checkoutMs),
    orders: winners.length,
    insufficient,
    otherFailures,
    purchaseMs: sortedOf(purchaseMs),
    paid: purchaseMs.length,
    payFailures,
    onHand: Number(field(variant, 'onHand')),
    reserved: Number(field(variant, 'reserved')),
    oversoldOrders,
    serverCpuSeconds: after.serverCpu - before.serverCpu,
    workerCpuSeconds: after.workerCpu - before.workerCpu,
    databaseCpuSeconds: databaseCpu(before, after).total,
  };
}

export function raceHolds(r: Race): boolean {
  const expectedOrders = Math.min(r.units, r.buyers);
  return (
    r.orders === expectedOrders &&
    r.insufficient === r.buyers - expectedOrders &&
    Object.keys(r.otherFailures).length === 0 &&
    Object.keys(r.cartFailures).length === 0 &&
    r.paid === r.orders &&
    r.onHand === r.units - r.paid &&
    r.reserved === 0 &&
    r.oversoldOrders === 0 &&
    percentile(r.checkoutMs, 99) < 2000
  );
}
