import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { AppError } from '../lib/errors.ts';

/** What a form may add to its file (boundaries, part headers) before its length alone is too much. */
export const FORM_OVERHEAD = 64 * 1024;

/**
 * The gate of an upload route (media, imports), before its body is read: a body that is not
 * multipart/form-data is 415 (`what` says what to send), and one whose declared length is beyond
 * `maxBytes` and a form's overhead is `tooLarge()` at once.
 */
export function multipartGate(
  maxBytes: number,
  tooLarge: () => AppError,
  what: string,
): onRequestHookHandler {
  return (request: FastifyRequest, _reply, done) => {
    if (!/^multipart\/form-data\s*;/i.test(request.headers['content-type'] ?? '')) {
      done(
        new AppError(
          'unsupported_media_type',
          415,
          `Send ${what} as multipart/form-data with one file part.`,
        ),
      );
      return;
    }
    const length = Number(request.headers['content-length']);
    done(length > maxBytes + FORM_OVERHEAD ? tooLarge() : undefined);
  };
}
