import { sql, type Kysely, type SqlBool, type Transaction } from 'kysely';
import type { Address } from '@storefront/address';
import { randomUUID } from 'node:crypto';
import type { Database } from '../db/tables.ts';
import { eventInsert, type NewEvent } from '../events/events.ts';
import type { CustomerAddressRow, CustomerRow, PrivacyAction, PrivacyLogRow } from './customers.tables.ts';

// Customers

export function findCustomer(
  db: Kysely<Database>,
  storeId: string,
  customerId: string,
): Promise<CustomerRow | undefined> {
  return db
    .selectFrom('customers')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', customerId)
    .executeTakeFirst();
}

/** The customer row, locked to the end of the transaction (erasure, default address changes). */
export function lockCustomer(
  trx: Transaction<Database>,
  storeId: string,
  customerId: string,
): Promise<CustomerRow | undefined> {
  return trx
    .selectFrom('customers')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', customerId)
    .forUpdate()
    .executeTakeFirst();
}

export function findCustomerByEmail(
  db: Kysely<Database>,
  storeId: string,
  email: string,
): Promise<CustomerRow | undefined> {
  return db
    .selectFrom('customers')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('email', '=', email)
    .executeTakeFirst();
}

/**
 * The customer of an email, made if there is none, and marked verified (a sign-in code proved the
 * email), in one statement; `created` when the row is new, `verified` when this call verified it.
 */
export async function verifyCustomerOfEmail(
  trx: Transaction<Database>,
  storeId: string,
  email: string,
  now: Date,
): Promise<{ row: CustomerRow; created: boolean; verified: boolean }> {
  const before = await trx
    .selectFrom('customers')
    .select(['id', 'verified_at'])
    .where('store_id', '=', storeId)
    .where('email', '=', email)
    .forUpdate()
    .executeTakeFirst();
  if (before?.verified_at) {
    const row = await findCustomer(trx, storeId, before.id);
    return { row: row!, created: false, verified: false };
  }
  // Two first sign-ins of one email at once: one inserts, the other updates its row (`created` false).
  const row = await trx
    .insertInto('customers')
    .values({ store_id: storeId, email, verified_at: now, created_at: now, updated_at: now })
    .onConflict((oc) =>
      oc.columns(['store_id', 'email']).doUpdateSet({
        verified_at: sql<Date>`coalesce(customers.verified_at, ${now})`,
        updated_at: now,
      }),
    )
    .returningAll()
    .returning(sql<boolean>`(xmax = 0)`.as('created'))
    .executeTakeFirstOrThrow();
  const { created, ...customer } = row;
  return {
    row: customer,
    created,
    verified: created || (before !== undefined && before.verified_at === null),
  };
}

/**
 * The customer an order is placed for, in the checkout's transaction: by id (a customer token),
 * or by email, made as a guest when the store has none; its `last_order_at` set. `created` when
 * new, and then `created(id)` is recorded by the same statement (decision `event-in-statement`).
 */
export async function customerForOrder(
  trx: Transaction<Database>,
  storeId: string,
  who: { customerId: string } | { email: string },
  now: Date,
  created: (customerId: string) => NewEvent,
): Promise<{ id: string; created: boolean } | undefined> {
  if ('customerId' in who) {
    const row = await trx
      .updateTable('customers')
      .set({ last_order_at: now })
      .where('store_id', '=', storeId)
      .where('id', '=', who.customerId)
      .returning('id')
      .executeTakeFirst();
    return row && { id: row.id, created: false };
  }
  // The id a new customer gets, chosen here so that its event is written by this statement too.
  const id = randomUUID();
  const row = await trx
    .with('c', (db) =>
      db
        .insertInto('customers')
        .values({
          store_id: storeId,
          id,
          email: who.email,
          last_order_at: now,
          created_at: now,
          updated_at: now,
        })
        .onConflict((oc) => oc.columns(['store_id', 'email']).doUpdateSet({ last_order_at: now }))
        .returning(['id', sql<boolean>`(xmax = 0)`.as('created')]),
    )
    .with('event', (db) => eventInsert(db, created(id), { from: 'c', where: sql`c.created` }))
    .selectFrom('c')
    .select(['id', 'created'])
    .executeTakeFirstOrThrow();
  return { id: row.id, created: row.created };
}

