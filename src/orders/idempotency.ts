import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { Clock } from '../http/context.ts';
import { AppError, problemOf, validationFailed } from '../http/errors.ts';

/** How long a request may hold its key before another attempt may take it over (crash recovery). */
const LEASE_MS = 60_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The Idempotency-Key header: a UUID, bare or as a quoted structured-field string (D7). */
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

export interface StoredResponse {
  status: number;
  type: string;
  body: string;
}

export interface IdempotencyScope {
  db: Kysely<Database>;
  clock: Clock;
  ttlMs: number;
  storeId: string;
  route: string;
  key: string;
  hash: string;
}

type Claim = { kind: 'run' } | { kind: 'replay'; response: StoredResponse };

async function claim(scope: IdempotencyScope): Promise<Claim> {
  const { db, storeId, route, key, hash } = scope;
  const now = scope.clock.now();
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await db
      .insertInto('idempotency_keys')
      .values({
        store_id: storeId,
        route,
        key,
        request_hash: hash,
        status: 'in_progress',
        locked_until: new Date(now.getTime() + LEASE_MS),
        created_at: now,
      })
      .onConflict((oc) => oc.columns(['store_id', 'route', 'key']).doNothing())
      .returning('key')
      .executeTakeFirst();
    if (inserted) return { kind: 'run' };

    const row = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('route', '=', route)
      .where('key', '=', key)
      .executeTakeFirst();
    if (!row) continue; // deleted meanwhile (a failed first attempt): try to insert again
    if (row.created_at.getTime() + scope.ttlMs < now.getTime()) {
      // Expired but not yet purged: it no longer counts.
      await db
        .deleteFrom('idempotency_keys')
        .where('store_id', '=', storeId)
        .where('route', '=', route)
        .where('key', '=', key)
        .where('created_at', '=', row.created_at)
        .execute();
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
        response: { status: row.response_status!, type: row.response_type!, body: row.response_body! },
      };
    }
    if (row.locked_until && row.locked_until > now) {
      throw new AppError(
        'idempotency_in_progress',
        409,
        'A request with this Idempotency-Key is still being processed. Retry shortly.',
        {
          headers: { 'retry-after': '1' },
        },
      );
    }
    // The first attempt died mid-way (its lease ran out): take the key over.
    const taken = await db
      .updateTable('idempotency_keys')
      .set({ locked_until: new Date(now.getTime() + LEASE_MS) })
      .where('store_id', '=', storeId)
      .where('route', '=', route)
      .where('key', '=', key)
      .where('status', '=', 'in_progress')
      .where('locked_until', '=', row.locked_until)
      .returning('key')
      .executeTakeFirst();
    if (taken) return { kind: 'run' };
  }
  throw new AppError(
    'idempotency_in_progress',
    409,
    'A request with this Idempotency-Key is still being processed. Retry shortly.',
    {
      headers: { 'retry-after': '1' },
    },
  );
}

/** Only definitive answers are kept: success and business refusals, not input errors or failures. */
function isStorable(error: AppError): boolean {
  return error.status < 500 && error.title !== 'validation_failed' && error.status !== 429;
}

/**
 * Runs `handler` at most once per (store, route, key) and replays its answer byte-for-byte on
 * retries (DESIGN D7). The response body is serialised here, once, and stored as the exact text sent.
 */
export async function withIdempotency(
  scope: IdempotencyScope,
  reply: FastifyReply,
  handler: () => Promise<{ status: number; body: unknown }>,
): Promise<FastifyReply> {
  const claimed = await claim(scope);
  if (claimed.kind === 'replay') {
    return reply
      .code(claimed.response.status)
      .header('idempotent-replayed', 'true')
      .type(claimed.response.type)
      .send(claimed.response.body);
  }
  let response: StoredResponse;
  try {
    const result = await handler();
    response = {
      status: result.status,
      type: 'application/json; charset=utf-8',
      body: JSON.stringify(result.body),
    };
  } catch (error) {
    if (error instanceof AppError && isStorable(error)) {
      response = {
        status: error.status,
        type: 'application/problem+json; charset=utf-8',
        body: JSON.stringify(problemOf(error)),
      };
      for (const [name, value] of Object.entries(error.headers)) void reply.header(name, value);
    } else {
      await scope.db
        .deleteFrom('idempotency_keys')
        .where('store_id', '=', scope.storeId)
        .where('route', '=', scope.route)
        .where('key', '=', scope.key)
        .where('status', '=', 'in_progress')
        .execute();
      throw error;
    }
  }
  await scope.db
    .updateTable('idempotency_keys')
    .set({
      status: 'done',
      locked_until: null,
      response_status: response.status,
      response_type: response.type,
      response_body: response.body,
    })
    .where('store_id', '=', scope.storeId)
    .where('route', '=', scope.route)
    .where('key', '=', scope.key)
    .execute();
  return reply.code(response.status).type(response.type).send(response.body);
}

const PURGE_BATCH_PER_STORE = 1000;

/**
 * Deletes keys older than the retention (24 h by default). Each statement walks the stores and,
 * per store, the (store_id, created_at) index up to the cutoff, so a purge reads only what it
 * deletes, never the whole table; it repeats in batches until nothing old is left.
 */
export async function purgeIdempotencyKeys(db: Kysely<Database>, now: Date, ttlMs: number): Promise<number> {
  const cutoff = new Date(now.getTime() - ttlMs);
  let total = 0;
  for (;;) {
    const result = await sql`
      DELETE FROM idempotency_keys k
      USING stores s
      CROSS JOIN LATERAL (
        SELECT i.route, i.key FROM idempotency_keys i
        WHERE i.store_id = s.id AND i.created_at < ${cutoff}
        ORDER BY i.created_at
        LIMIT ${PURGE_BATCH_PER_STORE}
      ) old
      WHERE k.store_id = s.id AND k.route = old.route AND k.key = old.key`.execute(db);
    const deleted = Number(result.numAffectedRows ?? 0n);
    total += deleted;
    if (deleted === 0) return total;
  }
}
