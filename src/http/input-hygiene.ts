import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from './errors.ts';
import { AppError, validationFailed, type FieldError } from '../lib/errors.ts';

/**
 * Input hygiene (DESIGN D26), in one place for every route: no client string may carry U+0000 or a
 * lone UTF-16 surrogate (PostgreSQL cannot store the first, and the second is not text), wherever
 * it sits: path, query, headers, or a JSON body at any depth (object keys included). Such input is
 * 400 `validation_failed` with a pointer to the offending value, before any schema or handler sees it.
 */

const MAX_DEPTH = 64;

/** True when `text` holds NUL or an unpaired surrogate. */
export function isUnsafeText(text: string): boolean {
  return !text.isWellFormed() || text.includes('\u0000');
}

const escapePointer = (segment: string): string => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/** At most this many unsafe strings are listed in one problem. */
const MAX_REPORTED = 20;

/** Whether `value` holds an unsafe string or key anywhere (the fast path: builds no pointers). */
function hasUnsafeText(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return isUnsafeText(value);
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) return value.some((item) => hasUnsafeText(item, depth + 1));
  for (const key of Object.keys(value)) {
    if (isUnsafeText(key) || hasUnsafeText((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

/** JSON Pointers of the unsafe strings (or object keys) inside `value`, in document order. */
export function findUnsafeText(value: unknown, pointer = '', found: string[] = [], depth = 0): string[] {
  if (depth === 0 && !hasUnsafeText(value)) return found;
  if (found.length >= MAX_REPORTED) return found;
  if (typeof value === 'string') {
    if (isUnsafeText(value)) found.push(pointer || '/');
  } else if (Array.isArray(value)) {
    if (depth <= MAX_DEPTH)
      value.forEach((item, i) => findUnsafeText(item, `${pointer}/${i}`, found, depth + 1));
  } else if (value !== null && typeof value === 'object' && depth <= MAX_DEPTH) {
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      // A bad key is reported where it stands: its own pointer cannot be spelled.
      if (isUnsafeText(key)) found.push(pointer || '/');
      else findUnsafeText(child, `${pointer}/${escapePointer(key)}`, found, depth + 1);
    }
  }
  return found.slice(0, MAX_REPORTED);
}

const UNSAFE = 'must not contain a NUL character or an unpaired UTF-16 surrogate';

function unsafeInput(pointers: string[], where: FieldError['in']): AppError {
  const first = pointers[0] ?? '/';
  const what = where === 'body' ? 'The request body' : `The ${where} parameter ${first.slice(1)}`;
  const more = pointers.length > 1 ? ` (and ${pointers.length - 1} more)` : '';
  return validationFailed(
    `${what} is not valid text: it ${UNSAFE}${more}.`,
    pointers.map((pointer) => ({ pointer, detail: UNSAFE, in: where })),
  );
}

/**
 * Whether the request's headers hold unsafe text: what `assertSafeInput` would refuse in a request
 * whose path and query are known to be clean (a read cache hit answers before that check runs).
 */
export function headersHoldUnsafeText(request: FastifyRequest): boolean {
  return hasUnsafeText(request.headers);
}

/** Throws 400 listing the unsafe strings of the first part (path, query, headers, body) that has any. */
export function assertSafeInput(request: FastifyRequest): void {
  const parts: [unknown, FieldError['in']][] = [
    [request.params, 'path'],
    [request.query, 'query'],
    [request.headers, 'header'],
    [request.body, 'body'],
  ];
  for (const [value, where] of parts) {
    // Clean input (nearly all of it) is walked once, building no pointers.
    if (!hasUnsafeText(value)) continue;
    const pointers = findUnsafeText(value);
    if (pointers.length > 0) throw unsafeInput(pointers, where);
  }
}

const CLIENT_ERRORS: Record<string, { status: number; title: string; detail: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    title: 'request_header_fields_too_large',
    detail: 'The request headers are larger than the server accepts (16 KiB in all).',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    title: 'request_timeout',
    detail: 'The request was not received in time.',
  },
};

/**
 * Answers a request Node's HTTP parser refused (headers too large, malformed request line, …)
 * with problem+json on the raw socket, since no Fastify request exists for it.
 */
export function problemOnClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const known = error.code === undefined ? undefined : CLIENT_ERRORS[error.code];
  const { status, title, detail } = known ?? {
    status: 400,
    title: 'validation_failed',
    detail: 'The request is not a well-formed HTTP/1.1 request.',
  };
  const body = JSON.stringify({ type: 'about:blank', title, status, detail });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${title.replaceAll('_', ' ')}\r\nContent-Type: application/problem+json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** Errors the router raises before any route runs: bad percent-encoding, over-long parameters. */
export function problemOnFrameworkError(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const problem =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new AppError('uri_too_long', 414, 'A path segment is longer than 200 characters.')
      : validationFailed('The request path is not valid percent-encoded UTF-8.', [
          { pointer: '/', detail: 'is not valid percent-encoded UTF-8', in: 'path' },
        ]);
  void sendProblem(reply, problem);
}

/**
 * Installs the hygiene checks on the root instance (before any route is registered, so every route
 * inherits them): the unsafe-text check before validation, and a JSON parser that treats an empty
 * body as no body, so bodyless POST and DELETE routes accept `Content-Type: application/json`
 * (a route that needs a body still answers 400 from its schema).
 */
export function installInputHygiene(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text === '') {
      done(null, undefined);
      return;
    }
    void parseJson(request, text, done);
  });
  app.addHook('preValidation', (request, _reply, done) => {
    try {
      assertSafeInput(request);
      done();
    } catch (error) {
      done(error as Error);
    }
  });
}
