import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { SandboxIntentStatus, SandboxIntentTable, SandboxRefundTable } from './sandbox.tables.ts';

/** All SQL on the sandbox provider's own records (global, keyed by the provider's references). */

type Db = Kysely<Database>;
export type SandboxIntentRow = Selectable<SandboxIntentTable>;
export type SandboxRefundRow = Selectable<SandboxRefundTable>;

export function findIntent(db: Db, ref: string): Promise<SandboxIntentRow | undefined> {
  return db.selectFrom('sandbox_intents').selectAll().where('ref', '=', ref).executeTakeFirst();
}

export function findIntentByKey(
  db: Db,
  idempotencyKey: string,
): Promise<Pick<SandboxIntentRow, 'ref' | 'status'> | undefined> {
  return db
    .selectFrom('sandbox_intents')
    .select(['ref', 'status'])
    .where('idempotency_key', '=', idempotencyKey)
    .executeTakeFirst();
}

/** Inserts an intent unless one with its idempotency key exists; the new row, or undefined. */
export function insertIntent(
  db: Db,
  values: Insertable<SandboxIntentTable>,
): Promise<Pick<SandboxIntentRow, 'ref' | 'status'> | undefined> {
  return db
    .insertInto('sandbox_intents')
    .values(values)
    .onConflict((oc) => oc.column('idempotency_key').doNothing())
    .returning(['ref', 'status'])
    .executeTakeFirst();
}

/** Moves an intent to `to` if it is in one of `from`; false otherwise. */
export async function moveIntent(
  db: Db,
  ref: string,
  from: readonly SandboxIntentStatus[],
  to: SandboxIntentStatus,
  now: Date,
): Promise<boolean> {
  const updated = await db
    .updateTable('sandbox_intents')
    .set({ status: to, updated_at: now })
    .where('ref', '=', ref)
    .where('status', 'in', from)
    .returning('ref')
    .executeTakeFirst();
  return updated !== undefined;
}

/**
 * Moves the intent to `to` if it is in one of `from` and `clientSecretHash` is its secret's hash;
 * the intent as it was confirmed, or undefined (unknown, wrong secret, or not in `from`).
 */
export async function confirmIntent(
  db: Db,
  ref: string,
  clientSecretHash: string,
  from: readonly SandboxIntentStatus[],
  to: SandboxIntentStatus,
  now: Date,
): Promise<Pick<SandboxIntentRow, 'amount' | 'currency' | 'metadata'> | undefined> {
  return db
    .updateTable('sandbox_intents')
    .set({ status: to, updated_at: now })
    .where('ref', '=', ref)
    .where('client_secret_hash', '=', clientSecretHash)
    .where('status', 'in', from)
    .returning(['amount', 'currency', 'metadata'])
    .executeTakeFirst();
}

/** Adds a refund to a succeeded intent if it fits in what is left; its currency, or undefined. */
export async function addIntentRefund(
  db: Db,
  ref: string,
  amount: number,
  now: Date,
): Promise<string | undefined> {
  const intent = await db
    .updateTable('sandbox_intents')
    .set((eb) => ({ refunded_amount: eb('refunded_amount', '+', amount), updated_at: now }))
    .where('ref', '=', ref)
    .where('status', '=', 'succeeded')
    .where((eb) => eb(eb('refunded_amount', '+', amount), '<=', eb.ref('amount')))
    .returning(['currency'])
    .executeTakeFirst();
  return intent?.currency;
}

export function findRefund(db: Db, ref: string): Promise<SandboxRefundRow | undefined> {
  return db.selectFrom('sandbox_refunds').selectAll().where('ref', '=', ref).executeTakeFirst();
}

export function findRefundByKey(db: Db, idempotencyKey: string): Promise<SandboxRefundRow | undefined> {
  return db
    .selectFrom('sandbox_refunds')
    .selectAll()
    .where('idempotency_key', '=', idempotencyKey)
    .executeTakeFirst();
}

export async function insertRefund(db: Db, values: Insertable<SandboxRefundTable>): Promise<void> {
  await db.insertInto('sandbox_refunds').values(values).execute();
}

/**
 * Deletes up to `limit` intents untouched since `cutoff` (their refunds go with them), except a
 * succeeded payment that can still be refunded. Returns how many went.
 */
export async function deleteIntentsBefore(db: Db, cutoff: Date, limit: number): Promise<number> {
  const result = await sql`
    DELETE FROM sandbox_intents WHERE ref IN (
      SELECT ref FROM sandbox_intents
      WHERE updated_at < ${cutoff} AND NOT (status = 'succeeded' AND refunded_amount < amount)
      ORDER BY updated_at LIMIT ${limit}
    )`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
