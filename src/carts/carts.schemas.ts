import Type, { type Static } from 'typebox';
import { AddressSchema, MoneySchema } from '../http/schemas.ts';
import { ShippingOptionSchema } from '../shipping/shipping.schemas.ts';

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
      ],
      {
        description:
          '`shipping_method_cleared`: this write dropped a method that no longer fits the cart. `shipping_method_unavailable`: the chosen method no longer fits (choose another). `discount_code_invalid`: the code can no longer be used. `shipping_unavailable`: no shipping method of the store reaches the address (checkout would refuse it).',
      },
    ),
    detail: Type.String(),
  },
  { title: 'CartNotice' },
);
export type CartNotice = Static<typeof CartNoticeSchema>;

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
      description: 'The discount code applied to the totals: PUT /carts/{id}/discount-code.',
    }),
    totals: Type.Object(
      {
        subtotal: MoneySchema,
        discount: MoneySchema,
        shipping: MoneySchema,
        tax: MoneySchema,
        total: MoneySchema,
      },
      {
        title: 'CartTotals',
        description:
          'What checkout charges when nothing changes: the code’s discount, the tax of the address’s country, and the chosen method’s shipping (without a method: the country’s flat shipping, as a checkout without one is charged).',
      },
    ),
    notices: Type.Array(CartNoticeSchema, {
      description: 'What the service changed or found on its own, for the shopper to see.',
    }),
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
  },
  { title: 'CartInput', additionalProperties: false },
);
export type CartBody = Static<typeof CartBodySchema>;

export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({ maxLength: 200, description: "The cart's ETag from a previous response." }),
  ),
});
