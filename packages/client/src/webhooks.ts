/**
 * Verifying Storefront webhooks with Web Crypto (browsers, Node 20+, Deno, Bun, workers): the
 * signature is checked on the exact raw bytes, in constant time, before anything is parsed.
 */
import { WebhookVerificationError } from './errors.ts';
import type { WebhookEvent } from './types.ts';

/** Request headers as `fetch` (Headers) or Node's `http` (`req.headers`) give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /**
   * Largest difference, in seconds, between the request's `webhook-timestamp` (or `x-webhook-timestamp`)
   * and now. Default 300 (5 minutes, as Standard Webhooks). `null` turns the check off. A request
   * without a timestamp header is not checked.
   */
  toleranceSeconds?: number | null;
  /**
   * Refuse requests without a signed timestamp (`webhook-id`, `webhook-timestamp` and a matching
   * `webhook-signature`, which Storefront always sends). Default false. With it, the tolerance also
   * stops replays of a captured request; without it, deduplicating on `id` does (the id is signed).
   */
  requireSignedTimestamp?: boolean;
  /** The clock of the tolerance check, in milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
}

export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

const encoder = new TextEncoder();
const HEX_SHA256 = /^[0-9a-f]{64}$/i;

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  let value = record[name];
  if (value === undefined) {
    const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
    value = key === undefined ? undefined : record[key];
  }
  // Several values of one header: joined, so a signature header sent twice is malformed, not guessed.
  return Array.isArray(value) ? value.join(', ') : value;
}

function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/** Standard or URL-safe base64 to bytes; null when it is not base64. */
function base64Bytes(text: string): Uint8Array<ArrayBuffer> | null {
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}

function hmacKey(secret: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
}

/** Whether `signature` is the HMAC-SHA-256 of `message` under `key`: Web Crypto compares in constant time. */
function hmacVerify(key: CryptoKey, signature: Uint8Array<ArrayBuffer>, message: Uint8Array<ArrayBuffer>) {
  return crypto.subtle.verify('HMAC', key, signature, message);
}

/**
 * Verifies a Storefront webhook request and returns its parsed envelope `{ id, event, createdAt, data }`.
 *
 * 1. HMAC-SHA-256 of the exact raw body, keyed with the endpoint secret exactly as shown (including
 *    `whsec_`), must equal `x-webhook-signature` or, during the 24 hours after a rotation,
 *    `x-webhook-signature-previous`, for at least one of the given secrets (pass both the new and the
 *    old one while you roll out a rotation). Compared in constant time by `crypto.subtle.verify`.
 * 2. When a timestamp header is present (`webhook-timestamp`, else `x-webhook-timestamp`) and
 *    `toleranceSeconds` is not null, it must be within the tolerance of now (default 300 s). The
 *    body signature does not cover it, so the Standard Webhooks signature (`webhook-signature` over
 *    `webhook-id.webhook-timestamp.body`) is verified too when present; `requireSignedTimestamp`
 *    makes it mandatory.
 * 3. Only then is the body parsed.
 *
 * Throws WebhookVerificationError (with a `reason`) when any step fails: answer 401 and do nothing.
 * Deduplicate accepted events on `id`.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secretOrSecrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const secrets = (typeof secretOrSecrets === 'string' ? [secretOrSecrets] : [...secretOrSecrets]).filter(
    (secret) => typeof secret === 'string' && secret !== '',
  );
  if (secrets.length === 0)
    throw new WebhookVerificationError('missing_secret', 'No signing secret was given.');

  const given = ['x-webhook-signature', 'x-webhook-signature-previous']
    .map((name) => headerOf(headers, name))
    .filter((value): value is string => value !== undefined);
  if (given.length === 0) {
    throw new WebhookVerificationError('missing_signature', 'The request has no x-webhook-signature header.');
  }
  if (!given.every((value) => HEX_SHA256.test(value))) {
    throw new WebhookVerificationError(
      'malformed_signature',
      'A signature header is not one hex HMAC-SHA-256.',
    );
  }
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : new Uint8Array(rawBody);

  let verified = false;
  for (const secret of secrets) {
    const key = await hmacKey(encoder.encode(secret));
    for (const signature of given) {
      if (await hmacVerify(key, hexBytes(signature), body)) verified = true;
    }
  }
  if (!verified) {
    throw new WebhookVerificationError(
      'signature_mismatch',
      'The signature does not match the body for any of the given secrets.',
    );
  }

  const tolerance =
    options.toleranceSeconds === undefined ? DEFAULT_WEBHOOK_TOLERANCE_SECONDS : options.toleranceSeconds;
  if (tolerance !== null) await checkTimestamp(headers, body, secrets, tolerance, options);

  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new WebhookVerificationError('malformed_body', 'The verified body is not JSON.');
  }
  const envelope = event as Partial<WebhookEvent> | null;
  if (
    envelope === null ||
    typeof envelope !== 'object' ||
    typeof envelope.id !== 'string' ||
    typeof envelope.event !== 'string' ||
    typeof envelope.data !== 'object'
  ) {
    throw new WebhookVerificationError('malformed_body', 'The verified body is not a webhook envelope.');
  }
  return event as WebhookEvent;
}

/**
 * The timestamp check. `x-webhook-signature` covers the body only, so a timestamp header alone proves
 * nothing; the Standard Webhooks signature (`webhook-signature`: `v1,<base64 HMAC-SHA-256 of
 * "webhook-id.webhook-timestamp.body">`, keyed with the base64 part of the secret, one entry per
 * signing secret) binds it, and is verified whenever it is present. With `requireSignedTimestamp`
 * a request must carry it, which makes the tolerance a replay defence (not just a staleness filter).
 */
async function checkTimestamp(
  headers: WebhookHeaders,
  body: Uint8Array<ArrayBuffer>,
  secrets: readonly string[],
  tolerance: number,
  options: VerifyWebhookOptions,
): Promise<void> {
  const signed = headerOf(headers, 'webhook-timestamp');
  const timestamp = signed ?? headerOf(headers, 'x-webhook-timestamp');
  const standard = headerOf(headers, 'webhook-signature');
  const id = headerOf(headers, 'webhook-id');
  const bound = signed !== undefined && standard !== undefined && id !== undefined;
  if (options.requireSignedTimestamp && !bound) {
    throw new WebhookVerificationError(
      'missing_timestamp',
      'The request has no webhook-id, webhook-timestamp and webhook-signature headers.',
    );
  }
  if (timestamp === undefined) return;
  if (!/^\d{1,15}$/.test(timestamp)) {
    throw new WebhookVerificationError('malformed_timestamp', 'The webhook timestamp is not Unix seconds.');
  }
  const now = (options.now ?? Date.now)() / 1000;
  if (Math.abs(now - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `The webhook timestamp is more than ${tolerance} s away from now.`,
    );
  }
  if (!bound) return;

  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const message = new Uint8Array(prefix.length + body.length);
  message.set(prefix);
  message.set(body, prefix.length);
  const signatures = standard
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => base64Bytes(entry.slice(3)))
    .filter((bytes): bytes is Uint8Array<ArrayBuffer> => bytes !== null);
  for (const secret of secrets) {
    const keyBytes = base64Bytes(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
    if (keyBytes === null || keyBytes.length === 0) continue;
    const key = await hmacKey(keyBytes);
    for (const signature of signatures) {
      if (await hmacVerify(key, signature, message)) return;
    }
  }
  throw new WebhookVerificationError(
    'timestamp_signature_mismatch',
    'The webhook-signature over the id, timestamp and body does not match any of the given secrets.',
  );
}
