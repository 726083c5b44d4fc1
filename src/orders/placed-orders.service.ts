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
import type { OrderLineRow, OrderRow, OrderShippingMethod, PaymentRow } from './orders.tables.ts';
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
  const order = orderId ? await findOrder(deps.db, storeId, orderId) : undefined;
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

/** A quoted line as the order keeps it. */
export interface NewOrderLine {
  variantId: string;
  productId: string;
  title: string;
  label: string;
  sku: string | null;
  quantity: number;
  unitPrice: number;
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
  cartId: string;
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
  shippingAddress: Address | null;
  billingAddress: Address | null;
  shippingMethod: OrderShippingMethod | null;
  phone: string | null;
  intent: { ref: string; clientSecret: string };
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
  const expiresAt = new Date(p.now.getTime() + Math.min(tx.settings.paymentHoldMs, tx.settings.orderTtlMs));
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
  }));
  const named = { store_id: p.storeId, provider: tx.provider.name, ref: p.intent.ref };
  const payment: PaymentRow = {
    ...named,
    id: randomUUID(),
    order_id: p.orderId,
    client_secret: sealClientSecret(tx.keyring, named, p.intent.clientSecret),
    status: 'pending',
    amount: totals.total,
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
      email: p.holder.email,
      customer_id: p.customerId,
      signed_in: p.signedIn,
      client_key: p.holder.clientKey,
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
