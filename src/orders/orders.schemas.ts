import Type, { type Static } from 'typebox';
import { LineSchema, TaxLineSchema } from '../carts/carts.schemas.ts';
import { AddressInputSchema, AddressSchema, MoneySchema, PageQueryWith } from '../http/schemas.ts';

const Timestamp = Type.String({ format: 'date-time' });
export const OrderStatusSchema = Type.Union([
  Type.Literal('pending'),
  Type.Literal('paid'),
  Type.Literal('expired'),
  Type.Literal('cancelled'),
]);
const PaymentStatusSchema = Type.Union([
  Type.Literal('pending'),
  Type.Literal('processing'),
  Type.Literal('succeeded'),
  Type.Literal('failed'),
  Type.Literal('canceled'),
]);

function OrderShippingMethodSchema() {
  return Type.Object(
    {
      id: Type.String({ format: 'uuid' }),
      name: Type.String(),
      minDeliveryDays: Type.Union([Type.Integer(), Type.Null()]),
      maxDeliveryDays: Type.Union([Type.Integer(), Type.Null()]),
    },
    {
      title: 'OrderShippingMethod',
      description:
        'The shipping method charged, as it was at checkout (its amount is `shipping`): the one chosen, or the one a checkout that named none was charged. Null when nothing was shipped or nothing charged for it.',
    },
  );
}

export const FulfillmentStatusSchema = Type.Union(
  [Type.Literal('unfulfilled'), Type.Literal('partial'), Type.Literal('fulfilled')],
  {
    description:
      'How much of the order has shipped: none, some of its units, all of them. Cancelled fulfilments do not count.',
  },
);

const FulfillmentLineSchema = Type.Object(
  { variantId: Type.String({ format: 'uuid' }), quantity: Type.Integer({ minimum: 1, maximum: 999 }) },
  { title: 'FulfillmentLine', additionalProperties: false },
);

export const FulfillmentSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    status: Type.Union([Type.Literal('shipped'), Type.Literal('delivered'), Type.Literal('cancelled')]),
    lines: Type.Array(FulfillmentLineSchema),
    carrier: Type.Union([Type.String(), Type.Null()]),
    trackingNumber: Type.Union([Type.String(), Type.Null()]),
    trackingUrl: Type.Union([Type.String(), Type.Null()], {
      description:
        "The carrier's tracking page: as given (in its normalised form), or made from the number for a known carrier.",
    }),
    createdAt: Timestamp,
    deliveredAt: Type.Union([Timestamp, Type.Null()]),
    cancelledAt: Type.Union([Timestamp, Type.Null()]),
  },
  { title: 'Fulfillment' },
);
export type Fulfillment = Static<typeof FulfillmentSchema>;

export const FulfillmentBodySchema = Type.Object(
  {
    lines: Type.Array(FulfillmentLineSchema, {
      minItems: 1,
      maxItems: 100,
      description: 'The units in this parcel: at most what was ordered minus what shipped already.',
    }),
    carrier: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    trackingNumber: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    trackingUrl: Type.Optional(
      Type.String({
        maxLength: 2000,
        description:
          'An https URL, kept as a browser reads it (host in lower case and ASCII, spaces percent-encoded); one with a user name or password, control characters (line breaks, tabs), quotes or angle brackets is 400. Left out with a known carrier (UPS, USPS, FedEx, DHL, Royal Mail, Canada Post, Australia Post, PostNL, La Poste, Deutsche Post) and a number: made from them.',
      }),
    ),
    notifyCustomer: Type.Optional(
      Type.Boolean({
        description: 'Mail the buyer a shipping confirmation with the tracking link (true when left out).',
      }),
    ),
  },
  { title: 'NewFulfillment', additionalProperties: false },
);
export type FulfillmentBody = Static<typeof FulfillmentBodySchema>;

export const FulfillmentPatchSchema = Type.Object(
  {
    carrier: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    trackingNumber: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    trackingUrl: Type.Optional(
      Type.String({ maxLength: 2000, description: 'An https URL, checked and kept as on creation.' }),
    ),
    status: Type.Optional(Type.Literal('delivered', { description: 'The parcel arrived.' })),
  },
  { title: 'FulfillmentChange', additionalProperties: false },
);
export type FulfillmentPatch = Static<typeof FulfillmentPatchSchema>;

const ReturnLineSchema = Type.Object(
  {
    variantId: Type.String({ format: 'uuid' }),
    quantity: Type.Integer({ minimum: 1, maximum: 999 }),
    restock: Type.Boolean({ description: 'The units went back on hand.' }),
  },
  { title: 'ReturnLine' },
);

