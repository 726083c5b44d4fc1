import { byCreated } from '../db/keyset.ts';
import { isForeignKeyViolation, isUniqueViolation } from '../db/errors.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import type { ListPage } from '../lib/cursors.ts';
import { AppError, notFound, validationFailed, type FieldError } from '../lib/errors.ts';
import {
  deleteGroup,
  existingGroupIds,
  findGroup,
  groupsOfCustomer,
  groupsQuery,
  insertGroup,
  membershipsOf,
  renameGroup,
  replaceMemberships,
  type CustomerGroupWithCount,
} from './customer-groups.repository.ts';
import type {
  CustomerGroup,
  CustomerGroupBody,
  CustomerGroupIds,
  CustomerGroupsBody,
} from './customer-groups.schemas.ts';
import { lockCustomer, updateCustomer } from './customers.repository.ts';
import { recordCustomerEvent } from './customers.service.ts';

/**
 * Customer groups (decision `customer-groups`): named sets of a store's customers ("Wholesale",
 * "VIP") that price lists are limited to. Staff set a customer's groups; a signed-in customer's
 * groups choose the prices they see (`customerGroupIdsOf` in customers.auth.ts).
 */

type Deps = Pick<ServiceDeps, 'db' | 'clock'>;

const noGroup = () => notFound('No customer group with that id in this store.');
const noCustomer = () => notFound('No customer with that id in this store.');
const nameTaken = (name: string) =>
  new AppError(
    'customer_group_exists',
    409,
    `A customer group named ${JSON.stringify(name)} exists already.`,
    {
      errors: [
        { pointer: '/name', detail: 'is the name of another group of this store (whatever its case)' },
      ],
    },
  );

function groupView(row: CustomerGroupWithCount): CustomerGroup {
  return {
    id: row.id,
    name: row.name,
    memberCount: Number(row.member_count),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** GET /admin/v1/customer-groups: oldest first, each with its member count. */
export function listCustomerGroups(
  deps: Pick<ServiceDeps, 'db' | 'cursors'>,
  storeId: string,
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<ListPage<CustomerGroup>> {
  return byCreated(
    deps.cursors,
    `${storeId}:customer-groups`,
    groupsQuery(deps.db, storeId),
    page,
    groupView,
  );
}

export async function getCustomerGroup(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  groupId: string,
): Promise<CustomerGroup> {
  const row = await findGroup(deps.db, storeId, groupId);
  if (!row) throw noGroup();
  return groupView(row);
}

export async function createCustomerGroup(
  deps: Deps,
  storeId: string,
  body: CustomerGroupBody,
): Promise<CustomerGroup> {
  const name = body.name.trim();
  try {
    const row = await insertGroup(deps.db, storeId, name, deps.clock.now());
    return groupView({ ...row, member_count: 0 });
  } catch (error) {
    if (isUniqueViolation(error, 'customer_groups_name_idx')) throw nameTaken(name);
    throw error;
  }
}

export async function renameCustomerGroup(
  deps: Deps,
  storeId: string,
  groupId: string,
  body: CustomerGroupBody,
): Promise<CustomerGroup> {
  const name = body.name.trim();
  try {
    if (!(await renameGroup(deps.db, storeId, groupId, name, deps.clock.now()))) throw noGroup();
  } catch (error) {
    if (isUniqueViolation(error, 'customer_groups_name_idx')) throw nameTaken(name);
    throw error;
  }
  return getCustomerGroup(deps, storeId, groupId);
}

/**
 * Deletes a group: its customers leave it, and price lists limited to it no longer name it (a list
 * limited to groups that are all gone applies to nobody, never to everyone).
 */
export async function deleteCustomerGroup(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  groupId: string,
): Promise<void> {
  if (!(await deleteGroup(deps.db, storeId, groupId))) throw noGroup();
}

/** 400 at each `/groupIds/<i>` that is not a group of the store. */
async function unknownGroups(deps: Pick<ServiceDeps, 'db'>, storeId: string, groupIds: readonly string[]) {
  const known = new Set(await existingGroupIds(deps.db, storeId, groupIds));
  const errors: FieldError[] = [];
  groupIds.forEach((id, i) => {
    if (!known.has(id))
      errors.push({ pointer: `/groupIds/${i}`, detail: 'is not a customer group of this store' });
  });
  return errors;
}

/**
 * PUT /admin/v1/customers/:id/groups: the customer's groups become exactly these (repeats count
 * once); `customer.updated` names `groups` when they changed. Under the customer's row lock, so
 * concurrent changes apply one after the other.
 */
export async function setCustomerGroups(
  deps: Deps,
  storeId: string,
  customerId: string,
  body: CustomerGroupsBody,
): Promise<CustomerGroupIds> {
  const given = body.groupIds.map((id) => id.toLowerCase());
  const wanted = [...new Set(given)].sort();
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const customer = await lockCustomer(trx, storeId, customerId);
      if (!customer) throw noCustomer();
      const errors = await unknownGroups({ db: trx }, storeId, given);
      if (errors.length > 0) throw validationFailed('The customer’s groups are invalid.', errors);
      const current = (await membershipsOf(trx, storeId, [customerId])).map((row) => row.group_id);
      if (current.length === wanted.length && current.every((id, i) => id === wanted[i]))
        return { groupIds: wanted };
      await replaceMemberships(trx, storeId, customerId, wanted);
      const row = await updateCustomer(trx, storeId, customerId, {}, deps.clock.now());
      await recordCustomerEvent(trx, row, 'customer.updated', ['groups']);
      return { groupIds: wanted };
    });
  } catch (error) {
    // A group deleted between the check and the insert.
    if (isForeignKeyViolation(error, 'customer_group_members_group_fkey'))
      throw validationFailed('The customer’s groups are invalid.', await unknownGroups(deps, storeId, given));
    throw error;
  }
}

/** The sorted group ids of customers, as a lookup by customer id (admin views). */
export async function groupIdsByCustomer(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  customerIds: readonly string[],
): Promise<(customerId: string) => string[]> {
  const byCustomer = new Map<string, string[]>();
  for (const row of await membershipsOf(deps.db, storeId, customerIds))
    byCustomer.set(row.customer_id, [...(byCustomer.get(row.customer_id) ?? []), row.group_id]);
  return (customerId) => byCustomer.get(customerId) ?? [];
}

/** The groups a customer is in, by name (their data export). */
export function customerGroupsOf(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  customerId: string,
): Promise<{ id: string; name: string }[]> {
  return groupsOfCustomer(deps.db, storeId, customerId);
}
