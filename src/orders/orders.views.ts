import { completeAddress, type Address } from '@storefront/address';
import type { StockLine } from '../catalog/inventory/inventory.ts';
import type { FulfillmentJson, OrderLineFields, ReturnJson } from './orders.repository.ts';
import type { Money } from '../lib/money.ts';
import { taxLinesView } from '../pricing/tax-arithmetic.ts';
import type { Order, Payment, Refund, StorefrontOrder } from './orders.schemas.ts';
import type { Fulfillment, Return } from './shipments.schemas.ts';
import type { FulfillmentRow, OrderRow, PaymentRow, RefundRow, ReturnRow } from './orders.tables.ts';

/** Rows as the API shows them (the shapes are the schemas', Static<…>): snake_case never leaves orders/. */

const money = (amount: number, currency: string): Money => ({ amount, currency: currency.trim() });

export function orderView(order: OrderRow, lines: readonly OrderLineFields[]): Order {
  const c = order.currency;
  return {
    id: order.id,
    number: order.number,
    status: order.status,
    email: order.email,
    country: order.country?.trim() ?? null,
    lines: lines.map((line) => ({
      variantId: line.variant_id,
      productId: line.product_id,
      title: line.title,
      variantLabel: line.variant_label,
      sku: line.sku,
      quantity: line.quantity,
      unitPrice: money(line.unit_price_amount, c),
      lineTotal: money(line.line_total_amount, c),
      // Orders placed before their lines kept a discount share and a tax show neither.
      ...(line.discount_amount === null ? {} : { discount: money(line.discount_amount, c) }),
      ...(line.tax_amount === null
        ? {}
        : {
            tax: {
              amount: line.tax_amount,
              rateBps: line.tax_rate_bps ?? 0,
              class: line.tax_class ?? 'standard',
            },
          }),
      ...(line.custom ? { custom: true } : {}),
    })),
    subtotal: money(order.subtotal_amount, c),
    discount: money(order.discount_amount, c),
    discountCode: order.discount_code,
    promotions: order.promotions.map((promotion) => ({
      ...promotion,
      amount: money(promotion.amount, c),
      shipping: money(promotion.shipping ?? 0, c),
    })),
    tax: money(order.tax_amount, c),
    taxIncluded: order.tax_included,
    taxLines: taxLinesView(order.tax_lines ?? [], c.trim()),
    shippingTax: money(order.shipping_tax_amount, c),
    shipping: money(order.shipping_amount, c),
    total: money(order.total_amount, c),
    giftCards: order.gift_cards.map((card) => ({ last4: card.last4, amount: money(card.amount, c) })),
    amountDue: money(order.total_amount - order.gift_cards.reduce((sum, card) => sum + card.amount, 0), c),
    refunded: money(order.refunded_amount, c),
    shippingAddress: order.shipping_address === null ? null : completeAddress(order.shipping_address),
    billingAddress: order.billing_address === null ? null : completeAddress(order.billing_address),
    shippingMethod: order.shipping_method,
    phone: order.phone,
    fulfillmentStatus: order.fulfillment_status,
    createdAt: order.created_at.toISOString(),
    expiresAt: order.expires_at.toISOString(),
    paidAt: order.paid_at?.toISOString() ?? null,
    source: order.source,
    draftOrderId: order.draft_order_id,
    cancelledAt: order.cancelled_at?.toISOString() ?? null,
  };
}

/**
 * The buyer's address as the storefront's order view shows it, the way shops do: the first
 * character of the local part, `•••`, then `@` and the domain (`b•••@example.com`). The view is
 * read with nothing but the order's id and a publishable key, both of which sit in browsers and
 * URLs, so it must not carry the address itself. A one-character local part shows none of it
 * (`•••@example.com`: no address is ever shown whole); a value without `@` shows as `•••`.
 */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at === -1) return '•••';
  const local = Array.from(email.slice(0, at));
  return `${local.length > 1 ? local[0] : ''}•••${email.slice(at)}`;
}

/** A phone as the storefront's order view shows it: its last two digits (`•••67`). */
export function maskPhone(phone: string): string {
  return `•••${phone.replace(/\D/g, '').slice(-2)}`;
}

/**
 * An address as the storefront's order view shows it (decision
 * `storefront-order-view-masks-the-street`): enough for the buyer to recognise where the parcel
 * goes (first name and last initial, city, region, postal code, country), never the street, the
 * company or the phone, for the reason the email is masked (the view is read with the order's id
 * alone).
 */
export function maskAddress(address: Required<Address>): Required<Address> {
  const words = address.name.split(/\s+/).filter(Boolean);
  const last = words.length > 1 ? words.at(-1)! : '';
  return {
    ...address,
    name: last === '' ? (words[0] ?? '') : `${words[0]} ${Array.from(last)[0]}.`,
    company: address.company === null ? null : '•••',
    line1: `${Array.from(address.line1)[0] ?? ''}•••`,
    line2: address.line2 === null ? null : '•••',
    phone: address.phone === null ? null : maskPhone(address.phone),
  };
}

const iso = (value: string | Date): string => new Date(value).toISOString();

/** A fulfilment as the API shows it (from its row, or from a JSON sub-select, whose times are strings). */
export const fulfillmentView = (row: FulfillmentRow | FulfillmentJson): Fulfillment => ({
  id: row.id,
  status: row.status,
  lines: row.lines.map((line) => ({ variantId: line.variantId, quantity: line.quantity })),
  carrier: row.carrier,
  trackingNumber: row.tracking_number,
  trackingUrl: row.tracking_url,
  createdAt: iso(row.created_at),
  deliveredAt: row.delivered_at === null ? null : iso(row.delivered_at),
  cancelledAt: row.cancelled_at === null ? null : iso(row.cancelled_at),
});

export const returnView = (row: ReturnRow, currency: string): Return => ({
  id: row.id,
  lines: row.lines.map((line) => ({
    variantId: line.variantId,
    quantity: line.quantity,
    restock: line.restock,
  })),
  reason: row.reason,
  refundAmount: money(row.refund_amount, currency),
  refundId: row.refund_id,
  createdAt: row.created_at.toISOString(),
});

/** A return as the buyer's order view shows it: what came back and what it refunded. */
export const buyerReturnView = (row: ReturnJson, currency: string): StorefrontOrder['returns'][number] => ({
  id: row.id,
  lines: row.lines.map((line) => ({ variantId: line.variantId, quantity: line.quantity })),
  refundAmount: money(Number(row.refund_amount), currency),
  createdAt: iso(row.created_at),
});

export const paymentView = (row: PaymentRow): Payment => ({
  id: row.id,
  provider: row.provider,
  ref: row.ref,
  status: row.status,
  amount: money(row.amount, row.currency),
  createdAt: row.created_at.toISOString(),
});

export const refundView = (row: RefundRow, currency: string): Refund => ({
  id: row.id,
  amount: money(row.amount, currency),
  status: row.status,
  providerRef: row.provider_ref,
  reason: row.reason,
  note: row.note,
  lastError: row.last_error,
  giftCards: row.gift_cards,
  createdAt: row.created_at.toISOString(),
  settledAt: row.settled_at?.toISOString() ?? null,
});

/** Order lines as the catalog's inventory takes them: a draft's custom lines hold no stock (decision `draft-orders`). */
export const stockLinesOf = (lines: readonly OrderLineFields[]): StockLine[] =>
  lines.flatMap((line) => (line.custom ? [] : [{ variantId: line.variant_id, quantity: line.quantity }]));