export function updateCustomer(
  trx: Transaction<Database>,
  storeId: string,
  customerId: string,
  changes: {
    name?: string | null;
    phone?: string | null;
    accepts_marketing?: boolean;
    default_address_id?: string | null;
  },
  now: Date,
): Promise<CustomerRow> {
  return trx
    .updateTable('customers')
    .set({ ...changes, updated_at: now })
    .where('store_id', '=', storeId)
    .where('id', '=', customerId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteCustomer(
  trx: Transaction<Database>,
  storeId: string,
  customerId: string,
): Promise<void> {
  await trx.deleteFrom('customers').where('store_id', '=', storeId).where('id', '=', customerId).execute();
}

/** Escapes LIKE's wildcards in a user's search. */
const likeEscaped = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The admin list's query: a store's customers, optionally matching `q` (an email prefix when it
 * holds an `@`, else part of the name or email, folded like search) and accounts or guests only.
 */
export function customersQuery(
  db: Kysely<Database>,
  storeId: string,
  filter: { q?: string | undefined; hasAccount?: boolean | undefined },
) {
  let query = db.selectFrom('customers').selectAll().where('store_id', '=', storeId);
  const q = filter.q?.trim().toLowerCase();
  if (q) {
    query = q.includes('@')
      ? query.where(sql<SqlBool>`email LIKE ${`${likeEscaped(q)}%`}`)
      : query.where(sql<SqlBool>`search_text LIKE '%' || storefront_search_fold(${likeEscaped(q)}) || '%'`);
  }
  if (filter.hasAccount !== undefined)
    query = query.where('verified_at', filter.hasAccount ? 'is not' : 'is', null);
  return query;
}

// Addresses

export function customerAddresses(
  db: Kysely<Database>,
  storeId: string,
  customerId: string,
): Promise<CustomerAddressRow[]> {
  return db
    .selectFrom('customer_addresses')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('customer_id', '=', customerId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export function findAddress(
  db: Kysely<Database>,
  storeId: string,
  customerId: string,
  addressId: string,
): Promise<CustomerAddressRow | undefined> {
  return db
    .selectFrom('customer_addresses')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('customer_id', '=', customerId)
    .where('id', '=', addressId)
    .executeTakeFirst();
}

export async function countAddresses(
  db: Kysely<Database>,
  storeId: string,
  customerId: string,
): Promise<number> {
  const row = await db
    .selectFrom('customer_addresses')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('store_id', '=', storeId)
    .where('customer_id', '=', customerId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function insertAddress(
  trx: Transaction<Database>,
  storeId: string,
  customerId: string,
  address: Address,
  now: Date,
): Promise<CustomerAddressRow> {
  return trx
    .insertInto('customer_addresses')
    .values({
      store_id: storeId,
      customer_id: customerId,
      address: JSON.stringify(address),
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function replaceAddress(
  trx: Transaction<Database>,
  storeId: string,
  addressId: string,
  address: Address,
  now: Date,
): Promise<CustomerAddressRow> {
  return trx
    .updateTable('customer_addresses')
    .set({ address: JSON.stringify(address), updated_at: now })
    .where('store_id', '=', storeId)
    .where('id', '=', addressId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteAddress(
  trx: Transaction<Database>,
  storeId: string,
  customerId: string,
  addressId: string,
): Promise<boolean> {
  const result = await trx
    .deleteFrom('customer_addresses')
    .where('store_id', '=', storeId)
    .where('customer_id', '=', customerId)
    .where('id', '=', addressId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

// Sessions

export async function insertSession(
  trx: Transaction<Database>,
  session: { storeId: string; customerId: string; expiresAt: Date; now: Date },
): Promise<string> {
  const row = await trx
    .insertInto('customer_sessions')
    .values({
      store_id: session.storeId,
      customer_id: session.customerId,
      expires_at: session.expiresAt,
      last_used_at: session.now,
      created_at: session.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A session that is live (not revoked, not expired, within its absolute lifetime), with its customer. */
export function findLiveSession(
  db: Kysely<Database>,
  storeId: string,
  sessionId: string,
  now: Date,
  createdAfter: Date,
) {
  return db
    .selectFrom('customer_sessions as s')
    .innerJoin('customers as c', (join) =>
      join.onRef('c.store_id', '=', 's.store_id').onRef('c.id', '=', 's.customer_id'),
    )
    .select([
      's.store_id',
      's.id as session_id',
      's.customer_id',
      's.expires_at',
      's.last_used_at',
      's.created_at',
      'c.email',
    ])
    .where('s.store_id', '=', storeId)
    .where('s.id', '=', sessionId)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', now)
    .where('s.created_at', '>', createdAfter)
    .executeTakeFirst();
}

export async function slideSession(
  db: Kysely<Database>,
  storeId: string,
  sessionId: string,
  expiresAt: Date,
  now: Date,
): Promise<void> {
  await db
    .updateTable('customer_sessions')
    .set({ expires_at: expiresAt, last_used_at: now })
    .where('store_id', '=', storeId)
    .where('id', '=', sessionId)
    .execute();
}

export async function revokeSession(
  trx: Transaction<Database>,
  storeId: string,
  sessionId: string,
  now: Date,
): Promise<void> {
  await trx
    .updateTable('customer_sessions')
    .set({ revoked_at: now })
    .where('store_id', '=', storeId)
    .where('id', '=', sessionId)
    .execute();
}

export function customerSessions(db: Kysely<Database>, storeId: string, customerId: string) {
  return db
    .selectFrom('customer_sessions')
    .select(['id', 'created_at', 'last_used_at', 'expires_at', 'revoked_at'])
    .where('store_id', '=', storeId)
    .where('customer_id', '=', customerId)
    .orderBy('created_at', 'desc')
    .execute();
}

/** Sessions that expired or were revoked before `before` (a system purge, across stores). */
export function staleSessions(db: Kysely<Database>, now: Date, revokedBefore: Date, limit: number) {
  return db
    .selectFrom('customer_sessions')
    .select(['store_id', 'id'])
    .where((eb) => eb.or([eb('expires_at', '<', now), eb('revoked_at', '<', revokedBefore)]))
    .limit(limit)
    .execute();
}

export async function deleteSession(trx: Transaction<Database>, storeId: string, sessionId: string) {
  await trx
    .deleteFrom('customer_sessions')
    .where('store_id', '=', storeId)
    .where('id', '=', sessionId)
    .execute();
}

// Sign-in codes

interface CodeOwner {
  storeId: string;
  emailHash: string;
  clientHash: string;
}

/** Codes made for an email since `since`: in all, and for one of its clients. */
export async function countCodesSince(
  db: Kysely<Database>,
  code: CodeOwner,
  since: Date,
): Promise<{ member: number; client: number }> {
  const row = await db
    .selectFrom('customer_sign_in_codes')
    .select((eb) => [
      eb.fn.countAll<number>().as('member'),
      eb.fn.countAll<number>().filterWhere('client_hash', '=', code.clientHash).as('client'),
    ])
    .where('store_id', '=', code.storeId)
    .where('email_hash', '=', code.emailHash)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return { member: Number(row.member), client: Number(row.client) };
}

/** Voids the pending codes of one client of an email (not other clients'). */
export async function voidPendingCodes(db: Kysely<Database>, code: CodeOwner, now: Date): Promise<void> {
  await db
    .updateTable('customer_sign_in_codes')
    .set({ voided_at: now })
    .where('store_id', '=', code.storeId)
    .where('email_hash', '=', code.emailHash)
    .where('client_hash', '=', code.clientHash)
    .where('used_at', 'is', null)
    .where('voided_at', 'is', null)
    .execute();
}

export async function insertCode(
  db: Kysely<Database>,
  code: CodeOwner & { hash: string; expiresAt: Date; now: Date },
): Promise<void> {
  await db
    .insertInto('customer_sign_in_codes')
    .values({
      store_id: code.storeId,
      email_hash: code.emailHash,
      client_hash: code.clientHash,
      code_hash: code.hash,
      expires_at: code.expiresAt,
      created_at: code.now,
    })
    .execute();
}

/**
 * Spends one attempt on the newest usable code of an email's client and hands back its hash, in
 * one conditional UPDATE: a guess is counted before it is compared, and a code whose attempts are
 * used up is not returned, so at most `maxAttempts` guesses ever see a code's hash however many
 * arrive at once.
 */
export function spendCodeAttempt(
  db: Kysely<Database>,
  code: CodeOwner,
  now: Date,
  maxAttempts: number,
): Promise<{ id: string; code_hash: string } | undefined> {
  return db
    .updateTable('customer_sign_in_codes')
    .set({ attempts: sql<number>`attempts + 1` })
    .where('store_id', '=', code.storeId)
    .where('id', '=', (eb) =>
      eb
        .selectFrom('customer_sign_in_codes')
        .select('id')
        .where('store_id', '=', code.storeId)
        .where('email_hash', '=', code.emailHash)
        .where('client_hash', '=', code.clientHash)
        .where('used_at', 'is', null)
        .where('voided_at', 'is', null)
        .where('expires_at', '>', now)
        .orderBy('created_at', 'desc')
        .limit(1),
    )
    .where('used_at', 'is', null)
    .where('voided_at', 'is', null)
    .where('expires_at', '>', now)
    .where('attempts', '<', maxAttempts)
    .returning(['id', 'code_hash'])
    .executeTakeFirst();
}

/** Uses a code once (its attempt already counted): true when this call used it. */
export async function useCode(
  db: Kysely<Database>,
  storeId: string,
  codeId: string,
  now: Date,
): Promise<boolean> {
  const row = await db
    .updateTable('customer_sign_in_codes')
    .set({ used_at: now })
    .where('store_id', '=', storeId)
    .where('id', '=', codeId)
    .where('used_at', 'is', null)
    .where('voided_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function deleteCodesOfEmail(trx: Transaction<Database>, storeId: string, emailHash: string) {
  await trx
    .deleteFrom('customer_sign_in_codes')
    .where('store_id', '=', storeId)
    .where('email_hash', '=', emailHash)
    .execute();
}

/** Deletes at most `limit` codes made before `before` (a system purge, across stores). */
export async function deleteCodesMadeBefore(db: Kysely<Database>, before: Date, limit: number) {
  const result = await db
    .deleteFrom('customer_sign_in_codes')
    .where('id', 'in', (eb) =>
      eb.selectFrom('customer_sign_in_codes').select('id').where('created_at', '<', before).limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

// Privacy log

export async function insertPrivacyLog(
  trx: Kysely<Database>,
  entry: {
    storeId: string;
    action: PrivacyAction;
    customerId: string;
    actor: 'staff' | 'customer';
    staffId: string | null;
    staffEmail: string | null;
    now: Date;
  },
): Promise<void> {
  await trx
    .insertInto('privacy_log')
    .values({
      store_id: entry.storeId,
      action: entry.action,
      customer_id: entry.customerId,
      actor: entry.actor,
      staff_id: entry.staffId,
      staff_email: entry.staffEmail,
      created_at: entry.now,
    })
    .execute();
}

export function privacyLogQuery(db: Kysely<Database>, storeId: string) {
  return db.selectFrom('privacy_log').selectAll().where('store_id', '=', storeId);
}

export function privacyLogOf(
  db: Kysely<Database>,
  storeId: string,
  customerId: string,
): Promise<PrivacyLogRow[]> {
  return privacyLogQuery(db, storeId).where('customer_id', '=', customerId).orderBy('created_at').execute();
}
