import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from './errors.ts';
import { AppError, validationFailed, type FieldError } from '../lib/errors.ts';

/**
 * Input hygiene (decision `input-hygiene`), in one place for every route: no client string may carry U+0000 or a
 * lone UTF-16 surrogate (PostgreSQL cannot store the first, and the second is not text), wherever
 * it sits: path, query, headers, or a JSON body at any depth (object keys included); and no JSON
 * body may nest objects and arrays deeper than MAX_JSON_DEPTH levels (code that walks a value
 * recursively, JSON.stringify included, overflows the stack long before a 1 MB body runs out).
 * Such input is 400 `validation_failed` with a pointer to the offending value, before any schema or
 * handler sees it.
 */

/** How deep objects and arrays may nest in a request (the body itself is level 1). */
export const MAX_JSON_DEPTH = 64;

/** True when `text` holds NUL or an unpaired surrogate. */
export function isUnsafeText(text: string): boolean {
  return !text.isWellFormed() || text.includes('\u0000');
}

const escapePointer = (segment: string): string => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/** At most this many unsafe strings are listed in one problem. */
const MAX_REPORTED = 20;

/** What is wrong with a value: the first container nested too deep, or its unsafe strings. */
interface Findings {
  /** The pointer of the first object or array past MAX_JSON_DEPTH, in document order. */
  tooDeep: string | null;
  /** Pointers of unsafe strings (a bad key is reported as its object's pointer), at most MAX_REPORTED. */
  unsafe: string[];
}

/**
 * Walks `value` in document order with a stack of its own (never recursion, so no depth of input
 * can overflow the call stack), and never below MAX_JSON_DEPTH. Without `pointers` it stops at the
 * first problem and builds no strings: the fast path for clean input, which is nearly all of it.
 * Bytes (a provider webhook's raw body) are not text and are not walked.
 */
function inspect(value: unknown, pointers: boolean): Findings {
  const found: Findings = { tooDeep: null, unsafe: [] };
  // `badKey`: an object key that is not text, reported (at its object's pointer, since its own
  // cannot be spelled) where it stands among its siblings.
  const stack: { value: unknown; depth: number; pointer: string; badKey?: true }[] = [
    { value, depth: 0, pointer: '' },
  ];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const item = frame.value;
    if (frame.badKey || (typeof item === 'string' && isUnsafeText(item))) {
      if (found.unsafe.length < MAX_REPORTED) found.unsafe.push(frame.pointer || '/');
      if (!pointers) return found;
      continue;
    }
    if (item === null || typeof item !== 'object' || ArrayBuffer.isView(item)) continue;
    const depth = frame.depth + 1;
    if (depth > MAX_JSON_DEPTH) {
      found.tooDeep = frame.pointer || '/';
      return found;
    }
    // Pushed last to first, so that they are looked at in document order.
    const at = (segment: string) => (pointers ? `${frame.pointer}/${segment}` : '');
    if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--)
        stack.push({ value: item[i], depth, pointer: at(String(i)) });
    } else {
      const entries = Object.entries(item as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        if (isUnsafeText(key)) stack.push({ value: null, depth, pointer: frame.pointer, badKey: true });
        else stack.push({ value: child, depth, pointer: at(escapePointer(key)) });
      }
    }
  }
  return found;
}

const isClean = (findings: Findings) => findings.tooDeep === null && findings.unsafe.length === 0;

/** JSON Pointers of the unsafe strings (or object keys) inside `value`, in document order. */
export function findUnsafeText(value: unknown): string[] {
  return isClean(inspect(value, false)) ? [] : inspect(value, true).unsafe;
}

const UNSAFE = 'must not contain a NUL character or an unpaired UTF-16 surrogate';
const TOO_DEEP = `nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`;

function unsafeInput(pointers: string[], where: FieldError['in']): AppError {
  const first = pointers[0] ?? '/';
  const what = where === 'body' ? 'The request body' : `The ${where} parameter ${first.slice(1)}`;
  const more = pointers.length > 1 ? ` (and ${pointers.length - 1} more)` : '';
  return validationFailed(
    `${what} is not valid text: it ${UNSAFE}${more}.`,
    pointers.map((pointer) => ({ pointer, detail: UNSAFE, in: where })),
  );
}

function tooDeepInput(pointer: string, where: FieldError['in']): AppError {
  return validationFailed(`The request ${where} ${TOO_DEEP}.`, [
    { pointer, detail: `is nested deeper than ${MAX_JSON_DEPTH} levels`, in: where },
  ]);
}

/**
 * Whether the request's headers hold unsafe text: what `assertSafeInput` would refuse in a request
 * whose path and query are known to be clean (a read cache hit answers before that check runs).
 */
export function headersHoldUnsafeText(request: FastifyRequest): boolean {
  return !isClean(inspect(request.headers, false));
}

/**
 * Throws 400 for the first part (path, query, headers, body) that has a problem: nested too deep
 * (the first such place), else every unsafe string in it.
 */
export function assertSafeInput(request: FastifyRequest): void {
  const parts: [unknown, FieldError['in']][] = [
    [request.params, 'path'],
    [request.query, 'query'],
    [request.headers, 'header'],
    [request.body, 'body'],
  ];
  for (const [value, where] of parts) {
    // Clean input (nearly all of it) is walked once, building no pointers.
    if (isClean(inspect(value, false))) continue;
    const findings = inspect(value, true);
    if (findings.tooDeep !== null) throw tooDeepInput(findings.tooDeep, where);
    if (findings.unsafe.length > 0) throw unsafeInput(findings.unsafe, where);
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
