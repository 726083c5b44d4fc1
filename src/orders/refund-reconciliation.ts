import { sql } from 'kysely';
import { fairBatch } from '../db/fair-batch.ts';
import { backoffMs } from '../lib/backoff.ts';
import { applyProviderEvent } from './payment-events.ts';
import type { PaymentDeps } from './payment-deps.ts';
import { RECONCILE_AFTER_MS, sendRefund } from './refunds.service.ts';

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
 * looked at, fairly across stores, each on its own (D23). One without a provider reference is
 * requested again with its idempotency key, which returns the refund the provider already made, or
 * makes it now. One the provider has settled is applied exactly as its webhook would have been (the
 * same code path; a late webhook then changes nothing). Anything else, an error included, moves the
 * refund's `next_check_at` on with backoff, so it never holds up the refunds behind it.
 */
export async function reconcileRefunds(deps: PaymentDeps): Promise<ReconcileResult> {
  const now = deps.clock.now();
  const { rows } = await fairBatch<{ store_id: string; id: string }>({
    table: 'refunds',
    open: sql`t.status = 'pending'`,
    due: sql`t.next_check_at <= ${now}`,
    orderBy: sql`t.next_check_at, t.id`,
    columns: sql`t.store_id, t.id`,
    limit: BATCH,
  }).execute(deps.db);

  let settled = 0;
  for (const { store_id: storeId, id } of rows) {
    try {
      if (await reconcileOne(deps, storeId, id)) settled += 1;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      deps.log.warn({ err: message, refundId: id }, 'refund reconciliation failed; asking again later');
      await deps.db
        .updateTable('refunds')
        .set((eb) => ({
          attempts: eb('attempts', '+', 1),
          last_error: message.slice(0, 1000),
          next_check_at: new Date(
            deps.clock.now().getTime() + backoffMs(2, RECONCILE_AFTER_MS, RECHECK_MAX_MS),
          ),
        }))
        .where('store_id', '=', storeId)
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .execute();
    }
  }
  return { checked: rows.length, settled };
}

/** Looks at one refund; true when it settled now. */
async function reconcileOne(deps: PaymentDeps, storeId: string, refundId: string): Promise<boolean> {
  const found = await deps.db
    .selectFrom('refunds as r')
    .innerJoin('payments as p', (join) =>
      join.onRef('p.store_id', '=', 'r.store_id').onRef('p.id', '=', 'r.payment_id'),
    )
    .innerJoin('orders as o', (join) =>
      join.onRef('o.store_id', '=', 'r.store_id').onRef('o.id', '=', 'r.order_id'),
    )
    .selectAll('r')
    .select(['p.ref as payment_ref', 'p.currency as payment_currency', 'p.provider'])
    .where('r.store_id', '=', storeId)
    .where('r.id', '=', refundId)
    .where('r.status', '=', 'pending')
    .executeTakeFirst();
  if (!found) return false;
  const recheck = async (attempts: number): Promise<void> => {
    await deps.db
      .updateTable('refunds')
      .set({
        attempts,
        next_check_at: new Date(
          deps.clock.now().getTime() + backoffMs(attempts, RECONCILE_AFTER_MS, RECHECK_MAX_MS),
        ),
      })
      .where('store_id', '=', storeId)
      .where('id', '=', refundId)
      .where('status', '=', 'pending')
      .execute();
  };
  if (found.provider !== deps.provider.name) {
    // Made with a provider this process is not configured for: nothing to ask; look again daily.
    await recheck(30);
    return false;
  }

  let refundRef = found.provider_ref;
  if (refundRef === null) {
    const order = await deps.db
      .selectFrom('orders')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('id', '=', found.order_id)
      .executeTakeFirstOrThrow();
    const outcome = await sendRefund(deps, {
      refund: found,
      payment: { ref: found.payment_ref, currency: found.payment_currency },
      order,
    });
    if (outcome !== 'requested') return false;
    refundRef = (
      await deps.db
        .selectFrom('refunds')
        .select('provider_ref')
        .where('store_id', '=', storeId)
        .where('id', '=', refundId)
        .executeTakeFirstOrThrow()
    ).provider_ref;
    if (refundRef === null) return false;
  }

  const atProvider = await deps.provider.retrieveRefund(refundRef);
  if (atProvider.status === 'pending') {
    await recheck(found.attempts + 1);
    return false;
  }
  const metadata = { storeId, orderId: found.order_id, refundId };
  const result = await applyProviderEvent(
    deps,
    atProvider.status === 'succeeded'
      ? {
          id: `reconciled:${refundRef}`,
          kind: 'refund.succeeded',
          ref: found.payment_ref,
          refundRef,
          amount: atProvider.amount,
          metadata,
        }
      : { id: `reconciled:${refundRef}`, kind: 'refund.failed', ref: found.payment_ref, refundRef, metadata },
  );
  if (result !== 'applied') return false;
  deps.log.warn(
    { refundId, refundRef, status: atProvider.status },
    'refund settled by reconciliation: its provider webhook never arrived',
  );
  return true;
}
