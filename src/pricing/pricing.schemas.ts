import Type, { type Static } from 'typebox';

const Timestamp = Type.String({ format: 'date-time' });

export const DiscountSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    code: Type.String(),
    kind: Type.Union([Type.Literal('percent'), Type.Literal('fixed')]),
    value: Type.Integer({ description: 'percent: 1–100; fixed: minor units.' }),
    startsAt: Type.Union([Timestamp, Type.Null()]),
    endsAt: Type.Union([Timestamp, Type.Null()]),
    usageLimit: Type.Union([Type.Integer(), Type.Null()]),
    usedCount: Type.Integer(),
    createdAt: Timestamp,
  },
  { title: 'Discount' },
);
export type Discount = Static<typeof DiscountSchema>;

export const DiscountBodySchema = Type.Object(
  {
    code: Type.String({
      pattern: '^[A-Za-z0-9_-]{1,64}$',
      description: 'Case-insensitive; stored upper case.',
    }),
    kind: Type.Union([Type.Literal('percent'), Type.Literal('fixed')]),
    value: Type.Integer({ minimum: 1, maximum: 1_000_000_000_00 }),
    startsAt: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
    endsAt: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
    usageLimit: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000_000 }), Type.Null()]),
    ),
  },
  { title: 'NewDiscount', additionalProperties: false },
);
export type DiscountBody = Static<typeof DiscountBodySchema>;

export const TaxRateSchema = Type.Object(
  {
    country: Type.String({
      description:
        'ISO 3166-1 alpha-2 (`DE`), or an ISO 3166-2 region (`US-CA`) whose rate beats its country’s.',
    }),
    taxRateBps: Type.Integer({ description: 'Basis points: 2000 = 20 %.' }),
    shippingAmount: Type.Integer({
      description:
        "Legacy: the amount of the country's default shipping method (what a checkout that names no method is charged; 0 without one, and for a region). Shipping zones and methods (/admin/v1/shipping/zones) say more.",
    }),
    updatedAt: Timestamp,
  },
  { title: 'TaxRate' },
);
export type TaxRate = Static<typeof TaxRateSchema>;

export const TaxRateBodySchema = Type.Object(
  {
    taxRateBps: Type.Integer({ minimum: 0, maximum: 10_000 }),
    shippingAmount: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1_000_000_000,
        description:
          "Legacy: sets the country's default shipping method to a flat method of this amount (made \"Standard shipping\" in the country's zone when there is none). Left out: the country's shipping stays as it is. Not for a region.",
      }),
    ),
  },
  { title: 'TaxRateInput', additionalProperties: false },
);
export type TaxRateBody = Static<typeof TaxRateBodySchema>;

export const CountryParams = Type.Object({
  country: Type.String({
    pattern: '^[A-Za-z]{2}(-[A-Za-z0-9]{1,3})?$',
    description: 'A country (`DE`) or a region of one (`US-CA`).',
  }),
});
