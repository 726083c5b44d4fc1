import Type, { type Static } from 'typebox';
import { PageQueryWith, TAX_CLASS_CODE } from '../http/schemas.ts';
import { VariantPriceInput, VariantPriceSchema } from '../markets/markets.schemas.ts';

const Amount = Type.Integer({
  minimum: 0,
  maximum: 1_000_000_000_00,
  description: 'Minor units (e.g. cents).',
});
export const Timestamp = Type.String({ format: 'date-time' });
export const ProductStatusSchema = Type.Union([
  Type.Literal('draft'),
  Type.Literal('active'),
  Type.Literal('archived'),
]);
const Image = Type.Union([
  Type.String({
    maxLength: 2048,
    description: 'An https URL. Products with `images` have the first one’s URL here, set by the server.',
  }),
  Type.Null(),
]);
const Tags = Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50 });
const Sku = Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()]);
const Handle = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
  description:
    'The product’s name in URLs: lower-case letters, digits and single hyphens, unique in the store. Made from the title when not given.',
});
const OptionSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 50 }),
    values: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 100 }),
  },
  { title: 'ProductOption', additionalProperties: false },
);
const OptionsSchema = Type.Array(OptionSchema, {
  maxItems: 3,
  description:
    'Up to three options and their values, in order: `[{"name": "Size", "values": ["S", "M"]}]`. Each variant then gives a value of each in `options`.',
});
const VariantOptionsSchema = Type.Record(Type.String({ maxLength: 50 }), Type.String({ maxLength: 100 }), {
  description:
    'The variant’s value of each option of its product (`{"Size": "M", "Colour": "Blue"}`); one combination per variant of a product. `{}` for a product without options.',
});
const SeoSchema = Type.Object(
  {
    title: Type.Union([Type.String({ maxLength: 200 }), Type.Null()], {
      description: 'For <title>; null: the product title.',
    }),
    description: Type.Union([Type.String({ maxLength: 500 }), Type.Null()], {
      description: 'For the meta description; null: none given.',
    }),
  },
  { title: 'Seo' },
);
const SeoInputSchema = Type.Object(
  {
    title: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
  },
  { title: 'SeoInput', additionalProperties: false, description: 'Blank or null clears a field.' },
);

/** An image of a product (decision `media-uploads`): a media of the store with its alt text, in the merchant's order. */
export const ProductImageSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'The media id.' }),
    url: Type.String({
      description:
        'A path on this server (`/media/…`), immutable; add `?w=` (160, 320, 640, 960, 1280, 1920) for a resized copy in WebP or AVIF.',
    }),
    alt: Type.Union([Type.String(), Type.Null()], { description: 'Alt text; null: none given.' }),
    width: Type.Integer({ minimum: 1 }),
    height: Type.Integer({ minimum: 1 }),
  },
  { title: 'ProductImage' },
);
export type ProductImage = Static<typeof ProductImageSchema>;

/** At most this many images per product. */
export const MAX_IMAGES = 20;

const ImagesInputSchema = Type.Array(
  Type.Object(
    {
      mediaId: Type.String({
        format: 'uuid',
        description: 'An uploaded image of this store (`POST /media`).',
      }),
      alt: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
    },
    { title: 'ProductImageInput', additionalProperties: false },
  ),
  {
    maxItems: MAX_IMAGES,
    description:
      'The product’s images in order, replacing the list; each a media of this store, at most once. The first is the card’s `image`. A variant whose image leaves the list shows the product’s again.',
  },
);
const ImageId = Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
  description:
    'The image this variant shows: the media id of one of its product’s images; null: the product’s.',
});

// ---- Storefront shapes (spec 2.3–2.6) ----

/** Decision `gift-card-products`. */
const GiftCardFlag = Type.Boolean({
  description:
    'The product sells gift cards: paying for a unit issues a card of its price and mails its code to the order’s email. Nothing of it is shipped.',
});

/** Decision `prior-price`: the EU Omnibus rule's figure, computed by the service. */
const PriorPrice = Type.Integer({
  description:
    'During a sale: the lowest price of the 30 days before the sale began (minor units, in `currency`), from the price history; absent when not on sale or when no price from before the sale is known. Among a product’s variants on sale, the lowest.',
});

