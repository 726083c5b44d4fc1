import { sql, type Insertable, type Kysely, type SelectQueryBuilder, type Updateable } from 'kysely';
import { nextBatch } from '../db/keyset.ts';
import type { Database } from '../db/tables.ts';
import { lastEventSeq } from '../events/events.ts';
import type {
  DeliveryKind,
  DeliveryStatus,
  WebhookDeliveryRow,
  WebhookDeliveryTable,
  WebhookEndpointRow,
  WebhookEndpointTable,
} from './webhooks.tables.ts';

/**
 * All SQL on webhook endpoints and deliveries that the admin API needs (the relay's own is in
 * webhooks.relay.repository.ts). Deliveries are read with their event's type from the shared
 * `events` outbox.
 */

/** The NOTIFY channel that wakes relays (events trigger, manual retries, replays, re-enabled endpoints). */
export const WEBHOOK_CHANNEL = 'storefront_webhooks';

/**
 * The payload of the admin API's notifications (retries, replays, re-enabled endpoints): deliveries
 * to claim. The events trigger notifies with an empty payload (events to fan out), and relays with
 * their own id (webhooks.relay.ts).
 */
export const CLAIM_PAYLOAD = 'claim';

/** Wakes relays to claim due deliveries (a no-op without listeners; delivered at commit). */
export async function notifyRelays(db: Kysely<Database>): Promise<void> {
  await sql`SELECT pg_notify(${WEBHOOK_CHANNEL}, ${CLAIM_PAYLOAD})`.execute(db);
}

export function endpointsQuery(
  db: Kysely<Database>,
  storeId: string,
): SelectQueryBuilder<Database, 'webhook_endpoints', WebhookEndpointRow> {
  return db.selectFrom('webhook_endpoints').selectAll().where('store_id', '=', storeId);
}

export function findEndpoint(
  db: Kysely<Database>,
  storeId: string,
  id: string,
): Promise<WebhookEndpointRow | undefined> {
  return endpointsQuery(db, storeId).where('id', '=', id).executeTakeFirst();
}

