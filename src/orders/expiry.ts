import { sql } from 'kysely';
import { releaseReserved } from '../catalog/inventory.ts';
import { fairBatch } from '../db/fair-batch.ts';
import { backoffMs } from '../lib/backoff.ts';
import type { IntentStatus } from '../payments/provider.ts';
import { lockPaymentAndOrder, orderLines, stockLinesOf } from './orders.repository.ts';
import type { PaymentDeps } from './payment-deps.ts';
import { applyProviderEvent } from './payment-events.ts';

export const EXPIRY_BATCH = 50;
/** An order the sweep could not settle is looked at again after this, doubling up to the maximum. */
const RETRY_BASE_MS = 15_000;
const RETRY_MAX_MS = 10 * 60 * 1000;

export interface SweepResult {
  /** Orders looked at (a full batch means more may be due). */
  examined: number;
  expired: number;
}

type Outcome = 'expired' | 'paid' | 'postponed' | 'settled';

/**
 * Expires unpaid orders past their time (D5), fairly across stores and each order on its own (D23):
 * an order that cannot be settled now (the provider does not answer, the payment is still
 * processing) gets a later `next_sweep_at` with backoff and never holds up the orders behind it; an
 * error in one order is logged once and contained.
 *
 * The provider is asked first: an intent that already succeeded is the payment (its webhook may be
 * late), one still processing is waited for. Otherwise the reservation is released in the same
 * transaction that marks the order expired (payment, then order locked, as everywhere), and the
 * intent is cancelled after the commit.
 */
export async function expireOrders(deps: PaymentDeps, batch = EXPIRY_BATCH): Promise<SweepResult> {
  const now = deps.clock.now();
  const { rows } = await fairBatch<{ store_id: string; id: string; sweep_attempts: number }>({
    table: 'orders',
    open: sql`t.status = 'pending'`,
    due: sql`t.next_sweep_at <= ${now}`,
    orderBy: sql`t.next_sweep_at, t.id`,
    columns: sql`t.store_id, t.id, t.sweep_attempts`,
    limit: batch,
  }).execute(deps.db);

  let expired = 0;
  for (const order of rows) {
    let outcome: Outcome;
    try {
      outcome = await sweepOne(deps, order.store_id, order.id);
    } catch (error) {
      deps.log.warn(
        {
          err: error instanceof Error ? error.message : error,
          orderId: order.id,
          attempt: order.sweep_attempts + 1,
        },
        'could not settle an overdue order; trying it again later',
      );
      outcome = 'postponed';
    }
    if (outcome === 'expired') expired += 1;
    if (outcome === 'postponed') {
      const attempts = order.sweep_attempts + 1;
      await deps.db
        .updateTable('orders')
        .set({
          sweep_attempts: attempts,
          next_sweep_at: new Date(
            deps.clock.now().getTime() + backoffMs(attempts, RETRY_BASE_MS, RETRY_MAX_MS),
          ),
        })
        .where('store_id', '=', order.store_id)
        .where('id', '=', order.id)
        .where('status', '=', 'pending')
        .execute();
    }
  }
  return { examined: rows.length, expired };
}

async function sweepOne(deps: PaymentDeps, storeId: string, orderId: string): Promise<Outcome> {
  const payment = await deps.db
    .selectFrom('payments')
    .select(['provider', 'ref', 'status'])
    .where('store_id', '=', storeId)
    .where('order_id', '=', orderId)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
  const ours = payment !== undefined && payment.provider === deps.provider.name;
  if (payment && ours) {
    const status: IntentStatus = (await deps.provider.retrieveIntent(payment.ref)).status;
    if (status === 'succeeded') {
      await applyProviderEvent(deps, {
        id: `reconcile:${payment.ref}`,
        kind: 'payment.succeeded',
        ref: payment.ref,
        amount: 0,
        metadata: { storeId, orderId },
      });
      return 'paid';
    }
    if (status === 'processing') {
      // The outcome is on its way (its webhook will settle the order); mirror the status meanwhile.
      await applyProviderEvent(deps, {
        id: `reconcile-processing:${payment.ref}`,
        kind: 'payment.processing',
        ref: payment.ref,
        metadata: { storeId, orderId },
      });
      return 'postponed';
    }
  } else if (payment) {
    deps.log.warn(
      { orderId, provider: payment.provider },
      'an overdue order was paid through a provider that is not configured any more: expiring it without asking',
    );
  }

  const done = await deps.db.transaction().execute(async (trx) => {
    const locked = await lockPaymentAndOrder(trx, storeId, { orderId });
    const order =
      locked?.order ??
      (await trx
        .selectFrom('orders')
        .selectAll()
        .where('store_id', '=', storeId)
        .where('id', '=', orderId)
        .forUpdate()
        .executeTakeFirst());
    if (!order || order.status !== 'pending') return false;
    const now = deps.clock.now();
    await releaseReserved(trx, storeId, stockLinesOf(await orderLines(trx, order)), now);
    await trx
      .updateTable('orders')
      .set({ status: 'expired', expired_at: now, updated_at: now })
      .where('store_id', '=', storeId)
      .where('id', '=', orderId)
      .execute();
    await trx
      .updateTable('payments')
      .set({ status: 'canceled', updated_at: now })
      .where('store_id', '=', storeId)
      .where('order_id', '=', orderId)
      .where('status', 'in', ['pending', 'failed'])
      .execute();
    return true;
  });
  if (!done) return 'settled';
  if (payment && ours) {
    await deps.provider.cancelIntent(payment.ref).catch((error: unknown) => {
      // Not cancelable: the buyer paid at the last moment; its webhook revives or refunds the order.
      deps.log.warn(
        { err: error instanceof Error ? error.message : error, ref: payment.ref },
        'could not cancel the intent of an expired order',
      );
    });
  }
  return 'expired';
}