export const ProductCardSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    title: Type.String(),
    handle: Type.String({ description: 'For URLs: `GET /products/handle/{handle}`.' }),
    image: Type.Union([Type.String(), Type.Null()]),
    priceAmount: Type.Integer({ description: 'The lowest variant price, minor units.' }),
    compareAtAmount: Type.Union([Type.Integer(), Type.Null()], {
      description:
        'The compare-at price of the card price’s variant when higher than the price (a sale), else null.',
    }),
    currency: Type.String(),
    priorPrice: Type.Optional(PriorPrice),
    giftCard: GiftCardFlag,
  },
  { title: 'ProductCard' },
);
export type ProductCard = Static<typeof ProductCardSchema>;

export const StorefrontVariantSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    sku: Type.Union([Type.String(), Type.Null()]),
    label: Type.String(),
    options: VariantOptionsSchema,
    priceAmount: Type.Integer(),
    compareAtAmount: Type.Union([Type.Integer(), Type.Null()]),
    available: Type.Integer({
      minimum: 0,
      description: 'Live sellable stock; display data, not a reservation.',
    }),
    imageId: ImageId,
    priorPrice: Type.Optional(PriorPrice),
  },
  { title: 'Variant' },
);
export type StorefrontVariant = Static<typeof StorefrontVariantSchema>;

export const ProductDetailSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    title: Type.String(),
    handle: Type.String(),
    image: Type.Union([Type.String(), Type.Null()]),
    priceAmount: Type.Integer(),
    compareAtAmount: Type.Union([Type.Integer(), Type.Null()]),
    currency: Type.String(),
    priorPrice: Type.Optional(PriorPrice),
    giftCard: GiftCardFlag,
    description: Type.String(),
    seo: SeoSchema,
    options: OptionsSchema,
    images: Type.Array(ProductImageSchema, { description: 'In order; the first is the card’s `image`.' }),
    variants: Type.Array(StorefrontVariantSchema),
  },
  { title: 'ProductDetail' },
);
export type ProductDetail = Static<typeof ProductDetailSchema>;

export const CollectionCardSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    title: Type.String(),
    slug: Type.String(),
    productCount: Type.Integer({ minimum: 0, description: 'How many active products it holds.' }),
    priceRange: Type.Union([Type.Object({ min: Type.Integer(), max: Type.Integer() }), Type.Null()], {
      description:
        'The lowest and highest card price (`priceAmount`, minor units in the store currency) of its active products; null when it holds none with a price.',
    }),
    onSale: Type.Boolean({
      description: 'Whether any of its active products is on sale (its card has a `compareAtAmount`).',
    }),
  },
  { title: 'Collection' },
);
export type CollectionCard = Static<typeof CollectionCardSchema>;

// ---- Admin shapes ----

const WeightGrams = Type.Integer({
  minimum: 0,
  maximum: 10_000_000,
  description: 'Grams, for weight-based shipping methods; null or absent: not given.',
});
/** Decision `tax-classes`: a class of the store (`POST /admin/v1/tax-classes`); unknown is 400. */
const TaxClass = Type.String({ pattern: TAX_CLASS_CODE, description: 'A tax class of the store.' });
const ProductTaxClass = {
  ...TaxClass,
  description: 'The tax class of its variants (`standard`, `reduced`, …; default `standard`).',
};
const VariantTaxClass = Type.Union([TaxClass, Type.Null()], {
  description: 'Its own tax class; null (the default): its product’s.',
});
const RequiresShipping = Type.Boolean({
  description:
    'Whether the variant is shipped (default true; false, and only false, on a gift card product); false for gift cards and downloads.',
});
const GiftCardInput = Type.Boolean({
  description:
    'The product sells gift cards (default false): paying for a unit issues a card of the unit’s price, mailed to the buyer. Its variants are never shipped: `requiresShipping` defaults to false on them and may not be true (400); making a product a gift card sets it false on its variants.',
});

const Prices = Type.Array(VariantPriceInput, {
  maxItems: 50,
  description:
    'Explicit prices in other currencies than the store’s, one per currency; the whole list replaces the variant’s. A market whose currency has none converts `priceAmount` at its exchange rate.',
});

