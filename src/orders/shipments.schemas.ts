import Type, { type Static } from 'typebox';
import { MoneySchema } from '../http/schemas.ts';

/** Fulfilments and returns of an order: what shipped, what came back (the orders part's schemas). */

const Timestamp = Type.String({ format: 'date-time' });

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

export const BuyerReturnSchema = Type.Object(
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
