import { formatAddress } from '@storefront/address';
import { unitsPart } from '../pricing/tax-arithmetic.ts';
import type { Kysely, Transaction } from 'kysely';
import type { Shortfall } from '../catalog/inventory/inventory.ts';
import type { Database } from '../db/tables.ts';
import { formatMoney } from '../lib/money.ts';
import type { LastStatement } from '../db/last-statement.ts';
import { enqueueMail, enqueueMailStatement, type QueuedMail } from '../mail/outbox.ts';
import { notifyOwners } from '../staff/owner-notices.ts';
import { ERASED_EMAIL } from './buyers.repository.ts';
import type { OrderLineFields } from './orders.repository.ts';
import type { FulfillmentRow, OrderRow, RefundRow, ReturnRow } from './orders.tables.ts';

/** The mail orders send: to the buyer from the store, and notices to the store's owners. */

const m = (amount: number, currency: string) => formatMoney({ amount, currency: currency.trim() });

/** Store mail to the order's buyer (from the store's sender, Reply-To the store), on the order's timeline. */
async function mailBuyer(
  deps: { db: Kysely<Database> },
  order: Pick<OrderRow, 'store_id' | 'id' | 'email'>,
  kind: string,
  mail: { subject: string; text: string },
): Promise<void> {
  // An erased buyer (decision `erasure-is-immediate`) is never mailed again: the order has no one's address.
  if (order.email === ERASED_EMAIL) return;
  await enqueueMail(deps.db, buyerMail(order, kind, mail));
}

function buyerMail(
  order: Pick<OrderRow, 'store_id' | 'id' | 'email'>,
  kind: string,
  mail: { subject: string; text: string },
): QueuedMail {
  return {
    storeId: order.store_id,
    tier: 'store',
    kind,
    to: order.email,
    about: `order:${order.id}`,
    ...mail,
  };
}

/** An address under its title, as the country writes it, indented; nothing without one. */
function addressBlock(title: string, address: OrderRow['shipping_address']): string[] {
  return address ? ['', title, ...formatAddress(address).map((line) => `  ${line}`)] : [];
}

/** Where the order ships and how, for the buyer's mail (decision `checkout-with-shipping`); nothing when the checkout gave no address. */
function shippingLines(order: OrderRow): string[] {
  const lines: string[] = [];
  const method = order.shipping_method;
  if (method) {
    const { minDeliveryDays: min, maxDeliveryDays: max } = method;
    const estimate =
      min !== null && max !== null && min !== max
        ? ` (${min}–${max} days)`
        : (max ?? min) !== null
          ? ` (${max ?? min} days)`
          : '';
    lines.push('', `Shipping method: ${method.name}${estimate}`);
  }
  return [
    ...lines,
    ...addressBlock('Ships to:', order.shipping_address),
    ...addressBlock('Billing address:', order.billing_address),
  ];
}

/** Store mail to the buyer when an order is paid (sent from the store's sender, Reply-To the store). */
export async function queueOrderConfirmation(
  deps: { db: Kysely<Database> },
  storeName: string,
  order: OrderRow,
  lines: readonly OrderLineFields[],
): Promise<void> {
  await mailBuyer(deps, order, 'order_confirmation', confirmation(storeName, order, lines));
}

/**
 * {@link queueOrderConfirmation}'s statement, not run: a transaction's last
 * (src/db/last-statement.ts); none for an erased buyer.
 */
export function orderConfirmationStatement(
  trx: Transaction<Database>,
  storeName: string,
  order: OrderRow,
  lines: readonly OrderLineFields[],
): LastStatement {
  if (order.email === ERASED_EMAIL) return null;
  return enqueueMailStatement(
    trx,
    buyerMail(order, 'order_confirmation', confirmation(storeName, order, lines)),
  );
}

function confirmation(
  storeName: string,
  order: OrderRow,
  lines: readonly OrderLineFields[],
): { subject: string; text: string } {
  const c = order.currency;
  const text = [
    `Thank you for your order from ${storeName}.`,
    '',
    `Order #${order.number}`,
    '',
    ...lines.map(
      (line) => `  ${line.quantity} × ${line.title} (${line.variant_label})  ${m(line.line_total_amount, c)}`,
    ),
    '',
    `  Subtotal  ${m(order.subtotal_amount, c)}`,
    ...(order.discount_amount > 0
      ? [
          `  Discount  −${m(order.discount_amount, c)}${order.discount_code ? ` (${order.discount_code})` : ''}`,
        ]
      : []),
    ...(order.tax_included ? [] : [`  Tax       ${m(order.tax_amount, c)}`]),
    `  Shipping  ${m(order.shipping_amount, c)}`,
    `  Total     ${m(order.total_amount, c)}${order.tax_included ? ` (incl. ${m(order.tax_amount, c)} tax)` : ''}`,
    ...giftCardLines(order),
    ...taxBreakdown(order),
    ...shippingLines(order),
    '',
    'Reply to this email if you have any questions.',
  ].join('\n');
  return { subject: `Order #${order.number} confirmed`, text };
}

