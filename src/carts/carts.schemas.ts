import Type, { type Static } from 'typebox';
import { AddressSchema, MoneySchema } from '../http/schemas.ts';
import { ShippingOptionSchema } from '../shipping/shipping.schemas.ts';
import { AppliedPromotionSchema } from '../promotions/promotions.schemas.ts';

/** A line's tax (decision `tax-arithmetic`): on its amount after its discount share, at its class's rate. */
export const LineTaxSchema = Type.Object(
  {
    amount: Type.Integer({ description: 'Minor units, in the line’s currency.' }),
    rateBps: Type.Integer({ description: 'Basis points: 2000 = 20 %.' }),
    class: Type.String({ description: 'The tax class the rate is of (`standard`, `reduced`, …).' }),
  },
  { title: 'LineTax' },
);

/** One entry of the tax breakdown (decision `tax-arithmetic`): what one class's rate taxed in one area. */
export const TaxLineSchema = Type.Object(
  {
    country: Type.String(),
    region: Type.Union([Type.String(), Type.Null()], {
      description: 'The region whose rate applied (`US-CA`); null when the country’s did.',
    }),
    class: Type.String(),
    rateBps: Type.Integer(),
    taxable: Type.Integer({ description: 'The net amount taxed, in minor units of `currency`.' }),
    amount: Type.Integer({ description: 'The tax, in minor units of `currency`.' }),
    currency: Type.String({ pattern: '^[A-Z]{3}$' }),
  },
  { title: 'TaxLine' },
);

/** A priced line: the shape of cart lines and of order lines. */
export const LineSchema = Type.Object(
  {
    variantId: Type.String({ format: 'uuid' }),
    productId: Type.String({ format: 'uuid' }),
    title: Type.String(),
    variantLabel: Type.String(),
    sku: Type.Union([Type.String(), Type.Null()]),
    quantity: Type.Integer(),
    unitPrice: MoneySchema,
    lineTotal: MoneySchema,
    /** Its share of the order's discount (the shares add up to it exactly); absent on orders placed before it was kept. */
    discount: Type.Optional(MoneySchema),
    tax: Type.Optional(
      Type.Union([LineTaxSchema, Type.Null()], {
        description:
          'Its tax: a part of the line when prices include tax, else on top. Null where the destination is not known yet; absent on orders placed before it was kept.',
      }),
    ),
    custom: Type.Optional(
      Type.Boolean({
        description:
          'True on an order line that staff typed on a draft order (a custom item, not from the catalog): its `variantId` and `productId` are the draft line’s own id and no stock moves for it. Absent on every other line.',
      }),
    ),
  },
  { title: 'Line' },
);
export type Line = Static<typeof LineSchema>;

export const CartNoticeSchema = Type.Object(
  {
    code: Type.Union(
      [
        Type.Literal('shipping_method_cleared'),
        Type.Literal('shipping_method_unavailable'),
        Type.Literal('discount_code_invalid'),
        Type.Literal('shipping_unavailable'),
        Type.Literal('market_changed'),
        Type.Literal('discount_not_applicable'),
        Type.Literal('gift_card_unusable'),
      ],
      {
        description:
          '`shipping_method_cleared`: this write dropped a method that no longer fits the cart. `shipping_method_unavailable`: the chosen method no longer fits (choose another). `discount_code_invalid`: the code `discountCode` can no longer be used (`reason`: `unknown`, `not_started`, `ended`, `used_up`, `customer_limit`); checkout would refuse it. `gift_card_unusable`: the gift card `giftCard` (its last 4 characters) can no longer pay (`reason`: `disabled`, `expired`, `currency`, `empty`); it pays nothing and stays until removed. `discount_not_applicable`: the code `discountCode` stays on the cart but takes nothing off now (`reason`: `market`, `customer_group`, `first_order_only`, `no_matching_items`, `minimum_not_met`, `no_shipping`, `nothing_to_discount`, `not_considered`, `not_combinable`, `not_better`). `shipping_unavailable`: no shipping method of the store reaches the address (checkout would refuse it). `market_changed`: this write moved the cart to another market (its address or country): every line is priced there now, in its currency.',
      },
    ),
    detail: Type.String(),
    discountCode: Type.Optional(Type.String({ description: 'The code the notice is about.' })),
    giftCard: Type.Optional(
      Type.String({ description: 'The last 4 characters of the gift card the notice is about.' }),
    ),
    reason: Type.Optional(
      Type.String({ description: 'Why the code or gift card does not apply (see `code`).' }),
    ),
  },
  { title: 'CartNotice' },
);
export type CartNotice = Static<typeof CartNoticeSchema>;

const CartGiftCardSchema = Type.Object(
  {
    last4: Type.String({
      description: 'The last 4 characters of its code (the code itself is never shown).',
    }),
    amount: MoneySchema,
    balance: MoneySchema,
  },
  {
    title: 'CartGiftCard',
    description:
      '`amount`: what the card pays of this cart now; `balance`: its balance now, before this cart.',
  },
);

