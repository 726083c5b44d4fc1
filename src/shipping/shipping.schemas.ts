import Type, { type Static } from 'typebox';
import { MoneySchema, TAX_CLASS_CODE, Uuid } from '../http/schemas.ts';

const Timestamp = Type.String({ format: 'date-time' });
const Amount = Type.Integer({
  minimum: 0,
  maximum: 1_000_000_000,
  description: 'Minor units of the store currency.',
});
const Days = Type.Integer({ minimum: 0, maximum: 365 });

export const ZoneAreaSchema = Type.Object(
  {
    country: Type.String({
      pattern: '^([A-Za-z]{2}|\\*)$',
      description: 'ISO 3166-1 alpha-2, or `*` for the rest of the world.',
    }),
    regions: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 20 }), {
        maxItems: 200,
        description: 'ISO 3166-2 codes (`US-CA`) narrowing the area to these regions of the country.',
      }),
    ),
    postalCodePrefixes: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 10 }), {
        maxItems: 200,
        description: 'Postal-code prefixes narrowing the area (the longest matching prefix wins).',
      }),
    ),
  },
  { title: 'ShippingZoneArea', additionalProperties: false },
);

export const ZoneBodySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    areas: Type.Array(ZoneAreaSchema, { minItems: 1, maxItems: 250 }),
  },
  { title: 'NewShippingZone', additionalProperties: false },
);
export type ZoneBody = Static<typeof ZoneBodySchema>;

export const ZonePatchSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    areas: Type.Optional(Type.Array(ZoneAreaSchema, { minItems: 1, maxItems: 250 })),
  },
  { title: 'ShippingZoneChanges', additionalProperties: false },
);
export type ZonePatch = Static<typeof ZonePatchSchema>;

const KindSchema = Type.Union(
  [Type.Literal('flat'), Type.Literal('weight'), Type.Literal('free_over'), Type.Literal('pickup')],
  {
    description:
      '`flat`: `amount`. `weight`: the first of `weightTiers` the parcel fits. `free_over`: `amount`, free from `freeOverAmount`. `pickup`: `amount` (often 0).',
  },
);

export const WeightTierSchema = Type.Object(
  { upToGrams: Type.Integer({ minimum: 1, maximum: 10_000_000 }), amount: Amount },
  { title: 'ShippingWeightTier', additionalProperties: false },
);

/** Decision `tax-classes` and `shipping-tax`: how the method's shipping is taxed where the area taxes shipping. */
const MethodTaxClass = Type.Union([Type.String({ pattern: TAX_CLASS_CODE }), Type.Null()], {
  description:
    'The tax class its shipping is taxed at, where the destination’s rate taxes shipping (`shippingTax: "follow_goods"`); null (the default): it follows the goods, split over their classes. Where the rate says `none`, shipping is untaxed whatever this says.',
});

const methodFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  amount: Type.Optional(Amount),
  freeOverAmount: Type.Optional(Type.Union([Amount, Type.Null()])),
  weightTiers: Type.Optional(
    Type.Union([Type.Array(WeightTierSchema, { minItems: 1, maxItems: 20 }), Type.Null()]),
  ),
  minDeliveryDays: Type.Optional(Type.Union([Days, Type.Null()])),
  maxDeliveryDays: Type.Optional(Type.Union([Days, Type.Null()])),
  active: Type.Optional(Type.Boolean()),
  taxClass: Type.Optional(MethodTaxClass),
};

export const MethodBodySchema = Type.Object(
  { ...methodFields, kind: KindSchema },
  { title: 'NewShippingMethod', additionalProperties: false },
);
export type MethodBody = Static<typeof MethodBodySchema>;

export const MethodPatchSchema = Type.Object(
  { ...methodFields, name: Type.Optional(methodFields.name), kind: Type.Optional(KindSchema) },
  { title: 'ShippingMethodChanges', additionalProperties: false },
);
export type MethodPatch = Static<typeof MethodPatchSchema>;

export const ShippingMethodSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    zoneId: Type.String({ format: 'uuid' }),
    name: Type.String(),
    kind: KindSchema,
    amount: Type.Union([Type.Integer(), Type.Null()]),
    freeOverAmount: Type.Union([Type.Integer(), Type.Null()]),
    weightTiers: Type.Union([Type.Array(WeightTierSchema), Type.Null()]),
    minDeliveryDays: Type.Union([Type.Integer(), Type.Null()]),
    maxDeliveryDays: Type.Union([Type.Integer(), Type.Null()]),
    active: Type.Boolean(),
    taxClass: MethodTaxClass,
    countryDefault: Type.Union([Type.String(), Type.Null()], {
      description:
        "The country (ISO 3166-1 alpha-2) whose checkouts that name no method are charged this one: the flat method kept from, and set by, the tax rate's legacy `shippingAmount` (`PUT /admin/v1/tax-rates/{country}`). Read-only here.",
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'ShippingMethod' },
);
export type ShippingMethod = Static<typeof ShippingMethodSchema>;

export const ShippingZoneSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    areas: Type.Array(
      Type.Object(
        {
          country: Type.String(),
          regions: Type.Array(Type.String()),
          postalCodePrefixes: Type.Array(Type.String()),
        },
        { title: 'ShippingZoneAreaView' },
      ),
    ),
    methods: Type.Array(ShippingMethodSchema),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'ShippingZone' },
);
export type ShippingZone = Static<typeof ShippingZoneSchema>;

export const ZoneParams = Type.Object({ id: Uuid }, { additionalProperties: false });
export const MethodParams = Type.Object({ id: Uuid, methodId: Uuid }, { additionalProperties: false });

/** A method a parcel can take, as a shopper sees it (decision `cart-shipping-and-totals`). */
export const ShippingOptionSchema = Type.Object(
  {
    id: Type.String({
      format: 'uuid',
      description: 'The shipping method; send it to PUT /carts/{id}/shipping-method.',
    }),
    name: Type.String(),
    amount: MoneySchema,
    minDeliveryDays: Type.Union([Type.Integer(), Type.Null()]),
    maxDeliveryDays: Type.Union([Type.Integer(), Type.Null()]),
  },
  { title: 'ShippingOption' },
);
export type ShippingOption = Static<typeof ShippingOptionSchema>;