/** Decision `gift-card-tender`: what each gift card paid, and what was charged besides. */
function giftCardLines(order: OrderRow): string[] {
  if (order.gift_cards.length === 0) return [];
  const c = order.currency;
  const byCards = order.gift_cards.reduce((sum, card) => sum + card.amount, 0);
  return [
    ...order.gift_cards.map((card) => `  Gift card ending ${card.last4}  −${m(card.amount, c)}`),
    `  Charged   ${m(order.total_amount - byCards, c)}`,
  ];
}

const percent = (bps: number) => `${(bps / 100).toLocaleString('en', { maximumFractionDigits: 2 })} %`;

/**
 * The order's tax by rate, as an invoice shows it (decision `tax-arithmetic`): what each rate of
 * each class taxed and its tax, with the area when it is a region. Orders from before the breakdown
 * was kept, and orders without tax, have none.
 */
function taxBreakdown(order: Pick<OrderRow, 'tax_lines' | 'tax_amount' | 'currency'>): string[] {
  const lines = (order.tax_lines ?? []).filter((line) => line.amount > 0 || line.taxable > 0);
  if (lines.length === 0 || order.tax_amount === 0) return [];
  const c = order.currency;
  return [
    '',
    'Tax',
    ...lines.map(
      (line) =>
        `  ${percent(line.rateBps)} ${line.class === 'standard' ? '' : `(${line.class}) `}on ${m(line.taxable, c)}` +
        `${line.region ? ` in ${line.region}` : ''}  ${m(line.amount, c)}`,
    ),
  ];
}

/** `  2 × Mug (Blue)` for each line of a parcel or a return, named from the order's lines. */
function itemLines(
  lines: readonly OrderLineFields[],
  items: readonly { variantId: string; quantity: number }[],
): string[] {
  return items.map((item) => {
    const ordered = lines.find((line) => line.variant_id === item.variantId);
    return `  ${item.quantity} × ${ordered ? `${ordered.title} (${ordered.variant_label})` : 'Item'}`;
  });
}

/**
 * Store mail to the buyer when a parcel ships (decision `fulfilments`): what is in it, the carrier and the tracking
 * link, and where it goes.
 */
export async function queueShippingConfirmation(
  deps: { db: Kysely<Database> },
  storeName: string,
  order: OrderRow,
  lines: readonly OrderLineFields[],
  fulfillment: FulfillmentRow,
): Promise<void> {
  const text = [
    `Your order #${order.number} from ${storeName} is on its way.`,
    '',
    ...itemLines(lines, fulfillment.lines),
    '',
    ...(fulfillment.carrier ? [`Carrier: ${fulfillment.carrier}`] : []),
    ...(fulfillment.tracking_number ? [`Tracking number: ${fulfillment.tracking_number}`] : []),
    ...(fulfillment.tracking_url ? [`Track your parcel: ${fulfillment.tracking_url}`] : []),
    ...addressBlock('Ships to:', order.shipping_address),
    '',
    'Reply to this email if you have any questions.',
  ].join('\n');
  await mailBuyer(deps, order, 'shipping_confirmation', {
    subject: `Order #${order.number} has shipped`,
    text,
  });
}

/**
 * The tax part of a refund (decision `tax-arithmetic`): its share of the order's tax in proportion
 * to the total, counted cumulatively, so that refunding the whole order gives back exactly its tax.
 * `order.refunded_amount` already counts this refund.
 */
function refundTaxLine(order: OrderRow, amount: number): string[] {
  if (order.tax_amount === 0 || order.total_amount === 0 || order.tax_lines === null) return [];
  const after = Math.min(order.refunded_amount, order.total_amount);
  const before = Math.max(0, after - amount);
  const tax = unitsPart(order.tax_amount, order.total_amount, before, after);
  return tax > 0 ? [`Of which tax: ${m(tax, order.currency)}.`] : [];
}

/**
 * Where a refund's money went: back through the payment provider (to the card or account that
 * paid), back outside the shop (a manual payment's: as the store and the buyer agreed), or back
 * onto the gift cards that paid.
 */
export type RefundedTo = 'provider' | 'outside' | 'gift_cards';

const REFUND_ARRIVAL: Record<RefundedTo, string> = {
  provider: 'It can take a few days to appear on your statement.',
  outside: `You paid this order outside the online checkout, so the store returns the money to you the same way.`,
  gift_cards: 'It is back on the balance of the gift card it was paid with, ready to spend.',
};

