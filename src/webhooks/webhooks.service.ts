import { randomUUID } from 'node:crypto';
import type { Kysely, Updateable } from 'kysely';
import { lockScope } from '../db/advisory-lock.ts';
import { byCreated } from '../db/keyset.ts';
import type { Database } from '../db/tables.ts';
import { isEventType, type EventType } from '../events/events.ts';
import type { ListPage } from '../lib/cursors.ts';
import { AppError, notFound, validationFailed } from '../lib/errors.ts';
import type { Keyring } from '../lib/keyring.ts';
import {
  countDeliveries,
  countEndpoints,
  deleteEndpointRow,
  deliveriesQuery,
  dispatchedEventsBetween,
  endpointsQuery,
  findDelivery,
  findEndpoint,
  hasPendingReplay,
  holdEndpoint,
  insertDeliveries,
  insertEndpoint,
  lockDeliveryWithEndpoint,
  lockEndpointSecret,
  notifyRelays,
  requeueDelivery,
  updateEndpointRow,
  type DeliveryListRow,
} from './webhooks.repository.ts';
import type {
  Delivery,
  DeliveryListQuery,
  Endpoint,
  EndpointPatch,
  EndpointWithSecret,
  NewEndpoint,
  Replay,
  ReplayResult,
  TestSend,
  TestSendResult,
} from './webhooks.schemas.ts';
import { encryptSecret, generateEndpointSecret, signingKey, signingSecrets } from './webhooks.secrets.ts';
import { webhookHeaders, type WebhookSender } from './webhooks.sender.ts';
import type { WebhookEndpointRow, WebhookEndpointTable } from './webhooks.tables.ts';
import { checkEndpointUrl } from './webhooks.url-guard.ts';
import type { ServiceDeps } from '../db/service-deps.ts';

export { deliveryBacklog } from './webhooks.relay.repository.ts';

/** How long the previous secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
/** Webhook endpoints a store may have (decision `per-store-limits`). */
export const MAX_ENDPOINTS_PER_STORE = 20;
const REPLAY_BATCH = 1000;

