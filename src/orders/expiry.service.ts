import { releaseReserved } from '../catalog/inventory/inventory.ts';
import { release } from '../gift-cards/gift-cards.ledger.ts';
import { giveBackDiscountUse } from '../pricing/pricing.service.ts';
import { backoffMs } from '../lib/backoff.ts';
import { cancelOpenPayments, latestPayment, lockPaymentAndOrder } from './order-payments.repository.ts';
import type { OrdersDeps } from './orders.deps.ts';
import { findOrder, markOrderExpired, orderLines } from './orders.repository.ts';
import { dueOrders, extendHold, postponeSweep, type DueOrder } from './expiry.repository.ts';
import { stockLinesOf } from './orders.views.ts';
import { applyProviderEvent, type ProviderEventDeps } from './provider-events.service.ts';
import { reportIfOutage } from '../db/errors.ts';

export const EXPIRY_BATCH = 50;
/** An order the sweep could not settle is looked at again after this, doubling up to the maximum. */
const RETRY_BASE_MS = 15_000;
const RETRY_MAX_MS = 10 * 60 * 1000;

export interface SweepResult {
  /** Orders looked at (a full batch means more may be due). */
  examined: number;
  expired: number;
}

type Outcome = 'expired' | 'paid' | 'postponed' | 'settled' | 'extended';

export type ExpiryDeps = ProviderEventDeps & Pick<OrdersDeps, 'settings'>;

/**
 * Expires unpaid orders past their time (decision `order-states`), fairly across stores and each order on its own (decision `worker-loops`):
 * an order that cannot be settled now (the provider does not answer, the payment is still
 * processing) gets a later `next_sweep_at` with backoff and never holds up the orders behind it; an
 * error in one order is logged once and contained.
 *
 * The provider is asked first: an intent that already succeeded is the payment (its webhook may be
 * late), one still processing is waited for. An order at the end of its short hold whose buyer has
 * tried to pay keeps its stock until ORDER_TTL from checkout (decision
 * `short-hold-until-payment-tried`). Otherwise the reservation is released in the same transaction
 * that marks the order expired (payment, then order locked, as everywhere), and the intent is
 * cancelled after the commit.
 */
export async function expireOrders(deps: ExpiryDeps, batch = EXPIRY_BATCH): Promise<SweepResult> {
  const rows = await dueOrders(deps.db, deps.clock.now(), batch);
  let expired = 0;
  for (const order of rows) {
    let outcome: Outcome;
    try {
      outcome = await sweepOne(deps, order);
    } catch (error) {
      if (!reportIfOutage(deps.log, error, { orderId: order.id }))
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
      const at = new Date(deps.clock.now().getTime() + backoffMs(attempts, RETRY_BASE_MS, RETRY_MAX_MS));
      await postponeSweep(deps.db, order, attempts, at);
    }
  }
  return { examined: rows.length, expired };
}

/**
 * Asks the provider about the order's payment; an answer that settles the order is applied.
 * Otherwise: whether the buyer has tried to pay (`tried`) or not.
 */
async function askProvider(
  deps: ProviderEventDeps,
  storeId: string,
  orderId: string,
  ref: string,
): Promise<'paid' | 'postponed' | 'tried' | 'untried'> {
  const { status, attempted } = await deps.provider.retrieveIntent(ref);
  const metadata = { storeId, orderId };
  if (status === 'succeeded') {
    await applyProviderEvent(deps, {
      id: `reconcile:${ref}`,
      kind: 'payment.succeeded',
      ref,
      amount: 0,
      metadata,
    });
    return 'paid';
  }
  if (status === 'processing') {
    // The outcome is on its way (its webhook will settle the order); mirror the status meanwhile.
    await applyProviderEvent(deps, {
      id: `reconcile-processing:${ref}`,
      kind: 'payment.processing',
      ref,
      metadata,
    });
    return 'postponed';
  }
  return attempted ? 'tried' : 'untried';
}

/** Releases the reservation and marks the order expired, in one transaction; false when it was settled meanwhile. */
async function expire(deps: ProviderEventDeps, storeId: string, orderId: string): Promise<boolean> {
  return deps.db.transaction().execute(async (trx) => {
    const locked = await lockPaymentAndOrder(trx, storeId, { orderId });
    const order = locked?.order ?? (await findOrder(trx, storeId, orderId, { forUpdate: true }));
    if (!order || order.status !== 'pending') return false;
    const now = deps.clock.now();
    await releaseReserved(trx, storeId, stockLinesOf(await orderLines(trx, order)), now);
    await markOrderExpired(trx, order, now);
    await giveBackDiscountUse({ db: trx }, order, now);
    // Decision `gift-card-tender`: what the order held on gift cards goes back to them.
    if (order.gift_cards.length > 0) await release(trx, { storeId, orderId, now });
    await cancelOpenPayments(trx, order, now);
    return true;
  });
}

async function sweepOne(deps: ExpiryDeps, order: DueOrder): Promise<Outcome> {
  const { store_id: storeId, id: orderId } = order;
  const payment = await latestPayment(deps.db, storeId, orderId);
  const ours = payment !== undefined && payment.provider === deps.provider.name;
  if (payment && ours) {
    const answer = await askProvider(deps, storeId, orderId, payment.ref);
    if (answer === 'paid' || answer === 'postponed') return answer;
    // The short hold ends; a buyer who tried to pay keeps the order to ORDER_TTL from checkout.
    const until = new Date(new Date(order.created_at).getTime() + deps.settings.orderTtlMs);
    const now = deps.clock.now();
    if (answer === 'tried' && now < until) {
      await extendHold(deps.db, order, until, now);
      return 'extended';
    }
  } else if (payment) {
    deps.log.warn(
      { orderId, provider: payment.provider },
      'an overdue order was paid through a provider that is not configured any more: expiring it without asking',
    );
  }
  if (!(await expire(deps, storeId, orderId))) return 'settled';
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
