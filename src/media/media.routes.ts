import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import { ifNoneMatches } from '../http/caching.ts';
import { MediaFileParams, MediaFileQuery } from './media.schemas.ts';
import { openMediaFile, type MediaDeps } from './media.service.ts';

/** A year: the longest lifetime caches honour. A URL names its bytes (their hash), so they never change. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The headers of every answer under /media, errors included (decision `media-response-headers`):
 * opened on its own, an image (or whatever a file might pass for) is a document that may load and
 * run nothing, in an opaque origin, shown inline and never sniffed as another type.
 */
export const MEDIA_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; sandbox",
  'content-disposition': 'inline',
  'x-content-type-options': 'nosniff',
};

/** Serves uploaded images to anyone (an `<img>` sends no key): `GET /media/{storeId}/{sha256}.{ext}?w=`. */
export const mediaRoutes: FastifyPluginAsyncTypebox<{
  deps: Pick<MediaDeps, 'storage' | 'limiter'>;
}> = async (app, { deps }) => {
  app.get(
    '/media/:storeId/:file',
    {
      schema: {
        operationId: 'getMediaFile',
        'x-problems': ['validation_failed', 'not_found', 'media_busy'],
        tags: ['Media'],
        summary: 'An uploaded image, or a resized copy',
        description:
          "Public (no key). Every answer, errors included, carries `Content-Security-Policy: default-src 'none'; sandbox`, `Content-Disposition: inline` and `X-Content-Type-Options: nosniff`. The URL names the bytes, so the answer never changes: `Cache-Control: public, max-age=31536000, immutable` and an `ETag` (304 to `If-None-Match`). With `w` (160, 320, 640, 960, 1280 or 1920; never enlarged) a copy that wide, as AVIF when `Accept` names image/avif, else WebP when it names image/webp, else in the upload’s format (`Vary: Accept`); GIF and WebP uploads may be animated and are never sent as AVIF. A copy is made once and kept; while the server resizes as many images as it takes at once, a new copy is 503 `media_busy` with Retry-After.",
        params: MediaFileParams,
        querystring: MediaFileQuery,
        response: {
          200: {
            description: 'The image.',
            content: { 'image/*': { schema: Type.String({ format: 'binary' }) } },
          },
          304: Type.Null({ description: 'Not Modified: the image named by If-None-Match; no body.' }),
        },
      },
      // An error (400, 404, 503) must not be kept by a cache; a file's answer replaces this.
      onRequest: (_request, reply, done) => {
        void reply.headers({ ...MEDIA_HEADERS, 'cache-control': 'no-store' });
        done();
      },
    },
    async (request, typed) => {
      // The body is bytes, not the JSON the schema's type provider expects.
      const reply = typed as FastifyReply;
      const file = await openMediaFile(
        deps,
        {
          storeId: request.params.storeId,
          file: request.params.file,
          width: request.query.w,
          accept: request.headers.accept,
        },
        (etag) => ifNoneMatches(request.headers['if-none-match'] ?? '', etag),
      );
      void reply.headers({
        'cache-control': IMMUTABLE,
        etag: file.etag,
        'cross-origin-resource-policy': 'cross-origin',
        'access-control-allow-origin': '*',
        ...(file.negotiated ? { vary: 'Accept' } : {}),
      });
      if (file.body === null) return reply.code(304).send();
      void reply.type(file.contentType);
      if (Buffer.isBuffer(file.body)) return reply.send(file.body);
      void reply.header('content-length', file.body.bytes);
      return reply.send(file.body.stream);
    },
  );
};
