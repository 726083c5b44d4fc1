import Type, { type Static } from 'typebox';
import { MoneySchema } from '../../http/schemas.ts';

const Kind = Type.Union([Type.Literal('sale'), Type.Literal('override')]);

/** `GET /admin/v1/variants/{id}/price` (decision `price-function`). */
export const PriceExplanationQuery = Type.Object(
  {
    country: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z]{2}$',
        description: 'The buyer’s country (its market); none: the default.',
      }),
    ),
    customerGroupId: Type.Optional(
      Type.String({ format: 'uuid', description: 'A group the buyer is in; none: a guest.' }),
    ),
    at: Type.Optional(Type.String({ format: 'date-time', description: 'When; none: now.' })),
  },
  { additionalProperties: false },
);

export const PriceExplanationSchema = Type.Object(
  {
    variantId: Type.String({ format: 'uuid' }),
    market: Type.Object({
      id: Type.String({ format: 'uuid' }),
      name: Type.String(),
      currency: Type.String(),
    }),
    customerGroupId: Type.Union([Type.String(), Type.Null()]),
    at: Type.String({ format: 'date-time' }),
    price: MoneySchema,
    compareAtAmount: Type.Union([Type.Integer(), Type.Null()]),
    source: Type.Union([Type.Literal('market'), Kind], {
      description: 'Where the price came from: a sale list, an override list, or the market’s price.',
    }),
    priceList: Type.Union([Type.Object({ id: Type.String(), name: Type.String(), kind: Kind }), Type.Null()]),
    marketPrice: Type.Object(
      {
        amount: Type.Integer(),
        currency: Type.String(),
        from: Type.Union([Type.Literal('store_price'), Type.Literal('explicit'), Type.Literal('converted')]),
      },
      { description: 'The market’s price without price lists, and how it is made.' },
    ),
    candidates: Type.Array(
      Type.Object({
        priceListId: Type.String(),
        name: Type.String(),
        kind: Kind,
        amount: Type.Integer(),
        wins: Type.Boolean(),
      }),
      { description: 'Every price list that applies, sales lowest first, then overrides newest first.' },
    ),
    reason: Type.String({ description: 'The rule that decided, in words.' }),
  },
  { title: 'PriceExplanation' },
);
export type PriceExplanation = Static<typeof PriceExplanationSchema>;
