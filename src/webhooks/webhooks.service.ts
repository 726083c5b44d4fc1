import { lockScope } from '../db/advisory-lock.ts';
import type { DisabledReason } from './webhooks.tables.ts';
import type { Keyring } from '../lib/keyring.ts';
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import { notifyRelays, resourceKeyOf } from './webhooks.relay.ts';
import { isEventType, type EventType } from '../events/events.ts';
import { encryptSecret, generateEndpointSecret, signingSecrets } from './webhooks.secrets.ts';
import { webhookHeaders, type WebhookSender } from './webhooks.sender.ts';
import type { DeliveryStatus, WebhookDeliveryRow, WebhookEndpointRow } from './webhooks.tables.ts';
import { checkEndpointUrl } from './webhooks.url-guard.ts';
import { AppError, notFound, validationFailed } from '../lib/errors.ts';

/** How long the previous secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface WebhookServiceDeps {
  db: Kysely<Database>;
  /** Key that encrypts endpoint secrets (webhooks.secrets.ts). */
  keyring: Keyring;
  allowHttp: boolean;
  now: () => Date;
}

export interface Endpoint {
  id: string;
  url: string;
  description: string | null;
  events: string[];
  enabled: boolean;
  disabledReason: DisabledReason | null;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export function endpointRowToEndpoint(row: WebhookEndpointRow, now: Date): Endpoint {
  const expires = row.previous_secret_expires_at;
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events,
    enabled: row.enabled,
    disabledReason: row.disabled_reason,
    previousSecretExpiresAt: expires !== null && expires > now ? expires.toISOString() : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

async function validUrl(deps: WebhookServiceDeps, raw: string): Promise<string> {
  const checked = await checkEndpointUrl(raw, { allowHttp: deps.allowHttp });
  if ('detail' in checked) {
    throw validationFailed(`url ${checked.detail}.`, [
      { pointer: '/url', detail: checked.detail, in: 'body' },
    ]);
  }
  return checked.url;
}

/** Webhook endpoints a store may have (D31). */
export const MAX_ENDPOINTS_PER_STORE = 20;

export async function createEndpoint(
  deps: WebhookServiceDeps,
  storeId: string,
  input: { url: string; events: string[]; description?: string | null | undefined },
): Promise<Endpoint & { secret: string }> {
  const url = await validUrl(deps, input.url);
  const id = randomUUID();
  const secret = generateEndpointSecret();
  const now = deps.now();
  const row = await deps.db.transaction().execute(async (trx) => {
    await lockScope(trx, 'webhook-endpoints', storeId);
    const existing = await trx
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('store_id', '=', storeId)
      .executeTakeFirstOrThrow();
    if (Number(existing.n) >= MAX_ENDPOINTS_PER_STORE) {
      throw new AppError(
        'limit_reached',
        409,
        `A store can have at most ${MAX_ENDPOINTS_PER_STORE} webhook endpoints; delete one first (one endpoint can subscribe to many events).`,
      );
    }
    return trx
      .insertInto('webhook_endpoints')
      .values({
        store_id: storeId,
        id,
        url,
        description: input.description ?? null,
        events: JSON.stringify(input.events),
        secret_ciphertext: encryptSecret(deps.keyring, storeId, id, secret),
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  return { ...endpointRowToEndpoint(row, now), secret };
}

export async function getEndpointRow(
  db: Kysely<Database>,
  storeId: string,
  id: string,
): Promise<WebhookEndpointRow> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound('No webhook endpoint with that id in this store.');
  return row;
}

export async function updateEndpoint(
  deps: WebhookServiceDeps,
  storeId: string,
  id: string,
  input: { url?: string; events?: string[]; description?: string | null; enabled?: boolean },
): Promise<Endpoint> {
  const url = input.url === undefined ? undefined : await validUrl(deps, input.url);
  const now = deps.now();
  const row = await deps.db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('webhook_endpoints')
      .set({
        ...(url !== undefined ? { url } : {}),
        ...(input.events !== undefined ? { events: JSON.stringify(input.events) } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.enabled !== undefined
          ? { enabled: input.enabled, disabled_reason: input.enabled ? null : 'manual' }
          : {}),
        updated_at: now,
      })
      .where('store_id', '=', storeId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    if (!updated) throw notFound('No webhook endpoint with that id in this store.');
    // Deliveries waiting for a disabled endpoint may go now.
    if (input.enabled === true) await notifyRelays(trx);
    return updated;
  });
  return endpointRowToEndpoint(row, now);
}

export async function deleteEndpoint(db: Kysely<Database>, storeId: string, id: string): Promise<void> {
  const result = await db
    .deleteFrom('webhook_endpoints')
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (result.numDeletedRows === 0n) throw notFound('No webhook endpoint with that id in this store.');
}

/**
 * Issues a new secret. The one it replaces keeps signing, as a second `x-webhook-signature`
 * value, for 24 hours, so a receiver can switch at its own pace. A second rotation within those
 * 24 hours drops the oldest secret.
 */
export async function rotateEndpointSecret(
  deps: WebhookServiceDeps,
  storeId: string,
  id: string,
): Promise<Endpoint & { secret: string }> {
  const now = deps.now();
  const secret = generateEndpointSecret();
  const row = await deps.db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('webhook_endpoints')
      .select('secret_ciphertext')
      .where('store_id', '=', storeId)
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (!current) throw notFound('No webhook endpoint with that id in this store.');
    return trx
      .updateTable('webhook_endpoints')
      .set({
        secret_ciphertext: encryptSecret(deps.keyring, storeId, id, secret),
        previous_secret_ciphertext: current.secret_ciphertext,
        previous_secret_expires_at: new Date(now.getTime() + ROTATION_OVERLAP_MS),
        updated_at: now,
      })
      .where('store_id', '=', storeId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  return { ...endpointRowToEndpoint(row, now), secret };
}

function endpointDisabled(): AppError {
  return new AppError(
    'endpoint_disabled',
    409,
    'The webhook endpoint is disabled; enable it (PATCH {"enabled": true}) first.',
  );
}

const REPLAY_BATCH = 1000;

/**
 * Queues the endpoint's matching events created in [since, until) again, as `replay` deliveries
 * (same event ids, so a receiver that already has one drops it as a duplicate). Only events still
 * kept (EVENT_RETENTION) can be replayed; events not yet fanned out are delivered anyway.
 */
export async function replayEvents(
  deps: WebhookServiceDeps,
  storeId: string,
  endpointId: string,
  range: { since: Date; until?: Date | undefined },
): Promise<number> {
  const now = deps.now();
  if (range.since > now) {
    throw validationFailed('since is in the future.', [
      { pointer: '/since', detail: 'is in the future', in: 'body' },
    ]);
  }
  return deps.db.transaction().execute(async (trx) => {
    const endpoint = await trx
      .selectFrom('webhook_endpoints')
      .select(['id', 'events', 'enabled'])
      .where('store_id', '=', storeId)
      .where('id', '=', endpointId)
      .executeTakeFirst();
    if (!endpoint) throw notFound('No webhook endpoint with that id in this store.');
    if (!endpoint.enabled) throw endpointDisabled();
    // One replay in flight per endpoint (D31): a second waits until the first has been delivered.
    await lockScope(trx, 'webhook-replay', `${storeId}:${endpointId}`);
    const inFlight = await trx
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('store_id', '=', storeId)
      .where('endpoint_id', '=', endpointId)
      .where('kind', '=', 'replay')
      .where('status', '=', 'pending')
      .limit(1)
      .executeTakeFirst();
    if (inFlight) {
      throw new AppError(
        'replay_in_progress',
        409,
        'A replay of this endpoint is still being delivered; start another when it has finished (see the deliveries log).',
      );
    }
    let after = -1;
    let total = 0;
    for (;;) {
      let query = trx
        .selectFrom('events')
        .select(['id', 'seq', 'type', 'data'])
        .where('store_id', '=', storeId)
        .where('created_at', '>=', range.since)
        .where('dispatched_at', 'is not', null)
        .where('seq', '>', after)
        .orderBy('seq')
        .limit(REPLAY_BATCH);
      if (range.until) query = query.where('created_at', '<', range.until);
      if (!endpoint.events.includes('*')) query = query.where('type', 'in', endpoint.events);
      const events = await query.execute();
      if (events.length === 0) break;
      await trx
        .insertInto('webhook_deliveries')
        .values(
          events.map((event) => ({
            store_id: storeId,
            endpoint_id: endpointId,
            event_id: event.id,
            event_seq: event.seq,
            resource_key: resourceKeyOf(event.type, event.data, event.id),
            kind: 'replay' as const,
            next_attempt_at: now,
            created_at: now,
            updated_at: now,
          })),
        )
        .execute();
      total += events.length;
      after = events.at(-1)!.seq;
      if (events.length < REPLAY_BATCH) break;
    }
    if (total > 0) await notifyRelays(trx);
    return total;
  });
}

export interface Delivery {
  id: string;
  endpointId: string;
  eventId: string;
  event: string;
  kind: 'event' | 'replay' | 'test';
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  failedAt: string | null;
  createdAt: string;
}

export type DeliveryListRow = WebhookDeliveryRow & { event_type: string };

const iso = (value: Date | null): string | null => (value === null ? null : value.toISOString());

export function deliveryRowToDelivery(row: DeliveryListRow): Delivery {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    event: row.event_type,
    kind: row.kind,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    lastAttemptAt: iso(row.last_attempt_at),
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at.toISOString() : null,
    deliveredAt: iso(row.delivered_at),
    failedAt: iso(row.failed_at),
    createdAt: row.created_at.toISOString(),
  };
}

/** The deliveries query with the event type joined in (lists and single reads). */
export function deliveriesQuery(db: Kysely<Database>, storeId: string) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as ev', (join) =>
      join.onRef('ev.store_id', '=', 'd.store_id').onRef('ev.id', '=', 'd.event_id'),
    )
    .selectAll('d')
    .select('ev.type as event_type')
    .where('d.store_id', '=', storeId);
}

export async function getDelivery(db: Kysely<Database>, storeId: string, id: string): Promise<Delivery> {
  const row = await deliveriesQuery(db, storeId).where('d.id', '=', id).executeTakeFirst();
  if (!row) throw notFound('No webhook delivery with that id in this store.');
  return deliveryRowToDelivery(row);
}

/**
 * Sends a delivery again as soon as possible: a failed (dead-lettered) or delivered one becomes
 * pending with one more attempt (numbered after the last); a pending one becomes due now. If that
 * attempt fails too, a dead letter goes back to `failed`.
 */
export async function retryDelivery(
  deps: WebhookServiceDeps,
  storeId: string,
  id: string,
): Promise<Delivery> {
  const now = deps.now();
  await deps.db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', (join) =>
        join.onRef('e.store_id', '=', 'd.store_id').onRef('e.id', '=', 'd.endpoint_id'),
      )
      .select(['d.status', 'e.enabled'])
      .where('d.store_id', '=', storeId)
      .where('d.id', '=', id)
      .forUpdate('d')
      .executeTakeFirst();
    if (!row) throw notFound('No webhook delivery with that id in this store.');
    if (!row.enabled) throw endpointDisabled();
    await trx
      .updateTable('webhook_deliveries')
      .set({
        status: 'pending',
        next_attempt_at: now,
        delivered_at: null,
        failed_at: null,
        updated_at: now,
        ...(row.status === 'pending' ? {} : { locked_until: null }),
      })
      .where('store_id', '=', storeId)
      .where('id', '=', id)
      .execute();
    await notifyRelays(trx);
  });
  return getDelivery(deps.db, storeId, id);
}

