import { lowStock } from '../catalog/inventory/inventory.ts';
import { sendingDomainStatus } from '../email/email.service.ts';
import { orderActivity } from '../orders/orders.service.ts';
import { getStore } from '../stores/stores.service.ts';
import { countFailedDeliveries } from '../webhooks/webhooks.service.ts';
import {
  DEFAULT_LOW_STOCK_THRESHOLD,
  LOW_STOCK_LIMIT,
  type AdminOverview,
  type OverviewQuery,
} from './overview.schemas.ts';
import type { ServiceDeps } from '../db/service-deps.ts';

/**
 * The console's home (composition: it reads several features, each through its own service, and
 * no feature depends on it). Every number is counted or summed by the database, in this store only.
 */

export type OverviewDeps = Pick<ServiceDeps, 'db'>;

export async function storeOverview(
  deps: OverviewDeps,
  storeId: string,
  query: OverviewQuery,
): Promise<AdminOverview> {
  const since = new Date(query.since);
  const threshold = query.lowStockThreshold ?? DEFAULT_LOW_STOCK_THRESHOLD;
  const [store, orders, stock, failedWebhookDeliveries, domain] = await Promise.all([
    getStore(deps, storeId),
    orderActivity(deps, storeId, since),
    lowStock(deps.db, storeId, threshold, LOW_STOCK_LIMIT),
    countFailedDeliveries(deps, storeId),
    sendingDomainStatus(deps, storeId),
  ]);
  return {
    since: since.toISOString(),
    orders: {
      paid: orders.paid,
      revenue: {
        amount: orders.revenue.find((r) => r.currency === store.currency)?.amount ?? 0,
        currency: store.currency,
      },
      pending: orders.pending,
      expired: orders.expired,
    },
    revenueByCurrency: orders.revenue,
    lowStock: { threshold, count: stock.count, variants: stock.variants },
    failedWebhookDeliveries,
    sendingDomain: domain,
  };
}
