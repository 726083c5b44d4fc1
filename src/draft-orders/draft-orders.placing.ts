import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import { cancelUnusedIntent, createIntent } from '../checkout/checkout.service.ts';
import { refusalOf } from '../checkout/refusals.ts';
import { reserveQuoted } from '../checkout/reservation.ts';
import { customerOfOrder } from '../customers/customers.service.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { Database } from '../db/tables.ts';
import { AppError, validationFailed } from '../lib/errors.ts';
import { MAIL_LOOP } from '../mail/outbox.ts';
import type { CheckoutResult } from '../orders/orders.schemas.ts';
import { checkoutOfKey, MANUAL_PAYMENT, placedOrder, writeOrder } from '../orders/placed-orders.service.ts';
import { payOrderOutside } from '../orders/paid-outside.service.ts';
import { promotionHistory } from '../orders/promotion-history.ts';
import { payPlacedOrder } from '../orders/provider-events.service.ts';
import type { Intent } from '../payments/provider.ts';
import { reserveUses } from '../promotions/offer.ts';
import { heldMethodAmount } from '../shipping/shipping.service.ts';
import { recentStore } from '../stores/stores.service.ts';
import type { DraftOrdersDeps } from './draft-orders.deps.ts';
import { recordDraftEvent } from './draft-orders.events.ts';
import { DEFAULT_RESERVE_MS } from './draft-orders.input.ts';
import { queueInvoiceMail } from './draft-orders.mail.ts';
import { priceDraft, type PricedDraft } from './draft-orders.pricing.ts';
import { draftLines, findDraft, lockDraft, updateDraft } from './draft-orders.repository.ts';
import type { DraftOrderPlaced } from './draft-orders.schemas.ts';
import { draftNotOpen, draftWithTotals, noDraft } from './draft-orders.service.ts';
import type { DraftOrderLineRow, DraftOrderRow } from './draft-orders.tables.ts';
import { draftView } from './draft-orders.views.ts';
import { payLinkPath } from './pay-links.ts';

/**
 * A draft made an order (decision `draft-orders`), with checkout's guarantees: priced by its quote,
 * the stock reserved by the same atomic reservation (no oversell), the promotions' uses counted, the
 * order written by the same function, in one transaction with the draft's change and its event. A
 * draft makes one order at most (a unique index): a second invoice or completion, concurrent or
 * repeated, answers with the order the first made.
 *
 * - `invoice`: a pending order holding its stock until `reserveUntil` (default 3 days), its payment
 *   intent created at the store's provider first (cancelled if the transaction fails), and a mail to
 *   the customer with the pay link. The provider's signed webhook makes it paid, as every order.
 * - `manual`: a paid order at once, its payment `{provider: "manual", status: "succeeded"}`, its
 *   stock sold, `order.paid` and the buyer's confirmation as for any paid order.
 */
export type Placing = 'invoice' | 'manual';

const STATUS_AFTER = { invoice: 'invoiced', manual: 'completed' } as const;

/** The draft changed between pricing and placing (edited, prices moved): price it again. */
class DraftChanged extends Error {}

type InTransaction = Omit<DraftOrdersDeps, 'db'> & { db: Transaction<Database> };