export const ReturnSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    lines: Type.Array(ReturnLineSchema),
    reason: Type.Union([Type.String(), Type.Null()], { description: 'The reason staff gave (staff only).' }),
    refundAmount: MoneySchema,
    refundId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: 'The refund it started (see the order’s `refunds`); null when it refunded nothing.',
    }),
    createdAt: Timestamp,
  },
  {
    title: 'Return',
    description: 'Units that came back; `refundAmount` is what the return refunded (0: nothing).',
  },
);
export type Return = Static<typeof ReturnSchema>;

const BuyerReturnSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    lines: Type.Array(FulfillmentLineSchema),
    refundAmount: MoneySchema,
    createdAt: Timestamp,
  },
  { title: 'StorefrontReturn' },
);

export const ReturnBodySchema = Type.Object(
  {
    lines: Type.Array(
      Type.Object(
        {
          variantId: Type.String({ format: 'uuid' }),
          quantity: Type.Integer({ minimum: 1, maximum: 999 }),
          restock: Type.Optional(
            Type.Boolean({ description: 'Put the units back on hand (`inventory.updated`). Default true.' }),
          ),
        },
        { title: 'NewReturnLine', additionalProperties: false },
      ),
      {
        minItems: 1,
        maxItems: 100,
        description: 'The units that came back: at most what shipped minus what was returned already.',
      },
    ),
    reason: Type.Optional(Type.String({ maxLength: 500, description: 'Why, for staff (blank is none).' })),
    refundAmount: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: Number.MAX_SAFE_INTEGER,
        description:
          'Minor units to refund (0: none). Left out: the returned units’ share of what was paid for goods (docs/fulfillment.md#returns), at most what is left to refund.',
      }),
    ),
    notifyCustomer: Type.Optional(
      Type.Boolean({ description: 'Mail the buyer that the return was received. Default true.' }),
    ),
  },
  { title: 'NewReturn', additionalProperties: false },
);
export type ReturnBody = Static<typeof ReturnBodySchema>;

export const ReturnPreviewSchema = Type.Object(
  {
    refundAmount: MoneySchema,
    share: MoneySchema,
    refundable: MoneySchema,
  },
  {
    title: 'ReturnPreview',
    description:
      '`refundAmount`: what the return would refund by default, the units’ `share` of what was paid for goods, at most `refundable`, the most that can still be refunded on the order.',
  },
);
export type ReturnPreview = Static<typeof ReturnPreviewSchema>;

/** Order lines have the shape of cart lines (copied at checkout). */
export const OrderLineSchema = LineSchema;

const orderFields = {
  id: Type.String({ format: 'uuid' }),
  number: Type.Integer({ description: 'Sequential per store, from 1001.' }),
  status: OrderStatusSchema,
  email: Type.String({ description: "The buyer's address, as given at checkout (lower case)." }),
  country: Type.Union([Type.String(), Type.Null()]),
  lines: Type.Array(OrderLineSchema),
  subtotal: MoneySchema,
  discount: MoneySchema,
  discountCode: Type.Union([Type.String(), Type.Null()]),
  tax: MoneySchema,
  taxIncluded: Type.Boolean({
    description:
      'The amounts included their tax when the order was charged (`total = subtotal − discount + shipping`); false: tax was added on top.',
  }),
  taxLines: Type.Array(TaxLineSchema, {
    description:
      'The tax breakdown by class and rate (the invoice’s): empty where the destination had no rate, and on orders placed before it was kept.',
  }),
  shippingTax: MoneySchema,
  shipping: MoneySchema,
  total: MoneySchema,
  refunded: MoneySchema,
  shippingAddress: Type.Union([AddressSchema, Type.Null()], {
    description: 'Where the parcel goes, as given at checkout (null when the checkout gave none).',
  }),
  billingAddress: Type.Union([AddressSchema, Type.Null()], {
    description: 'The billing address, when the checkout gave one (null: the same as the shipping address).',
  }),
  shippingMethod: Type.Union([OrderShippingMethodSchema(), Type.Null()]),
  phone: Type.Union([Type.String(), Type.Null()], {
    description: "The buyer's phone, when given at checkout.",
  }),
  fulfillmentStatus: FulfillmentStatusSchema,
  createdAt: Timestamp,
  expiresAt: Type.String({
    format: 'date-time',
    description:
      'An unpaid order expires then and its stock is released: PAYMENT_HOLD after checkout until the buyer tries to pay at the provider, then ORDER_TTL after checkout.',
  }),
  paidAt: Type.Union([Timestamp, Type.Null()]),
  cancelledAt: Type.Union([Timestamp, Type.Null()], {
    description: 'When staff cancelled the order (status `cancelled`); null otherwise.',
  }),
};

