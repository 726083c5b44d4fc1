import { randomUUID } from 'node:crypto';
import type { Address } from '@storefront/address';
import type { Kysely } from 'kysely';
import { storeSetting } from '../db/settings-cache.ts';
import type { Database } from '../db/tables.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError } from '../lib/errors.ts';
import type { Keyring } from '../lib/keyring.ts';
import type { Log } from '../lib/log.ts';
import { signingKey } from '../webhooks/webhooks.secrets.ts';
import { webhookHeaders, type SendResult, type WebhookSender } from '../webhooks/webhooks.sender.ts';
import { findTaxService } from './tax-service.repository.ts';
import { openTaxServiceSecret } from './tax-service.secret.ts';
import type { TaxServiceRow } from './tax-service.tables.ts';

/**
 * A store's tax service (decision `tax-service`): previews and checkouts post their quote to it,
 * signed as webhooks are, and take the tax it answers, checked. A failure or a bad answer is a
 * TaxServiceFailure, never a zero: checkout answers 503 `tax_unavailable` (taxUnavailable), a
 * preview falls back to the built-in rates and says the tax is estimated. Nothing is cached but
 * the store's setting (its URL and sealed secret, from the settings cache): never an answer, and
 * never a failure. docs/tax-service.md is the guide for whoever writes the service.
 */

/** What a tax service is asked: the order as priced, before tax. Amounts in minor units. */
export interface TaxServiceRequest {
  currency: string;
  pricesIncludeTax: boolean;
  lines: {
    variantId: string | null;
    sku: string | null;
    title: string;
    quantity: number;
    /** The line's amount: unit price × quantity (gross when prices include tax). */
    amount: number;
    /** The line's share of the order's discount; the tax is on `amount − discount`. */
    discount: number;
    taxClass: string;
  }[];
  shipping: { amount: number; taxClass: string | null /* null = follows the goods */ };
  shippingAddress: Address | null;
  /** The destination country when there is no address. */
  country: string | null;
}

/** What it answers: one tax per line, in the request's order, and the shipping's tax. */
export interface TaxServiceAnswer {
  lines: { tax: number }[];
  shipping: { tax: number };
}

export type TaxServiceFailureReason = 'timeout' | 'unreachable' | 'status' | 'bad_answer' | 'bad_url';

/** The tax service did not give a usable answer: the caller must not go on with a zero. */
export class TaxServiceFailure extends Error {
  readonly reason: TaxServiceFailureReason;
  constructor(reason: TaxServiceFailureReason, message: string) {
    super(message);
    this.name = 'TaxServiceFailure';
    this.reason = reason;
  }
}

export interface TaxServiceDeps {
  db: Kysely<Database>;
  clock: Clock;
  /** Opens the service's sealed signing secret. */
  keyring: Keyring;
  /** Posts the quotes: a WebhookSender made with TAX_SERVICE_TIMEOUT (the SSRF-guarded agents of webhooks). */
  taxSender: Pick<WebhookSender, 'send'>;
  log: Log;
}

/** The type of the signed message (the body's `type`, the `x-webhook-event` header). */
export const TAX_QUOTE_TYPE = 'tax.quote';
/** The largest answer read (a few dozen bytes a line). */
const ANSWER_LIMIT = 256 * 1024;
/** Seconds a buyer is asked to wait (`Retry-After`) when the tax service failed. */
export const TAX_RETRY_AFTER_S = 5;

/** 503 `tax_unavailable` with Retry-After: what checkout answers when the tax service failed. */
export const taxUnavailable = (): AppError =>
  new AppError(
    'tax_unavailable',
    503,
    'The store’s tax service did not answer with a valid tax, so the order cannot be priced; nothing was charged. Retry shortly.',
    { headers: { 'retry-after': String(TAX_RETRY_AFTER_S) } },
  );

/** The store's service when it is active: from this process's settings cache (no statement per pricing). */
async function activeService(db: Kysely<Database>, storeId: string): Promise<TaxServiceRow | null> {
  const row = await storeSetting(
    db,
    storeId,
    'tax-service',
    async () => (await findTaxService(db, storeId)) ?? null,
  );
  return row?.active ? row : null;
}

