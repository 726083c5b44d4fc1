import { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import { stringify } from 'csv-stringify';
import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceDeps } from '../db/service-deps.ts';
import { requireStaff } from '../http/principals.ts';
import { multipartGate } from '../http/multipart.ts';
import { IdParams, Page, problemResponses } from '../http/schemas.ts';
import { AppError, validationFailed } from '../lib/errors.ts';
import {
  ImportListItemSchema,
  ImportListQuery,
  ImportSchema,
  ImportUploadSchema,
} from './imports.schemas.ts';
import { createImport, getImport, listImports, type NewImport } from './imports.service.ts';
import type { ImportKind } from './imports.tables.ts';
import { exportRows, type ExportKind } from './exports.ts';

const tags = ['Admin: imports and exports'];
const KINDS: readonly string[] = ['products', 'customers', 'inventory'];

export interface ImportRoutesDeps extends ServiceDeps {
  /** Where this server answers (PUBLIC_BASE_URL): an export's image URLs. */
  publicBaseUrl: string;
  /** The largest file, bytes (IMPORT_MAX_MB). */
  maxBytes: number;
  /** Wakes this process's import worker (a new job is queued). */
  wake: () => void;
}

const tooLarge = (maxBytes: number) =>
  new AppError(
    'file_too_large',
    413,
    `The file is larger than ${maxBytes / 1024 / 1024} MiB, the most an import takes (IMPORT_MAX_MB): split it into several files.`,
  );

/** The form: `kind`, `dryRun` and one file part, the file read within `maxBytes`. */
async function readForm(request: FastifyRequest, maxBytes: number): Promise<NewImport> {
  const fields: Record<string, string> = {};
  let file: { bytes: Buffer; name: string | null } | null = null;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (file !== null)
          throw validationFailed('Send one file; this form has more.', [
            { pointer: '/file', detail: 'must be exactly one file part' },
          ]);
        file = { bytes: await part.toBuffer(), name: part.filename ? part.filename.slice(0, 255) : null };
      } else if (typeof part.value === 'string') fields[part.fieldname] = part.value;
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    const code = (error as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(maxBytes);
    throw validationFailed('The body is not a well-formed multipart/form-data form.', [
      { pointer: '/', detail: 'is not a well-formed multipart form' },
    ]);
  }
  const errors = [];
  const kind = fields.kind;
  if (kind === undefined || !KINDS.includes(kind))
    errors.push({ pointer: '/kind', detail: 'must be products, customers or inventory' });
  const dryRun = fields.dryRun ?? 'false';
  if (dryRun !== 'true' && dryRun !== 'false')
    errors.push({ pointer: '/dryRun', detail: 'must be true or false' });
  if (file === null) errors.push({ pointer: '/file', detail: 'is required: the CSV file as one file part' });
  else if (file.bytes.length === 0) errors.push({ pointer: '/file', detail: 'is empty' });
  if (errors.length > 0 || file === null) throw validationFailed('The import form is invalid.', errors);
  return { kind: kind as ImportKind, dryRun: dryRun === 'true', fileName: file.name, file: file.bytes };
}

/** Imports (decision `csv-imports`): upload a CSV file as a job, then follow it. */
export const importsAdminRoutes: FastifyPluginAsyncTypebox<{ deps: ImportRoutesDeps }> = async (
  app,
  { deps },
) => {
  await app.register(multipart, {
    limits: { fileSize: deps.maxBytes, files: 1, fields: 10, fieldSize: 1024, parts: 11, headerPairs: 50 },
  });

  app.post(
    '/imports',
    {
      schema: {
        operationId: 'adminCreateImport',
        'x-problems': ['validation_failed', 'file_too_large', 'unsupported_media_type'],
        'x-multipart-body': ImportUploadSchema,
        tags,
        summary: 'Import a CSV file',
        description:
          'A `multipart/form-data` body: `kind` (`products`, `customers` or `inventory`), `dryRun` (`true` to check only) and one file part, a CSV file in UTF-8 of at most IMPORT_MAX_MB. Answers 202 with the queued job at once; a worker checks every row, then (unless a dry run, or a row is bad: then nothing is written) writes them in batches. Follow it with `GET /admin/v1/imports/{id}`. Formats: docs/import-export.md. Records `import.completed` when it completes.',
        response: { 202: ImportSchema, ...problemResponses },
      },
      onRequest: multipartGate(deps.maxBytes, () => tooLarge(deps.maxBytes), 'the file'),
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      const form = await readForm(request, deps.maxBytes);
      return reply.code(202).send(await createImport(deps, storeId, form));
    },
  );

  app.get(
    '/imports',
    {
      schema: {
        operationId: 'adminListImports',
        'x-problems': ['validation_failed'],
        tags,
        summary: 'Imports, newest first',
        querystring: ImportListQuery,
        response: { 200: Page(ImportListItemSchema), ...problemResponses },
      },
    },
    async (request) => listImports(deps, requireStaff(request).storeId, request.query),
  );

  app.get(
    '/imports/:id',
    {
      schema: {
        operationId: 'adminGetImport',
        'x-problems': ['not_found'],
        tags,
        summary: 'An import: where it stands, its bad rows, what it did',
        params: IdParams,
        response: { 200: ImportSchema, ...problemResponses },
      },
    },
    async (request) => getImport(deps, requireStaff(request).storeId, request.params.id),
  );

  app.get(
    '/exports',
    {
      schema: {
        operationId: 'adminExport',
        'x-problems': ['validation_failed'],
        tags,
        summary: 'Export products, orders or customers as CSV',
        description:
          'Streams a CSV file (UTF-8, a header row), an attachment `<kind>-<date>.csv`, read a page at a time so that a store of any size exports in bounded memory. `products`: Shopify’s product CSV (a row per variant, images by position; `Variant Label`, `Tax Class`, `Option1 Values`… and `Price / EUR` columns carry what Shopify’s columns do not), which a products import reads back to the same catalog. `orders`: one row per line, newest order first, with the order’s figures (amounts as decimals of its currency) on each. `customers`: Shopify’s customer CSV with each customer’s default address. See docs/import-export.md.',
        querystring: Type.Object(
          {
            kind: Type.Union([Type.Literal('products'), Type.Literal('orders'), Type.Literal('customers')]),
          },
          { additionalProperties: false },
        ),
        response: {
          200: {
            description: 'The CSV file.',
            content: { 'text/csv': { schema: Type.String() } },
          },
          ...problemResponses,
        },
      },
    },
    async (request, typed) => {
      const { storeId } = requireStaff(request);
      const kind: ExportKind = request.query.kind;
      const rows = exportRows(deps, storeId, kind);
      // The header row reads the store: a failure there is still an answer of its own.
      const first = await rows.next();
      const all = async function* () {
        if (!first.done) yield first.value;
        yield* rows;
      };
      const date = deps.clock.now().toISOString().slice(0, 10);
      const reply = typed as FastifyReply;
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${kind}-${date}.csv"`)
        .send(Readable.from(all()).pipe(stringify()));
    },
  );
};