export const OrderSchema = Type.Object(orderFields, { title: 'Order' });
export type Order = Static<typeof OrderSchema>;

export const CheckoutResultSchema = Type.Object(
  {
    order: OrderSchema,
    payment: Type.Object(
      {
        provider: Type.String(),
        ref: Type.String(),
        status: {
          ...PaymentStatusSchema,
          description:
            'pending in a first answer; a retry with the same Idempotency-Key shows where the payment stands now.',
        },
        clientSecret: Type.String({
          description: "Confirm the payment with the provider's hosted fields using this.",
        }),
        amount: MoneySchema,
      },
      {
        title: 'CheckoutPayment',
        description:
          "The checkout's payment intent: hand `ref` and `clientSecret` to the provider's payment element.",
      },
    ),
  },
  { title: 'CheckoutResult' },
);
export type CheckoutResult = Static<typeof CheckoutResultSchema>;

export const CheckoutBodySchema = Type.Object(
  {
    cartId: Type.String({ format: 'uuid' }),
    email: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 254,
        description:
          "The buyer's address; receives order mail. Required, except for a signed-in customer (`Authorization: Bearer ct_…`), whose email it defaults to.",
      }),
    ),
    country: Type.Optional(
      Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2; drives tax and shipping.' }),
    ),
    discountCode: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    shippingAddress: Type.Optional(AddressInputSchema),
    billingAddress: Type.Optional(AddressInputSchema),
    shippingMethodId: Type.Optional(
      Type.String({
        format: 'uuid',
        description:
          "One of the cart's shipping options (`GET /carts/{id}/shipping-options`); replaces the cart's choice. Without one, the country's default method is charged (or the cheapest that is not a pickup).",
      }),
    ),
    phone: Type.Optional(
      Type.String({
        maxLength: 32,
        description: "The buyer's phone, for the carrier: digits, spaces and + ( ) . -",
      }),
    ),
  },
  {
    title: 'CheckoutInput',
    additionalProperties: false,
    description:
      "`shippingAddress` (where the parcel goes; replaces the cart's) is checked by its country's rules: a bad field is 400 with its pointer (`/shippingAddress/postalCode`). It is required, with `shippingMethodId`, when the store requires a shipping address and a line requires shipping. `billingAddress`: when it differs from the shipping address.",
  },
);
export type CheckoutBody = Static<typeof CheckoutBodySchema>;

export const StorefrontOrderSchema = Type.Object(
  {
    ...orderFields,
    email: Type.String({
      description:
        "The buyer's address, masked: the first character of the local part, `•••`, then `@` and the domain (`b•••@example.com`; a one-character local part shows none of it: `•••@example.com`). This view is read with the order's id and a publishable key alone, so it never carries the address; the checkout's answer (to the buyer who typed it) and the Admin API show it in full.",
    }),
    shippingAddress: Type.Union([AddressSchema, Type.Null()], {
      description:
        'Where the parcel goes, masked for the reason the email is: the first name and the initial of the last (`Ada L.`), the city, region, postal code and country in full; the street as its first character and `•••`, company and second line as `•••`, the phone as its last two digits (`•••67`). The checkout’s answer and the Admin API show it in full.',
    }),
    billingAddress: Type.Union([AddressSchema, Type.Null()], {
      description:
        'The billing address, masked as the shipping address is; null: the same as the shipping address.',
    }),
    phone: Type.Union([Type.String(), Type.Null()], {
      description: "The buyer's phone, masked: its last two digits (`•••67`).",
    }),
    fulfillments: Type.Array(FulfillmentSchema, {
      description: 'The parcels sent, oldest first, with their tracking (cancelled ones included, as such).',
    }),
    returns: Type.Array(BuyerReturnSchema, { description: 'Units that came back, oldest first.' }),
    payment: Type.Union([
      Type.Object({ provider: Type.String(), ref: Type.String(), status: PaymentStatusSchema }),
      Type.Null(),
    ]),
  },
  { title: 'StorefrontOrder' },
);
export type StorefrontOrder = Static<typeof StorefrontOrderSchema>;

export const RefundSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    amount: MoneySchema,
    status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
    providerRef: Type.Union([Type.String(), Type.Null()]),
    reason: Type.Union([Type.String(), Type.Null()], {
      description:
        '`merchant` (staff refund) or `expired_out_of_stock` (automatic: paid after expiry, sold out).',
    }),
    note: Type.Union([Type.String(), Type.Null()], {
      description: 'The reason staff gave when refunding (free text, staff only; never sent to the buyer).',
    }),
    lastError: Type.Union([Type.String(), Type.Null()], {
      description: "The provider's last answer when it refused or could not be reached.",
    }),
    createdAt: Timestamp,
    settledAt: Type.Union([Timestamp, Type.Null()]),
  },
  { title: 'Refund' },
);
export type Refund = Static<typeof RefundSchema>;

