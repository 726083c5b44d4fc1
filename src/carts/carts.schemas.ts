import Type, { type Static } from 'typebox';
import { AddressSchema, MoneySchema } from '../http/schemas.ts';

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

export const CartSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    items: Type.Array(LineSchema, { description: 'Priced lines (the same shape as order lines).' }),
    subtotal: MoneySchema,
    completed: Type.Boolean({ description: 'True once checked out; the cart is then read-only.' }),
    shippingAddress: Type.Union([AddressSchema, Type.Null()], {
      description: 'Where the parcel goes: PUT /carts/{id}/shipping-address.',
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