export async function countEndpoints(db: Kysely<Database>, storeId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('store_id', '=', storeId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Inserts an endpoint that will receive only the events recorded after this statement: it notes the
 * last event sequence number handed out and the database's clock rounded up to the millisecond
 * (the fan-out compares both, decision `events-after-endpoint`).
 */
export function insertEndpoint(
  db: Kysely<Database>,
  endpoint: Omit<Insertable<WebhookEndpointTable>, 'events_after_seq' | 'events_after_at'>,
): Promise<WebhookEndpointRow> {
  return db
    .insertInto('webhook_endpoints')
    .values({
      ...endpoint,
      events_after_seq: lastEventSeq(),
      events_after_at: sql<Date>`date_trunc('milliseconds', clock_timestamp()) + interval '1 millisecond'`,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function updateEndpointRow(
  db: Kysely<Database>,
  storeId: string,
  id: string,
  changes: Updateable<WebhookEndpointTable>,
): Promise<WebhookEndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set(changes)
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes an endpoint (its deliveries go with it); false when there was none. */
export async function deleteEndpointRow(db: Kysely<Database>, storeId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('webhook_endpoints')
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows !== 0n;
}

/** The endpoint's current secret, its row locked until the transaction ends. */
export function lockEndpointSecret(
  db: Kysely<Database>,
  storeId: string,
  id: string,
): Promise<{ secret_ciphertext: string } | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .select('secret_ciphertext')
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/** One batch of every store's endpoint secrets in (store_id, id) order, after `after`. */
export function endpointSecretsAfter(
  db: Kysely<Database>,
  after: { store_id: string; id: string } | undefined,
  limit: number,
): Promise<
  Pick<WebhookEndpointRow, 'store_id' | 'id' | 'secret_ciphertext' | 'previous_secret_ciphertext'>[]
> {
  return nextBatch(
    db
      .selectFrom('webhook_endpoints')
      .select(['store_id', 'id', 'secret_ciphertext', 'previous_secret_ciphertext']),
    after,
    limit,
  );
}

/** Writes re-encrypted secrets, unless the secret changed since it was read (a rotation won). */
export async function writeEndpointSecrets(
  db: Kysely<Database>,
  row: { store_id: string; id: string; secret_ciphertext: string },
  changes: { secret_ciphertext?: string; previous_secret_ciphertext?: string },
): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set(changes)
    .where('store_id', '=', row.store_id)
    .where('id', '=', row.id)
    .where('secret_ciphertext', '=', row.secret_ciphertext)
    .execute();
}

export type DeliveryListRow = WebhookDeliveryRow & { event_type: string; envelope_id: string };

/**
 * The deliveries query with each delivery's event type and envelope id (lists and single reads):
 * from the event it sends, or, for a test delivery (no event), from its own columns.
 */
export function deliveriesQuery(
  db: Kysely<Database>,
  storeId: string,
  filter: { endpointId?: string | undefined; status?: DeliveryStatus | undefined } = {},
) {
  let query = db
    .selectFrom('webhook_deliveries as d')
    .leftJoin('events as ev', (join) =>
      join.onRef('ev.store_id', '=', 'd.store_id').onRef('ev.id', '=', 'd.event_id'),
    )
    .selectAll('d')
    .select([
      sql<string>`coalesce(ev.type, d.test_event_type)`.as('event_type'),
      sql<string>`coalesce(d.event_id, d.test_event_id)`.as('envelope_id'),
    ])
    .where('d.store_id', '=', storeId);
  if (filter.endpointId !== undefined) query = query.where('d.endpoint_id', '=', filter.endpointId);
  if (filter.status !== undefined) query = query.where('d.status', '=', filter.status);
  return query;
}

/** How many of the store's deliveries of events (test sends not counted) have this status. */
export async function countDeliveries(
  db: Kysely<Database>,
  storeId: string,
  status: DeliveryStatus,
): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('store_id', '=', storeId)
    .where('status', '=', status)
    .where('kind', '<>', 'test')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function findDelivery(
  db: Kysely<Database>,
  storeId: string,
  id: string,
): Promise<DeliveryListRow | undefined> {
  return deliveriesQuery(db, storeId).where('d.id', '=', id).executeTakeFirst();
}

/** Whether a replay of the endpoint still has deliveries pending. */
export async function hasPendingReplay(
  db: Kysely<Database>,
  storeId: string,
  endpointId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('store_id', '=', storeId)
    .where('endpoint_id', '=', endpointId)
    .where('kind', '=', 'replay')
    .where('status', '=', 'pending')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Dispatched events of a store created in [since, until), of the given types (null: all), after
 * `afterSeq`, oldest first, at most `limit`: what a replay re-sends.
 */
export function dispatchedEventsBetween(
  db: Kysely<Database>,
  storeId: string,
  range: { since: Date; until: Date | undefined; types: string[] | null; afterSeq: number; limit: number },
): Promise<{ id: string; seq: number; type: string; resource_key: string | null }[]> {
  let query = db
    .selectFrom('events')
    .select(['id', 'seq', 'type', 'resource_key'])
    .where('store_id', '=', storeId)
    .where('created_at', '>=', range.since)
    .where('dispatched_at', 'is not', null)
    .where('seq', '>', range.afterSeq)
    .orderBy('seq')
    .limit(range.limit);
  if (range.until) query = query.where('created_at', '<', range.until);
  if (range.types !== null) query = query.where('type', 'in', range.types);
  return query.execute();
}

export async function insertDeliveries(
  db: Kysely<Database>,
  deliveries: Insertable<WebhookDeliveryTable>[],
): Promise<void> {
  await db.insertInto('webhook_deliveries').values(deliveries).execute();
}

/** Whether the endpoint exists; it then stays until the transaction ends (FOR SHARE). */
export async function holdEndpoint(db: Kysely<Database>, storeId: string, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .forShare()
    .executeTakeFirst();
  return row !== undefined;
}

/** A delivery's status and kind and whether its endpoint is enabled, the delivery row locked. */
export function lockDeliveryWithEndpoint(
  db: Kysely<Database>,
  storeId: string,
  id: string,
): Promise<{ status: DeliveryStatus; kind: DeliveryKind; enabled: boolean } | undefined> {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', (join) =>
      join.onRef('e.store_id', '=', 'd.store_id').onRef('e.id', '=', 'd.endpoint_id'),
    )
    .select(['d.status', 'd.kind', 'e.enabled'])
    .where('d.store_id', '=', storeId)
    .where('d.id', '=', id)
    .forUpdate('d')
    .executeTakeFirst();
}

/** Makes a delivery pending and due at `now`; `releaseLease` also ends any relay's lease on it. */
export async function requeueDelivery(
  db: Kysely<Database>,
  storeId: string,
  id: string,
  now: Date,
  releaseLease: boolean,
): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({
      status: 'pending',
      next_attempt_at: now,
      delivered_at: null,
      failed_at: null,
      updated_at: now,
      ...(releaseLease ? { locked_until: null } : {}),
    })
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .execute();
}
