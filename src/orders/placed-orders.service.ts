import { randomUUID } from 'node:crypto';
import type { Address } from '@storefront/address';
import type { Transaction } from 'kysely';
import type { EmittedData } from '../events/events.schemas.ts';
import { lockScope } from '../db/advisory-lock.ts';
import type { Database } from '../db/tables.ts';
import type { Keyring } from '../lib/keyring.ts';
import { latestPayment } from './order-payments.repository.ts';
import type { OrdersDeps } from './orders.deps.ts';
import type { OrderCreatedData } from './orders.events.ts';
import {
  findOrder,
  findOrderIdByKey,
  insertNumberedOrder,
  orderLines,
  pendingOrdersOf,
  type PendingOrdersOf,
} from './orders.repository.ts';
import type { CheckoutResult } from './orders.schemas.ts';
import type {
  OrderGiftCardRow,
  OrderLineRow,
  OrderRow,
  OrderShippingMethod,
  PaymentRow,
} from './orders.tables.ts';
import { orderView } from './orders.views.ts';
import { openClientSecret, sealClientSecret } from './payment-secrets.ts';
import type { LineTax } from '../pricing/order-pricing.ts';
import type { TaxLine } from '../pricing/tax-arithmetic.ts';

/**
 * The orders side of checkout (src/checkout/): what a checkout writes and reads of orders, their
 * lines and payments. Checkout decides; these functions only know how an order is kept.
 */

export type { PendingOrdersOf };

/**
 * Who places the order: the client, by a keyed hash of its address, whose pending orders are
 * counted (decision `pending-orders-per-client`), and the order's email.
 */
export interface Holder {
  clientKey: string;
  email: string;
}

function checkoutResult(
  keyring: Keyring,
  order: OrderRow,
  lines: readonly OrderLineRow[],
  payment: PaymentRow,
): CheckoutResult {
  return {
    order: orderView(order, lines),
    payment: {
      provider: payment.provider,
      ref: payment.ref,
      status: payment.status,
      clientSecret: openClientSecret(keyring, payment),
      amount: { amount: payment.amount, currency: payment.currency.trim() },
    },
  };
}

/**
 * The answer of a checkout that already happened: the order made with this Idempotency-Key (decision `checkout-after-a-crash`),
 * as it stands now, with its payment. Null when no order carries the key.
 */
export async function checkoutOfKey(
  deps: Pick<OrdersDeps, 'db' | 'keyring'>,
  storeId: string,
  idempotencyKey: string,
): Promise<CheckoutResult | null> {
  const orderId = await findOrderIdByKey(deps.db, storeId, idempotencyKey);
  return orderId ? placedOrder(deps, storeId, orderId) : null;
}

/**
 * An order as it stands now with its latest payment, as a checkout answers (the payment's client
 * secret opened); null when there is no such order. A draft's pay link pays it (decision `draft-orders`).
 */
export async function placedOrder(
  deps: Pick<OrdersDeps, 'db' | 'keyring'>,
  storeId: string,
  orderId: string,
): Promise<CheckoutResult | null> {
  const order = await findOrder(deps.db, storeId, orderId);
  if (!order) return null;
  const [lines, payment] = await Promise.all([
    orderLines(deps.db, order),
    latestPayment(deps.db, storeId, order.id),
  ]);
  return payment ? checkoutResult(deps.keyring, order, lines, payment) : null;
}

/** The pending orders a client holds in a store, and when the first of them expires. */
export function pendingOrdersHeld(
  deps: Pick<OrdersDeps, 'db'>,
  storeId: string,
  holder: Holder,
): Promise<PendingOrdersOf> {
  return pendingOrdersOf(deps.db, storeId, holder.clientKey);
}

/**
 * The client's pending orders in a store (decision `pending-orders-per-client`), counted under the client's slot lock, which holds
 * until the transaction ends: concurrent checkouts of one client are counted one after another. The
 * lock is a statement of its own, so that the count after it sees what the previous holder committed.
 */
