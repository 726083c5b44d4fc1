import Type, { type Static } from 'typebox';
import { PageQueryWith } from '../http/schemas.ts';

const Amount = Type.Integer({
  minimum: 0,
  maximum: 1_000_000_000_00,
  description: 'Minor units (e.g. cents).',
});
const Timestamp = Type.String({ format: 'date-time' });
export const ProductStatusSchema = Type.Union([
  Type.Literal('draft'),
  Type.Literal('active'),
  Type.Literal('archived'),
]);
const Image = Type.Union([Type.String({ maxLength: 2048, description: 'An https URL.' }), Type.Null()]);
const Tags = Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50 });
const Sku = Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()]);
const Handle = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
  description:
    'The product’s name in URLs (D46): lower-case letters, digits and single hyphens, unique in the store. Made from the title when not given.',
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
    'Up to three options and their values, in order (D46): `[{"name": "Size", "values": ["S", "M"]}]`. Each variant then gives a value of each in `options`.',
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

// ---- Storefront shapes (spec 2.3–2.6) ----

export const ProductCardSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    title: Type.String(),
    handle: Type.String({ description: 'For URLs: `GET /products/handle/{handle}` (D46).' }),
    image: Type.Union([Type.String(), Type.Null()]),
    priceAmount: Type.Integer({ description: 'The lowest variant price, minor units.' }),
    compareAtAmount: Type.Union([Type.Integer(), Type.Null()], {
      description:
        'The compare-at price of the card price’s variant when higher than the price (a sale), else null.',
    }),
    currency: Type.String(),
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
    description: Type.String(),
    seo: SeoSchema,
    options: OptionsSchema,
    variants: Type.Array(StorefrontVariantSchema),
  },
  { title: 'ProductDetail' },
);
export type ProductDetail = Static<typeof ProductDetailSchema>;

export const CollectionCardSchema = Type.Object(
  { id: Type.String({ format: 'uuid' }), title: Type.String(), slug: Type.String() },
  { title: 'Collection' },
);
export type CollectionCard = Static<typeof CollectionCardSchema>;

// ---- Admin shapes (D20) ----

const WeightGrams = Type.Integer({
  minimum: 0,
  maximum: 10_000_000,
  description: 'Grams, for weight-based shipping methods (D38); null or absent: not given.',
});
const RequiresShipping = Type.Boolean({
  description: 'Whether the variant is shipped (default true); false for gift cards and downloads.',
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
        'The options, replacing the list: values may be added, renamed options and values must not be in use (409 option_in_use names the variants). Adding an option to a product that has variants is refused the same way.',
    }),
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
    priceAmount: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Card price; null without variants.',
    }),
    currency: Type.String(),
    variants: Type.Array(AdminVariantSchema),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'AdminProduct' },
);
export type AdminProduct = Static<typeof AdminProductSchema>;

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
});
export type AdminProductsQuery = Static<typeof AdminProductsQuerySchema>;

const Condition = Type.Object(
  {
    field: Type.Union([Type.Literal('tag'), Type.Literal('title'), Type.Literal('priceAmount')]),
    op: Type.Union([Type.Literal('eq'), Type.Literal('contains'), Type.Literal('gt'), Type.Literal('lt')]),
    value: Type.Union([Type.String({ maxLength: 200 }), Type.Integer({ minimum: 0 })]),
  },
  { additionalProperties: false },
);

export const RulesSchema = Type.Object(
  {
    match: Type.Union([Type.Literal('all'), Type.Literal('any')]),
    conditions: Type.Array(Condition, { minItems: 1, maxItems: 20 }),
  },
  {
    additionalProperties: false,
    description:
      'tag: eq|contains; title: eq|contains (case-insensitive); priceAmount: eq|gt|lt on the card price.',
  },
);
export type Rules = Static<typeof RulesSchema>;

export const CollectionSlug = Type.String({
  pattern: '^[a-z0-9]([a-z0-9-]{0,98}[a-z0-9])?$',
  maxLength: 100,
});

export const CollectionInputSchema = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200 }),
    slug: CollectionSlug,
    kind: Type.Union([Type.Literal('manual'), Type.Literal('smart')]),
    productIds: Type.Optional(Type.Array(Type.String({ format: 'uuid' }), { maxItems: 1000 })),
    rules: Type.Optional(RulesSchema),
  },
  { title: 'NewCollection', additionalProperties: false },
);
export type CollectionInput = Static<typeof CollectionInputSchema>;

export const CollectionPatchSchema = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    slug: Type.Optional(CollectionSlug),
    productIds: Type.Optional(
      Type.Array(Type.String({ format: 'uuid' }), {
        maxItems: 1000,
        description: 'Manual: the full ordered list (reorder by sending a new order).',
      }),
    ),
    rules: Type.Optional(RulesSchema),
  },
  { title: 'CollectionChange', additionalProperties: false },
);
export type CollectionPatch = Static<typeof CollectionPatchSchema>;

export const AdminCollectionSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    title: Type.String(),
    slug: Type.String(),
    kind: Type.Union([Type.Literal('manual'), Type.Literal('smart')]),
    productIds: Type.Union([Type.Array(Type.String()), Type.Null()], {
      description: 'Manual collections: the ordered products. Null for smart.',
    }),
    rules: Type.Union([RulesSchema, Type.Null()]),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'AdminCollection' },
);
export type AdminCollection = Static<typeof AdminCollectionSchema>;

export const CollectionPreviewInputSchema = Type.Object(
  {
    rules: RulesSchema,
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 50,
        description: 'How many matching products to answer, default 20.',
      }),
    ),
  },
  { title: 'CollectionPreviewRequest', additionalProperties: false },
);
export type CollectionPreviewInput = Static<typeof CollectionPreviewInputSchema>;

export const CollectionPreviewSchema = Type.Object(
  {
    items: Type.Array(AdminProductSchema, {
      description: 'The first matching products (any status), in the order of a smart collection.',
    }),
    total: Type.Integer({ minimum: 0, description: 'How many products of the store match.' }),
  },
  { title: 'CollectionPreview' },
);
export type CollectionPreview = Static<typeof CollectionPreviewSchema>;
