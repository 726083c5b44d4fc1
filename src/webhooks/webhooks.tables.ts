import type { ColumnType, Generated, RawBuilder, Selectable } from 'kysely';
import type { CreatedAt, Json, NullableTime, UpdatedAt } from '../db/tables.ts';

/** Table types of webhook endpoints and deliveries. Merged into `Database` in db/tables.ts. */

/** Why an endpoint is disabled: by a staff member, or because it answered 410 Gone. */
export type DisabledReason = 'manual' | 'gone' | 'secret_unreadable';

export interface WebhookEndpointTable {
  store_id: string;
  /** Chosen by the service before insert: it is part of the secrets' associated data. */
  id: string;
  url: string;
  description: string | null;
  /** Subscribed event types, or `["*"]` for all. */
  events: Json<string[]>;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  disabled_reason: DisabledReason | null;
  /** AES-256-GCM ciphertext of the signing secret (see webhooks.secrets.ts); never returned. */
  secret_ciphertext: string;
  /** The secret replaced by the last rotation; it keeps signing until `previous_secret_expires_at`. */
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: NullableTime;
  /**
   * The last event sequence number handed out when the endpoint was created, and the database's
   * clock then (rounded up to the millisecond): the fan-out skips the events recorded before the
   * endpoint (`seq` and `created_at` both at or before these). Null for endpoints older than the
   * rule: no bound.
   */
  events_after_seq: ColumnType<number | null, RawBuilder<number> | undefined, never>;
  events_after_at: ColumnType<Date | null, RawBuilder<Date> | undefined, never>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type WebhookEndpointRow = Selectable<WebhookEndpointTable>;

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';
/**
 * `event`: fanned out from the outbox; `replay`: re-sent by hand; `test`: a test send (sample data,
 * recorded after its one attempt, never pending, never retried).
 */
export type DeliveryKind = 'event' | 'replay' | 'test';

export interface WebhookDeliveryTable {
  store_id: string;
  id: Generated<string>;
  endpoint_id: string;
  /** The event sent (a row of `events`); null for a test delivery, which sends no recorded event. */
  event_id: string | null;
  /** A test delivery's envelope id (`x-webhook-id`); null otherwise. */
  test_event_id: ColumnType<string | null, string | null | undefined, never>;
  /** A test delivery's event type; null otherwise. */
  test_event_type: ColumnType<string | null, string | null | undefined, never>;
  /** The event's `seq`: the order of deliveries within one endpoint and resource. */
  event_seq: number;
  /** The resource the event is about (e.g. `product:<id>`), see resourceKeyOf. */
  resource_key: string;
  kind: DeliveryKind;
  status: ColumnType<DeliveryStatus, DeliveryStatus | undefined, DeliveryStatus>;
  /** Attempts started so far; the number sent as `x-webhook-attempt`. */
  attempts: Generated<number>;
  next_attempt_at: ColumnType<Date, Date | string | undefined, Date | string>;
  /** Lease: the relay that claimed the row owns the attempt until then. */
  locked_until: NullableTime;
  last_attempt_at: NullableTime;
  last_status_code: ColumnType<number | null, number | null | undefined, number | null>;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
  delivered_at: NullableTime;
  failed_at: NullableTime;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type WebhookDeliveryRow = Selectable<WebhookDeliveryTable>;

export interface WebhookTables {
  webhook_endpoints: WebhookEndpointTable;
  webhook_deliveries: WebhookDeliveryTable;
}

declare module '../db/tables.ts' {
  interface Database extends WebhookTables {}
}