export interface TestSendResult {
  eventId: string;
  event: EventType;
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/**
 * Sends one signed test event to an endpoint now and reports the answer (like Stripe's "send test
 * webhook"). The envelope has the usual shape with `data: {storeId, test: true}` and a fresh id;
 * it is signed exactly like a real delivery (both secrets during a rotation), goes through the
 * same SSRF guard, and is neither stored nor retried. Disabled endpoints can be tested too, so a
 * merchant can check a fix before re-enabling.
 */
export async function sendTestEvent(
  deps: WebhookServiceDeps & { sender: WebhookSender },
  storeId: string,
  endpointId: string,
  input: { event?: EventType | undefined },
): Promise<TestSendResult> {
  const row = await getEndpointRow(deps.db, storeId, endpointId);
  const subscribed = row.events.find((name): name is EventType => isEventType(name));
  const event = input.event ?? subscribed ?? 'product.updated';
  const now = deps.now();
  const eventId = randomUUID();
  const body = JSON.stringify({
    id: eventId,
    event,
    createdAt: now.toISOString(),
    data: { storeId, test: true },
  });
  const secrets = signingSecrets(
    deps.keyring,
    {
      storeId,
      endpointId,
      secretCiphertext: row.secret_ciphertext,
      previousSecretCiphertext: row.previous_secret_ciphertext,
      previousSecretExpiresAt: row.previous_secret_expires_at,
    },
    now,
  );
  const started = performance.now();
  const result = await deps.sender.send({
    url: row.url,
    body,
    headers: webhookHeaders({ secrets, body, eventType: event, eventId, attempt: 1, now }),
  });
  return {
    eventId,
    event,
    ok: result.ok,
    statusCode: result.status,
    error: result.ok ? null : result.error,
    durationMs: Math.round(performance.now() - started),
  };
}
