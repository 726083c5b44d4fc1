import net from 'node:net';
import type { Agent, request } from 'undici';
import { clientSpan, errorTypeOf, type SpanScope } from '../telemetry/spans.ts';
import { signBody, standardSignature, type SigningKey } from './webhooks.secrets.ts';
import { guardedLookup, refusalFor, RefusedAddressError, type AddressPolicy } from './webhooks.url-guard.ts';

/** One HTTP attempt of a webhook delivery. */
export interface WebhookRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

export type SendResult =
  | {
      ok: true;
      status: number;
      /** The answer's body, when the caller asked for it (`answerLimit`); a webhook's is not read. */
      answer?: string;
    }
  | {
      ok: false;
      /** The response status, or null when no response came (timeout, connection error, refusal). */
      status: number | null;
      error: string;
      /** From a `Retry-After` response header, when present and valid. */
      retryAfterMs: number | null;
      /** The attempt was cut short because the worker is stopping (not the receiver's fault). */
      interrupted: boolean;
      /** No answer came within the timeout. */
      timedOut?: boolean;
    };

/** Options of one request. */
export interface SendOptions {
  /**
   * Read the body of a 2xx answer, up to this many bytes (a tax quote's answer, decision
   * `tax-service`); a longer one is a failure with the answer's status. Webhooks leave it out.
   */
  answerLimit?: number;
}

/**
 * The headers of one signed webhook request (spec 6.2, decisions `webhook-delivery` and `webhook-signatures`). `x-webhook-signature` is
 * always exactly one lowercase hex HMAC-SHA-256 of the raw body with the current secret; during the
 * 24 h after a rotation the previous secret's goes in `x-webhook-signature-previous`. The Standard
 * Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`, both secrets during a
 * rotation) let receivers use ready-made verifiers and reject replays by timestamp.
 */
export function webhookHeaders(input: {
  /** The current secret's key first, then the previous one's during a rotation (signingKey). */
  keys: readonly SigningKey[];
  body: string;
  eventType: string;
  eventId: string;
  attempt: number;
  now: Date;
  /** The delivery row's id (`x-webhook-delivery`); absent for a test send. */
  deliveryId?: string;
}): Record<string, string> {
  const [current, previous] = input.keys;
  if (current === undefined) throw new Error('A webhook needs a signing secret.');
  const timestamp = Math.floor(input.now.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'Storefront-Webhooks/1.0',
    'x-webhook-event': input.eventType,
    'x-webhook-signature': signBody(current, input.body),
    ...(previous === undefined ? {} : { 'x-webhook-signature-previous': signBody(previous, input.body) }),
    'x-webhook-attempt': String(input.attempt),
    'x-webhook-id': input.eventId,
    ...(input.deliveryId === undefined ? {} : { 'x-webhook-delivery': input.deliveryId }),
    'x-webhook-timestamp': String(timestamp),
    'webhook-id': input.eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardSignature(input.keys, input.eventId, timestamp, input.body),
  };
}

/** undici's own timeouts (connect, headers, body), which may fire before the attempt's timer. */
const UNDICI_TIMEOUTS = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;
const EXCERPT_CHARS = 200;

/** Parses `Retry-After` (delay-seconds or an HTTP date) into milliseconds from `now`, capped at 24 h. */
export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return null;
  const trimmed = text.trim();
  let ms: number;
  if (/^\d+$/.test(trimmed)) ms = Number(trimmed) * 1000;
  else {
    const at = Date.parse(trimmed);
    if (Number.isNaN(at)) return null;
    ms = at - now.getTime();
  }
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

function describeError(error: unknown, timeoutMs: number, timedOut: boolean): string {
  if (timedOut) return `timed out after ${timeoutMs} ms`;
  if (error instanceof RefusedAddressError) return error.message;
  const { code, message, cause } = error as { code?: string; message?: string; cause?: unknown };
  if (cause instanceof RefusedAddressError) return cause.message;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset before a response';
    case 'ENOTFOUND':
      return 'host name not found';
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return `timed out after ${timeoutMs} ms`;
    case undefined:
    default:
      return `${code ? `${code}: ` : ''}${message ?? String(error)}`.slice(0, 300);
  }
}

/**
 * The body of a 2xx answer, read within the attempt's timeout (a stalled body times out like a
 * stalled status line); a body over `limit` bytes is a failure, its status kept.
 */
async function readAnswer(body: AsyncIterable<unknown>, status: number, limit: number): Promise<SendResult> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      const error = `the answer exceeds ${limit} bytes`;
      return { ok: false, status, error, retryAfterMs: null, interrupted: false, timedOut: false };
    }
    chunks.push(chunk as Buffer);
  }
  return { ok: true, status, answer: Buffer.concat(chunks).toString('utf8') };
}

/**
 * Sends webhook requests with undici: POST, the exact body, a per-attempt timeout, no redirects
 * (undici's `request` does not follow them: a 3xx is a failed attempt), and the SSRF guard at
 * connect time (https agent: public addresses, plus loopback when ALLOW_HTTP_WEBHOOKS is on; http
 * agent: loopback only).
 */
/**
 * Where a request of ours may not go, checked before any connection (scheme and literal
 * addresses); names are checked at connect time by `guardedLookup`. Null when it may go.
 */
