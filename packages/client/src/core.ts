/**
 * The transport both clients share: builds the URL of an operation from the generated table, sends
 * it with `fetch`, turns non-2xx answers into StorefrontError and failed fetches into
 * StorefrontNetworkError, and retries what a policy allows with backoff and `Retry-After`.
 * Web platform only (fetch, AbortSignal, setTimeout): no Node built-ins.
 */
import { StorefrontError, StorefrontNetworkError } from './errors.ts';
import type { OperationId } from './operations.ts';
import type { NotModified, Problem, RequestInput, SuccessBody } from './types.ts';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** How failed attempts are retried. */
export interface RetryOptions {
  /** Attempts in all, the first one included (1 = no retries). */
  maxAttempts?: number;
  /** First backoff delay; it doubles per retry (with jitter) when the answer has no `Retry-After`. */
  baseDelayMs?: number;
  /** Upper bound of a backoff delay. */
  maxDelayMs?: number;
  /** A `Retry-After` longer than this is not waited for: the error is thrown instead. */
  maxRetryAfterMs?: number;
}

export interface TransportOptions {
  /** Where the service runs, e.g. `https://api.example.com` (no trailing path). */
  baseUrl: string;
  /** A fetch implementation (default: the global `fetch`). Wrap it to log, trace or test. */
  fetch?: FetchLike;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Aborts any single attempt that takes longer (it then counts as a network error and may be retried). */
  timeoutMs?: number;
  /** Retries of safe reads (GET): network errors, 429, 502, 503, 504. Default 3 attempts. */
  retry?: RetryOptions;
}

/** Which failures a call may retry. */
export type RetryPredicate = (error: StorefrontError | StorefrontNetworkError) => boolean;

export interface CallPolicy {
  retryable: RetryPredicate;
  retry: Required<RetryOptions>;
  idempotencyKey?: string;
}

export const DEFAULT_RETRY: Required<RetryOptions> = {
  maxAttempts: 3,
  baseDelayMs: 300,
  maxDelayMs: 5000,
  maxRetryAfterMs: 60_000,
};

const TRANSIENT_STATUSES = new Set([429, 502, 503, 504]);

/** Network errors and transient statuses: safe to retry for reads and for idempotent writes. */
export const retryTransient: RetryPredicate = (error) =>
  error.isNetworkError || TRANSIENT_STATUSES.has(error.status);

export const noRetry: RetryPredicate = () => false;

/** `Retry-After` as seconds from now (delay-seconds or an HTTP date); null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function backoff(retry: Required<RetryOptions>, retryIndex: number): number {
  const ceiling = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** retryIndex);
  return Math.round(ceiling * (0.5 + Math.random() / 2));
}

/** A query or path parameter value as the generated types allow it. */
type ParamValue = string | number | boolean | null | undefined;

function toQuery(query: Record<string, ParamValue | ParamValue[]> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined && item !== null) params.append(name, String(item));
    }
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

function buildPath(template: string, path: Record<string, ParamValue> | undefined): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = path?.[name];
    if (value === undefined || value === null || value === '') {
      throw new TypeError(`Missing path parameter "${name}" for ${template}`);
    }
    return encodeURIComponent(String(value));
  });
}

/** The problem body of a failed response, or one made up when the body is not problem+json. */
async function problemOf(response: Response): Promise<Problem> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as unknown;
    if (body !== null && typeof body === 'object' && typeof (body as Problem).title === 'string') {
      const problem = body as Problem;
      return {
        ...problem,
        type: typeof problem.type === 'string' ? problem.type : 'about:blank',
        status: typeof problem.status === 'number' ? problem.status : response.status,
        detail: typeof problem.detail === 'string' ? problem.detail : '',
      };
    }
  } catch {
    // not JSON: described below
  }
  return {
    type: 'about:blank',
    title: 'unexpected_response',
    status: response.status,
    detail: `HTTP ${response.status} ${response.statusText}${text ? `: ${text.slice(0, 200)}` : ''}`,
  };
}

/** One signal that aborts when any of the given ones does. */
function anySignal(signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  if (present.length <= 1) return present[0];
  return AbortSignal.any(present);
}

/** Whether a read's result is NotModified (its `If-None-Match` is still current) rather than a body. */
export function isNotModified(value: unknown): value is NotModified {
  return typeof value === 'object' && value !== null && (value as NotModified).notModified === true;
}

export interface Transport {
  /**
   * Calls an operation once per allowed attempt; resolves with its 2xx body, or, when `input.header`
   * carries `If-None-Match` and the answer is 304, with a NotModified (the callers' types say so).
   */
  call<K extends OperationId>(
    id: K,
    input: RequestInput<K> | undefined,
    policy?: Partial<CallPolicy>,
  ): Promise<SuccessBody<K>>;
  readonly retry: Required<RetryOptions>;
}

/** operationId → "METHOD path template", for the operations a client may call. */
export type OperationTable = Readonly<Partial<Record<OperationId, string>>>;

