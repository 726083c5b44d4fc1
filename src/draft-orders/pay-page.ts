import type { Clock } from '../lib/clock.ts';
import { escapeHtml } from '../lib/html.ts';
import type { Keyring } from '../lib/keyring.ts';
import { formatMoney } from '../lib/money.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import { placedOrder } from '../orders/placed-orders.service.ts';
import { hostedPaymentForm } from '../payments/hosted-payment.ts';
import { hostedDocument } from '../payments/sandbox.hosted-page.ts';
import { recentStore } from '../stores/stores.service.ts';
import { PAY_LINK_PATH, verifyPayLink } from './pay-links.ts';

/**
 * The page a draft's pay link opens (decision `draft-order-pay-link`): the order's number and
 * total, and a button that posts the order's payment to the provider's hosted page, which sends the
 * customer back here. Paid, processing, expired or an invalid link: a page that says so. The order
 * is paid only when the provider's signed webhook says so, as every order.
 */

export interface PayPageDeps {
  db: Kysely<Database>;
  keyring: Keyring;
  clock: Clock;
}

export interface PayPage {
  status: 200 | 404 | 409 | 410;
  html: string;
}

const layout = hostedDocument;

const message = (status: PayPage['status'], title: string, text: string): PayPage => ({
  status,
  html: layout(title, `<h2>${escapeHtml(title)}</h2>\n<p>${escapeHtml(text)}</p>`),
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const INVALID = message(
  404,
  'This payment link is not valid',
  'The link is incomplete, or its time has passed. Ask the store for a new one.',
);

export async function payPage(
  deps: PayPageDeps,
  orderId: string,
  query: { token: string; redirect_status?: string | undefined },
): Promise<PayPage> {
  const storeId = UUID.test(orderId)
    ? verifyPayLink(deps.keyring, orderId, query.token, deps.clock.now())
    : null;
  if (storeId === null) return INVALID;
  const [placed, store] = await Promise.all([
    placedOrder(deps, storeId, orderId),
    recentStore(deps, storeId),
  ]);
  if (!placed || placed.order.draftOrderId === null) return INVALID;
  const { order, payment } = placed;
  const name = store?.name ?? 'The store';
  const heading = `${name}: order ${order.number}, ${formatMoney(order.total)}`;
  if (order.status === 'paid') return message(200, heading, 'Paid. Thank you: the store has your payment.');
  if (order.status !== 'pending')
    return message(
      410,
      heading,
      'This order can no longer be paid (its time has passed). Ask the store for a new one.',
    );
  if (
    query.redirect_status === 'succeeded' ||
    query.redirect_status === 'processing' ||
    payment.status === 'processing'
  )
    return message(
      200,
      heading,
      'Your payment is being confirmed. This page shows it paid once the provider confirms it.',
    );
  const returnUrl = `${PAY_LINK_PATH}/${orderId}?token=${encodeURIComponent(query.token)}`;
  const form = hostedPaymentForm(payment.provider, payment, returnUrl);
  if (form === null)
    return message(
      409,
      heading,
      'This store’s payment provider cannot be opened from a link yet. Reply to the store’s mail to pay another way.',
    );
  const fields = Object.entries(form.fields)
    .map(([field, value]) => `<input type="hidden" name="${escapeHtml(field)}" value="${escapeHtml(value)}">`)
    .join('\n');
  const lines = order.lines
    .map(
      (line) =>
        `<li>${line.quantity} × ${escapeHtml(line.title)}: ${escapeHtml(formatMoney(line.lineTotal))}</li>`,
    )
    .join('\n');
  return {
    status: 200,
    html: layout(
      heading,
      `<h2>${escapeHtml(heading)}</h2>
<ul>
${lines}
</ul>
<form method="post" action="${escapeHtml(form.action)}">
${fields}
<button type="submit">Pay ${escapeHtml(formatMoney(order.total))}</button>
</form>`,
    ),
  };
}
