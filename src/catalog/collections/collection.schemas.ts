import Type, { type Static } from 'typebox';
import { AdminProductSchema, Timestamp } from '../catalog.schemas.ts';

// ---- Collections (admin) ----

const Condition = Type.Object(
  {
    field: Type.Union([Type.Literal('tag'), Type.Literal('title'), Type.Literal('priceAmount')]),
    op: Type.Union([Type.Literal('eq'), Type.Literal('contains'), Type.Literal('gt'), Type.Literal('lt')]),
    value: Type.Union([
      Type.String({ maxLength: 200 }),
      Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
    ]),
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
