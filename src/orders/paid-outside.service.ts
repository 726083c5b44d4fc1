import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { Store } from '../stores/stores.service.ts';
import { insertPayment, lockPaymentAndOrder, movePayment, type Locked } from './order-payments.repository.ts';
import type { OrdersDeps } from './orders.deps.ts';
import type { OrderRow, OrderStatus, PaymentRow } from './orders.tables.ts';
import { sealClientSecret } from './payment-secrets.ts';
import { MANUAL_PAYMENT } from './placed-orders.service.ts';
import { payPlacedOrder } from './provider-events.service.ts';

type InTransaction = Pick<OrdersDeps, 'clock' | 'provider' | 'log' | 'signals' | 'keyring'> & {
  db: Transaction<Database>;
};

/**
 * Decision `draft-orders`: a pending order whose buyer paid outside any provider (a bank transfer
 * after a draft's invoice), marked paid by staff, in the caller's transaction with the payment and
 * the order locked (`lockPaymentAndOrder`, the lock order of every money path). The provider's
 * payment still open is canceled (its intent is returned for the caller to cancel once committed),
 * a payment `{provider: "manual", status: "succeeded"}` of the same amount is written, and the order
 * is paid exactly as a provider's success pays it (`payPlacedOrder`: its reservation sold,
 * order.paid, the cards it sells issued, the buyer's confirmation). Should the provider's payment
 * succeed later all the same, its webhook refunds it in full (`duplicate_payment`).
 */
export async function payPendingOutside(
  tx: InTransaction,
  store: Store,
  locked: Locked,
): Promise<{ order: OrderRow; payment: PaymentRow; intentRef: string | null }> {
  const { order, payment: current } = locked;
  if (order.status !== 'pending') throw new Error(`The order ${order.id} is ${order.status}, not pending`);
  const now = tx.clock.now();
  const by = { provider: current.provider, ref: current.ref };
  const canceled = await movePayment(
    tx.db,
    order.store_id,
    by,
    ['pending', 'processing', 'failed'],
    { status: 'canceled' },
    now,
  );
  const named = { store_id: order.store_id, provider: MANUAL_PAYMENT, ref: `${MANUAL_PAYMENT}:${order.id}` };
  const payment = await insertPayment(tx.db, {
    ...named,
    id: randomUUID(),
    order_id: order.id,
    client_secret: sealClientSecret(tx.keyring, named, ''),
    status: 'succeeded',
    amount: current.amount,
    currency: current.currency,
    last_error: null,
    // After the provider's, so that it is the order's latest payment (what refunds and reads use).
    created_at: new Date(Math.max(now.getTime(), current.created_at.getTime() + 1)),
    updated_at: now,
  });
  const paid = await payPlacedOrder(tx, store, order.id);
  const intentRef = canceled && current.provider === tx.provider.name ? current.ref : null;
  return { order: paid, payment, intentRef };
}

/** What marking an order paid outside did (`payOrderOutside`). */
export type PaidOutside =
  | { outcome: 'paid'; intentRef: string | null }
  /** Paid already (by its provider's webhook): nothing changed. */
  | { outcome: 'paid-already' }
  /** Expired or cancelled: it can no longer be paid; nothing changed. */
  | { outcome: 'closed'; status: OrderStatus; number: number }
  | { outcome: 'not-found' };

/**
 * Locks the order's payment and the order (`lockPaymentAndOrder`) and pays it outside when it is
 * still pending (`payPendingOutside`), in the caller's transaction; says what it found otherwise.
 */
export async function payOrderOutside(
  tx: InTransaction,
  store: Store,
  orderId: string,
): Promise<PaidOutside> {
  const locked = await lockPaymentAndOrder(tx.db, store.id, { orderId });
  if (!locked) return { outcome: 'not-found' };
  const { order } = locked;
  if (order.status === 'paid') return { outcome: 'paid-already' };
  if (order.status !== 'pending') return { outcome: 'closed', status: order.status, number: order.number };
  const { intentRef } = await payPendingOutside(tx, store, locked);
  return { outcome: 'paid', intentRef };
}