export const CartSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    items: Type.Array(LineSchema, { description: 'Priced lines (the same shape as order lines).' }),
    subtotal: MoneySchema,
    completed: Type.Boolean({ description: 'True once checked out; the cart is then read-only.' }),
    shippingAddress: Type.Union([AddressSchema, Type.Null()], {
      description: 'Where the parcel goes: PUT /carts/{id}/shipping-address.',
    }),
    shippingMethod: Type.Union([ShippingOptionSchema, Type.Null()], {
      description: 'The chosen shipping method and what it costs now: PUT /carts/{id}/shipping-method.',
    }),
    discountCode: Type.Union([Type.String(), Type.Null()], {
      description:
        'The cart’s first discount code (`discountCodes` has them all): PUT /carts/{id}/discount-code sets one.',
    }),
    discountCodes: Type.Array(Type.String(), {
      maxItems: 5,
      description:
        'The codes the cart holds, in the order entered (at most 5): POST and DELETE /carts/{id}/discount-codes/{code}. A code that takes nothing off stays, with a notice saying why.',
    }),
    promotions: Type.Array(AppliedPromotionSchema, {
      description:
        'What applies, codes and automatic deals: the best total the store’s combination rules allow. `totals.discount` is what they take off the goods; a free-shipping promotion makes `totals.shipping` 0.',
    }),
    freeShippingRemaining: Type.Union([MoneySchema, Type.Null()], {
      description:
        'How much more of the goods (before discounts) a free-shipping promotion of the store wants before it applies (“add $12 for free shipping”); null when none is that close to applying or shipping is free already.',
    }),
    giftCards: Type.Array(CartGiftCardSchema, {
      maxItems: 5,
      description:
        'The gift cards entered, in the order entered (at most 5): POST /carts/{id}/gift-cards, DELETE /carts/{id}/gift-cards/{last4}. Each pays `amount` of what is left after discounts, shipping and tax, up to its `balance`; gift-card lines are never paid with gift cards.',
    }),
    totals: Type.Object(
      {
        subtotal: MoneySchema,
        discount: MoneySchema,
        shipping: MoneySchema,
        tax: MoneySchema,
        total: MoneySchema,
        amountDue: MoneySchema,
        taxIncluded: Type.Boolean({
          description:
            'Prices include tax: `tax` is a part of the subtotal and shipping, and `total = subtotal − discount + shipping`.',
        }),
      },
      {
        title: 'CartTotals',
        description:
          'What checkout charges when nothing changes (`amountDue`: what the payment provider is asked for, `total` less what the gift cards pay; 0: the cards pay it all, and the order is paid at checkout): the promotions’ discount, the tax of the address’s country, and the chosen method’s shipping (without a method: the country’s flat shipping, as a checkout without one is charged).',
      },
    ),
    taxEstimated: Type.Boolean({
      description:
        'The store’s tax service did not answer: the tax shown is the built-in rates’ estimate, and checkout asks the service again.',
    }),
    taxLines: Type.Array(TaxLineSchema, {
      description:
        'The tax breakdown by class and rate; empty until the destination is known or where the store has no rate.',
    }),
    notices: Type.Array(CartNoticeSchema, {
      description: 'What the service changed or found on its own, for the shopper to see.',
    }),
    country: Type.Optional(
      Type.String({
        description:
          'The country the cart is priced for before it has an address (PUT /carts/{id}/country); its market sets the currency. Absent when none was given.',
      }),
    ),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { title: 'Cart' },
);
export type Cart = Static<typeof CartSchema>;

const CartItemInput = Type.Object(
  {
    variantId: Type.String({ format: 'uuid' }),
    quantity: Type.Integer({ minimum: 1, maximum: 999 }),
  },
  { additionalProperties: false },
);

export const CartBodySchema = Type.Object(
  {
    items: Type.Array(CartItemInput, {
      maxItems: 1000,
      description: 'Lines of the same variant are merged.',
    }),
    country: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z]{2}$',
        description:
          'ISO 3166-1 alpha-2: the country to price the cart for until it has an address (its market’s currency and prices). On PUT, given: replaces it; left out: kept.',
      }),
    ),
  },
  { title: 'CartInput', additionalProperties: false },
);
export type CartBody = Static<typeof CartBodySchema>;

export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({ maxLength: 200, description: "The cart's ETag from a previous response." }),
  ),
});

export const CartCountrySchema = Type.Object(
  {
    country: Type.Union([Type.String({ pattern: '^[A-Za-z]{2}$' }), Type.Null()], {
      description: 'ISO 3166-1 alpha-2; null: none (the default market, until an address is given).',
    }),
  },
  { title: 'CartCountry', additionalProperties: false },
);
