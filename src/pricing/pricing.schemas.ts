import Type, { type Static } from 'typebox';
import { TAX_CLASS_CODE } from '../http/schemas.ts';

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

const ShippingTaxSchema = Type.Union([Type.Literal('none'), Type.Literal('follow_goods')], {
  description:
    '`none`: shipping is not taxed here (the default). `follow_goods`: shipping is taxed like the goods it carries, split over their classes in proportion to their amounts (the EU rule), unless its method has a tax class of its own.',
});

export const TaxRateSchema = Type.Object(
  {
    country: Type.String({
      description:
        'ISO 3166-1 alpha-2 (`DE`), or an ISO 3166-2 region (`US-CA`) whose rate beats its country’s.',
    }),
    taxRateBps: Type.Integer({ description: 'The `standard` class’s rate, in basis points: 2000 = 20 %.' }),
    classRates: Type.Record(Type.String(), Type.Integer(), {
      description:
        'Other classes’ rates here, by class code (`{"reduced": 700}`); a class without one takes `taxRateBps`.',
    }),
    shippingTax: ShippingTaxSchema,
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
    classRates: Type.Optional(
      Type.Record(Type.String({ pattern: TAX_CLASS_CODE }), Type.Integer({ minimum: 0, maximum: 10_000 }), {
        maxProperties: 50,
        description:
          'Rates of other tax classes here, by code; each class must exist, and `standard`’s is `taxRateBps`. Left out: unchanged.',
      }),
    ),
    shippingTax: Type.Optional(ShippingTaxSchema),
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

export const TaxClassSchema = Type.Object(
  {
    code: Type.String({ pattern: TAX_CLASS_CODE }),
    name: Type.String(),
    createdAt: Timestamp,
  },
  { title: 'TaxClass' },
);
export type TaxClass = Static<typeof TaxClassSchema>;

export const TaxClassBodySchema = Type.Object(
  {
    code: Type.String({
      pattern: TAX_CLASS_CODE,
      description: 'Lower case letters, digits, `_` and `-`, up to 32 (`reduced`, `zero`).',
    }),
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
  },
  { title: 'NewTaxClass', additionalProperties: false },
);
export type TaxClassBody = Static<typeof TaxClassBodySchema>;

export const TaxClassParams = Type.Object({ code: Type.String({ pattern: TAX_CLASS_CODE }) });