export interface WebhookDeps extends ServiceDeps {
  /** Seals and opens endpoint signing secrets (webhooks.secrets.ts). */
  keyring: Keyring;
  /** Allow http:// endpoints on loopback addresses (ALLOW_HTTP_WEBHOOKS; development and tests). */
  allowHttp: boolean;
  /** Sends test events, through the same SSRF-guarded agents as the relay. */
  sender: Pick<WebhookSender, 'send'>;
  /** Sample data of an event type for a test send, valid against its schema (the composition's). */
  sampleData: (storeId: string, event: EventType) => Promise<Record<string, unknown>>;
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

const iso = (value: Date | null): string | null => (value === null ? null : value.toISOString());

export function deliveryRowToDelivery(row: DeliveryListRow): Delivery {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.envelope_id,
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

const noEndpoint = () => notFound('No webhook endpoint with that id in this store.');
const testNotRetried = () =>
  new AppError(
    'test_delivery_not_retryable',
    409,
    'A test delivery is not sent again; send a new test (POST /admin/v1/webhooks/endpoints/{id}/test).',
  );
const noDelivery = () => notFound('No webhook delivery with that id in this store.');

function endpointDisabled(): AppError {
  return new AppError(
    'endpoint_disabled',
    409,
    'The webhook endpoint is disabled; enable it (PATCH {"enabled": true}) first.',
  );
}

async function validUrl(deps: Pick<WebhookDeps, 'allowHttp'>, raw: string): Promise<string> {
  const checked = await checkEndpointUrl(raw, { allowHttp: deps.allowHttp });
  if ('detail' in checked) {
    throw validationFailed(`url ${checked.detail}.`, [
      { pointer: '/url', detail: checked.detail, in: 'body' },
    ]);
  }
  return checked.url;
}

async function endpointRow(db: Kysely<Database>, storeId: string, id: string): Promise<WebhookEndpointRow> {
  const row = await findEndpoint(db, storeId, id);
  if (!row) throw noEndpoint();
  return row;
}

/** Registers an endpoint; its signing secret is returned only here (and on rotation). */
export async function createEndpoint(
  deps: Pick<WebhookDeps, 'db' | 'clock' | 'keyring' | 'allowHttp'>,
  storeId: string,
  input: NewEndpoint,
): Promise<EndpointWithSecret> {
  const url = await validUrl(deps, input.url);
  const id = randomUUID();
  const secret = generateEndpointSecret();
  const now = deps.clock.now();
  const row = await deps.db.transaction().execute(async (trx) => {
    await lockScope(trx, 'webhook-endpoints', storeId);
    if ((await countEndpoints(trx, storeId)) >= MAX_ENDPOINTS_PER_STORE) {
      throw new AppError(
        'limit_reached',
        409,
        `A store can have at most ${MAX_ENDPOINTS_PER_STORE} webhook endpoints; delete one first (one endpoint can subscribe to many events).`,
      );
    }
    return insertEndpoint(trx, {
      store_id: storeId,
      id,
      url,
      description: input.description ?? null,
      events: JSON.stringify(input.events),
      secret_ciphertext: encryptSecret(deps.keyring, storeId, id, secret),
      created_at: now,
      updated_at: now,
    });
  });
  return { ...endpointRowToEndpoint(row, now), secret };
}

export function listEndpoints(
  deps: Pick<WebhookDeps, 'db' | 'clock' | 'cursors'>,
  storeId: string,
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<ListPage<Endpoint>> {
  const now = deps.clock.now();
  return byCreated(
    deps.cursors,
    `${storeId}:webhook-endpoints`,
    endpointsQuery(deps.db, storeId),
    page,
    (row) => endpointRowToEndpoint(row, now),
  );
}

export async function getEndpoint(
  deps: Pick<WebhookDeps, 'db' | 'clock'>,
  storeId: string,
  id: string,
): Promise<Endpoint> {
  return endpointRowToEndpoint(await endpointRow(deps.db, storeId, id), deps.clock.now());
}

export async function updateEndpoint(
  deps: Pick<WebhookDeps, 'db' | 'clock' | 'allowHttp'>,
  storeId: string,
  id: string,
  input: EndpointPatch,
): Promise<Endpoint> {
  const url = input.url === undefined ? undefined : await validUrl(deps, input.url);
  const now = deps.clock.now();
  const changes: Updateable<WebhookEndpointTable> = {
    ...(url !== undefined ? { url } : {}),
    ...(input.events !== undefined ? { events: JSON.stringify(input.events) } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.enabled !== undefined
      ? { enabled: input.enabled, disabled_reason: input.enabled ? null : 'manual' }
      : {}),
    updated_at: now,
  };
  const row = await deps.db.transaction().execute(async (trx) => {
    const updated = await updateEndpointRow(trx, storeId, id, changes);
    if (!updated) throw noEndpoint();
    // Deliveries waiting for a disabled endpoint may go now.
    if (input.enabled === true) await notifyRelays(trx);
    return updated;
  });
  return endpointRowToEndpoint(row, now);
}

export async function deleteEndpoint(
  deps: Pick<WebhookDeps, 'db'>,
  storeId: string,
  id: string,
): Promise<void> {
  if (!(await deleteEndpointRow(deps.db, storeId, id))) throw noEndpoint();
}

/**
 * Issues a new secret. The one it replaces keeps signing, as a second `x-webhook-signature`
 * value, for 24 hours, so a receiver can switch at its own pace. A second rotation within those
 * 24 hours drops the oldest secret.
 */
export async function rotateEndpointSecret(
  deps: Pick<WebhookDeps, 'db' | 'clock' | 'keyring'>,
  storeId: string,
  id: string,
): Promise<EndpointWithSecret> {
  const now = deps.clock.now();
  const secret = generateEndpointSecret();
  const row = await deps.db.transaction().execute(async (trx) => {
    const current = await lockEndpointSecret(trx, storeId, id);
    if (!current) throw noEndpoint();
    const rotated = await updateEndpointRow(trx, storeId, id, {
      secret_ciphertext: encryptSecret(deps.keyring, storeId, id, secret),
      previous_secret_ciphertext: current.secret_ciphertext,
      previous_secret_expires_at: new Date(now.getTime() + ROTATION_OVERLAP_MS),
      updated_at: now,
    });
    if (!rotated) throw noEndpoint();
    return rotated;
  });
  return { ...endpointRowToEndpoint(row, now), secret };
}

/**
 * Queues the endpoint's matching events created in [since, until) again, as `replay` deliveries
 * (same event ids, so a receiver that already has one drops it as a duplicate). Only events still
 * kept (EVENT_RETENTION) can be replayed; events not yet fanned out are delivered anyway.
 */
export async function replayEvents(
  deps: Pick<WebhookDeps, 'db' | 'clock'>,
  storeId: string,
  endpointId: string,
  input: Replay,
): Promise<ReplayResult> {
  const since = new Date(input.since);
  const until = input.until === undefined ? undefined : new Date(input.until);
  const now = deps.clock.now();
  if (since > now) {
    throw validationFailed('since is in the future.', [
      { pointer: '/since', detail: 'is in the future', in: 'body' },
    ]);
  }
  const replayed = await deps.db.transaction().execute(async (trx) => {
    const endpoint = await findEndpoint(trx, storeId, endpointId);
    if (!endpoint) throw noEndpoint();
    if (!endpoint.enabled) throw endpointDisabled();
    // One replay in flight per endpoint (decision `per-store-limits`): a second waits until the first has been delivered.
    await lockScope(trx, 'webhook-replay', `${storeId}:${endpointId}`);
    if (await hasPendingReplay(trx, storeId, endpointId)) {
      throw new AppError(
        'replay_in_progress',
        409,
        'A replay of this endpoint is still being delivered; start another when it has finished (see the deliveries log).',
      );
    }
    const types = endpoint.events.includes('*') ? null : endpoint.events;
    let afterSeq = -1;
    let total = 0;
    for (;;) {
      const events = await dispatchedEventsBetween(trx, storeId, {
        since,
        until,
        types,
        afterSeq,
        limit: REPLAY_BATCH,
      });
      if (events.length === 0) break;
      await insertDeliveries(
        trx,
        events.map((event) => ({
          store_id: storeId,
          endpoint_id: endpointId,
          event_id: event.id,
          event_seq: event.seq,
          resource_key: event.resource_key ?? `event:${event.id}`,
          kind: 'replay' as const,
          next_attempt_at: now,
          created_at: now,
          updated_at: now,
        })),
      );
      total += events.length;
      afterSeq = events.at(-1)!.seq;
      if (events.length < REPLAY_BATCH) break;
    }
    if (total > 0) await notifyRelays(trx);
    return total;
  });
  return { replayed };
}

export function listDeliveries(
  deps: Pick<WebhookDeps, 'db' | 'cursors'>,
  storeId: string,
  query: DeliveryListQuery,
): Promise<ListPage<Delivery>> {
  const { endpointId, status } = query;
  return byCreated(
    deps.cursors,
    `${storeId}:webhook-deliveries:${endpointId ?? ''}:${status ?? ''}`,
    deliveriesQuery(deps.db, storeId, { endpointId, status }),
    query,
    deliveryRowToDelivery,
    'd.',
  );
}

/** Deliveries that gave up after their last attempt and wait for a retry (the console's home). */
export function countFailedDeliveries(deps: Pick<WebhookDeps, 'db'>, storeId: string): Promise<number> {
  return countDeliveries(deps.db, storeId, 'failed');
}

export async function getDelivery(
  deps: Pick<WebhookDeps, 'db'>,
  storeId: string,
  id: string,
): Promise<Delivery> {
  const row = await findDelivery(deps.db, storeId, id);
  if (!row) throw noDelivery();
  return deliveryRowToDelivery(row);
}

/**
 * Sends a delivery again as soon as possible: a failed (dead-lettered) or delivered one becomes
 * pending with one more attempt (numbered after the last); a pending one becomes due now. If that
 * attempt fails too, a dead letter goes back to `failed`.
 */
export async function retryDelivery(
  deps: Pick<WebhookDeps, 'db' | 'clock'>,
  storeId: string,
  id: string,
): Promise<Delivery> {
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    const row = await lockDeliveryWithEndpoint(trx, storeId, id);
    if (!row) throw noDelivery();
    if (row.kind === 'test') throw testNotRetried();
    if (!row.enabled) throw endpointDisabled();
    await requeueDelivery(trx, storeId, id, now, row.status !== 'pending');
    await notifyRelays(trx);
  });
  return getDelivery(deps, storeId, id);
}

/**
 * Sends one signed test event to an endpoint now and reports the answer (like Stripe's "send test
 * webhook"). The envelope has the usual shape, a fresh id, `test: true`, and as `data` sample data
 * of the event type that is valid against its schema (deps.sampleData); it is signed exactly like a
 * real delivery (both secrets during a rotation) and goes through the same SSRF guard. It is then
 * recorded in the deliveries log as a `test` delivery with that one attempt's outcome, never
 * pending, so the relay never sends it again; it is not an event, so no other endpoint gets it.
 * Disabled endpoints can be tested too, so a merchant can check a fix before re-enabling.
 */
export async function sendTestEvent(
  deps: Pick<WebhookDeps, 'db' | 'clock' | 'keyring' | 'sender' | 'sampleData'>,
  storeId: string,
  endpointId: string,
  input: TestSend,
): Promise<TestSendResult> {
  const row = await endpointRow(deps.db, storeId, endpointId);
  const subscribed = row.events.find((name): name is EventType => isEventType(name));
  const event = input.event ?? subscribed ?? 'product.updated';
  const data = await deps.sampleData(storeId, event);
  const now = deps.clock.now();
  const eventId = randomUUID();
  const deliveryId = randomUUID();
  const body = JSON.stringify({ id: eventId, event, createdAt: now.toISOString(), test: true, data });
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
  const result = await deps.sender.send(
    {
      url: row.url,
      body,
      headers: webhookHeaders({
        keys: secrets.map(signingKey),
        body,
        eventType: event,
        eventId,
        attempt: 1,
        now,
        deliveryId,
      }),
    },
    undefined,
    () => deps.clock.now(),
  );
  const durationMs = Math.round(performance.now() - started);
  const finishedAt = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    // An endpoint deleted while its test was on the way takes no delivery row.
    if (!(await holdEndpoint(trx, storeId, endpointId))) return;
    await insertDeliveries(trx, [
      {
        store_id: storeId,
        id: deliveryId,
        endpoint_id: endpointId,
        event_id: null,
        test_event_id: eventId,
        test_event_type: event,
        event_seq: 0,
        resource_key: `test:${eventId}`,
        kind: 'test',
        status: result.ok ? 'delivered' : 'failed',
        attempts: 1,
        next_attempt_at: now,
        last_attempt_at: now,
        last_status_code: result.status,
        last_error: result.ok ? null : result.error.slice(0, 1000),
        delivered_at: result.ok ? finishedAt : null,
        failed_at: result.ok ? null : finishedAt,
        created_at: now,
        updated_at: finishedAt,
      },
    ]);
  });
  return {
    eventId,
    deliveryId,
    event,
    ok: result.ok,
    statusCode: result.status,
    error: result.ok ? null : result.error,
    durationMs,
  };
}