/** Store mail to the buyer when a refund has settled, saying where the money went. */
export async function queueRefundNotice(
  deps: { db: Kysely<Database> },
  storeName: string,
  order: OrderRow,
  amount: number,
  to: RefundedTo,
): Promise<void> {
  const c = order.currency;
  await mailBuyer(deps, order, 'refund_notice', {
    subject: `Refund for order #${order.number}`,
    text: [
      `${storeName} has refunded ${m(amount, c)} for order #${order.number}.`,
      ...refundTaxLine(order, amount),
      `Refunded so far: ${m(order.refunded_amount, c)} of ${m(order.total_amount, c)}.`,
      '',
      `${REFUND_ARRIVAL[to]} Reply to this email if you have any questions.`,
    ].join('\n'),
  });
}

/** Owners are told when an order was paid with short stock (decision `catalog-owns-stock`): it needs a restock or a refund. */
export async function queueOversoldNotice(
  deps: { db: Kysely<Database> },
  order: OrderRow,
  lines: readonly OrderLineFields[],
  oversold: readonly Shortfall[],
): Promise<void> {
  const titles = new Map(lines.map((line) => [line.variant_id, `${line.title} (${line.variant_label})`]));
  await notifyOwners(deps, order.store_id, {
    kind: 'order_oversold',
    subject: `Order #${order.number} was paid but its stock was short`,
    text: [
      `Order #${order.number} (${m(order.total_amount, order.currency)}) was paid, but these items were short when the payment arrived:`,
      '',
      ...oversold.map(
        (line) =>
          `  ${titles.get(line.variantId) ?? line.variantId}: ${line.requested} ordered, ${line.available} on hand`,
      ),
      '',
      'The order is paid and marked "oversold" in the admin. Restock and fulfil it, or refund it there.',
    ].join('\n'),
  });
}

/** An automatic or a cancellation's refund the provider refused for good: the merchant must act (decision `refund-path`). */
export async function queueRefundFailedNotice(
  deps: { db: Kysely<Database> },
  order: OrderRow,
  refund: Pick<RefundRow, 'amount' | 'reason'>,
  reason?: string,
): Promise<void> {
  const why =
    refund.reason === 'order_cancelled'
      ? `Order #${order.number} was cancelled, so ${m(refund.amount, order.currency)} was to be`
      : `Order #${order.number} was paid after it had expired and its items were sold out, so ${m(refund.amount, order.currency)} was to be`;
  await notifyOwners(deps, order.store_id, {
    kind: 'refund_failed',
    subject: `Action needed: the automatic refund of order #${order.number} failed`,
    text: [
      why,
      `refunded to ${order.email} automatically. The payment provider refused the refund${reason ? `: ${reason}` : '.'}`,
      '',
      'The money is still captured. Refund it from the order in the admin, or at the payment provider.',
    ].join('\n'),
  });
}

/**
 * Store mail to the buyer when staff cancel an order (decision `order-cancellation`): what was cancelled and, when money was
 * captured, the refund on its way (its own notice follows when it settles).
 */
export async function queueCancellationNotice(
  deps: { db: Kysely<Database> },
  storeName: string,
  order: OrderRow,
  refundAmount: number,
): Promise<void> {
  const c = order.currency;
  await mailBuyer(deps, order, 'order_cancelled', {
    subject: `Order #${order.number} was cancelled`,
    text: [
      `${storeName} has cancelled your order #${order.number} (${m(order.total_amount, c)}).`,
      '',
      refundAmount > 0
        ? `A refund of ${m(refundAmount, c)} is on its way to your original payment method; we will write again when it has gone through.`
        : order.paid_at
          ? 'Nothing more will be charged.'
          : 'You have not been charged.',
      '',
      'Reply to this email if you have any questions.',
    ].join('\n'),
  });
}

/** Store mail to the buyer when a return is recorded (decision `returns`): what came back and the refund on its way. */
export async function queueReturnNotice(
  deps: { db: Kysely<Database> },
  storeName: string,
  order: OrderRow,
  lines: readonly OrderLineFields[],
  received: ReturnRow,
): Promise<void> {
  const c = order.currency;
  await mailBuyer(deps, order, 'return_received', {
    subject: `We received your return for order #${order.number}`,
    text: [
      `${storeName} has received these items of your order #${order.number}:`,
      '',
      ...itemLines(lines, received.lines),
      '',
      received.refund_amount > 0
        ? `A refund of ${m(received.refund_amount, c)} is on its way to your original payment method; we will write again when it has gone through.`
        : 'No refund was made for this return.',
      '',
      'Reply to this email if you have any questions.',
    ].join('\n'),
  });
}
