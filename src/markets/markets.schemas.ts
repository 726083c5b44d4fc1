import Type, { type Static } from 'typebox';
import { EXCHANGE_RATE } from './conversion.ts';

const Timestamp = Type.String({ format: 'date-time' });
const Rounding = Type.Union([Type.Literal('none'), Type.Literal('to_99'), Type.Literal('to_whole')], {
  description:
    'How a converted price is rounded in the market’s currency: `none` half up to the minor unit; `to_99` up to the next amount ending in .99 (19.20 → 19.99); `to_whole` up to the next whole unit (19.20 → 20.00). Explicit prices are never rounded.',
});
const Country = Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2, e.g. `DE`.' });
const Currency = Type.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217, e.g. `EUR`.' });
const Rate = Type.String({
  pattern: EXCHANGE_RATE,
  description:
    'Units of the market’s currency per unit of the store’s, as a decimal string (`"0.92"`); the merchant’s own rate, never fetched. Prices without an explicit one in the market’s currency are the store price × this rate.',
});
const Name = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' });

export const MarketSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    default: Type.Boolean({
      description: 'The store’s default market: its currency, and every country no other market names.',
    }),
    countries: Type.Array(Type.String(), { description: 'Empty on the default market.' }),
    currency: Type.String(),
    pricesIncludeTax: Type.Boolean({
      description: 'Prices in this market include tax (on the default market: the store setting).',
    }),
    exchangeRate: Type.String({ description: '`"1"` on the default market.' }),
    rounding: Rounding,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'Market' },
);
export type Market = Static<typeof MarketSchema>;

/** A market as a shop shows it (`GET /storefront/v1/store/markets`): no ids, names, rates or rules. */
export const StorefrontMarketSchema = Type.Object(
  {
    countries: Type.Array(Type.String(), {
      description:
        'ISO 3166-1 alpha-2 codes. Empty on the default market, which holds every country no other market names.',
    }),
    currency: Type.String({
      description: 'ISO 4217: prices read with `?country=` one of `countries` are in it.',
    }),
    pricesIncludeTax: Type.Boolean({
      description:
        'Prices in this market include tax: label them “incl. VAT”, “incl. GST” or “incl. tax”, as the country names its tax.',
    }),
    default: Type.Boolean({ description: 'The store’s default market: its currency, every other country.' }),
  },
  { title: 'StorefrontMarket' },
);

export const StorefrontMarketsSchema = Type.Object(
  { items: Type.Array(StorefrontMarketSchema, { description: 'The default market first.' }) },
  { title: 'StorefrontMarkets' },
);
export type StorefrontMarkets = Static<typeof StorefrontMarketsSchema>;

export const MarketBodySchema = Type.Object(
  {
    name: Name,
    countries: Type.Array(Country, { minItems: 1, maxItems: 250 }),
    currency: Currency,
    pricesIncludeTax: Type.Optional(Type.Boolean()),
    exchangeRate: Type.Optional(Rate),
    rounding: Type.Optional(Rounding),
  },
  { title: 'NewMarket', additionalProperties: false },
);
export type MarketBody = Static<typeof MarketBodySchema>;

export const MarketPatchSchema = Type.Object(
  {
    name: Type.Optional(Name),
    countries: Type.Optional(Type.Array(Country, { minItems: 1, maxItems: 250 })),
    currency: Type.Optional(Currency),
    pricesIncludeTax: Type.Optional(Type.Boolean()),
    exchangeRate: Type.Optional(Rate),
    rounding: Type.Optional(Rounding),
  },
  { title: 'MarketPatch', additionalProperties: false, minProperties: 1 },
);
export type MarketPatch = Static<typeof MarketPatchSchema>;

/** A variant's explicit price in a currency other than the store's (decision `market-prices`). */
export const VariantPriceSchema = Type.Object(
  {
    currency: Type.String(),
    amount: Type.Integer({ minimum: 0, description: 'Minor units of `currency`.' }),
    compareAtAmount: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  },
  { title: 'VariantPrice' },
);

export const VariantPriceInput = Type.Object(
  {
    currency: Currency,
    amount: Type.Integer({
      minimum: 0,
      maximum: 1_000_000_000_000,
      description: 'Minor units of `currency`.',
    }),
    compareAtAmount: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0, maximum: 1_000_000_000_000 }), Type.Null()]),
    ),
  },
  { title: 'VariantPriceInput', additionalProperties: false },
);
export type VariantPriceInputType = Static<typeof VariantPriceInput>;