export async function holdPendingSlot(
  tx: { db: Transaction<Database> },
  storeId: string,
  holder: Holder,
): Promise<PendingOrdersOf> {
  await lockScope(tx.db, 'pending-orders', `${storeId}:client:${holder.clientKey}`);
  return pendingOrdersOf(tx.db, storeId, holder.clientKey);
}

/** The payment of an order its gift cards paid whole (decision `gift-card-tender`): no provider was asked. */
export const GIFT_CARD_PAYMENT = 'gift_card';

/** Decision `draft-orders`: the payment of a draft completed with money taken outside (bank transfer, cash). */
export const MANUAL_PAYMENT = 'manual';

/**
 * The idempotent routes that make orders, whose stored answers hold the buyer's data (erasure
 * forgets them): checkout, and a draft's invoice and completion (decision `draft-orders`).
 */
export const ORDER_MAKING_ROUTES = ['checkout', 'draft-order-invoice', 'draft-order-complete'] as const;

/** A quoted line as the order keeps it. */
export interface NewOrderLine {
  variantId: string;
  productId: string;
  title: string;
  label: string;
  sku: string | null;
  quantity: number;
  unitPrice: number;
  /** Decision `draft-orders`: a draft's custom line (no variant: no stock is held or sold for it). */
  custom?: boolean | undefined;
}

/** An order's tax as charged: each line's discount share and tax (in the lines' order), and the breakdown. */
export interface OrderTax {
  included: boolean;
  lines: readonly LineTax[];
  shipping: number;
  /** The region whose rate applied, null when the country's did. */
  region: string | null;
  breakdown: readonly TaxLine[];
}

/** What a checkout has decided when it writes its order. */
export interface NewOrder {
  storeId: string;
  orderId: string;
  /** The checkout's cart; null for a draft's order. */
  cartId: string | null;
  /** Decision `draft-orders`: the draft it is made from, and how long its stock is held while unpaid. */
  draft?: { id: string; expiresAt: Date } | undefined;
  currency: string;
  /** Decision `markets`: the market it was priced in. */
  marketId: string;
  idempotencyKey: string;
  holder: Holder;
  /** The customer the order belongs to (decision `customer-accounts`), null when none could be linked. */
  customerId: string | null;
  /** Placed with the customer's token (their account shows it while unpaid too). */
  signedIn: boolean;
  country: string | null;
  lines: readonly NewOrderLine[];
  totals: { subtotal: number; discount: number; tax: number; shipping: number; total: number };
  /** How the order's tax was charged (decision `tax-arithmetic`), kept as it was: it never changes. */
  tax: OrderTax;
  discountCode: string | null;
  /** Decision `cart-promotions`: what applied, with what each took off. */
  promotions: readonly { id: string; name: string; code: string | null; amount: number }[];
  shippingAddress: Address | null;
  billingAddress: Address | null;
  shippingMethod: OrderShippingMethod | null;
  phone: string | null;
  /** Decision `gift-card-tender`: what each gift card pays of the total, held on it in this transaction. */
  giftCards: readonly OrderGiftCardRow[];
  /**
   * The provider's intent for the rest; null when the gift cards pay it all (the payment is then
   * the cards', `gift_card`, succeeded, of 0).
   */
  intent: { ref: string; clientSecret: string } | null;
  /** Decision `draft-orders`: paid outside (`manual`) rather than by gift cards when there is no intent. */
  paidOutside?: typeof MANUAL_PAYMENT | undefined;
  now: Date;
}

/**
 * The order with the store's next number and the checkout's Idempotency-Key, its lines at the quoted
 * prices, its payment, pending, with the intent's client secret sealed (decision `sealed-secrets`), and order.created: one
 * statement, the last of the checkout's transaction (the store's order counter stays locked from it
 * to the commit, decision `order-numbers`). Returns the checkout's answer.
 */
