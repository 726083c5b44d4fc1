import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { isDatabaseUnavailable, reportIfOutage } from '../db/errors.ts';
import { AppError, notFound, validationFailed, type FieldError } from '../lib/errors.ts';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

export function problemOf(error: AppError): Problem {
  return {
    type: 'about:blank',
    title: error.title,
    status: error.status,
    detail: error.detail,
    ...(error.errors ? { errors: error.errors } : {}),
  };
}

export function sendProblem(reply: FastifyReply, error: AppError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) void reply.header(name, value);
  return reply.code(error.status).type('application/problem+json').send(problemOf(error));
}

const PART: Record<string, FieldError['in']> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

function fieldErrorsOf(issues: AjvIssue[], context: string | undefined): FieldError[] {
  const where = PART[context ?? 'body'] ?? 'body';
  return issues.slice(0, 20).map((issue) => {
    let pointer = issue.instancePath;
    let detail = issue.message ?? 'is invalid';
    if (issue.keyword === 'required') {
      pointer = `${pointer}/${String(issue.params.missingProperty)}`;
      detail = 'is required';
    } else if (issue.keyword === 'additionalProperties') {
      pointer = `${pointer}/${String(issue.params.additionalProperty)}`;
      detail = 'is not a known field';
    } else if (issue.keyword === 'format') {
      detail = `must be a valid ${String(issue.params.format)}`;
    }
    return { pointer: pointer === '' ? '/' : pointer, detail, in: where };
  });
}

function describe(errors: FieldError[]): string {
  const first = errors[0];
  if (!first) return 'The request is invalid.';
  const name =
    first.pointer === '/' ? `the ${first.in ?? 'body'}` : `${first.pointer.slice(1).replaceAll('/', '.')}`;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return `${first.in === 'body' || first.pointer === '/' ? '' : `${first.in} parameter `}${name} ${first.detail}${more}.`;
}

const TITLES: Record<number, string> = {
  400: 'validation_failed',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  409: 'conflict',
  412: 'precondition_failed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable_content',
  429: 'rate_limited',
  431: 'request_header_fields_too_large',
  503: 'service_unavailable',
};

/** Seconds a client is asked to wait (`Retry-After`) while the database is unavailable. */
export const DATABASE_RETRY_AFTER_S = 5;

/** 503 while the database cannot be reached or dropped the connection: the request may be retried as it was. */
export const databaseUnavailable = (): AppError =>
  new AppError(
    'service_unavailable',
    503,
    'The service cannot reach its database at the moment; retry the request shortly.',
    { headers: { 'retry-after': String(DATABASE_RETRY_AFTER_S) } },
  );

/** Maps anything thrown in a request to an AppError. Unknown errors become a bare 500. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isDatabaseUnavailable(error)) return databaseUnavailable();
  const fastifyError = error as Partial<FastifyError> & { validation?: AjvIssue[] };
  if (fastifyError.validation) {
    const errors = fieldErrorsOf(fastifyError.validation, fastifyError.validationContext);
    return validationFailed(describe(errors), errors);
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 413, 'The request body is larger than the limit of 1 MiB.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 415, 'Send the request body as application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return validationFailed('The request body is empty; send a JSON document.', [
        { pointer: '/', detail: 'is empty', in: 'body' },
      ]);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return validationFailed('The request body is not valid JSON.', [
        { pointer: '/', detail: 'is not valid JSON', in: 'body' },
      ]);
    case undefined:
    default:
      break;
  }
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (error instanceof SyntaxError || status === 400) {
      return validationFailed(
        error instanceof SyntaxError ? 'The request body is not valid JSON.' : 'The request is malformed.',
      );
    }
    return new AppError(
      TITLES[status] ?? 'bad_request',
      status,
      fastifyError.message ?? 'The request was refused.',
    );
  }
  return new AppError('internal_error', 500, 'An unexpected error occurred. It has been logged.');
}

/**
 * Logs a failed request as what it is: a fault of ours with its stack (never sent to the client),
 * a database outage once per interval without a stack, a deliberate 5xx as a warning, and a
 * framework refusal (4xx) as information.
 */
export function logRequestFailure(request: FastifyRequest, error: unknown, appError: AppError): void {
  if (reportIfOutage(request.log, error)) return;
  if (appError.status >= 500 && !(error instanceof AppError)) {
    request.log.error({ err: error }, 'request failed');
  } else if (appError.status >= 500) {
    // A deliberate 5xx (shutting down, provider down): a condition, not a bug.
    request.log.warn({ title: appError.title, status: appError.status }, appError.detail);
  } else if (!(error instanceof AppError)) {
    request.log.info({ code: (error as FastifyError).code, status: appError.status }, appError.detail);
  }
}

const ROUTABLE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * Installs the single error handler and the 404/405 handler. Route paths are indexed in a
 * method-aware router of their own, so an existing path called with the wrong method answers
 * 405 with an `Allow` header instead of 404.
 */
/**
 * Answers a GET or HEAD no route matched, or returns null to let the 404 stand: how a single-page
 * app (the console at /admin) serves its deep links without a wildcard route that would shadow the
 * API's 404s and 405s.
 */
export type NotFoundFallback = (request: FastifyRequest, reply: FastifyReply) => FastifyReply | null;
const fallbacks = new WeakMap<FastifyInstance, NotFoundFallback[]>();

export function addNotFoundFallback(app: FastifyInstance, fallback: NotFoundFallback): void {
  const list = fallbacks.get(app);
  if (!list) throw new Error('installErrorHandling(app) first');
  list.push(fallback);
}

export function installErrorHandling(app: FastifyInstance): void {
  fallbacks.set(app, []);
  const index = FindMyWay({ ignoreTrailingSlash: false });
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (
        (ROUTABLE_METHODS as readonly string[]).includes(method) &&
        !index.hasRoute(method as 'GET', route.url)
      ) {
        index.on(method as 'GET', route.url, () => undefined);
      }
    }
  });

  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error);
    logRequestFailure(request, error, appError);
    return sendProblem(reply, appError);
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '/';
    if (request.method === 'GET' || request.method === 'HEAD') {
      for (const fallback of fallbacks.get(app) ?? []) {
        const answered = fallback(request, reply);
        if (answered) return answered;
      }
    }
    const allowed = ROUTABLE_METHODS.filter((method) => index.find(method, path) !== null);
    if (allowed.length > 0 && request.method !== 'OPTIONS') {
      return sendProblem(
        reply,
        new AppError('method_not_allowed', 405, `${request.method} is not allowed on ${path}.`, {
          headers: { allow: [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : [])].join(', ') },
        }),
      );
    }
    return sendProblem(reply, notFound(`No route ${request.method} ${path}.`));
  });
}
