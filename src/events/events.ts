import { sql, type Kysely, type QueryCreator, type RawBuilder, type Transaction } from 'kysely';
import { backlogColumns, queueBacklog, type QueueBacklog } from '../db/backlog.ts';
import type { Database } from '../db/tables.ts';

/**
 * The domain event types: the ten of the specification (section 6.1), then those of decision `event-types`,
 * added without changing the others (an endpoint subscribed to `*` receives them too).
 */
export const EVENT_TYPES = [
  'order.created',
  'order.paid',
  'order.refunded',
  'inventory.updated',
  'product.created',
  'product.updated',
  'product.deleted',
  'content.updated',
  'theme.published',
  'app.installed',
  'fulfillment.created',
  'fulfillment.updated',
  'order.cancelled',
  'return.created',
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'promotion.created',
  'promotion.updated',
  'promotion.deleted',
  'gift_card.issued',
  'gift_card.updated',
  'import.completed',
  'draft_order.created',
  'draft_order.updated',
  'draft_order.completed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

export interface NewEvent {
  storeId: string;
  type: EventType;
  /**
   * The resource the event is about, declared by the feature that emits it (`order:<id>`,
   * `product:<id>`, `variant:<id>`, `content:<kind>:<id>`, `theme`, `app:<id>`): each endpoint
   * receives the events of one resource in the order they were recorded, and those of different
   * resources in parallel (decision `webhook-delivery`).
   */
  resource: string;
  data: Record<string, unknown>;
}

export interface RecordedEvent {
  id: string;
  storeId: string;
  type: EventType;
  createdAt: Date;
  data: Record<string, unknown>;
}

/**
 * Writes a domain event into the outbox inside the caller's transaction, so the event exists if
 * and only if the change commits. This is the only way events are created; no module sends
 * webhooks directly. `data` always carries `storeId`.
 */
export async function recordEvent(trx: Transaction<Database>, event: NewEvent): Promise<RecordedEvent> {
  const values = eventValues(event);
  const row = await trx
    .insertInto('events')
    .values({ ...values, data: JSON.stringify(values.data) })
    .returning(['id', 'created_at'])
    .executeTakeFirstOrThrow();
  return {
    id: row.id,
    storeId: event.storeId,
    type: event.type,
    createdAt: row.created_at,
    data: values.data,
  };
}

/** The outbox row of an event (recordEvent, eventInsert): `data` always carries `storeId`, the resource key is bounded. */
function eventValues(event: NewEvent): {
  store_id: string;
  type: EventType;
  resource_key: string;
  data: Record<string, unknown>;
} {
  return {
    store_id: event.storeId,
    type: event.type,
    resource_key: event.resource.slice(0, 300),
    data: { ...event.data, storeId: event.storeId },
  };
}

/**
 * An event recorded by a statement of the caller, as one of its data-modifying CTEs
 * (`.with('event', (db) => eventInsert(db, event, { from: 'changed', more }))`): it commits with the
 * caller's transaction like recordEvent. With `from` (another CTE of the statement) one event is
 * recorded per row it returns (those `where` keeps), none when it returns none; `more` adds data
 * fields computed from that row (a `jsonb` expression).
 */
export function eventInsert<DB extends Database>(
  db: QueryCreator<DB>,
  event: NewEvent,
  options: { from?: string; where?: RawBuilder<unknown>; more?: RawBuilder<unknown> } = {},
) {
  const values = eventValues(event);
  let data = sql`${JSON.stringify(values.data)}::jsonb`;
  if (options.more) data = sql`${data} || ${options.more}`;
  // The caller's CTEs widen its database type; this statement names only the events table.
  return (db as unknown as QueryCreator<Database>)
    .insertInto('events')
    .columns(['store_id', 'type', 'resource_key', 'data'])
    .expression(
      sql`SELECT ${values.store_id}::uuid, ${values.type}::text, ${values.resource_key}::text, ${data}${
        options.from ? sql` FROM ${sql.table(options.from)}` : sql``
      }${options.where ? sql` WHERE ${options.where}` : sql``}`,
    )
    .returning('id');
}

/**
 * The last event sequence number handed out so far, by any transaction, committed or not (0 before
 * the first): every event recorded before this expression runs has a `seq` at or below it, every
 * one recorded after, above (the sequence is not transactional). Webhook endpoints note it at their
 * creation (decision `events-after-endpoint`).
 */
export function lastEventSeq(): RawBuilder<number> {
  return sql<number>`COALESCE(pg_sequence_last_value(pg_get_serial_sequence('events', 'seq')::regclass), 0)`;
}

/** Events of one store, oldest first (admin inspection and tests). */
export async function listEvents(
  db: Kysely<Database>,
  storeId: string,
  options: { type?: EventType; limit?: number } = {},
): Promise<RecordedEvent[]> {
  let query = db
    .selectFrom('events')
    .select(['id', 'store_id', 'type', 'data', 'created_at'])
    .where('store_id', '=', storeId)
    .orderBy('seq')
    .limit(options.limit ?? 1000);
  if (options.type) query = query.where('type', '=', options.type);
  const rows = await query.execute();
  return rows.map((row) => ({
    id: row.id,
    storeId: row.store_id,
    type: row.type as EventType,
    createdAt: row.created_at,
    data: row.data,
  }));
}

/**
 * Clears one data field of some resources' events of one type (an erasure: `order.cancelled`
 * carries the reason staff typed, which may name the buyer). The events stay, their ids and order.
 */
export async function clearEventField(
  db: Kysely<Database>,
  storeId: string,
  type: EventType,
  resources: readonly string[],
  field: string,
): Promise<void> {
  if (resources.length === 0) return;
  await db
    .updateTable('events')
    .set({ data: sql`jsonb_set(data, ${sql.lit(`{${field}}`)}::text[], 'null'::jsonb)` })
    .where('store_id', '=', storeId)
    .where('type', '=', type)
    .where('resource_key', 'in', [...resources])
    .where(sql`data ->> ${field}`, 'is not', null)
    .execute();
}

/** Events recorded and not yet fanned out by the relay, and the oldest one's age (metrics, decision `metrics-off-until-readable`). */
export async function outboxBacklog(db: Kysely<Database>, now: Date): Promise<QueueBacklog> {
  const row = await db
    .selectFrom('events')
    .where('dispatched_at', 'is', null)
    .select((eb) => backlogColumns(eb))
    .executeTakeFirst();
  return queueBacklog(row, now);
}
