import { createHash, randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Compilable, Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import { problemOf } from '../http/errors.ts';
import { Keyring, type SealedColumns, type SealedValues } from '../lib/keyring.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError, validationFailed } from '../lib/errors.ts';
import {
  deleteKeys,
  completeKey,
  completeKeyStatement,
  deleteExpiredKey,
  deleteKeysBefore,
  findKey,
  insertKey,
  releaseKey,
  setStoredAnswer,
  storedAnswersAfter,
  takeOverKey,
  type StoredAnswer,
  type StoredAnswerRow,
} from './idempotency.repository.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The Idempotency-Key header: a UUID, bare or as a quoted structured-field string (decision `idempotency-keys`). */
export function idempotencyKeyOf(request: FastifyRequest): string {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined || (typeof raw === 'string' && raw.trim() === '')) {
    throw new AppError(
      'idempotency_key_required',
      400,
      'Send an Idempotency-Key header (a UUID) with every checkout, and reuse it when you retry.',
    );
  }
  const value = (Array.isArray(raw) ? raw.join(',') : raw).trim();
  const unquoted = /^"[^"]*"$/.test(value) ? value.slice(1, -1) : value;
  if (!UUID.test(unquoted)) {
    throw validationFailed('The Idempotency-Key header must be a UUID.', [
      { pointer: '/idempotency-key', detail: 'must be a UUID', in: 'header' },
    ]);
  }
  return unquoted.toLowerCase();
}

/** A canonical hash of the request body: key order does not matter, values do. */
export function requestHash(body: unknown): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
      );
    }
    return value;
  };
  return createHash('sha256')
    .update(JSON.stringify(canonical(body ?? null)))
    .digest('hex');
}

/** A handler's answer, before serialisation. */
export interface HandlerAnswer {
  status: number;
  body: unknown;
}

export interface IdempotencyScope {
  db: Kysely<Database>;
  /** Seals stored answers (decision `sealed-secrets`: a checkout answer holds the payment's client secret). */
  keyring: Keyring;
  clock: Clock;
  ttlMs: number;
  /** How long the holder of an in-progress key keeps it before a retry may take it over. */
  leaseMs: number;
  storeId: string;
  route: string;
  key: string;
  hash: string;
  /**
   * Finds the resource a previous attempt with this key already created (the resource carries its
   * key, decision `checkout-after-a-crash`), so a retry answers with it even when that attempt never stored its answer (a crash
   * between its commit and the write of the answer). Null when there is none.
   */
  recover?: () => Promise<HandlerAnswer | null>;
}

type Claim =
  | { kind: 'run'; leaseToken: string }
  | { kind: 'replay'; response: StoredAnswer }
  | { kind: 'recovered'; answer: HandlerAnswer };

const inProgress = (): AppError =>
  new AppError(
    'idempotency_in_progress',
    409,
    'A request with this Idempotency-Key is still being processed. Retry shortly.',
    { headers: { 'retry-after': '1' } },
  );

async function claim(scope: IdempotencyScope): Promise<Claim> {
  const { db, hash } = scope;
  const now = scope.clock.now();
  const lockedUntil = new Date(now.getTime() + scope.leaseMs);
  for (let attempt = 0; attempt < 3; attempt++) {
    const leaseToken = randomUUID();
    if (await insertKey(db, scope, { hash, leaseToken, lockedUntil, now }))
      return { kind: 'run', leaseToken };

    const row = await findKey(db, scope);
    if (!row) continue; // deleted meanwhile (a failed first attempt): try to insert again
    if (row.created_at.getTime() + scope.ttlMs < now.getTime()) {
      // Expired but not yet purged: it no longer counts.
      await deleteExpiredKey(db, scope, row.created_at);
      continue;
    }
    if (row.request_hash !== hash) {
      throw new AppError(
        'idempotency_key_reused',
        422,
        'This Idempotency-Key was used with a different request body. Use a new key for a new request.',
      );
    }
    if (row.status === 'done') {
      return {
        kind: 'replay',
        response: {
          status: row.response_status!,
          type: row.response_type!,
          body: openAnswer(scope, row.response_body!),
        },
      };
    }
    // In progress: if the first attempt already made its resource, that is the answer.
    const recovered = await scope.recover?.();
    if (recovered) return { kind: 'recovered', answer: recovered };
    if (row.locked_until && row.locked_until > now) throw inProgress();
    // The first attempt died mid-way (its lease ran out): take the key over with a new token.
    if (await takeOverKey(db, scope, row.lease_token, leaseToken, lockedUntil))
      return { kind: 'run', leaseToken };
  }
  throw inProgress();
}

const ANSWER_PURPOSE = 'idempotent-answers';
const answerContext = (scope: Pick<IdempotencyScope, 'storeId' | 'route' | 'key'>): string =>
  `${scope.storeId}:${scope.route}:${scope.key}`;

/** A stored answer, opened (one stored before sealing is read as it is). */
function openAnswer(
  scope: Pick<IdempotencyScope, 'keyring' | 'storeId' | 'route' | 'key'>,
  stored: string,
): string {
  return Keyring.isSealed(stored)
    ? scope.keyring.open(
        ANSWER_PURPOSE,
        stored,
        answerContext(scope),
        `The stored answer of Idempotency-Key ${scope.key}`,
      )
    : stored;
}

