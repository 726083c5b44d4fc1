import Type, { type Static } from 'typebox';
import { MAX_QUERY_INTEGER, PageQuery } from '../../http/schemas.ts';

// ---- Storefront search (decision `storefront-search`) ----

/** Decision `markets`: the country whose market prices a read; without it, the default market. */
export const CountryQuery = Type.Optional(
  Type.String({
    pattern: '^[A-Za-z]{2}$',
    description:
      'ISO 3166-1 alpha-2: prices, price filters, sorts and facets in the market that holds this country (its currency in `currency`); without it, the default market, as before markets.',
  }),
);

const SearchFilters = {
  country: CountryQuery,
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'Words to find: each must begin a word of the title, a SKU, a tag, an option value or the description, or (from 4 letters) be close to a word of the title ("hodie" finds "Hoodie"). Case and accents do not matter.',
    }),
  ),
  collection: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Only products in the collection with this slug.',
    }),
  ),
  tag: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'Only products with this tag (any case).' }),
  ),
  minPrice: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_QUERY_INTEGER,
      description: 'Only products with a variant at this price or above (minor units; at most 2^53 − 1).',
    }),
  ),
  maxPrice: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_QUERY_INTEGER,
      description: 'Only products with a variant at this price or below (minor units; at most 2^53 − 1).',
    }),
  ),
  available: Type.Optional(
    Type.Boolean({
      description: '`true`: only products with a variant in stock (`false` is the same as leaving it out).',
    }),
  ),
};

/**
 * `option.<Name>=<value>` filters (repeatable: any of the values). Price, stock and option values
 * are matched on one variant: `option.Size=M&available=true` finds products whose M is in stock.
 */
const OptionFilters = {
  '^option\\.[^\\s].{0,59}$': Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 20 }),
};

export const SearchSortSchema = Type.Union(
  [
    Type.Literal('relevance'),
    Type.Literal('newest'),
    Type.Literal('oldest'),
    Type.Literal('price_asc'),
    Type.Literal('price_desc'),
    Type.Literal('title_asc'),
  ],
  {
    description:
      '`relevance` (the default with `q`; without it, `oldest`), `newest`, `oldest` (the default without `q`: the spec’s order), `price_asc`, `price_desc` (by the card price), `title_asc`. Each has its own cursor.',
  },
);

export const ProductSearchQuerySchema = Type.Object(
  { ...PageQuery.properties, ...SearchFilters, sort: Type.Optional(SearchSortSchema) },
  { additionalProperties: false, patternProperties: OptionFilters },
);

export const ProductFacetsQuerySchema = Type.Object(SearchFilters, {
  additionalProperties: false,
  patternProperties: OptionFilters,
});

export const ProductFacetsSchema = Type.Object(
  {
    total: Type.Integer({ minimum: 0, description: 'How many products the search finds.' }),
    options: Type.Array(
      Type.Object({
        name: Type.String(),
        values: Type.Array(Type.Object({ value: Type.String(), count: Type.Integer({ minimum: 1 }) })),
      }),
      { description: 'Per option name, its values among the found products’ variants, most found first.' },
    ),
    price: Type.Object(
      { min: Type.Union([Type.Integer(), Type.Null()]), max: Type.Union([Type.Integer(), Type.Null()]) },
      {
        description:
          'The lowest and highest variant price of the found products (in the market of `country`); null when none is found.',
      },
    ),
    collections: Type.Array(
      Type.Object({ slug: Type.String(), title: Type.String(), count: Type.Integer({ minimum: 1 }) }),
    ),
    available: Type.Object({
      count: Type.Integer({ minimum: 0, description: 'Found products with a variant in stock.' }),
    }),
    currency: Type.Optional(
      Type.String({ description: 'The currency of `price`; given when the request names a `country`.' }),
    ),
  },
  { title: 'ProductFacets' },
);
export type ProductFacets = Static<typeof ProductFacetsSchema>;