export async function writeOrder(
  tx: Pick<OrdersDeps, 'keyring' | 'provider' | 'settings'> & { db: Transaction<Database> },
  p: NewOrder,
): Promise<CheckoutResult> {
  const { totals } = p;
  // The short hold until the buyer tries to pay (decision `short-hold-until-payment-tried`).
  const expiresAt =
    p.draft?.expiresAt ??
    new Date(p.now.getTime() + Math.min(tx.settings.paymentHoldMs, tx.settings.orderTtlMs));
  const lines: OrderLineRow[] = p.lines.map((line, position) => ({
    store_id: p.storeId,
    order_id: p.orderId,
    position,
    variant_id: line.variantId,
    product_id: line.productId,
    title: line.title,
    variant_label: line.label,
    sku: line.sku,
    quantity: line.quantity,
    unit_price_amount: line.unitPrice,
    line_total_amount: line.unitPrice * line.quantity,
    discount_amount: p.tax.lines[position]!.discount,
    tax_amount: p.tax.lines[position]!.tax,
    tax_rate_bps: p.tax.lines[position]!.rateBps,
    tax_class: p.tax.lines[position]!.taxClass,
    custom: line.custom === true,
  }));
  const byCards = p.giftCards.reduce((sum, card) => sum + card.amount, 0);
  const paidBy = p.paidOutside ?? GIFT_CARD_PAYMENT;
  const named = {
    store_id: p.storeId,
    provider: p.intent === null ? paidBy : tx.provider.name,
    ref: p.intent?.ref ?? `${paidBy}:${p.orderId}`,
  };
  const payment: PaymentRow = {
    ...named,
    id: randomUUID(),
    order_id: p.orderId,
    client_secret: sealClientSecret(tx.keyring, named, p.intent?.clientSecret ?? ''),
    status: p.intent === null ? 'succeeded' : 'pending',
    amount: totals.total - byCards,
    currency: p.currency,
    last_error: null,
    created_at: p.now,
    updated_at: p.now,
  };
  const order = await insertNumberedOrder(
    tx.db,
    {
      store_id: p.storeId,
      id: p.orderId,
      status: 'pending',
      cart_id: p.cartId,
      ...(p.draft ? { source: 'draft' as const, draft_order_id: p.draft.id } : {}),
      email: p.holder.email,
      customer_id: p.customerId,
      signed_in: p.signedIn,
      // A draft's order is staff's, not a client's: it counts toward no client's pending orders.
      client_key: p.draft ? null : p.holder.clientKey,
      country: p.country,
      currency: p.currency,
      market_id: p.marketId,
      subtotal_amount: totals.subtotal,
      discount_amount: totals.discount,
      tax_amount: totals.tax,
      shipping_amount: totals.shipping,
      total_amount: totals.total,
      tax_included: p.tax.included,
      shipping_tax_amount: p.tax.shipping,
      tax_region: p.tax.region,
      tax_lines: JSON.stringify(p.tax.breakdown),
      discount_code: p.discountCode,
      promotions: JSON.stringify(p.promotions),
      gift_cards: JSON.stringify(p.giftCards),
      shipping_address: p.shippingAddress === null ? null : JSON.stringify(p.shippingAddress),
      billing_address: p.billingAddress === null ? null : JSON.stringify(p.billingAddress),
      shipping_method: p.shippingMethod === null ? null : JSON.stringify(p.shippingMethod),
      phone: p.phone,
      idempotency_key: p.idempotencyKey,
      expires_at: expiresAt,
      next_sweep_at: expiresAt,
      created_at: p.now,
      updated_at: p.now,
    },
    lines,
    payment,
    {
      storeId: p.storeId,
      type: 'order.created',
      resource: `order:${p.orderId}`,
      // The statement adds the order's number.
      data: {
        orderId: p.orderId,
        status: 'pending',
        total: { amount: totals.total, currency: p.currency },
      } satisfies Omit<EmittedData<typeof OrderCreatedData>, 'number'>,
    },
  );
  return checkoutResult(tx.keyring, order, lines, payment);
}
