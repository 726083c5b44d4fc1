import Type, { type Static } from 'typebox';
import { LineSchema, TaxLineSchema } from '../carts/carts.schemas.ts';
import { AppliedPromotionSchema } from '../promotions/promotions.schemas.ts';
import { AddressInputSchema, AddressSchema, MoneySchema, PageQueryWith } from '../http/schemas.ts';
import {
  BuyerReturnSchema,
  FulfillmentSchema,
  FulfillmentStatusSchema,
  ReturnSchema,
} from './shipments.schemas.ts';

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
  discountCode: Type.Union([Type.String(), Type.Null()], {
    description: 'The first discount code that applied (`promotions` lists every promotion).',
  }),
  promotions: Type.Array(AppliedPromotionSchema, {
    description:
      'The promotions the order applied, codes and automatic ones, with what each took off (goods and shipping).',
  }),
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
  giftCards: Type.Array(
    Type.Object(
      {
        last4: Type.String({ description: 'The last 4 characters of the card’s code.' }),
        amount: MoneySchema,
      },
      { title: 'OrderGiftCard' },
    ),
    {
      description:
        'The gift cards that pay the order, and how much each pays of `total`; `amountDue` is the rest, what the payment provider charges (0: the cards paid it all, and the order was paid at checkout).',
    },
  ),
  amountDue: MoneySchema,
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
  source: Type.Union([Type.Literal('checkout'), Type.Literal('draft')], {
    description:
      'How the order was made: `checkout` (every order before draft orders), or `draft`: staff made it from a draft order (`draftOrderId`).',
  }),
  draftOrderId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
    description: 'The draft order it was made from; null for a checkout’s.',
  }),
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
    giftCards: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        maxItems: 5,
        description:
          "Gift card codes that pay the order, in this order, before the payment provider (replaces the cart's cards; `[]`: none). Each spends one of the client's guesses. A code no card has, or a card that cannot pay, is 409 `gift_card_invalid`; a card whose balance was spent meanwhile, 409 `gift_card_balance_too_low`.",
      }),
    ),
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
    giftCards: Type.Boolean({
      description:
        'Paid back to the gift cards the order spent (settled at once, no provider); false: refunded through the payment provider.',
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
    giftCardsFirst: Type.Optional(
      Type.Boolean({
        description:
          'An order gift cards paid part of: pay the refund back to its cards first, the provider the rest (default true); false: the provider first, the cards only what is over.',
      }),
    ),
  },
  { title: 'NewRefund', additionalProperties: false },
);

export const RefundStartedSchema = Type.Object(
  {
    refund: RefundSchema,
    giftCardRefund: Type.Optional(RefundSchema),
    order: Type.Object({ id: Type.String(), number: Type.Integer(), status: OrderStatusSchema }),
  },
  {
    title: 'RefundStarted',
    description:
      '`refund`: the refund started (the provider’s part when there is one). `giftCardRefund`: beside a provider’s part, the part paid back to the order’s gift cards, settled already.',
  },
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
              '`order_confirmation`, `shipping_confirmation`, `order_cancelled`, `return_received`, `refund_notice`, `gift_card_codes` (the codes of the gift cards the order bought).',
          }),
          subject: Type.String({
            description:
              'A sealed mail’s (`gift_card_codes`) reads `(sealed)`: what it says is not for staff to read.',
          }),
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
