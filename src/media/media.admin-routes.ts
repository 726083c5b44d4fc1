import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { multipartGate } from '../http/multipart.ts';
import { requireStaff } from '../http/principals.ts';
import { IdParams, problemResponses } from '../http/schemas.ts';
import { AppError, validationFailed } from '../lib/errors.ts';
import { MediaSchema, MediaUploadSchema } from './media.schemas.ts';
import { getMedia, uploadMedia, type MediaDeps } from './media.service.ts';

const tags = ['Admin: media'];

const tooLarge = (maxBytes: number): AppError =>
  new AppError(
    'image_too_large',
    413,
    `The file is larger than ${maxBytes / 1024 / 1024} MiB, the most an upload may be (MEDIA_MAX_MB).`,
  );
const oneFile = (detail: string): AppError =>
  validationFailed(detail, [{ pointer: '/file', detail: 'must be exactly one file part' }]);

/** The one file part of a multipart upload, read into memory within `maxBytes`. */
async function readOneFile(request: FastifyRequest, maxBytes: number): Promise<Buffer> {
  let file: Buffer | null = null;
  try {
    for await (const part of request.parts()) {
      if (part.type !== 'file') continue; // other fields are ignored
      if (file !== null) throw oneFile('Send exactly one file part; this form has more.');
      file = await part.toBuffer();
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    switch ((error as { code?: string }).code) {
      case 'FST_REQ_FILE_TOO_LARGE':
        throw tooLarge(maxBytes);
      case 'FST_FILES_LIMIT':
        throw oneFile('Send exactly one file part; this form has more.');
      case 'FST_PARTS_LIMIT':
      case 'FST_FIELDS_LIMIT':
        throw validationFailed('The form has more parts than an upload takes: send one file part.');
      case undefined:
      default:
        // busboy's refusals (no boundary, a malformed part, a body cut short) and a closed request.
        throw validationFailed('The body is not a well-formed multipart/form-data form.', [
          { pointer: '/', detail: 'is not a well-formed multipart form' },
        ]);
    }
  }
  if (file === null) throw oneFile('The form has no file part: send the image as one file field.');
  return file;
}

/** Uploads (decision `media-uploads`). Every staff role may upload, as every staff role may edit the catalog. */
export const mediaAdminRoutes: FastifyPluginAsyncTypebox<{ deps: MediaDeps }> = async (app, { deps }) => {
  // Multipart bodies in this scope only: the rest of the API stays JSON only.
  await app.register(multipart, {
    limits: {
      fileSize: deps.maxBytes,
      files: 1,
      fields: 20,
      fieldSize: 8 * 1024,
      parts: 21,
      headerPairs: 50,
    },
  });

  app.post(
    '/media',
    {
      schema: {
        operationId: 'adminUploadMedia',
        'x-problems': ['unsupported_image', 'image_too_large', 'media_busy'],
        'x-multipart-body': MediaUploadSchema,
        tags,
        summary: 'Upload an image',
        description:
          'A `multipart/form-data` body with exactly one file part: a JPEG, PNG, WebP, AVIF or GIF of at most MEDIA_MAX_MB (10 MiB) and MEDIA_MAX_PIXELS (40 megapixels by default, read from its header before anything is decoded; fewer for WebP, GIF, AVIF and 16-bit PNG), checked by decoding it (its name and declared type are not believed). What is kept and served is its pixels alone, encoded again in its own format: no EXIF (GPS), XMP, IPTC, ICC profile, comment, text chunk or trailing bytes. The same file uploaded again answers the same media. Use the id in a product’s `images`.',
        response: { 201: MediaSchema, ...problemResponses },
      },
      onRequest: multipartGate(deps.maxBytes, () => tooLarge(deps.maxBytes), 'the image'),
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      const file = await readOneFile(request, deps.maxBytes);
      return reply.code(201).send((await uploadMedia(deps, storeId, file)).media);
    },
  );

  app.get(
    '/media/:id',
    {
      schema: {
        operationId: 'adminGetMedia',
        tags,
        summary: 'One uploaded image',
        params: IdParams,
        response: { 200: MediaSchema, ...problemResponses },
      },
    },
    async (request) => getMedia(deps, requireStaff(request).storeId, request.params.id),
  );
};
