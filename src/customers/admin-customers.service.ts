import type { ListPage } from '../lib/cursors.ts';
import { byCreated } from '../db/keyset.ts';
import {
  customerAdminOrders,
  customerOrderTotals,
  type CustomerOrderStats,
} from '../orders/buyers.service.ts';
import { storeCurrency } from '../stores/stores.service.ts';
import { groupIdsByCustomer } from './customer-groups.service.ts';
import { customerAddresses, customersQuery } from './customers.repository.ts';
import type { AdminCustomer, AdminCustomerDetail } from './customers.schemas.ts';
import { addressList, customerView, getCustomer, type CustomersDeps } from './customers.service.ts';
import type { CustomerRow } from './customers.tables.ts';

/**
 * The merchant's views of customers (Admin API): the list and a customer's page, with their order
 * totals and their groups.
 */

function adminCustomerView(
  row: CustomerRow,
  stats: CustomerOrderStats,
  currency: string,
  groupIds: string[],
): AdminCustomer {
  return {
    ...customerView(row),
    ordersCount: stats.ordersCount,
    totalSpent: { amount: stats.totalSpent, currency },
    lastOrderAt: row.last_order_at?.toISOString() ?? null,
    openOrders: stats.openOrders,
    groupIds,
  };
}

/**
 * GET /admin/v1/customers: newest first, optionally matching `q` (an email prefix with an `@`,
 * else part of the name or email) and accounts or guests only; each with its order totals.
 */
export async function listCustomers(
  deps: CustomersDeps,
  storeId: string,
  query: { q?: string | undefined; hasAccount?: boolean | undefined; limit?: number; cursor?: string },
): Promise<ListPage<AdminCustomer>> {
  const q = query.q?.trim() || undefined;
  const scope = `${storeId}:customers:${query.hasAccount ?? '*'}:${JSON.stringify(q ?? '')}`;
  const [currency, page] = await Promise.all([
    storeCurrency(deps, storeId),
    byCreated(
      deps.cursors,
      scope,
      customersQuery(deps.db, storeId, { q, hasAccount: query.hasAccount }),
      query,
      (row) => row,
      '',
      true,
    ),
  ]);
  const ids = page.items.map((row) => row.id);
  const [stats, groups] = await Promise.all([
    customerOrderTotals(deps, storeId, ids),
    groupIdsByCustomer(deps, storeId, ids),
  ]);
  return {
    items: page.items.map((row) => adminCustomerView(row, stats(row.id), currency, groups(row.id))),
    nextCursor: page.nextCursor,
  };
}

/** The customers shown with an order (newest 50) on the admin detail. */
export const DETAIL_ORDERS = 50;

/** GET /admin/v1/customers/:id: the customer with totals, addresses and their newest orders. */
export async function adminCustomer(
  deps: CustomersDeps,
  storeId: string,
  customerId: string,
): Promise<AdminCustomerDetail> {
  const row = await getCustomer(deps, storeId, customerId);
  const [currency, stats, addresses, orders, groups] = await Promise.all([
    storeCurrency(deps, storeId),
    customerOrderTotals(deps, storeId, [customerId]),
    customerAddresses(deps.db, storeId, customerId),
    customerAdminOrders(deps, storeId, customerId, DETAIL_ORDERS),
    groupIdsByCustomer(deps, storeId, [customerId]),
  ]);
  return {
    ...adminCustomerView(row, stats(customerId), currency, groups(customerId)),
    addresses: addressList(addresses, row.default_address_id),
    orders,
  };
}