export async function placeDraft(
  deps: DraftOrdersDeps,
  storeId: string,
  draftId: string,
  how: Placing,
  idempotencyKey: string,
): Promise<DraftOrderPlaced> {
  for (let attempt = 1; ; attempt++) {
    const draft = await findDraft(deps.db, storeId, draftId);
    if (!draft) throw noDraft();
    if (draft.status === 'invoiced' && how === 'manual') return markInvoicedPaid(deps, storeId, draftId);
    if (draft.status !== 'open') return placedAnswer(deps, storeId, draft, how);
    const lines = await draftLines(deps.db, storeId, draftId);
    const priced = await priceDraft(deps, storeId, draft, lines, 'fresh');
    const refusal = refusalOf(
      priced.quoted,
      {
        shippingAddress: priced.input.shippingAddress ?? undefined,
        shippingMethodId: draft.shipping_method_id ?? undefined,
      },
      false,
    );
    if (refusal) throw refusal;
    try {
      return await placePriced(deps, { storeId, draft, lines, priced, how, idempotencyKey });
    } catch (error) {
      if (error instanceof DraftChanged && attempt < 3) continue;
      if (error instanceof DraftChanged || isUniqueViolation(error)) {
        // Another placement of this draft won (or it changed three times): its answer, or the draft's state.
        const now = await findDraft(deps.db, storeId, draftId);
        if (now?.status === 'invoiced' && how === 'manual') return markInvoicedPaid(deps, storeId, draftId);
        if (now && now.status !== 'open') return placedAnswer(deps, storeId, now, how);
        if (error instanceof DraftChanged) throw draftChanged();
      }
      throw error;
    }
  }
}

const draftChanged = () =>
  new AppError(
    'draft_order_changed',
    409,
    'The draft order or the prices it was quoted at changed while it was being placed; look at it and try again.',
  );

const draftExpired = (order: { number: number; status: string }) =>
  new AppError(
    'draft_order_expired',
    409,
    `The draft order's order #${order.number} is ${order.status}: its stock went back and it can no longer be paid. Make a new draft order.`,
  );

/**
 * Decision `draft-order-mark-paid`: completing an invoiced draft with a payment taken outside (the
 * buyer paid the invoice by bank transfer) pays the pending order its invoice made, in one
 * transaction that locks the draft, then the order's payment and the order (the lock order of every
 * money path, so a provider's webhook for the same order waits or is waited for): a manual payment
 * succeeded, the order paid as a provider's success pays it, the draft `completed` with
 * `draft_order.completed`. The invoice's intent is cancelled at the provider once committed. An order
 * the provider paid first is answered as it stands (paid once); an expired or cancelled one is 409
 * `draft_order_expired`. A completed draft answers with its order.
 */
async function markInvoicedPaid(
  deps: DraftOrdersDeps,
  storeId: string,
  draftId: string,
): Promise<DraftOrderPlaced> {
  const store = await recentStore(deps, storeId);
  if (!store) throw noDraft();
  const done = await deps.db.transaction().execute(async (trx) => {
    const draft = await lockDraft(trx, storeId, draftId);
    if (!draft) throw noDraft();
    if (draft.status === 'completed') return { draft, intentRef: null };
    if (draft.status !== 'invoiced' || draft.order_id === null) throw draftNotOpen(draft);
    const paid = await payOrderOutside({ ...deps, db: trx }, store, draft.order_id);
    if (paid.outcome === 'not-found') throw draftNotOpen(draft);
    if (paid.outcome === 'closed') throw draftExpired(paid);
    // The provider's webhook paid it first: paid once, answered as it stands.
    if (paid.outcome === 'paid-already') return { draft, intentRef: null };
    const now = deps.clock.now();
    const { intentRef } = paid;
    const row = await updateDraft(trx, storeId, draft.id, {
      status: 'completed',
      version: draft.version + 1,
      updated_at: now,
    });
    await recordDraftEvent(trx, 'draft_order.completed', storeId, {
      draftOrderId: draft.id,
      status: 'completed',
      orderId: draft.order_id,
    });
    return { draft: row, intentRef };
  });
  deps.signals.wake(MAIL_LOOP);
  const { draft, intentRef } = done;
  if (intentRef)
    await deps.provider.cancelIntent(intentRef).catch((error: unknown) => {
      // Not cancelable (the buyer paid at that moment): its webhook refunds it in full.
      deps.log.warn({ err: error, ref: intentRef }, 'could not cancel the intent of an order marked paid');
    });
  const result = await placedOrder(deps, storeId, draft.order_id!);
  if (!result) throw draftNotOpen(draft);
  return answerOf(await draftWithTotals(deps, storeId, draft), result, null);
}