/** Only definitive answers are kept: success and business refusals, not input errors or failures. */
function isStorable(error: AppError): boolean {
  return error.status < 500 && error.title !== 'validation_failed' && error.status !== 429;
}

const serialise = (answer: HandlerAnswer): StoredAnswer => ({
  status: answer.status,
  type: 'application/json; charset=utf-8',
  body: JSON.stringify(answer.body),
});

/**
 * Stores a handler's answer in the handler's own transaction (`db`), so that the answer commits with
 * what it answers: a checkout's order and its key's answer are one commit (and one round trip
 * fewer than storing it after). It returns the statement, for the handler's transaction to end with
 * (`transactionEndingWith`, src/db/last-statement.ts). The answer is sent as stored.
 */
export type StoreAnswer = (db: Kysely<Database>, answer: HandlerAnswer) => Compilable;

/**
 * Runs `handler` at most once per (store, route, key) and replays its answer byte-for-byte on
 * retries (decision `idempotency-keys`). The response body is serialised here, once, and stored as the exact text
 * sent, by the current holder of the key only (its lease token fences a holder whose lease ran
 * out and was taken over, decision `checkout-after-a-crash`): after the handler, or by the handler in its own transaction
 * (`StoreAnswer`).
 */
export async function withIdempotency(
  scope: IdempotencyScope,
  reply: FastifyReply,
  handler: (storeAnswer: StoreAnswer) => Promise<HandlerAnswer>,
): Promise<FastifyReply> {
  const claimed = await claim(scope);
  if (claimed.kind === 'replay') {
    return reply
      .code(claimed.response.status)
      .header('idempotent-replayed', 'true')
      .type(claimed.response.type)
      .send(claimed.response.body);
  }
  if (claimed.kind === 'recovered') {
    const response = serialise(claimed.answer);
    return reply
      .code(response.status)
      .header('idempotent-replayed', 'true')
      .type(response.type)
      .send(response.body);
  }
  let response: StoredAnswer;
  /** The answer the handler stored in its transaction (kept only if the handler then succeeds). */
  let stored: StoredAnswer | null = null;
  const storeAnswer: StoreAnswer = (db, answer) => {
    const serialised = serialise(answer);
    // Sent only when the handler then succeeds, that is when the statement committed.
    stored = serialised;
    return completeKeyStatement(db, scope, claimed.leaseToken, sealAnswer(scope, serialised));
  };
  try {
    const answer = await handler(storeAnswer);
    if (stored !== null) {
      const sent: StoredAnswer = stored;
      return reply.code(sent.status).type(sent.type).send(sent.body);
    }
    response = serialise(answer);
  } catch (error) {
    if (error instanceof AppError && isStorable(error)) {
      response = {
        status: error.status,
        type: 'application/problem+json; charset=utf-8',
        body: JSON.stringify(problemOf(error)),
      };
      for (const [name, value] of Object.entries(error.headers)) void reply.header(name, value);
    } else {
      await releaseKey(scope.db, scope, claimed.leaseToken);
      throw error;
    }
  }
  await completeKey(scope.db, scope, claimed.leaseToken, sealAnswer(scope, response));
  return reply.code(response.status).type(response.type).send(response.body);
}

/** The answer as stored: its body sealed (decision `sealed-secrets`). */
const sealAnswer = (scope: IdempotencyScope, answer: StoredAnswer): StoredAnswer => ({
  ...answer,
  body: scope.keyring.seal(ANSWER_PURPOSE, answer.body, answerContext(scope)),
});

/** Deletes keys older than the retention (24 h by default), store by store, in batches. */
export function purgeIdempotencyKeys(
  deps: { db: Kysely<Database> },
  now: Date,
  ttlMs: number,
): Promise<number> {
  return deleteKeysBefore(deps.db, new Date(now.getTime() - ttlMs));
}

/** Where the stored answers rest (for an archive's re-sealing). */
export const STORED_ANSWER_COLUMNS: SealedColumns = {
  what: 'stored idempotent answers',
  table: 'idempotency_keys',
  purpose: ANSWER_PURPOSE,
  columns: ['response_body'],
  context: (row) => answerContext({ storeId: row.store_id!, route: row.route!, key: row.key! }),
  plaintextBefore: true,
};

/** Every stored answer (plaintext ones from before sealing included), for `secrets rotate`. */
export function storedAnswers(db: Kysely<Database>, keyring: Keyring): SealedValues<StoredAnswerRow> {
  return {
    what: STORED_ANSWER_COLUMNS.what,
    batch: (after, limit) => storedAnswersAfter(db, after, limit),
    async reseal(row, dryRun) {
      if (row.response_body === null || keyring.isCurrent(ANSWER_PURPOSE, row.response_body)) return false;
      const scope = { keyring, storeId: row.store_id, route: row.route, key: row.key };
      const plain = openAnswer(scope, row.response_body);
      if (!dryRun)
        await setStoredAnswer(db, scope, keyring.seal(ANSWER_PURPOSE, plain, answerContext(scope)));
      return true;
    },
  };
}

/** Forgets the stored answers of some keys of a route (an erasure: a checkout's answer holds the address). */
export function forgetAnswers(
  deps: { db: Kysely<Database> },
  storeId: string,
  route: string,
  keys: readonly string[],
): Promise<void> {
  return deleteKeys(deps.db, storeId, route, keys);
}
