import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Address } from '@storefront/address';
import type { CreatedAt, UpdatedAt, Time, NullableTime } from '../db/tables.ts';
import type { TaxLine } from '../pricing/tax-arithmetic.ts';

export interface OrderCounterTable {
  store_id: string;
  last_number: number;
}

/** An order's shipping method, kept as it was when the order was placed. */
export interface OrderShippingMethod {
  id: string;
  name: string;
  minDeliveryDays: number | null;
  maxDeliveryDays: number | null;
}

/** A promotion an order applied: what it took off the goods and the shipping, in the order's currency. */
/** A gift card an order pays with, and how much of the order it pays. */
export interface OrderGiftCardRow {
  id: string;
  last4: string;
  amount: number;
}

export interface OrderPromotionRow {
  id: string;
  name: string;
  code: string | null;
  amount: number;
  /** Of `amount`, what it took off the shipping (absent on orders placed before it was kept). */
  shipping?: number;
}

export type OrderStatus = 'pending' | 'paid' | 'expired' | 'cancelled';
export type OrderSource = 'checkout' | 'draft';
export type FulfillmentStatus = 'unfulfilled' | 'partial' | 'fulfilled';

export interface OrderTable {
  store_id: string;
  id: string;
  number: number;
  status: OrderStatus;
  /** The checkout's cart; null for an order made from a draft (decision `draft-orders`). */
  cart_id: string | null;
  /** Decision `draft-orders`: how the order was made; `checkout` for every order before drafts. */
  source: ColumnType<OrderSource, OrderSource | undefined, never>;
  /** The draft the order was made from (at most one order per draft); null for a checkout's. */
  draft_order_id: ColumnType<string | null, string | null | undefined, never>;
  email: string;
  country: string | null;
  currency: string;
  /** Decision `markets`: the market it was priced in; null on orders placed before markets. */
  market_id: ColumnType<string | null, string | null | undefined, string | null>;
  subtotal_amount: number;
  discount_amount: number;
  tax_amount: number;
  shipping_amount: number;
  total_amount: number;
  refunded_amount: Generated<number>;
  discount_code: string | null;
  /** Decision `cart-promotions`: what the order applied (its uses are given back and counted from it). */
  promotions: ColumnType<OrderPromotionRow[], string | undefined, string>;
  /** Decision `gift-card-tender`: what the order holds or spent on each gift card; the payment is the rest. */
  gift_cards: ColumnType<OrderGiftCardRow[], string | undefined, string>;
  /** Decision `checkout-with-shipping`: where the parcel goes and who pays (personal data, like the email); null when not given. */
  shipping_address: ColumnType<Address | null, string | null | undefined, string | null>;
  billing_address: ColumnType<Address | null, string | null | undefined, string | null>;
  /** The shipping method as chosen at checkout (its amount is shipping_amount); null without one. */
  shipping_method: ColumnType<OrderShippingMethod | null, string | null | undefined, string | null>;
  phone: ColumnType<string | null, string | null | undefined, string | null>;
  /** Decision `fulfilments`: how much of the order has shipped (cancelled fulfilments do not count). */
  fulfillment_status: Generated<FulfillmentStatus>;
  expires_at: Time;
  /** The stock of a line was short when its payment arrived: paid anyway, flagged for the merchant (decision `catalog-owns-stock`). */
  oversold: Generated<boolean>;
  /** The Idempotency-Key of the checkout that made the order (decision `checkout-after-a-crash`). */
  idempotency_key: string | null;
  /**
   * While pending: a keyed hash of the checkout's client address (decision `pending-orders-per-client`), to count a client's
   * pending orders; null once paid or expired, and on orders from before migration 0016.
   */
  client_key: ColumnType<string | null, string | null | undefined, string | null>;
  /** When the expiry sweep looks at this pending order next (expires_at, then backoff, decision `sweeps-reschedule`). */
  next_sweep_at: Time;
  sweep_attempts: Generated<number>;
  paid_at: NullableTime;
  expired_at: NullableTime;
  /** Decision `order-cancellation`: when staff cancelled the order, and the reason they gave (staff only). */
  cancelled_at: NullableTime;
  cancel_reason: ColumnType<string | null, string | null | undefined, string | null>;
  /** The customer (decision `erasure-is-immediate`): of the checkout's token, else of its email. Null once erased. */
  customer_id: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * Placed with its customer's token: the customer's own order, in their account from the start; a
   * guest order with their email shows there once paid (decision `account-shows-own-or-paid-orders`).
   */
  signed_in: Generated<boolean>;
  /** When the buyer's personal data was erased from the order (decision `erasure-is-immediate`). */
  erased_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** Decision `prices-include-tax`: whether the order's amounts included their tax (as charged; never changes). */
  tax_included: Generated<boolean>;
  /** Decision `shipping-tax`: the part of tax_amount that is the shipping's. */
  shipping_tax_amount: Generated<number>;
  /** The region whose rate applied (`US-CA`), null when the country's did; null on orders from before. */
  tax_region: ColumnType<string | null, string | null | undefined, string | null>;
  /** Decision `tax-arithmetic`: the invoice breakdown; null on orders from before (taxed on the whole order). */
  tax_lines: ColumnType<OrderTaxLine[] | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type OrderRow = Selectable<OrderTable>;

/** One line of an order's tax breakdown (decision `tax-arithmetic`). */
export type OrderTaxLine = TaxLine;

export interface OrderLineTable {
  store_id: string;
  order_id: string;
  position: number;
  variant_id: string;
  product_id: string;
  title: string;
  variant_label: string;
  sku: string | null;
  quantity: number;
  unit_price_amount: number;
  line_total_amount: number;
  /** Decision `tax-arithmetic`: its share of the order's discount, its tax, rate and class; null on orders from before. */
  discount_amount: ColumnType<number | null, number | null | undefined, number | null>;
  tax_amount: ColumnType<number | null, number | null | undefined, number | null>;
  tax_rate_bps: ColumnType<number | null, number | null | undefined, number | null>;
  tax_class: ColumnType<string | null, string | null | undefined, string | null>;
  /** Decision `draft-orders`: a draft's custom line; its ids are the draft line's, and no stock moves for it. */
  custom: ColumnType<boolean, boolean | undefined, never>;
}
export type OrderLineRow = Selectable<OrderLineTable>;

export type PaymentStatus = 'pending' | 'processing' | 'succeeded' | 'failed' | 'canceled';

export interface PaymentTable {
  store_id: string;
  id: Generated<string>;
  order_id: string;
  provider: string;
  ref: string;
  client_secret: string;
  status: PaymentStatus;
  amount: number;
  currency: string;
  last_error: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type PaymentRow = Selectable<PaymentTable>;

export type RefundStatus = 'pending' | 'succeeded' | 'failed';

export interface RefundTable {
  store_id: string;
  id: Generated<string>;
  order_id: string;
  payment_id: string;
  amount: number;
  status: RefundStatus;
  provider_ref: string | null;
  reason: string | null;
  /** What the staff member typed as the reason of a refund (staff only). */
  note: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
  settled_at: NullableTime;
  /** When reconciliation asks the provider about this pending refund next (decision `refund-path`); default: now. */
  next_check_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  attempts: Generated<number>;
  last_error: string | null;
  /** Decision `gift-card-tender`: paid back to the order's gift cards (settled at once, no provider). */
  gift_cards: ColumnType<boolean, boolean | undefined, never>;
}
export type RefundRow = Selectable<RefundTable>;

export interface ProviderEventTable {
  store_id: string;
  provider: string;
  event_id: string;
  type: string;
  received_at: CreatedAt;
}

/** A fulfilment's line: units of one variant of the order. */
export interface FulfillmentLine {
  variantId: string;
  quantity: number;
}

export interface FulfillmentTable {
  store_id: string;
  id: Generated<string>;
  order_id: string;
  status: 'shipped' | 'delivered' | 'cancelled';
  lines: ColumnType<FulfillmentLine[], string, string>;
  carrier: string | null;
  tracking_number: string | null;
  tracking_url: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  delivered_at: NullableTime;
  cancelled_at: NullableTime;
}
export type FulfillmentRow = Selectable<FulfillmentTable>;

/** A return's line: units of one variant that came back, and whether they went back on hand. */
export interface ReturnLine {
  variantId: string;
  quantity: number;
  restock: boolean;
}

export interface ReturnTable {
  store_id: string;
  id: Generated<string>;
  order_id: string;
  lines: ColumnType<ReturnLine[], string, string>;
  reason: string | null;
  /** What the return refunded (0: nothing); the refund itself is `refund_id`'s row. */
  refund_amount: number;
  refund_id: string | null;
  created_at: CreatedAt;
}
export type ReturnRow = Selectable<ReturnTable>;

/** Table types of orders, their payments and refunds. */
export interface OrderTables {
  order_counters: OrderCounterTable;
  orders: OrderTable;
  order_lines: OrderLineTable;
  payments: PaymentTable;
  refunds: RefundTable;
  fulfillments: FulfillmentTable;
  returns: ReturnTable;
  provider_events: ProviderEventTable;
}

declare module '../db/tables.ts' {
  interface Database extends OrderTables {}
}
