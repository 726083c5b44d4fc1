import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { LastStatement } from '../db/last-statement.ts';
import type { Database } from '../db/tables.ts';
import type {
  SandboxIntentStatus,
  SandboxIntentTable,
  SandboxRefundTable,
  SandboxWebhookTable,
} from './sandbox.tables.ts';

/** All SQL on the sandbox provider's own records (global, keyed by the provider's references). */

type Db = Kysely<Database>;
export type SandboxIntentRow = Selectable<SandboxIntentTable>;
export type SandboxRefundRow = Selectable<SandboxRefundTable>;
export type SandboxWebhookRow = Selectable<SandboxWebhookTable>;
/** A webhook taken for an attempt: what it says, and the how-manieth attempt this is. */
export type ClaimedWebhook = Pick<SandboxWebhookRow, 'id' | 'body' | 'attempts' | 'created_at'>;

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
 * Moves the intent to `to` if it is in one of `from` and `clientSecretHash` is its secret's hash,
 * noting the test card; the intent as it was confirmed, or undefined (unknown, wrong secret, or not
 * in `from`).
 */
export async function confirmIntent(
  db: Db,
  ref: string,
  clientSecretHash: string,
  from: readonly SandboxIntentStatus[],
  to: SandboxIntentStatus,
  method: string,
  now: Date,
): Promise<Pick<SandboxIntentRow, 'amount' | 'currency' | 'metadata'> | undefined> {
  return db
    .updateTable('sandbox_intents')
    .set({ status: to, confirmed_method: method, updated_at: now })
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

/**
 * Delayed payments that are due: up to `limit` intents processing since `before` (or the one `ref`)
 * move to succeeded; the intents that moved.
 */
export function succeedProcessing(
  db: Db,
  match: { before: Date } | { ref: string },
  limit: number,
  now: Date,
): Promise<Pick<SandboxIntentRow, 'ref' | 'amount' | 'currency' | 'metadata'>[]> {
  return db
    .updateTable('sandbox_intents')
    .set({ status: 'succeeded', updated_at: now })
    .where('ref', 'in', (eb) => {
      const processing = eb
        .selectFrom('sandbox_intents')
        .select('ref')
        .where('status', '=', 'processing')
        .orderBy('updated_at')
        .limit(limit)
        .forUpdate()
        .skipLocked();
      return 'ref' in match
        ? processing.where('ref', '=', match.ref)
        : processing.where('updated_at', '<=', match.before);
    })
    .where('status', '=', 'processing')
    .returning(['ref', 'amount', 'currency', 'metadata'])
    .execute();
}

/** Adds webhooks to the outbox, taken for their first attempt by the caller until `leaseUntil`. */
export function insertWebhooksStatement(
  db: Db,
  webhooks: readonly { id: string; intentRef: string; body: string }[],
  leaseUntil: Date,
): LastStatement {
  if (webhooks.length === 0) return null;
  return db.insertInto('sandbox_webhooks').values(
    webhooks.map((w) => ({
      id: w.id,
      intent_ref: w.intentRef,
      body: w.body,
      attempts: 1,
      next_attempt_at: leaseUntil,
    })),
  );
}

/**
 * Takes up to `limit` webhooks for an attempt: those due at `now`, or every one of `ref` still to
 * deliver; each is leased until `leaseUntil` (another process takes it over after that) and counts
 * the attempt. Rows another process is taking at this moment are skipped.
 */
export function claimWebhooks(
  db: Db,
  which: { due: Date } | { ref: string },
  limit: number,
  leaseUntil: Date,
): Promise<ClaimedWebhook[]> {
  return db
    .updateTable('sandbox_webhooks')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), next_attempt_at: leaseUntil }))
    .where('id', 'in', (eb) => {
      const open = eb
        .selectFrom('sandbox_webhooks')
        .select('id')
        .where('next_attempt_at', 'is not', null)
        .orderBy('next_attempt_at')
        .limit(limit)
        .forUpdate()
        .skipLocked();
      return 'due' in which
        ? open.where('next_attempt_at', '<=', which.due)
        : open.where('intent_ref', '=', which.ref);
    })
    .returning(['id', 'body', 'attempts', 'created_at'])
    .execute();
}

/**
 * Records an attempt's outcome, unless another attempt delivered the webhook meanwhile: delivered
 * (`next` null, `delivered` set), retried at `next`, or given up (both null).
 */
export async function settleWebhook(
  db: Db,
  id: string,
  outcome: { delivered: Date | null; next: Date | null; error: string | null },
): Promise<void> {
  await db
    .updateTable('sandbox_webhooks')
    .set({ delivered_at: outcome.delivered, next_attempt_at: outcome.next, last_error: outcome.error })
    .where('id', '=', id)
    .where('delivered_at', 'is', null)
    .execute();
}

/** Deletes up to `limit` webhooks delivered or given up before `cutoff`; how many went. */
export async function deleteWebhooksBefore(db: Db, cutoff: Date, limit: number): Promise<number> {
  const result = await sql`
    DELETE FROM sandbox_webhooks WHERE id IN (
      SELECT id FROM sandbox_webhooks
      WHERE next_attempt_at IS NULL AND created_at < ${cutoff}
      ORDER BY created_at LIMIT ${limit}
    )`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