export const VariantInputSchema = Type.Object(
  {
    sku: Type.Optional(Sku),
    label: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Required without options; with options, made from their values when left out ("M / Blue").',
      }),
    ),
    options: Type.Optional(VariantOptionsSchema),
    priceAmount: Amount,
    compareAtAmount: Type.Optional(Type.Union([Amount, Type.Null()])),
    onHand: Type.Integer({ minimum: 0, maximum: 1_000_000_000 }),
    weightGrams: Type.Optional(Type.Union([WeightGrams, Type.Null()])),
    requiresShipping: Type.Optional(RequiresShipping),
    imageId: Type.Optional(ImageId),
    taxClass: Type.Optional(VariantTaxClass),
    prices: Type.Optional(Prices),
  },
  { title: 'NewVariant', additionalProperties: false },
);
export type VariantInput = Static<typeof VariantInputSchema>;

export const VariantPatchSchema = Type.Object(
  {
    sku: Type.Optional(Sku),
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    options: Type.Optional(VariantOptionsSchema),
    priceAmount: Type.Optional(Amount),
    compareAtAmount: Type.Optional(Type.Union([Amount, Type.Null()])),
    onHand: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000 })),
    weightGrams: Type.Optional(Type.Union([WeightGrams, Type.Null()])),
    requiresShipping: Type.Optional(RequiresShipping),
    imageId: Type.Optional(ImageId),
    taxClass: Type.Optional(VariantTaxClass),
    prices: Type.Optional(Prices),
    archived: Type.Optional(
      Type.Boolean({
        description:
          '`true` archives the variant: kept with its history, but not sold, not on the storefront, not searched, not in the card price, its combination free for another variant. `false` brings it back (409 option_in_use when its values are no longer the product’s, option_combination_taken when another variant took its combination).',
      }),
    ),
  },
  { title: 'VariantChange', additionalProperties: false },
);
export type VariantPatch = Static<typeof VariantPatchSchema>;

export const AdminVariantSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    productId: Type.String({ format: 'uuid' }),
    sku: Type.Union([Type.String(), Type.Null()]),
    label: Type.String(),
    options: VariantOptionsSchema,
    priceAmount: Type.Integer(),
    compareAtAmount: Type.Union([Type.Integer(), Type.Null()]),
    onHand: Type.Integer(),
    reserved: Type.Integer({ description: 'Units held by pending orders.' }),
    available: Type.Integer({ description: 'max(0, onHand − reserved)' }),
    weightGrams: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Grams, for weight-based shipping; null when not given.',
    }),
    requiresShipping: Type.Boolean({ description: 'False for what is not shipped (gift cards, downloads).' }),
    imageId: ImageId,
    taxClass: VariantTaxClass,
    prices: Type.Array(VariantPriceSchema, {
      description:
        'Its explicit prices in currencies other than the store’s (decision `market-prices`); a market in a currency without one converts `priceAmount` at its rate.',
    }),
    archived: Type.Boolean({ description: 'Archived: kept, but not sold and not on the storefront.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'AdminVariant' },
);
export type AdminVariant = Static<typeof AdminVariantSchema>;

export const ProductInputSchema = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 500 }),
    description: Type.Optional(Type.String({ maxLength: 100_000 })),
    status: ProductStatusSchema,
    image: Type.Optional(Image),
    tags: Type.Optional(Tags),
    handle: Type.Optional(Handle),
    seo: Type.Optional(SeoInputSchema),
    options: Type.Optional(OptionsSchema),
    images: Type.Optional(ImagesInputSchema),
    taxClass: Type.Optional(ProductTaxClass),
    giftCard: Type.Optional(GiftCardInput),
    variants: Type.Array(VariantInputSchema, { maxItems: 100 }),
  },
  { title: 'NewProduct', additionalProperties: false },
);
export type ProductInput = Static<typeof ProductInputSchema>;

export const ProductPatchSchema = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    description: Type.Optional(Type.String({ maxLength: 100_000 })),
    status: Type.Optional(ProductStatusSchema),
    image: Type.Optional(Image),
    tags: Type.Optional(Tags),
    handle: Type.Optional({
      ...Handle,
      description:
        'A new handle; the previous one keeps answering with a 301 to it (`GET /storefront/v1/products/handle/{old}`).',
    }),
    seo: Type.Optional(SeoInputSchema),
    options: Type.Optional({
      ...OptionsSchema,
      description:
        'The options, replacing the list: values may be added; a new option gives every live variant its first value; a removed or renamed option or value must not be used by a live variant, nor may two live variants end with one combination (409 option_in_use names the variants), unless `strandedVariants` is `archive`.',
    }),
    strandedVariants: Type.Optional(
      Type.Union([Type.Literal('refuse'), Type.Literal('archive')], {
        description:
          'With `options`: what happens to live variants the new options leave without a value of theirs. `refuse` (default): 409 option_in_use. `archive`: they are archived in the same change (never deleted); an active product keeps at least one live variant.',
      }),
    ),
    images: Type.Optional(ImagesInputSchema),
    taxClass: Type.Optional(ProductTaxClass),
    giftCard: Type.Optional(GiftCardInput),
  },
  { title: 'ProductChange', additionalProperties: false },
);
export type ProductPatch = Static<typeof ProductPatchSchema>;

