import type { WorkerLoop } from '../workers/runner.ts';
import { EXPIRY_BATCH, expireOrders } from './expiry.service.ts';
import { purgeIdempotencyKeys } from '../idempotency/idempotency.ts';
import type { OrdersDeps } from './orders.deps.ts';
import { reconcileRefunds } from './refund-reconciliation.service.ts';

export const ORDER_EXPIRY_LOOP = 'order-expiry';

/**
 * Expires unpaid orders (decision `order-states`), settles refunds whose webhook never came, and purges idempotency keys
 * past their retention (decision `idempotency-keys`).
 */
export function orderLoops(deps: OrdersDeps): WorkerLoop[] {
  const { orderTtlMs, idempotencyTtlMs } = deps.settings;
  return [
    {
      name: ORDER_EXPIRY_LOOP,
      intervalMs: Math.min(15_000, Math.max(1000, Math.floor(orderTtlMs / 4))),
      async run(signal) {
        while (!signal.aborted && (await expireOrders(deps)).examined === EXPIRY_BATCH) {
          /* next batch */
        }
      },
    },
    {
      name: 'refund-reconcile',
      intervalMs: 5 * 60 * 1000,
      async run() {
        await reconcileRefunds(deps);
      },
    },
    {
      name: 'idempotency-purge',
      intervalMs: 10 * 60 * 1000,
      async run() {
        await purgeIdempotencyKeys(deps, deps.clock.now(), idempotencyTtlMs);
      },
    },
  ];
}
