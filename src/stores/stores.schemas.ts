import Type, { type Static } from 'typebox';

export const StorefrontStoreSchema = Type.Object(
  {
    name: Type.String(),
    slug: Type.String(),
    currency: Type.String({ description: 'ISO 4217 code; every price of the store is in it.' }),
  },
  { title: 'StorefrontStore' },
);
export type StorefrontStore = Static<typeof StorefrontStoreSchema>;

export const StorefrontTaxSchema = Type.Object(
  {
    pricesIncludeTax: Type.Boolean({
      description:
        'Prices include tax (label them “incl. VAT” or “incl. tax”): every price and total has its tax inside it.',
    }),
  },
  { title: 'StorefrontTax' },
);
export type StorefrontTax = Static<typeof StorefrontTaxSchema>;

export const StoreSettingsSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    slug: Type.String(),
    currency: Type.String(),
    replyToEmail: Type.Union([Type.String(), Type.Null()], {
      description: "Reply-To of every store mail (always an address; the owner's by default).",
    }),
    requireShippingAddress: Type.Boolean({
      description:
        'When on, a checkout with a line that requires shipping must give a shipping address and a shipping method (400 otherwise). Off for stores made before shipping zones, so their clients keep working.',
    }),
    pricesIncludeTax: Type.Boolean({
      description:
        'When on, every price is entered and charged gross: a line’s tax is the part of it at the destination’s rate, totals say `taxIncluded: true` and tax is not added on top. The shelf price is the same for every destination. Orders placed before keep how they were charged.',
    }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { title: 'StoreSettings' },
);
export type StoreSettings = Static<typeof StoreSettingsSchema>;

export const StoreSettingsPatchSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' })),
    replyToEmail: Type.Optional(
      Type.String({
        format: 'email',
        maxLength: 254,
        description: 'Reply-To of every store mail. Always an address: null or "" is 400.',
      }),
    ),
    requireShippingAddress: Type.Optional(Type.Boolean()),
    pricesIncludeTax: Type.Optional(Type.Boolean()),
  },
  { title: 'StoreSettingsChange', additionalProperties: false },
);
export type StoreSettingsPatch = Static<typeof StoreSettingsPatchSchema>;
