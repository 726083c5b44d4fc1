import type { Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import { formatMoney } from '../lib/money.ts';
import { enqueueMail } from '../mail/outbox.ts';
import type { OrderLineRow, OrderRow } from './orders.tables.ts';

const m = (amount: number, currency: string) => formatMoney({ amount, currency: currency.trim() });

/** Store mail to the buyer when an order is paid (sent from the store's sender, Reply-To the store). */
export async function queueOrderConfirmation(
  trx: Transaction<Database>,
  storeName: string,
  order: OrderRow,
  lines: OrderLineRow[],
): Promise<void> {
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
    `  Tax       ${m(order.tax_amount, c)}`,
    `  Shipping  ${m(order.shipping_amount, c)}`,
    `  Total     ${m(order.total_amount, c)}`,
    '',
    'Reply to this email if you have any questions.',
  ].join('\n');
  await enqueueMail(trx, {
    storeId: order.store_id,
    tier: 'store',
    kind: 'order_confirmation',
    to: order.email,
    subject: `Order #${order.number} confirmed`,
    text,
  });
}

/** Store mail to the buyer when a refund has settled. */
export async function queueRefundNotice(
  trx: Transaction<Database>,
  storeName: string,
  order: OrderRow,
  amount: number,
): Promise<void> {
  const c = order.currency;
  await enqueueMail(trx, {
    storeId: order.store_id,
    tier: 'store',
    kind: 'refund_notice',
    to: order.email,
    subject: `Refund for order #${order.number}`,
    text: [
      `${storeName} has refunded ${m(amount, c)} for order #${order.number}.`,
      `Refunded so far: ${m(order.refunded_amount, c)} of ${m(order.total_amount, c)}.`,
      '',
      'It can take a few days to appear on your statement. Reply to this email if you have any questions.',
    ].join('\n'),
  });
}
