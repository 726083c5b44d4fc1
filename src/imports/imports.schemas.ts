import Type, { type Static } from 'typebox';
import { PageQuery } from '../http/schemas.ts';

/** The wire schemas of imports (decision `csv-imports`). */

const Time = Type.String({ format: 'date-time' });
const NullableTime = Type.Union([Time, Type.Null()]);

export const ImportKindSchema = Type.Union(
  [Type.Literal('products'), Type.Literal('customers'), Type.Literal('inventory')],
  {
    description:
      '`products`: Shopify’s product CSV (docs/import-export.md), upserted by handle, variants by SKU. `customers`: Shopify’s customer CSV, upserted by email. `inventory`: on-hand counts by SKU.',
  },
);

export const RowErrorSchema = Type.Object(
  {
    row: Type.Integer({
      minimum: 1,
      description: 'The row as a spreadsheet numbers it: the header is row 1, the first data row 2.',
    }),
    column: Type.Union([Type.String(), Type.Null()], {
      description: 'The column’s name as the file’s header has it; null when the row as a whole is wrong.',
    }),
    detail: Type.String({ description: 'What is wrong, for a person (never the cell’s value).' }),
  },
  { title: 'ImportRowError' },
);

const importProperties = {
  id: Type.String({ format: 'uuid' }),
  kind: ImportKindSchema,
  dryRun: Type.Boolean({ description: 'Checked only: nothing is written.' }),
  status: Type.Union(
    [
      Type.Literal('queued'),
      Type.Literal('checking'),
      Type.Literal('running'),
      Type.Literal('completed'),
      Type.Literal('failed'),
    ],
    {
      description:
        '`queued`, then `checking` (every row read and checked; nothing written), then `running` (written in batches) and `completed`. A dry run completes after checking. `failed`: a row is bad (nothing was written) or the file cannot be read (`failure`).',
    },
  ),
  fileName: Type.Union([Type.String(), Type.Null()]),
  progress: Type.Object(
    {
      rows: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
        description: 'The file’s data rows, once checked; null before.',
      }),
      done: Type.Integer({ minimum: 0, description: 'Data rows written so far.' }),
    },
    { title: 'ImportProgress' },
  ),
  errorCount: Type.Integer({
    minimum: 0,
    description: 'Every bad row found (`errors` keeps the first 1000).',
  }),
  ignoredColumns: Type.Array(Type.String(), {
    description:
      'Columns of the file this import does not read (Shopify’s Vendor, say): listed, never refused.',
  }),
  summary: Type.Object(
    {
      created: Type.Integer({ minimum: 0 }),
      updated: Type.Integer({ minimum: 0 }),
      unchanged: Type.Integer({ minimum: 0, description: 'Already as the file says: not written.' }),
    },
    {
      title: 'ImportSummary',
      description: 'Products, customers or variants, by what the import did to them.',
    },
  ),
  failure: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the file could not be read at all (not CSV, no header, a required column missing).',
  }),
  createdAt: Time,
  startedAt: NullableTime,
  finishedAt: NullableTime,
};

export const ImportListItemSchema = Type.Object(importProperties, { title: 'ImportListItem' });
export type ImportListItem = Static<typeof ImportListItemSchema>;

export const ImportSchema = Type.Object(
  {
    ...importProperties,
    errors: Type.Array(RowErrorSchema, {
      description:
        'The bad rows, by row: found by the check (then nothing was written), or, once running, what a row could not do (an image that could not be fetched: the product came in without it).',
    }),
  },
  { title: 'Import' },
);
export type ImportView = Static<typeof ImportSchema>;

/** The form's fields beside its file (multipart/form-data), for the OpenAPI document. */
export const ImportUploadSchema = Type.Object(
  {
    kind: ImportKindSchema,
    dryRun: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false')], {
        description: '`true`: check every row and report, writing nothing.',
      }),
    ),
    file: Type.String({ format: 'binary', description: 'The CSV file (UTF-8), at most IMPORT_MAX_MB.' }),
  },
  { title: 'ImportUpload' },
);

export const ImportListQuery = PageQuery;
