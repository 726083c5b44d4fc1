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

/** A new customer of an email (an import's), or undefined when the store has one of that email already. */
export function insertCustomer(
  trx: Transaction<Database>,
  storeId: string,
  customer: { email: string; name: string | null; phone: string | null; accepts_marketing: boolean },
  now: Date,
): Promise<CustomerRow | undefined> {
  return trx
    .insertInto('customers')
    .values({ store_id: storeId, ...customer, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['store_id', 'email']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** The customer of an email, locked for the rest of the transaction. */
export function lockCustomerByEmail(
  trx: Transaction<Database>,
  storeId: string,
  email: string,
): Promise<CustomerRow | undefined> {
  return trx
    .selectFrom('customers')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('email', '=', email)
    .forUpdate()
    .executeTakeFirst();
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

/** The default addresses of these customers (those that have one), by customer. */
export async function defaultAddressesOf(
  db: Kysely<Database>,
  storeId: string,
  customerIds: readonly string[],
): Promise<Map<string, CustomerAddressRow['address']>> {
  if (customerIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('customers as c')
    .innerJoin('customer_addresses as a', (join) =>
      join.onRef('a.store_id', '=', 'c.store_id').onRef('a.id', '=', 'c.default_address_id'),
    )
    .select(['c.id', 'a.address'])
    .where('c.store_id', '=', storeId)
    .where('c.id', 'in', [...customerIds])
    .execute();
  return new Map(rows.map((row) => [row.id, row.address]));
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

// Sessions (their SQL is the sign-in module's; these join the customer, list for an export)

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

export function customerSessions(db: Kysely<Database>, storeId: string, customerId: string) {
  return db
    .selectFrom('customer_sessions')
    .select(['id', 'created_at', 'last_used_at', 'expires_at', 'revoked_at'])
    .where('store_id', '=', storeId)
    .where('customer_id', '=', customerId)
    .orderBy('created_at', 'desc')
    .execute();
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