export function precheckUrl(url: URL, allowHttp: boolean): string | null {
  if (url.protocol === 'http:' && !allowHttp)
    return 'refused: plain http is not allowed (ALLOW_HTTP_WEBHOOKS is off)';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `refused: ${url.protocol} is not https`;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) !== 0) {
    const refusal = refusalFor(host, { allowLoopback: allowHttp, loopbackOnly: url.protocol === 'http:' });
    if (refusal) return `refused to connect: ${refusal}`;
  }
  return null;
}

export class WebhookSender {
  readonly #timeoutMs: number;
  readonly #allowHttp: boolean;
  /**
   * undici and the two agents, loaded and made on the first send (decision
   * `optional-packages-on-demand`).
   */
  #client: Promise<{ request: typeof request; https: Agent; http: Agent }> | null = null;

  constructor(options: { timeoutMs: number; allowHttp: boolean }) {
    this.#timeoutMs = options.timeoutMs;
    this.#allowHttp = options.allowHttp;
  }

  #agents(): Promise<{ request: typeof request; https: Agent; http: Agent }> {
    this.#client ??= import('undici').then(({ Agent, request }) => {
      const agent = (policy: AddressPolicy): Agent =>
        new Agent({
          connect: { lookup: guardedLookup(policy), timeout: Math.min(this.#timeoutMs, 10_000) },
          headersTimeout: this.#timeoutMs,
          bodyTimeout: this.#timeoutMs,
          keepAliveTimeout: 4000,
        });
      return {
        request,
        https: agent({ allowLoopback: this.#allowHttp, loopbackOnly: false }),
        http: agent({ allowLoopback: true, loopbackOnly: true }),
      };
    });
    return this.#client;
  }

  async send(
    input: WebhookRequest,
    stop: AbortSignal | undefined,
    /** The clock `Retry-After` dates are read against. */
    now: () => Date,
    options: SendOptions = {},
  ): Promise<SendResult> {
    let url: URL;
    try {
      url = new URL(input.url);
    } catch {
      return { ok: false, status: null, error: 'invalid URL', retryAfterMs: null, interrupted: false };
    }
    const refusal = precheckUrl(url, this.#allowHttp);
    if (refusal) return { ok: false, status: null, error: refusal, retryAfterMs: null, interrupted: false };

    // Loaded before the attempt's clock starts: loading undici is not the receiver's time.
    const client = await this.#agents();
    // A client span per attempt when tracing is on (decision `webhook-delivery-spans`): the
    // receiver's host only (a webhook URL's path and query may hold its token), and the request
    // carries the span's `traceparent`.
    const { headers } = input;
    return clientSpan(
      `webhook ${headers['x-webhook-event'] ?? 'send'}`,
      {
        'http.request.method': 'POST',
        'server.address': url.hostname.replace(/^\[|\]$/g, ''),
        'server.port': url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port),
        'url.scheme': url.protocol.slice(0, -1),
        'storefront.webhook.event': headers['x-webhook-event'],
        'storefront.webhook.event_id': headers['x-webhook-id'],
        'storefront.webhook.delivery_id': headers['x-webhook-delivery'],
        'storefront.webhook.attempt': Number(headers['x-webhook-attempt'] ?? 1),
      },
      (span) => this.#attempt(client, url, input, stop, now, span, options.answerLimit ?? null),
    );
  }

  async #attempt(
    client: { request: typeof request; https: Agent; http: Agent },
    url: URL,
    input: WebhookRequest,
    stop: AbortSignal | undefined,
    now: () => Date,
    span: SpanScope,
    answerLimit: number | null,
  ): Promise<SendResult> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.#timeoutMs);
    const onStop = (): void => controller.abort();
    stop?.addEventListener('abort', onStop, { once: true });
    try {
      const response = await client.request(url, {
        dispatcher: url.protocol === 'http:' ? client.http : client.https,
        method: 'POST',
        headers: span.withTraceContext(input.headers),
        body: input.body,
        signal: controller.signal,
      });
      const status = response.statusCode;
      span.set({ 'http.response.status_code': status });
      if (status >= 200 && status < 300) {
        if (answerLimit !== null) return await readAnswer(response.body, status, answerLimit);
        // Delivered once the status line says so, whatever happens to the rest of the body.
        await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        return { ok: true, status };
      }
      let excerpt = '';
      try {
        for await (const chunk of response.body) {
          excerpt += (chunk as Buffer).toString('utf8');
          if (excerpt.length >= EXCERPT_CHARS) break;
        }
      } catch {
        // The status is what counts; a body cut short only shortens the excerpt.
      }
      const text = excerpt.replace(/\s+/g, ' ').trim().slice(0, EXCERPT_CHARS);
      span.fail(String(status));
      return {
        ok: false,
        status,
        error: `HTTP ${status}${text ? `: ${text}` : ''}`,
        retryAfterMs: parseRetryAfter(response.headers['retry-after'], now()),
        interrupted: false,
      };
    } catch (error) {
      const interrupted = !timedOut && stop?.aborted === true;
      span.fail(timedOut ? 'timeout' : interrupted ? 'interrupted' : errorTypeOf(error));
      return {
        ok: false,
        status: null,
        error: interrupted
          ? 'interrupted: the worker stopped'
          : describeError(error, this.#timeoutMs, timedOut),
        retryAfterMs: null,
        interrupted,
        timedOut: timedOut || UNDICI_TIMEOUTS.has((error as { code?: string }).code ?? ''),
      };
    } finally {
      clearTimeout(timer);
      stop?.removeEventListener('abort', onStop);
    }
  }

  async close(): Promise<void> {
    if (this.#client === null) return;
    const { https, http } = await this.#client;
    await Promise.all([https.close(), http.close()]);
  }
}
