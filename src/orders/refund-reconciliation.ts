import { sql } from 'kysely';
import { applyProviderEvent, refundRequest, type PaymentDeps } from './payment-events.ts';

/** A refund still pending this long is asked about at the provider. */
export const RECONCILE_AFTER_MS = 10 * 60 * 1000;
const BATCH_PER_STORE = 20;
const BATCH = 100;

interface StaleRefund {
  store_id: string;
  id: string;
  order_id: string;
  amount: number;
  provider_ref: string | null;
  payment_ref: string;
  currency: string;
}

export interface ReconcileResult {
  checked: number;
  settled: number;
}

/**
 * Refunds whose settlement webhook never came (lost by the provider, or by a crash between the
 * provider call and our write): each refund pending longer than RECONCILE_AFTER_MS is looked up at
 * the provider and, once it has settled there, applied exactly as its webhook would have been (the
 * same code path; a late webhook finds the refund settled and changes nothing). A refund that has
 * no provider reference yet is requested again with its own idempotency key, which returns the
 * refund the provider already made, or makes it now if the first request never arrived.
 */
export async function reconcileRefunds(deps: PaymentDeps): Promise<ReconcileResult> {
  const cutoff = new Date(deps.clock.now().getTime() - RECONCILE_AFTER_MS);
  // Per store along the partial index of pending refunds, never a scan of all refunds.
  const { rows } = await sql<StaleRefund>`
    SELECT r.store_id, r.id, r.order_id, r.amount, r.provider_ref, p.ref AS payment_ref, o.currency
    FROM stores s
    CROSS JOIN LATERAL (
      SELECT * FROM refunds
      WHERE store_id = s.id AND status = 'pending' AND created_at < ${cutoff}
      ORDER BY created_at
      LIMIT ${BATCH_PER_STORE}
    ) r
    JOIN payments p ON p.store_id = r.store_id AND p.id = r.payment_id AND p.provider = ${deps.provider.name}
    JOIN orders o ON o.store_id = r.store_id AND o.id = r.order_id
    LIMIT ${BATCH}`.execute(deps.db);

  let settled = 0;
  for (const refund of rows) {
    const metadata = { storeId: refund.store_id, orderId: refund.order_id, refundId: refund.id };
    try {
      let refundRef = refund.provider_ref;
      if (refundRef === null) {
        ({ refundRef } = await deps.provider.refund(
          refundRequest(refund, refund.payment_ref, refund.currency),
        ));
        await deps.db
          .updateTable('refunds')
          .set({ provider_ref: refundRef })
          .where('store_id', '=', refund.store_id)
          .where('id', '=', refund.id)
          .where('provider_ref', 'is', null)
          .execute();
      }
      const found = await deps.provider.retrieveRefund(refundRef);
      if (found.status === 'pending') continue;
      const result = await applyProviderEvent(
        deps,
        found.status === 'succeeded'
          ? {
              id: `reconciled:${refundRef}`,
              kind: 'refund.succeeded',
              ref: refund.payment_ref,
              refundRef,
              amount: found.amount,
              metadata,
            }
          : {
              id: `reconciled:${refundRef}`,
              kind: 'refund.failed',
              ref: refund.payment_ref,
              refundRef,
              metadata,
            },
      );
      if (result === 'applied') {
        settled += 1;
        deps.log.warn(
          { refundId: refund.id, refundRef, status: found.status },
          'refund settled by reconciliation: its provider webhook never arrived',
        );
      }
    } catch (error) {
      deps.log.warn(
        { err: error instanceof Error ? error.message : error, refundId: refund.id },
        'refund reconciliation failed; trying again next time',
      );
    }
  }
  return { checked: rows.length, settled };
}