/** When an invoice's stock is held until, checked: ahead of now. */
function expiryOf(draft: DraftOrderRow, now: Date): Date {
  const until = draft.reserve_until ?? new Date(now.getTime() + DEFAULT_RESERVE_MS);
  if (until <= now)
    throw validationFailed('The draft order is not valid.', [
      { pointer: '/reserveUntil', detail: 'has passed: set a later one before invoicing' },
    ]);
  return until;
}

interface Priced {
  storeId: string;
  draft: DraftOrderRow;
  lines: readonly DraftOrderLineRow[];
  priced: PricedDraft;
  how: Placing;
  idempotencyKey: string;
}

async function placePriced(deps: DraftOrdersDeps, p: Priced): Promise<DraftOrderPlaced> {
  const { storeId, draft, priced, how } = p;
  const now = deps.clock.now();
  const total = priced.quoted.totals.total;
  if (how === 'invoice' && total === 0)
    throw validationFailed('The draft order’s total is 0: there is nothing to pay; complete it instead.');
  const expiresAt = how === 'invoice' ? expiryOf(draft, now) : now;
  const orderId = randomUUID();
  const intent: Intent | null =
    how === 'invoice'
      ? await createIntent(deps, {
          storeId,
          orderId,
          currency: priced.market.currency,
          total,
          metadata: { draftOrderId: draft.id },
        })
      : null;
  try {
    const answer = await deps.db
      .transaction()
      .execute((trx) => placeInTransaction({ ...deps, db: trx }, p, { orderId, intent, expiresAt, now }));
    deps.signals.wake(MAIL_LOOP);
    return answer;
  } catch (error) {
    if (intent) await cancelUnusedIntent(deps, intent, error);
    throw error;
  }
}

async function placeInTransaction(
  tx: InTransaction,
  p: Priced,
  made: { orderId: string; intent: Intent | null; expiresAt: Date; now: Date },
): Promise<DraftOrderPlaced> {
  const { storeId, draft, priced, how } = p;
  const { quoted, quoting, market } = priced;
  const { orderId, now } = made;
  const locked = await lockDraft(tx.db, storeId, draft.id);
  if (!locked) throw noDraft();
  // Placed or changed meanwhile (a concurrent invoice or completion): the caller looks again.
  if (locked.status !== 'open' || locked.version !== draft.version) throw new DraftChanged();
  if ((await reserveQuoted(tx.db, storeId, quoting.buyer, quoted.lines, now)) === null)
    throw new DraftChanged();
  // The store's method charged still carries the parcel at the quoted amount, read under a lock that
  // holds to the commit, as at checkout (decision `checkout-with-shipping`); typed shipping is staff's.
  const method = quoted.shipping.method;
  if (method !== null && draft.custom_shipping === null) {
    const held = await heldMethodAmount(tx, storeId, method.id, quoted.shipping.parcel, quoting.convert);
    if (held !== method.amount.amount) throw new DraftChanged();
  }
  const customerId = await customerOfOrder(tx.db, storeId, { customerId: draft.customer_id }, now);
  if (customerId === undefined) throw noDraft();
  if (
    !(await reserveUses(promotionHistory, tx.db, storeId, quoted.offer, quoted.promotions, priced.buyer, now))
  )
    throw new DraftChanged();
  const address = draft.shipping_address;
  const written = await writeOrder(tx, {
    storeId,
    orderId,
    cartId: null,
    draft: { id: draft.id, expiresAt: made.expiresAt },
    currency: market.currency,
    marketId: market.id,
    idempotencyKey: p.idempotencyKey,
    holder: { clientKey: '', email: draft.email },
    customerId,
    signedIn: false,
    country: address?.country ?? null,
    lines: quoted.lines,
    totals: quoted.totals,
    tax: quoted.tax,
    discountCode: null,
    promotions: quoted.promotions,
    shippingAddress: address,
    billingAddress: draft.billing_address,
    shippingMethod: method && {
      id: method.id,
      name: method.name,
      minDeliveryDays: method.minDeliveryDays,
      maxDeliveryDays: method.maxDeliveryDays,
    },
    phone: address?.phone ?? null,
    giftCards: [],
    intent: made.intent,
    paidOutside: how === 'manual' ? MANUAL_PAYMENT : undefined,
    now,
  });
  const store = await recentStore(tx, storeId);
  let result: CheckoutResult = written;
  if (how === 'manual') {
    const paid = await payPlacedOrder(tx, store!, orderId);
    result = {
      order: { ...written.order, status: paid.status, paidAt: paid.paid_at?.toISOString() ?? null },
      payment: { ...written.payment, status: 'succeeded' },
    };
  }
  const status = STATUS_AFTER[how];
  const row = await updateDraft(tx.db, storeId, draft.id, {
    status,
    order_id: orderId,
    version: locked.version + 1,
    updated_at: now,
  });
  await recordDraftEvent(tx.db, how === 'manual' ? 'draft_order.completed' : 'draft_order.updated', storeId, {
    draftOrderId: draft.id,
    status,
    orderId,
  });
  const payUrl = how === 'invoice' ? payUrlOf(tx, storeId, result) : null;
  if (payUrl) await queueInvoiceMail(tx.db, storeId, store?.name ?? '', result.order, payUrl);
  return answerOf(draftView(row, p.lines, priced), result, payUrl);
}