export const AdminProductSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    title: Type.String(),
    description: Type.String(),
    status: ProductStatusSchema,
    image: Type.Union([Type.String(), Type.Null()]),
    tags: Type.Array(Type.String()),
    handle: Type.String(),
    seo: SeoSchema,
    options: OptionsSchema,
    images: Type.Array(ProductImageSchema, { description: 'In order; the first is the card’s `image`.' }),
    priceAmount: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Card price; null without variants.',
    }),
    currency: Type.String(),
    taxClass: ProductTaxClass,
    giftCard: Type.Boolean({
      description:
        'The product sells gift cards (decision `gift-card-products`): paying for a unit issues a card of its price; its variants are not shipped.',
    }),
    variants: Type.Array(AdminVariantSchema),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'AdminProduct' },
);
export type AdminProduct = Static<typeof AdminProductSchema>;

/**
 * A product is low on stock at this many sellable units or fewer (summed over its variants): the
 * same number as the Home page's low-stock list by default (`lowStockThreshold` of the overview).
 */
export const LOW_STOCK_THRESHOLD = 5;

export const ProductStockFilterSchema = Type.Union(
  [Type.Literal('in_stock'), Type.Literal('low'), Type.Literal('out')],
  {
    description: `By sellable stock, the sum of the product's variants' \`available\` (max(0, onHand − reserved); 0 without variants): \`in_stock\` more than 0, \`low\` ${LOW_STOCK_THRESHOLD} or fewer (out of stock included), \`out\` 0.`,
  },
);
export type ProductStockFilter = Static<typeof ProductStockFilterSchema>;

export const ProductSortSchema = Type.Union(
  [
    Type.Literal('created_asc'),
    Type.Literal('created_desc'),
    Type.Literal('title_asc'),
    Type.Literal('price_asc'),
    Type.Literal('price_desc'),
  ],
  {
    description:
      'The order: by creation time, oldest first (`created_asc`, the default) or newest first; by title A–Z (case and accents ignored); by the card price (the lowest variant price), low to high or high to low, products without variants last. Ties are broken by id. A cursor belongs to its sort.',
  },
);
export type ProductSort = Static<typeof ProductSortSchema>;

export const AdminProductsQuerySchema = PageQueryWith({
  status: Type.Optional(ProductStatusSchema),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'Search: products whose title contains it, or with a variant whose SKU contains it (case-insensitive).',
    }),
  ),
  collection: Type.Optional(
    Type.String({
      format: 'uuid',
      description:
        "Only the products of this collection (manual or smart, any status); an unknown collection's id matches nothing.",
    }),
  ),
  stock: Type.Optional(ProductStockFilterSchema),
  sort: Type.Optional(ProductSortSchema),
});
export type AdminProductsQuery = Static<typeof AdminProductsQuerySchema>;

/** At most this many SKUs and ids in one variant lookup. */
export const MAX_VARIANT_LOOKUP = 100;

export const VariantLookupQuerySchema = Type.Object(
  {
    sku: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        maxItems: MAX_VARIANT_LOOKUP,
        description: 'A SKU, compared exactly (repeat the parameter for more).',
      }),
    ),
    id: Type.Optional(
      Type.Array(Type.String({ format: 'uuid' }), {
        maxItems: MAX_VARIANT_LOOKUP,
        description: 'A variant id (repeat the parameter for more).',
      }),
    ),
  },
  { additionalProperties: false },
);

export const VariantLookupSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    productId: Type.String({ format: 'uuid' }),
    productTitle: Type.String(),
    label: Type.String(),
    sku: Type.Union([Type.String(), Type.Null()]),
    archived: Type.Boolean(),
  },
  { title: 'VariantLookup' },
);
export type VariantLookup = Static<typeof VariantLookupSchema>;

export const VariantLookupListSchema = Type.Object(
  { items: Type.Array(VariantLookupSchema) },
  { title: 'VariantLookupList' },
);
