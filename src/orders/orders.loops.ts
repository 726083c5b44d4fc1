import type { PaymentProvider } from '../payments/provider.ts';
import type { LoopDeps } from '../workers/loops.ts';
import { WorkerSignals, type WorkerLoop } from '../workers/runner.ts';
import { purgeIdempotencyKeys } from './idempotency.ts';
import { EXPIRY_BATCH, expireOrders } from './expiry.ts';
import { reconcileRefunds } from './refund-reconciliation.ts';

export const ORDER_EXPIRY_LOOP = 'order-expiry';

/**
 * Expires unpaid orders (D5), settles refunds whose webhook never came, and purges idempotency keys
 * past their retention (D7).
 */
export function orderLoops(
  deps: LoopDeps & { payments: PaymentProvider; signals?: WorkerSignals },
): WorkerLoop[] {
  const paymentDeps = {
    db: deps.db,
    clock: deps.clock,
    provider: deps.payments,
    log: deps.log,
    signals: deps.signals ?? new WorkerSignals(),
  };
  return [
    {
      name: ORDER_EXPIRY_LOOP,
      intervalMs: Math.min(15_000, Math.max(1000, Math.floor(deps.config.payments.orderTtlMs / 4))),
      async run(signal) {
        while (!signal.aborted && (await expireOrders(paymentDeps)).examined === EXPIRY_BATCH) {
          /* next batch */
        }
      },
    },
    {
      name: 'refund-reconcile',
      intervalMs: 5 * 60 * 1000,
      async run() {
        await reconcileRefunds(paymentDeps);
      },
    },
    {
      name: 'idempotency-purge',
      intervalMs: 10 * 60 * 1000,
      async run() {
        await purgeIdempotencyKeys(deps.db, deps.clock.now(), deps.config.payments.idempotencyTtlMs);
      },
    },
  ];
}
