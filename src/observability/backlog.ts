import type { Kysely } from 'kysely';
import type { QueueBacklog } from '../db/backlog.ts';
import type { Database } from '../db/tables.ts';
import { outboxBacklog } from '../events/events.ts';
import { mailBacklog } from '../mail/outbox.ts';
import { platformOrderCounts } from '../orders/orders.service.ts';
import { deliveryBacklog } from '../webhooks/webhooks.service.ts';

/** The platform's queues and orders at one moment, across every store (the operator's view, decision `metrics-off-until-readable`). */
export interface Backlog {
  outbox: QueueBacklog;
  deliveries: QueueBacklog;
  mail: QueueBacklog;
  ordersByStatus: Record<string, number>;
  /** Unpaid orders over a minute past their expiry: the expiry loop is behind or not running. */
  ordersPastExpiry: number;
}

/**
 * Reads the backlog from each queue's owner. The queue reads go through the partial indexes of
 * pending rows, so they cost what the backlog is, not what the tables hold.
 */
export async function backlogOf(db: Kysely<Database>, now: Date): Promise<Backlog> {
  const [outbox, deliveries, mail, orders] = await Promise.all([
    outboxBacklog(db, now),
    deliveryBacklog(db, now),
    mailBacklog(db, now),
    platformOrderCounts(db, now),
  ]);
  return { outbox, deliveries, mail, ordersByStatus: orders.byStatus, ordersPastExpiry: orders.pastExpiry };
}