/**
 * The tax of `request` from the store's tax service; null when the store has no active one (the
 * built-in rates apply). Throws TaxServiceFailure on any failure: no answer within the timeout,
 * no connection, a non-2xx status, or an answer that is not exactly one integer tax per line and
 * one for shipping, each between 0 and its amount. `signal` cancels the request (reason
 * `unreachable`).
 */
export async function serviceTax(
  deps: TaxServiceDeps,
  storeId: string,
  request: TaxServiceRequest,
  signal?: AbortSignal,
): Promise<TaxServiceAnswer | null> {
  const service = await activeService(deps.db, storeId);
  if (!service) return null;
  const started = performance.now();
  try {
    const secret = openTaxServiceSecret(deps.keyring, storeId, service.secret_ciphertext);
    const body = JSON.stringify({ type: TAX_QUOTE_TYPE, data: request });
    const headers = webhookHeaders({
      keys: [signingKey(secret)],
      body,
      eventType: TAX_QUOTE_TYPE,
      eventId: `msg_${randomUUID()}`,
      attempt: 1,
      now: deps.clock.now(),
    });
    const result = await deps.taxSender.send(
      { url: service.url, body, headers },
      signal,
      () => deps.clock.now(),
      {
        answerLimit: ANSWER_LIMIT,
      },
    );
    return checkAnswer(request, answerOf(result));
  } catch (error) {
    const failure =
      error instanceof TaxServiceFailure ? error : new TaxServiceFailure('unreachable', String(error));
    // Never the request (it holds the buyer's address) nor the secret: the store, why, how long.
    deps.log.warn(
      {
        storeId,
        reason: failure.reason,
        error: failure.message,
        ms: Math.round(performance.now() - started),
      },
      'the tax service failed: no tax from it for this quote',
    );
    throw failure;
  }
}

/** The answer's text, or the failure the attempt was. */
function answerOf(result: SendResult): string {
  if (result.ok) return result.answer ?? '';
  if (result.timedOut) throw new TaxServiceFailure('timeout', result.error);
  if (result.status === null) {
    const refused = result.error === 'invalid URL' || result.error.startsWith('refused');
    throw new TaxServiceFailure(refused ? 'bad_url' : 'unreachable', result.error);
  }
  if (result.status >= 200 && result.status < 300) throw new TaxServiceFailure('bad_answer', result.error);
  throw new TaxServiceFailure('status', result.error);
}

const isTax = (value: unknown, most: number): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= most;

/**
 * The answer, checked against the request: exactly one tax per line, in order, and one for
 * shipping, each an integer from 0 to the amount it is on (a line's amount after its discount).
 * Anything else in the answer is ignored.
 */
function checkAnswer(request: TaxServiceRequest, text: string): TaxServiceAnswer {
  const bad = (detail: string): TaxServiceFailure => new TaxServiceFailure('bad_answer', detail);
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw bad('the answer is not JSON');
  }
  const { lines, shipping } = (answer ?? {}) as { lines?: unknown; shipping?: unknown };
  if (!Array.isArray(lines)) throw bad('the answer has no `lines` array');
  if (lines.length !== request.lines.length)
    throw bad(`the answer has ${lines.length} lines for the ${request.lines.length} asked`);
  const taxes = lines.map((line: unknown, i) => {
    const tax = (line as { tax?: unknown } | null)?.tax;
    const { amount, discount } = request.lines[i]!;
    if (!isTax(tax, amount - discount))
      throw bad(`lines[${i}].tax must be an integer from 0 to ${amount - discount} (the line's amount)`);
    return { tax };
  });
  const shippingTax = (shipping as { tax?: unknown } | null | undefined)?.tax;
  if (!isTax(shippingTax, request.shipping.amount))
    throw bad(`shipping.tax must be an integer from 0 to ${request.shipping.amount} (the shipping's amount)`);
  return { lines: taxes, shipping: { tax: shippingTax } };
}