function payUrlOf(
  deps: Pick<DraftOrdersDeps, 'keyring' | 'publicBaseUrl'>,
  storeId: string,
  result: CheckoutResult,
) {
  const path = payLinkPath(deps.keyring, storeId, result.order.id, new Date(result.order.expiresAt));
  return `${deps.publicBaseUrl.replace(/\/$/, '')}${path}`;
}

function answerOf(
  draftOrder: DraftOrderPlaced['draftOrder'],
  { order, payment }: CheckoutResult,
  payUrl: string | null,
): DraftOrderPlaced {
  return {
    draftOrder,
    order: {
      id: order.id,
      number: order.number,
      status: order.status,
      total: order.total,
      expiresAt: order.expiresAt,
    },
    payment: { provider: payment.provider, status: payment.status, amount: payment.amount },
    payUrl,
  };
}

/**
 * The answer for a draft that made its order already (a repeated or concurrent invoice or
 * completion): that order as it stands. Invoicing a completed draft is 409 `draft_order_not_open`
 * (completing an invoiced one marks its order paid: `markInvoicedPaid`).
 */
async function placedAnswer(
  deps: DraftOrdersDeps,
  storeId: string,
  draft: DraftOrderRow,
  how: Placing,
): Promise<DraftOrderPlaced> {
  if (draft.status !== STATUS_AFTER[how] || draft.order_id === null) throw draftNotOpen(draft);
  const result = await placedOrder(deps, storeId, draft.order_id);
  if (!result) throw draftNotOpen(draft);
  const payUrl =
    how === 'invoice' && result.order.status === 'pending' ? payUrlOf(deps, storeId, result) : null;
  return answerOf(await draftWithTotals(deps, storeId, draft), result, payUrl);
}

/** The answer for the order a placement with this Idempotency-Key made (a retry after a crash); null when none. */
export async function placedDraftOfKey(
  deps: DraftOrdersDeps,
  storeId: string,
  idempotencyKey: string,
  how: Placing,
): Promise<DraftOrderPlaced | null> {
  const made = await checkoutOfKey(deps, storeId, idempotencyKey);
  const draftId = made?.order.draftOrderId;
  const draft = draftId ? await findDraft(deps.db, storeId, draftId) : undefined;
  return draft ? placedAnswer(deps, storeId, draft, how) : null;
}
