import type { Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import { formatMoney } from '../lib/money.ts';
import { enqueueMail } from '../mail/outbox.ts';
import type { Order } from '../orders/orders.schemas.ts';

/** The invoice mail of a draft (decision `draft-orders`): the order's lines and total, and the link to pay it. */
export async function queueInvoiceMail(
  trx: Transaction<Database>,
  storeId: string,
  storeName: string,
  order: Order,
  payUrl: string,
): Promise<void> {
  const lines = order.lines.map(
    (line) =>
      `  ${line.quantity} × ${line.title}${line.variantLabel ? ` (${line.variantLabel})` : ''}: ${formatMoney(line.lineTotal)}`,
  );
  const until = new Date(order.expiresAt).toUTCString();
  await enqueueMail(trx, {
    storeId,
    tier: 'store',
    kind: 'draft_order_invoice',
    to: order.email,
    about: `order:${order.id}`,
    subject: `${storeName}: your order ${order.number}, ${formatMoney(order.total)} to pay`,
    text: [
      `${storeName} has put together order ${order.number} for you.`,
      '',
      ...lines,
      ...(order.discount.amount > 0 ? [`  Discount: −${formatMoney(order.discount)}`] : []),
      ...(order.shipping.amount > 0 ? [`  Shipping: ${formatMoney(order.shipping)}`] : []),
      ...(order.tax.amount > 0
        ? [`  Tax${order.taxIncluded ? ' (included)' : ''}: ${formatMoney(order.tax)}`]
        : []),
      `  Total: ${formatMoney(order.total)}`,
      '',
      'Pay it here:',
      payUrl,
      '',
      `The items are held for you until ${until}; the link works until then.`,
    ].join('\n'),
  });
}
