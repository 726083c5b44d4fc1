import type { Order, OrderStatus, Problem, ProblemFieldError } from './types.ts';

/** What every error of this client carries about the request that failed. */
interface RequestInfo {
  method: string;
  url: string;
  /** The `Idempotency-Key` the request was sent with (checkout), so a later retry can reuse it. */
  idempotencyKey?: string | undefined;
  /** How many HTTP attempts were made (more than 1 after retries). */
  attempts?: number | undefined;
}

/**
 * The service answered with a non-2xx status. Its `application/problem+json` body (RFC 9457) is in
 * `problem`; `title` is the stable machine-readable code to branch on (`validation_failed`,
 * `not_found`, `insufficient_stock`, …), `detail` is English text for people.
 */
export class StorefrontError extends Error {
  override readonly name = 'StorefrontError';
  /** Always false: this is an answer from the service (see StorefrontNetworkError). */
  readonly isNetworkError = false;
  readonly status: number;
  readonly title: string;
  readonly type: string;
  readonly detail: string;
  /**
   * Which inputs are at fault: `pointer` into the part named by `in` (`body`, `query`, `path`,
   * `header`). Some problems add members to each entry: `insufficient_stock` lists the short lines
   * (`StockShortfall`: `variantId`, `requested`, `available`).
   */
  readonly errors: ProblemFieldError[];
  /** The response's `X-Request-Id`: quote it when reporting a problem. */
  readonly requestId: string | null;
  /** `Retry-After` in seconds, when the response carried one (429, 503, 409 idempotency_in_progress). */
  readonly retryAfter: number | null;
  /** The problem body as received, members this client does not know included. */
  readonly problem: Problem;
  readonly method: string;
  readonly url: string;
  readonly idempotencyKey: string | undefined;
  readonly attempts: number;

  constructor(
    problem: Problem,
    response: { status: number; requestId: string | null; retryAfter: number | null },
    request: RequestInfo,
  ) {
    super(`${response.status} ${problem.title}: ${problem.detail}`);
    this.status = response.status;
    this.title = problem.title;
    this.type = problem.type;
    this.detail = problem.detail;
    this.errors = Array.isArray(problem.errors) ? problem.errors : [];
    this.requestId = response.requestId;
    this.retryAfter = response.retryAfter;
    this.problem = problem;
    this.method = request.method;
    this.url = request.url;
    this.idempotencyKey = request.idempotencyKey;
    this.attempts = request.attempts ?? 1;
  }
}

/**
 * No HTTP answer arrived: the connection failed, was reset, or timed out (`timedOut`). The request
 * may or may not have reached the service. `cause` is the error `fetch` threw.
 */
export class StorefrontNetworkError extends Error {
  override readonly name = 'StorefrontNetworkError';
  readonly isNetworkError = true;
  readonly timedOut: boolean;
  readonly method: string;
  readonly url: string;
  readonly idempotencyKey: string | undefined;
  readonly attempts: number;

  constructor(cause: unknown, request: RequestInfo & { timedOut?: boolean }) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      request.timedOut
        ? `${request.method} ${request.url} timed out`
        : `${request.method} ${request.url} failed: ${reason}`,
      { cause },
    );
    this.timedOut = request.timedOut ?? false;
    this.method = request.method;
    this.url = request.url;
    this.idempotencyKey = request.idempotencyKey;
    this.attempts = request.attempts ?? 1;
  }
}

/** `orders.waitForPaid`: the order reached a status from which it will not become paid (e.g. `expired`). */
export class OrderNotPaidError extends Error {
  override readonly name = 'OrderNotPaidError';
  readonly order: Order;
  readonly status: OrderStatus;

  constructor(order: Order) {
    super(`Order ${order.number} is ${order.status}; it will not be paid.`);
    this.order = order;
    this.status = order.status;
  }
}

/** `orders.waitForPaid`: the order was still not paid when the time ran out. */
export class WaitTimeoutError extends Error {
  override readonly name = 'WaitTimeoutError';
  readonly orderId: string;
  /** The order as last seen (null when no poll succeeded). */
  readonly lastOrder: Order | null;
  /** The last error a poll met, if the last poll failed. */
  readonly lastError: unknown;

  constructor(orderId: string, timeoutMs: number, lastOrder: Order | null, lastError: unknown) {
    super(
      `Order ${orderId} was not paid within ${timeoutMs} ms (last status: ${lastOrder?.status ?? 'unknown'}).`,
    );
    this.orderId = orderId;
    this.lastOrder = lastOrder;
    this.lastError = lastError;
  }
}

/** Why `verifyWebhook` refused a request. Nothing of the body was parsed. */
export type WebhookVerificationReason =
  | 'missing_secret'
  | 'missing_signature'
  | 'malformed_signature'
  | 'signature_mismatch'
  | 'missing_timestamp'
  | 'malformed_timestamp'
  | 'timestamp_out_of_tolerance'
  | 'timestamp_signature_mismatch'
  | 'malformed_body';

/** `verifyWebhook` refused the request: answer 401 (or 400) and do not act on it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.reason = reason;
  }
}
