import type { Keyring } from '../lib/keyring.ts';
import type { Log } from '../lib/log.ts';
import type { PaymentProvider } from '../payments/provider.ts';
import type { WorkerSignals } from '../workers/runner.ts';
import type { ServiceDeps } from '../db/service-deps.ts';

/** Checkout and order settings (PaymentsConfig's ORDER_TTL, PAYMENT_HOLD, IDEMPOTENCY_TTL, PENDING_ORDERS_PER_CLIENT). */
export interface OrderSettings {
  /** Unpaid orders expire after this long at the latest. */
  readonly orderTtlMs: number;
  /**
   * An unpaid order whose buyer has not tried to pay at the provider expires after this long
   * (PAYMENT_HOLD, at most orderTtlMs); a payment tried extends it to orderTtlMs from checkout.
   */
  readonly paymentHoldMs: number;
  /** How long idempotency keys are kept (the orders loop purges older ones). */
  readonly idempotencyTtlMs: number;
  /** Pending orders one client address may hold in a store at once (decision `pending-orders-per-client`). */
  readonly pendingOrdersPerClient: number;
}

/**
 * What orders work with: checkout, the money path (provider events, refunds, expiry) and the admin
 * views. Every function takes these first, or the part of them it uses (`db` may be a transaction).
 */
export interface OrdersDeps extends ServiceDeps {
  log: Log;
  /** Seals payment client secrets and stored idempotent answers (decision `sealed-secrets`). */
  keyring: Keyring;
  /** The payment provider (sandbox or stripe). */
  provider: PaymentProvider;
  /** Wakes this process's mail loop after a commit that queued mail. */
  signals: WorkerSignals;
  settings: OrderSettings;
}
