import { backoffMs } from '../lib/backoff.ts';
import { findOrder } from './orders.repository.ts';
import { applyProviderEvent, type ProviderEventDeps } from './provider-events.service.ts';
import { RECONCILE_AFTER_MS, sendRefund } from './refunds.service.ts';
import {
  countReconcileError,
  dueRefunds,
  findRefund,
  pendingRefundWithPayment,
  updateRefund,
} from './refunds.repository.ts';
import { reportIfOutage } from '../db/errors.ts';

export { RECONCILE_AFTER_MS } from './refunds.service.ts';

const BATCH = 50;
/** A refund still open at the provider is asked about again after this, then longer, at most daily. */
const RECHECK_MAX_MS = 24 * 60 * 60 * 1000;

export interface ReconcileResult {
  checked: number;
  settled: number;
}

/**
 * Refunds whose settlement never arrived (lost webhook, a crash between recording and calling the
 * provider, a provider that timed out): every pending refund whose `next_check_at` has come is
 * looked at, fairly across stores, each on its own (decision `worker-loops`). One without a provider reference is
 * requested again with its idempotency key, which returns the refund the provider already made, or
 * makes it now. One the provider has settled is applied exactly as its webhook would have been (the
 * same code path; a late webhook then changes nothing). Anything else, an error included, moves the
 * refund's `next_check_at` on with backoff, so it never holds up the refunds behind it.
 */
export async function reconcileRefunds(deps: ProviderEventDeps): Promise<ReconcileResult> {
  const rows = await dueRefunds(deps.db, deps.clock.now(), BATCH);
  let settled = 0;
  for (const refund of rows) {
    try {
      if (await reconcileOne(deps, refund.store_id, refund.id)) settled += 1;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (!reportIfOutage(deps.log, error, { refundId: refund.id }))
        deps.log.warn(
          { err: message, refundId: refund.id },
          'refund reconciliation failed; asking again later',
        );
      const at = new Date(deps.clock.now().getTime() + backoffMs(2, RECONCILE_AFTER_MS, RECHECK_MAX_MS));
      await countReconcileError(deps.db, refund, message.slice(0, 1000), at);
    }
  }
  return { checked: rows.length, settled };
}

/** Looks at one refund; true when it settled now. */
async function reconcileOne(deps: ProviderEventDeps, storeId: string, refundId: string): Promise<boolean> {
  const found = await pendingRefundWithPayment(deps.db, storeId, refundId);
  if (!found) return false;
  const recheck = async (attempts: number): Promise<void> => {
    const at = new Date(deps.clock.now().getTime() + backoffMs(attempts, RECONCILE_AFTER_MS, RECHECK_MAX_MS));
    await updateRefund(deps.db, found, { attempts, next_check_at: at }, { whilePending: true });
  };
  if (found.provider !== deps.provider.name) {
    // Made with a provider this process is not configured for: nothing to ask; look again daily.
    await recheck(30);
    return false;
  }

  let refundRef = found.provider_ref;
  if (refundRef === null) {
    const order = await findOrder(deps.db, storeId, found.order_id);
    if (!order) return false;
    const outcome = await sendRefund(deps, {
      refund: found,
      payment: { ref: found.payment_ref, currency: found.payment_currency },
      order,
    });
    if (outcome !== 'requested') return false;
    refundRef = (await findRefund(deps.db, storeId, refundId))?.provider_ref ?? null;
    if (refundRef === null) return false;
  }

  const atProvider = await deps.provider.retrieveRefund(refundRef);
  if (atProvider.status === 'pending') {
    await recheck(found.attempts + 1);
    return false;
  }
  const metadata = { storeId, orderId: found.order_id, refundId };
  const id = `reconciled:${refundRef}`;
  const result = await applyProviderEvent(
    deps,
    atProvider.status === 'succeeded'
      ? {
          id,
          kind: 'refund.succeeded',
          ref: found.payment_ref,
          refundRef,
          amount: atProvider.amount,
          metadata,
        }
      : { id, kind: 'refund.failed', ref: found.payment_ref, refundRef, metadata },
  );
  if (result !== 'applied') return false;
  deps.log.warn(
    { refundId, refundRef, status: atProvider.status },
    'refund settled by reconciliation: its provider webhook never arrived',
  );
  return true;
}
