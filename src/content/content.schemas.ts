import Type, { type Static, type TSchema, type TUnsafe } from 'typebox';
import type { Block } from './content.types.ts';
import { REGION_LIMITS } from './regions.validator.ts';

/** Wire schemas of the content module: request validation, serialization and /openapi.json. */

const HANDLE_PATTERN = '^[a-z0-9][a-z0-9-]{0,62}$';
const Timestamp = Type.String({ format: 'date-time' });

/** The format shared by menu handles, page slugs and region keys (the tables CHECK it too). */
const Handle = Type.String({
  pattern: HANDLE_PATTERN,
  description: 'Lower-case letters, digits and hyphens, 1–63 characters, not starting with a hyphen.',
});

// ---- Path parameters ----
// Admin routes check the format (400 with a pointer); storefront reads take any string and
// answer 404 for one that does not exist, like every other storefront lookup.

export const MenuHandleParams = Type.Object({ handle: Handle }, { additionalProperties: false });
export const PageSlugParams = Type.Object({ slug: Handle }, { additionalProperties: false });
export const RegionKeyParams = Type.Object({ key: Handle }, { additionalProperties: false });

const Lookup = Type.String({ minLength: 1 });
export const StorefrontHandleParams = Type.Object({ handle: Lookup }, { additionalProperties: false });
export const StorefrontSlugParams = Type.Object({ slug: Lookup }, { additionalProperties: false });
export const StorefrontKeyParams = Type.Object({ key: Lookup }, { additionalProperties: false });

// ---- Menus (spec 2.7) ----

export const MAX_MENU_ITEMS = 100;

export const MenuItemSchema = Type.Object(
  {
    label: Type.String({ minLength: 1, maxLength: 200 }),
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        'An absolute http(s) URL or a path starting with / (not //). javascript:, data: and vbscript: are refused.',
    }),
  },
  { additionalProperties: false },
);

export const MenuInputSchema = Type.Object(
  { items: Type.Array(MenuItemSchema, { maxItems: MAX_MENU_ITEMS }) },
  { title: 'MenuInput', additionalProperties: false },
);
export type MenuInput = Static<typeof MenuInputSchema>;

export const StorefrontMenuSchema = Type.Object(
  { handle: Type.String(), items: Type.Array(MenuItemSchema) },
  { title: 'Menu' },
);
export type StorefrontMenu = Static<typeof StorefrontMenuSchema>;

export const AdminMenuSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    handle: Type.String(),
    items: Type.Array(MenuItemSchema),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'AdminMenu' },
);
export type AdminMenu = Static<typeof AdminMenuSchema>;

// ---- Pages (spec 2.8) ----

export const MAX_PAGE_BODY = 100_000;

export const PageInputSchema = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200 }),
    body: Type.String({
      maxLength: MAX_PAGE_BODY,
      description: 'Plain text, never HTML; paragraphs are separated by blank lines. Render it as text.',
    }),
  },
  { title: 'PageInput', additionalProperties: false },
);
export type PageInput = Static<typeof PageInputSchema>;

export const StorefrontPageSchema = Type.Object(
  {
    slug: Type.String(),
    title: Type.String(),
    body: Type.String({ description: 'Plain text (never HTML): render it as text, never as markup.' }),
    updatedAt: Timestamp,
  },
  { title: 'Page' },
);
export type StorefrontPage = Static<typeof StorefrontPageSchema>;

export const AdminPageSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    slug: Type.String(),
    title: Type.String(),
    body: Type.String(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'AdminPage' },
);
export type AdminPage = Static<typeof AdminPageSchema>;

// ---- Regions (spec 2.9) ----

const Text = (minLength: number, description: string) =>
  Type.String({ minLength, maxLength: REGION_LIMITS.maxStringLength, description });

const leafBlock = (type: string, settings: TSchema, description: string) =>
  Type.Object(
    {
      id: Type.String({ minLength: 1, maxLength: REGION_LIMITS.maxIdLength }),
      type: Type.Literal(type),
      settings,
    },
    { additionalProperties: false, description },
  );

