import Type, { type Static } from 'typebox';
import { Uuid } from '../../http/schemas.ts';

/** The wire schemas of price lists (decision `price-lists`). */

/** At most this many prices in one list (400 beyond). */
export const MAX_PRICE_LIST_PRICES = 10_000;

const Time = Type.String({ format: 'date-time' });
const Name = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' });
const Kind = Type.Union([Type.Literal('sale'), Type.Literal('override')], {
  description:
    '`sale`: a reduced price, shown against the regular one; the lowest sale that applies wins. `override`: a price that replaces the regular one (a wholesale price); the newest override that applies wins when no sale does.',
});
const MarketIds = Type.Array(Uuid, {
  maxItems: 100,
  description: 'The markets the list applies in; empty or left out: every market.',
});
const CustomerGroupIds = Type.Array(Uuid, {
  maxItems: 100,
  description:
    'The customer groups the list applies to (a shopper signed in with a customer token who is in one of them); empty or left out: every buyer.',
});
const StartsAt = Type.Union([Time, Type.Null()], { description: 'In force from (null: at once).' });
const EndsAt = Type.Union([Time, Type.Null()], {
  description: 'In force until, not included (null: until changed); after `startsAt`.',
});

export const PriceListPriceInput = Type.Object(
  {
    variantId: Uuid,
    currency: Type.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217, e.g. `EUR`.' }),
    amount: Type.Integer({
      minimum: 0,
      maximum: 1_000_000_000_000,
      description: 'Minor units of `currency`.',
    }),
  },
  { title: 'PriceListPriceInput', additionalProperties: false },
);

const Prices = Type.Array(PriceListPriceInput, {
  maxItems: MAX_PRICE_LIST_PRICES,
  description: `The list's prices: one per variant and currency, at most ${MAX_PRICE_LIST_PRICES}.`,
});

export const PriceListBodySchema = Type.Object(
  {
    name: Name,
    kind: Kind,
    marketIds: Type.Optional(MarketIds),
    customerGroupIds: Type.Optional(CustomerGroupIds),
    startsAt: Type.Optional(StartsAt),
    endsAt: Type.Optional(EndsAt),
    prices: Prices,
  },
  { title: 'NewPriceList', additionalProperties: false },
);
export type PriceListBody = Static<typeof PriceListBodySchema>;

export const PriceListPatchSchema = Type.Object(
  {
    name: Type.Optional(Name),
    kind: Type.Optional(Kind),
    marketIds: Type.Optional(MarketIds),
    customerGroupIds: Type.Optional(CustomerGroupIds),
    startsAt: Type.Optional(StartsAt),
    endsAt: Type.Optional(EndsAt),
    prices: Type.Optional(Prices),
  },
  { title: 'PriceListPatch', additionalProperties: false, minProperties: 1 },
);
export type PriceListPatch = Static<typeof PriceListPatchSchema>;

const summary = {
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  kind: Kind,
  marketIds: Type.Array(Type.String({ format: 'uuid' }), {
    description: 'Sorted; empty: every market.',
  }),
  customerGroupIds: Type.Array(Type.String({ format: 'uuid' }), {
    description:
      'Sorted; empty: every buyer (unless every group the list was given has been deleted: then nobody).',
  }),
  startsAt: Type.Union([Time, Type.Null()]),
  endsAt: Type.Union([Time, Type.Null()]),
  priceCount: Type.Integer({ minimum: 0 }),
  createdAt: Time,
  updatedAt: Time,
};

export const PriceListSummarySchema = Type.Object(summary, { title: 'PriceListSummary' });
export type PriceListSummary = Static<typeof PriceListSummarySchema>;

export const PriceListSchema = Type.Object(
  {
    ...summary,
    prices: Type.Array(
      Type.Object(
        {
          variantId: Type.String({ format: 'uuid' }),
          currency: Type.String(),
          amount: Type.Integer({ minimum: 0, description: 'Minor units of `currency`.' }),
        },
        { title: 'PriceListPrice' },
      ),
      { description: 'By variant id, then currency.' },
    ),
  },
  { title: 'PriceList' },
);
export type PriceList = Static<typeof PriceListSchema>;
