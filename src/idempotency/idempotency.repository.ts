import type { Kysely } from 'kysely';
import { purgeOlderThan } from '../db/purge.ts';
import type { Database } from '../db/tables.ts';
import type { IdempotencyKeyRow } from './idempotency.tables.ts';

/** All SQL on idempotency keys (decisions `idempotency-keys` and `checkout-after-a-crash`). */

type Db = Kysely<Database>;

export interface KeyName {
  storeId: string;
  route: string;
  key: string;
}

export interface StoredAnswer {
  status: number;
  type: string;
  body: string;
}

/** The primary key of a key's row, for `.where((eb) => eb.and(keyOf(name)))`. */
const keyOf = (name: KeyName) => ({ store_id: name.storeId, route: name.route, key: name.key });

/** Claims a new key for the holder of `leaseToken`; false when the key exists already. */
export async function insertKey(
  db: Db,
  name: KeyName,
  claim: { hash: string; leaseToken: string; lockedUntil: Date; now: Date },
): Promise<boolean> {
  const inserted = await db
    .insertInto('idempotency_keys')
    .values({
      store_id: name.storeId,
      route: name.route,
      key: name.key,
      request_hash: claim.hash,
      status: 'in_progress',
      locked_until: claim.lockedUntil,
      lease_token: claim.leaseToken,
      created_at: claim.now,
    })
    .onConflict((oc) => oc.columns(['store_id', 'route', 'key']).doNothing())
    .returning('key')
    .executeTakeFirst();
  return inserted !== undefined;
}

export function findKey(db: Db, name: KeyName): Promise<IdempotencyKeyRow | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where((eb) => eb.and(keyOf(name)))
    .executeTakeFirst();
}

/** Deletes a key that expired but was not purged yet (only the row made at `createdAt`). */
export async function deleteExpiredKey(db: Db, name: KeyName, createdAt: Date): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where((eb) => eb.and(keyOf(name)))
    .where('created_at', '=', createdAt)
    .execute();
}

/** Takes an in-progress key over from a holder whose lease ran out; false when another retry was first. */
export async function takeOverKey(
  db: Db,
  name: KeyName,
  previousToken: string | null,
  leaseToken: string,
  lockedUntil: Date,
): Promise<boolean> {
  const taken = await db
    .updateTable('idempotency_keys')
    .set({ locked_until: lockedUntil, lease_token: leaseToken })
    .where((eb) => eb.and(keyOf(name)))
    .where('status', '=', 'in_progress')
    .where('lease_token', 'is not distinct from', previousToken)
    .returning('key')
    .executeTakeFirst();
  return taken !== undefined;
}

/** Gives a key up (the request failed without a definitive answer), if this holder still has it. */
export async function releaseKey(db: Db, name: KeyName, leaseToken: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where((eb) => eb.and(keyOf(name)))
    .where('status', '=', 'in_progress')
    .where('lease_token', '=', leaseToken)
    .execute();
}

/** Stores the answer (its body sealed), if this holder still has the key. */
export async function completeKey(
  db: Db,
  name: KeyName,
  leaseToken: string,
  answer: StoredAnswer,
): Promise<void> {
  await completeKeyStatement(db, name, leaseToken, answer).execute();
}

/** {@link completeKey}'s statement, not run: a transaction's last (src/db/last-statement.ts). */
export function completeKeyStatement(db: Db, name: KeyName, leaseToken: string, answer: StoredAnswer) {
  return db
    .updateTable('idempotency_keys')
    .set({
      status: 'done',
      locked_until: null,
      lease_token: null,
      response_status: answer.status,
      response_type: answer.type,
      response_body: answer.body,
    })
    .where((eb) => eb.and(keyOf(name)))
    .where('status', '=', 'in_progress')
    .where('lease_token', '=', leaseToken);
}

export function deleteKeysBefore(db: Db, cutoff: Date): Promise<number> {
  return purgeOlderThan(db, {
    table: 'idempotency_keys',
    keyColumns: ['route', 'key'],
    timeColumn: 'created_at',
    cutoff,
  });
}

export type StoredAnswerRow = Pick<IdempotencyKeyRow, 'store_id' | 'route' | 'key' | 'response_body'>;

/** A batch of stored answers in key order, after `after` (for `secrets rotate`). */
export function storedAnswersAfter(
  db: Db,
  after: StoredAnswerRow | undefined,
  limit: number,
): Promise<StoredAnswerRow[]> {
  return db
    .selectFrom('idempotency_keys')
    .select(['store_id', 'route', 'key', 'response_body'])
    .where('status', '=', 'done')
    .$if(after !== undefined, (qb) =>
      qb.where((eb) =>
        eb(eb.refTuple('store_id', 'route', 'key'), '>', eb.tuple(after!.store_id, after!.route, after!.key)),
      ),
    )
    .orderBy('store_id')
    .orderBy('route')
    .orderBy('key')
    .limit(limit)
    .execute();
}

export async function setStoredAnswer(db: Db, name: KeyName, sealed: string): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ response_body: sealed })
    .where((eb) => eb.and(keyOf(name)))
    .execute();
}

/** Deletes the stored answers of some keys of one route (an erasure: they may hold personal data). */
export async function deleteKeys(
  db: Db,
  storeId: string,
  route: string,
  keys: readonly string[],
): Promise<void> {
  if (keys.length === 0) return;
  await db
    .deleteFrom('idempotency_keys')
    .where('store_id', '=', storeId)
    .where('route', '=', route)
    .where('key', 'in', [...keys])
    .execute();
}
