import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { CustomerGroupRow } from './customers.tables.ts';

/** All SQL on customer groups and their members (decision `customer-groups`). */

type Db = Kysely<Database> | Transaction<Database>;

export type CustomerGroupWithCount = CustomerGroupRow & { member_count: number };

/** How many customers a group holds (on the index of members by group). */
const memberCount = sql<number>`(
  SELECT count(*) FROM customer_group_members m
  WHERE m.store_id = customer_groups.store_id AND m.group_id = customer_groups.id)`.as('member_count');

/** The admin list's query: a store's groups, each with how many customers it holds. */
export function groupsQuery(db: Db, storeId: string) {
  return db
    .selectFrom('customer_groups')
    .selectAll()
    .select(memberCount)
    .where('customer_groups.store_id', '=', storeId);
}

export function findGroup(db: Db, storeId: string, groupId: string) {
  return groupsQuery(db, storeId).where('customer_groups.id', '=', groupId).executeTakeFirst();
}

/** A new group (a name another group of the store has, whatever its case: 23505). */
export function insertGroup(db: Db, storeId: string, name: string, now: Date): Promise<CustomerGroupRow> {
  return db
    .insertInto('customer_groups')
    .values({ store_id: storeId, name, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function renameGroup(
  db: Db,
  storeId: string,
  groupId: string,
  name: string,
  now: Date,
): Promise<boolean> {
  const row = await db
    .updateTable('customer_groups')
    .set({ name, updated_at: now })
    .where('store_id', '=', storeId)
    .where('id', '=', groupId)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Deletes a group; its memberships and its places in price lists go with it (cascades). */
export async function deleteGroup(db: Db, storeId: string, groupId: string): Promise<boolean> {
  const row = await db
    .deleteFrom('customer_groups')
    .where('store_id', '=', storeId)
    .where('id', '=', groupId)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Those of `groupIds` that are groups of the store. */
export async function existingGroupIds(
  db: Db,
  storeId: string,
  groupIds: readonly string[],
): Promise<string[]> {
  if (groupIds.length === 0) return [];
  const rows = await db
    .selectFrom('customer_groups')
    .select('id')
    .where('store_id', '=', storeId)
    .where('id', 'in', [...groupIds])
    .execute();
  return rows.map((row) => row.id);
}

/** The group ids of customers: (customer, group) pairs, in group id order. */
export function membershipsOf(db: Db, storeId: string, customerIds: readonly string[]) {
  if (customerIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('customer_group_members')
    .select(['customer_id', 'group_id'])
    .where('store_id', '=', storeId)
    .where('customer_id', 'in', [...customerIds])
    .orderBy('group_id')
    .execute();
}

/** The groups a customer is in, by name (their data export). */
export function groupsOfCustomer(db: Db, storeId: string, customerId: string) {
  return db
    .selectFrom('customer_group_members as m')
    .innerJoin('customer_groups as g', (join) =>
      join.onRef('g.store_id', '=', 'm.store_id').onRef('g.id', '=', 'm.group_id'),
    )
    .select(['g.id', 'g.name'])
    .where('m.store_id', '=', storeId)
    .where('m.customer_id', '=', customerId)
    .orderBy('g.name')
    .orderBy('g.id')
    .execute();
}

/** Sets a customer's groups to exactly `groupIds` (a group deleted meanwhile makes the database refuse: 23503). */
export async function replaceMemberships(
  trx: Transaction<Database>,
  storeId: string,
  customerId: string,
  groupIds: readonly string[],
): Promise<void> {
  await trx
    .deleteFrom('customer_group_members')
    .where('store_id', '=', storeId)
    .where('customer_id', '=', customerId)
    .execute();
  if (groupIds.length === 0) return;
  await trx
    .insertInto('customer_group_members')
    .values(groupIds.map((groupId) => ({ store_id: storeId, customer_id: customerId, group_id: groupId })))
    .execute();
}