export function createTransport(
  options: TransportOptions,
  table: OperationTable,
  auth: (path: string) => Record<string, string>,
  /** What every path of the table starts with (the table keeps the rest). */
  prefix = '',
): Transport {
  if (typeof options.baseUrl !== 'string' || !/^https?:\/\//.test(options.baseUrl)) {
    throw new TypeError('baseUrl must be an http(s) URL, e.g. https://api.example.com');
  }
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const retryDefaults = { ...DEFAULT_RETRY, ...options.retry };

  async function call<K extends OperationId>(
    id: K,
    input: RequestInput<K> | undefined,
    policy: Partial<CallPolicy> = {},
  ): Promise<SuccessBody<K>> {
    const operation = table[id];
    if (!operation) throw new TypeError(`Unknown operation: ${id}`);
    const space = operation.indexOf(' ');
    const method = operation.slice(0, space);
    const template = prefix + operation.slice(space + 1);
    const given = (input ?? {}) as {
      path?: Record<string, ParamValue>;
      query?: Record<string, ParamValue | ParamValue[]>;
      header?: Record<string, string>;
      body?: unknown;
      headers?: Record<string, string>;
      signal?: AbortSignal;
      onResponse?: (response: Response) => void;
    };
    const url = baseUrl + buildPath(template, given.path) + toQuery(given.query);
    const headers: Record<string, string> = {
      accept: 'application/json, application/problem+json',
      ...options.headers,
      ...auth(template),
      ...given.header,
      ...given.headers,
    };
    if (policy.idempotencyKey !== undefined) headers['Idempotency-Key'] = policy.idempotencyKey;
    // A conditional read declared through the typed header parameter: its 304 is a result.
    const ifNoneMatch = given.header?.['If-None-Match'];
    let payload: string | undefined;
    if (given.body !== undefined) {
      payload = JSON.stringify(given.body);
      headers['content-type'] = 'application/json';
    }
    const retry = policy.retry ?? retryDefaults;
    const retryable = policy.retryable ?? (method === 'GET' ? retryTransient : noRetry);
    const { signal } = given;
    const info = (attempts: number) => ({ method, url, attempts, idempotencyKey: policy.idempotencyKey });

    /** One HTTP attempt: the 2xx body, or the error it ended with. */
    const attemptOnce = async (
      attempt: number,
    ): Promise<{ body: SuccessBody<K> } | { error: StorefrontError | StorefrontNetworkError }> => {
      const timeout = options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs);
      const failed = (cause: unknown) => {
        if (signal?.aborted) throw signal.reason as Error;
        const timedOut = timeout?.aborted ?? false;
        return { error: new StorefrontNetworkError(cause, { ...info(attempt), timedOut }) };
      };
      let response: Response;
      try {
        response = await doFetch(url, {
          method,
          headers,
          body: payload,
          signal: anySignal([signal, timeout]),
        });
      } catch (cause) {
        return failed(cause);
      }
      given.onResponse?.(response);
      const meta = {
        status: response.status,
        requestId: response.headers.get('x-request-id'),
        retryAfter: parseRetryAfter(response.headers.get('retry-after')),
      };
      if (response.status === 304) {
        if (ifNoneMatch !== undefined) {
          const notModified: NotModified = {
            notModified: true,
            etag: response.headers.get('etag') ?? ifNoneMatch,
          };
          return { body: notModified as unknown as SuccessBody<K> };
        }
        const detail = 'HTTP 304: pass the ETag as ifNoneMatch, not in headers, to get a NotModified result.';
        const problem = { type: 'about:blank', title: 'not_modified', status: 304, detail };
        return { error: new StorefrontError(problem, meta, info(attempt)) };
      }
      if (!response.ok) return { error: new StorefrontError(await problemOf(response), meta, info(attempt)) };
      let text: string;
      try {
        text = await response.text();
      } catch (cause) {
        // The answer broke off (reset, timeout): the request may have been processed.
        return failed(cause);
      }
      if (text === '') return { body: undefined as SuccessBody<K> };
      try {
        return { body: JSON.parse(text) as SuccessBody<K> };
      } catch {
        const detail = 'The response body is not JSON.';
        const problem = { type: 'about:blank', title: 'invalid_response', status: response.status, detail };
        throw new StorefrontError(problem, meta, info(attempt));
      }
    };

    for (let attempt = 1; ; attempt++) {
      const outcome = await attemptOnce(attempt);
      if ('body' in outcome) return outcome.body;
      const { error } = outcome;
      if (attempt >= retry.maxAttempts || !retryable(error)) throw error;
      const retryAfter = error.isNetworkError ? null : error.retryAfter;
      if (retryAfter !== null && retryAfter * 1000 > retry.maxRetryAfterMs) throw error;
      await sleep(retryAfter === null ? backoff(retry, attempt - 1) : retryAfter * 1000, signal);
    }
  }

  return { call, retry: retryDefaults };
}

/** Every item of a cursor-paginated list, fetching the next page only when the previous one is consumed. */
export async function* paginate<T>(
  fetchPage: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>,
): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* page.items;
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
}

/** A random UUID v4 (crypto.randomUUID, or getRandomValues where randomUUID is missing: insecure origins). */
export function randomUUID(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