const LEAF_BLOCKS = [
  leafBlock(
    'heading',
    Type.Object(
      { text: Text(1, 'The heading text.'), level: Type.Integer({ minimum: 1, maximum: 3 }) },
      { additionalProperties: false },
    ),
    'A heading of level 1–3.',
  ),
  leafBlock(
    'text',
    Type.Object({ text: Text(1, 'Paragraph text, plain (never HTML).') }, { additionalProperties: false }),
    'A paragraph of plain text.',
  ),
  leafBlock(
    'image',
    Type.Object(
      {
        src: Text(1, 'An https URL or a relative URL (not //host).'),
        alt: Text(0, 'Alternative text; empty for a decorative image.'),
      },
      { additionalProperties: false },
    ),
    'An image.',
  ),
  leafBlock(
    'button',
    Type.Object(
      {
        text: Text(1, 'The button label.'),
        href: Text(
          1,
          'An http(s), mailto: or tel: URL, or a relative URL. javascript:, data: and vbscript: are refused.',
        ),
      },
      { additionalProperties: false },
    ),
    'A link styled as a button.',
  ),
  leafBlock(
    'spacer',
    Type.Object(
      { size: Type.Optional(Type.Union([Type.Literal('sm'), Type.Literal('md'), Type.Literal('lg')])) },
      { additionalProperties: false },
    ),
    'Vertical space: sm, md (the default) or lg.',
  ),
];

/**
 * A block at `depth` (1 = top level). Written out level by level instead of as a recursive $ref so
 * the document is self-contained and the depth limit is part of the schema; the handler runs
 * validateRegionBody first, which reports every problem with its pointer.
 */
function blockAt(depth: number): TSchema {
  const children =
    depth < REGION_LIMITS.maxDepth
      ? Type.Array(blockAt(depth + 1), { maxItems: REGION_LIMITS.maxChildren })
      : Type.Array(Type.Never(), { maxItems: 0, description: 'Level 4 is the deepest: no children.' });
  const columns = Type.Object(
    {
      id: Type.String({ minLength: 1, maxLength: REGION_LIMITS.maxIdLength }),
      type: Type.Literal('columns'),
      settings: Type.Object(
        { columns: Type.Integer({ minimum: 1, maximum: 12 }) },
        { additionalProperties: false },
      ),
      children: Type.Optional(children),
    },
    { additionalProperties: false, description: 'A row of 1–12 columns; the only block with children.' },
  );
  return Type.Union([...LEAF_BLOCKS, columns]);
}

/**
 * The tree as `Block[]` for TypeScript: blockAt builds the schema level by level, so its type is only
 * TSchema; the cast names what it describes (content.types.ts) and changes nothing at run time.
 */
export const BlocksSchema = Type.Array(blockAt(1) as TUnsafe<Block>, {
  maxItems: REGION_LIMITS.maxNodes,
  description:
    'Block tree: depth ≤ 4, ≤ 50 blocks in all, ≤ 12 children per block, ids unique in the tree, strings ≤ 5000 characters, ≤ 64 KiB as JSON. See docs/content.md.',
});

export const RegionDraftInputSchema = Type.Object(
  { blocks: BlocksSchema },
  { title: 'RegionDraftInput', additionalProperties: false },
);
export type RegionDraftInput = Static<typeof RegionDraftInputSchema>;

export const StorefrontRegionSchema = Type.Object(
  {
    key: Type.String(),
    updatedAt: Type.String({ format: 'date-time', description: 'When this tree was published.' }),
    blocks: BlocksSchema,
  },
  { title: 'Region' },
);
/** The published tree as the storefront receives it. */
export type StorefrontRegion = Static<typeof StorefrontRegionSchema>;

const Tree = Type.Object({ blocks: BlocksSchema, updatedAt: Timestamp });

export const AdminRegionSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    key: Type.String(),
    draft: Type.Object(
      { blocks: BlocksSchema, updatedAt: Timestamp },
      { description: 'The tree the builder edits; the storefront never sees it.' },
    ),
    published: Type.Union([Tree, Type.Null()], {
      description:
        'The tree the storefront serves; null until first published. updatedAt is the publish time.',
    }),
    hasUnpublishedChanges: Type.Boolean({ description: 'The draft differs from the published tree.' }),
    createdAt: Timestamp,
  },
  { title: 'AdminRegion' },
);
export type AdminRegion = Static<typeof AdminRegionSchema>;

export const AdminRegionSummarySchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    key: Type.String(),
    draftUpdatedAt: Timestamp,
    publishedAt: Type.Union([Timestamp, Type.Null()]),
    hasUnpublishedChanges: Type.Boolean(),
    createdAt: Timestamp,
  },
  { title: 'AdminRegionSummary' },
);
export type AdminRegionSummary = Static<typeof AdminRegionSummarySchema>;

/**
 * Route option for responses that carry block trees: serialise with JSON.stringify. The trees were
 * validated when written and the mappers build exact objects, so the response schema is only
 * documentation here; fast-json-stringify would test every union branch of every node (about 35
 * times slower than JSON.stringify on a 50-block tree, on a hot cacheable read).
 */
export const treeSerializer = {
  serializerCompiler: () => (data: unknown) => JSON.stringify(data),
};