export const RefundBodySchema = Type.Object(
  {
    amount: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Minor units.' }),
    reason: Type.Optional(
      Type.String({
        maxLength: 500,
        description: 'Why, for staff: kept on the refund as `note` (blank is none); the buyer never sees it.',
      }),
    ),
  },
  { title: 'NewRefund', additionalProperties: false },
);

export const RefundStartedSchema = Type.Object(
  {
    refund: RefundSchema,
    order: Type.Object({ id: Type.String(), number: Type.Integer(), status: OrderStatusSchema }),
  },
  { title: 'RefundStarted' },
);
export type RefundStarted = Static<typeof RefundStartedSchema>;

export const CancelOrderBodySchema = Type.Object(
  {
    reason: Type.Optional(
      Type.String({
        maxLength: 500,
        description: 'Why, for staff and webhooks (blank is none); the buyer never sees it.',
      }),
    ),
    restock: Type.Optional(
      Type.Boolean({
        description:
          'A paid order: put its units back on hand (`inventory.updated`). Default true. A pending order always releases its reservation.',
      }),
    ),
    refund: Type.Optional(
      Type.Boolean({
        description:
          'A paid order: refund what was captured and not yet refunded, through the refund path (`order.refunded` when it settles). Default true.',
      }),
    ),
  },
  { title: 'OrderCancellation', additionalProperties: false },
);
export type CancelOrderBody = Static<typeof CancelOrderBodySchema>;

export const PaymentSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    provider: Type.String(),
    ref: Type.String(),
    status: PaymentStatusSchema,
    amount: MoneySchema,
    createdAt: Timestamp,
  },
  { title: 'Payment' },
);
export type Payment = Static<typeof PaymentSchema>;

export const AdminOrderSchema = Type.Object(
  {
    ...orderFields,
    oversold: Type.Boolean({
      description:
        'The payment arrived when the stock of a line was short: the order is paid anyway (money is never kept without an order) and needs the merchant (restock or refund).',
    }),
    cancelReason: Type.Union([Type.String(), Type.Null()], {
      description: 'The reason staff gave when cancelling (staff only; never sent to the buyer).',
    }),
    customerId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description:
        "The customer: the checkout's signed-in customer, else the customer of its email. Null once the customer was erased.",
    }),
    erasedAt: Type.Union([Timestamp, Type.Null()], {
      description:
        "When the buyer's personal data was erased: the email, addresses and phone are gone; number, lines and amounts stay.",
    }),
    payments: Type.Array(PaymentSchema),
    refunds: Type.Array(RefundSchema),
    fulfillments: Type.Array(FulfillmentSchema, { description: 'Oldest first, cancelled ones included.' }),
    returns: Type.Array(ReturnSchema, { description: 'Oldest first.' }),
    mails: Type.Array(
      Type.Object(
        {
          id: Type.String({ format: 'uuid' }),
          kind: Type.String({
            description:
              '`order_confirmation`, `shipping_confirmation`, `order_cancelled`, `return_received`, `refund_notice`.',
          }),
          subject: Type.String(),
          status: Type.Union([Type.Literal('pending'), Type.Literal('sent'), Type.Literal('failed')]),
          createdAt: Timestamp,
          sentAt: Type.Union([Timestamp, Type.Null()]),
        },
        { title: 'OrderMail' },
      ),
      {
        description:
          'The mails the buyer was sent about this order, oldest first (sent mail is kept for SENT_MAIL_RETENTION, 7 days by default).',
      },
    ),
  },
  { title: 'AdminOrder' },
);
export type AdminOrder = Static<typeof AdminOrderSchema>;

export const AdminOrdersQuerySchema = PageQueryWith({
  status: Type.Optional(OrderStatusSchema),
  customerId: Type.Optional(Type.String({ format: 'uuid', description: 'Orders of one customer.' })),
  fulfillmentStatus: Type.Optional(FulfillmentStatusSchema),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'Search. Digits, optionally after `#` (`1042`, `#1042`): the order with that number. With an `@`: orders whose email starts with it. Otherwise: orders whose shipping address name or email contains it. Case-insensitive.',
    }),
  ),
});
export type AdminOrdersQuery = Static<typeof AdminOrdersQuerySchema>;
