import { sql, type Kysely } from 'kysely';
import { backlogColumns, queueBacklog, type QueueBacklog } from '../db/backlog.ts';
import type { Database } from '../db/tables.ts';
import { WEBHOOK_CHANNEL } from './webhooks.repository.ts';
import type { SendResult } from './webhooks.sender.ts';
import type { DeliveryKind } from './webhooks.tables.ts';

/**
 * The relay's SQL: fan events out to delivery rows, claim due deliveries, record each attempt's
 * outcome, and purge old rows. Every step coordinates through the database only, so any number of
 * relay processes can run against one PostgreSQL.
 */

export const FANOUT_BATCH = 500;

/** What one fan-out statement did. */
export interface FanOut {
  /** Events dispatched (0 when none waited, or when another relay holds the fan-out lock). */
  dispatched: number;
  /** Delivery rows created for them. */
  created: number;
  /** Of those, the ones claimed for the calling relay at once (attempt 1, leased), to send now. */
  claimed: ClaimedDelivery[];
  /** False when another relay was fanning out at the same moment (it did the work). */
  locked: boolean;
}

export interface FanOutOptions {
  now: Date;
  /** Lease of the deliveries claimed at once. */
  leaseMs: number;
  /** How many fresh deliveries to claim at once (the relay's free sending slots); 0 claims none. */
  claimLimit: number;
  /** Events per statement. */
  batch?: number;
  /** The payload of the NOTIFY sent when rows are left for other relays (see notifyPayload). */
  notifyPayload?: string;
}

/**
 * Fans undispatched events out to one delivery row per matching enabled endpoint, marks them
 * dispatched, and claims the fresh rows it may send at once, in one statement (so one round trip
 * and one implicit transaction): an event is dispatched exactly when its rows exist. Events are
 * taken with FOR UPDATE SKIP LOCKED, and fan-out is serialized across relays by a transaction-level
 * advisory lock taken first (a relay that does not get it does nothing: the holder does the work),
 * so delivery rows of one resource are always created in event order; sending stays parallel.
 *
 * A fresh row is claimed at once (inserted with attempt 1 and a lease, as claimDeliveries would
 * claim it) only when all of these hold, so the shortcut never changes what a claim would choose:
 *   - its endpoint is enabled;
 *   - it is the head of its queue: the oldest of its endpoint and resource in this batch, with no
 *     pending delivery of that endpoint and resource already waiting or in flight;
 *   - no older delivery of an enabled endpoint is due and claimable (decision `per-resource-ordering`: a backlog is served
 *     round-robin by claimDeliveries, never overtaken by new events);
 *   - it is within `claimLimit`, taking each store's first fresh delivery before any store's second.
 * Rows left unclaimed wake the other relays (NOTIFY with `notifyPayload`).
 */
export async function fanOutAndClaim(db: Kysely<Database>, options: FanOutOptions): Promise<FanOut> {
  const { now } = options;
  const lease = new Date(now.getTime() + options.leaseMs);
  const result = await sql<FanOutRow>`
    WITH fanout_lock AS (
      SELECT pg_try_advisory_xact_lock(hashtextextended('storefront:webhook-fanout', 0)) AS locked
    ),
    ev AS (
      SELECT store_id, id, seq, type, resource_key, created_at, data
      FROM events
      WHERE dispatched_at IS NULL AND (SELECT locked FROM fanout_lock)
      ORDER BY seq
      LIMIT ${options.batch ?? FANOUT_BATCH}
      FOR UPDATE SKIP LOCKED
    ),
    dispatched AS (
      UPDATE events e SET dispatched_at = ${now}, claim_count = e.claim_count + 1
      FROM ev
      WHERE e.store_id = ev.store_id AND e.id = ev.id
      RETURNING e.id
    ),
    targets AS (
      SELECT ev.store_id, ev.id AS event_id, ev.seq, COALESCE(ev.resource_key, 'event:' || ev.id::text) AS resource_key,
        en.id AS endpoint_id, en.enabled
      FROM ev
      JOIN webhook_endpoints en ON en.store_id = ev.store_id
        -- An endpoint disabled only because its secret cannot be decrypted still collects its
        -- deliveries (they wait until the keys are fixed and it is enabled again): no event is lost.
        AND (en.enabled OR en.disabled_reason = 'secret_unreadable')
        AND (en.events ? '*' OR en.events ? ev.type)
        -- Only the events recorded after the endpoint was created (its sequence number and, for a
        -- database whose sequence restarted lower, e.g. an imported archive, its time).
        AND (en.events_after_seq IS NULL OR ev.seq > en.events_after_seq OR ev.created_at > en.events_after_at)
      -- An endpoint deleted while this statement runs is skipped, not inserted for: the key-share
      -- lock waits for a delete in flight, and a row deleted meanwhile is left out (READ COMMITTED
      -- re-checks a locked row), so no delivery ever names a deleted endpoint.
      FOR KEY SHARE OF en
    ),
    backlog AS (
      SELECT EXISTS (
        SELECT 1 FROM webhook_deliveries d
        JOIN webhook_endpoints e ON e.store_id = d.store_id AND e.id = d.endpoint_id
        WHERE d.status = 'pending'
          AND d.next_attempt_at <= ${now}
          AND (d.locked_until IS NULL OR d.locked_until <= ${now})
          AND e.enabled
          AND NOT EXISTS (
            SELECT 1 FROM webhook_deliveries o
            WHERE o.store_id = d.store_id
              AND o.endpoint_id = d.endpoint_id
              AND o.resource_key = d.resource_key
              AND o.status = 'pending'
              AND (o.event_seq, o.id) < (d.event_seq, d.id)
          )
      ) AS claimable
    ),
    queued AS (
      SELECT t.*, row_number() OVER (PARTITION BY t.store_id, t.endpoint_id, t.resource_key ORDER BY t.seq) AS position
      FROM targets t
    ),
    claimable AS (
      SELECT q.store_id, q.event_id, q.endpoint_id
      FROM queued q
      WHERE q.enabled
        AND q.position = 1
        AND NOT EXISTS (
          SELECT 1 FROM webhook_deliveries o
          WHERE o.store_id = q.store_id
            AND o.endpoint_id = q.endpoint_id
            AND o.resource_key = q.resource_key
            AND o.status = 'pending'
        )
        AND NOT (SELECT claimable FROM backlog)
      ORDER BY row_number() OVER (PARTITION BY q.store_id ORDER BY q.seq), q.seq
      LIMIT ${options.claimLimit}
    ),
    ins AS (
      INSERT INTO webhook_deliveries (store_id, endpoint_id, event_id, event_seq, resource_key, kind,
        next_attempt_at, created_at, updated_at, attempts, locked_until, last_attempt_at)
      SELECT t.store_id, t.endpoint_id, t.event_id, t.seq, t.resource_key, 'event',
        ${now}, ${now}, ${now},
        CASE WHEN c.event_id IS NULL THEN 0 ELSE 1 END,
        CASE WHEN c.event_id IS NULL THEN NULL ELSE ${lease}::timestamptz END,
        CASE WHEN c.event_id IS NULL THEN NULL ELSE ${now}::timestamptz END
      FROM targets t
      LEFT JOIN claimable c
        ON c.store_id = t.store_id AND c.event_id = t.event_id AND c.endpoint_id = t.endpoint_id
      ON CONFLICT (store_id, endpoint_id, event_id) WHERE kind = 'event' DO NOTHING
      RETURNING store_id, id, endpoint_id, event_id, kind, attempts
    ),
    claimed AS (
      SELECT i.store_id, i.id, i.endpoint_id, i.kind, i.attempts,
        e.url, e.secret_ciphertext, e.previous_secret_ciphertext, e.previous_secret_expires_at,
        ev.id AS event_id, ev.type AS event_type, ev.created_at AS event_created_at, ev.data AS event_data
      FROM ins i
      JOIN ev ON ev.store_id = i.store_id AND ev.id = i.event_id
      JOIN webhook_endpoints e ON e.store_id = i.store_id AND e.id = i.endpoint_id
      WHERE i.attempts = 1
    ),
    summary AS (
      SELECT (SELECT locked FROM fanout_lock) AS locked,
        (SELECT count(*) FROM dispatched)::int AS dispatched,
        (SELECT count(*) FROM ins)::int AS created,
        (SELECT count(*) FROM claimed)::int AS claimed_count
    )
    SELECT s.locked, s.dispatched, s.created,
      CASE WHEN s.created > s.claimed_count THEN pg_notify(${WEBHOOK_CHANNEL}, ${options.notifyPayload ?? ''}) END AS notified,
      c.*
    FROM summary s
    LEFT JOIN claimed c ON true`.execute(db);
  const first = result.rows[0];
  return {
    locked: first?.locked === true,
    dispatched: first?.dispatched ?? 0,
    created: first?.created ?? 0,
    claimed: result.rows.filter((row): row is FanOutRow & ClaimRow => row.id !== null).map(claimedOf),
  };
}

type FanOutRow = { locked: boolean; dispatched: number; created: number } & {
  [K in keyof ClaimRow]: ClaimRow[K] | null;
};

/**
 * Fans undispatched events out without claiming any of the new rows (tests, and the shape of the
 * fan-out before the relay claimed from it). Returns the number of events dispatched.
 */
export async function fanOutEvents(db: Kysely<Database>, now: Date, batch = FANOUT_BATCH): Promise<number> {
  const fanOut = await fanOutAndClaim(db, { now, leaseMs: 0, claimLimit: 0, batch });
  return fanOut.dispatched;
}

/** A delivery claimed for one attempt, with what is needed to send it. */
export interface ClaimedDelivery {
  storeId: string;
  id: string;
  endpointId: string;
  kind: DeliveryKind;
  /** This attempt's number (1, 2, …); also the fencing token for recording the outcome. */
  attempt: number;
  url: string;
  secretCiphertext: string;
  previousSecretCiphertext: string | null;
  previousSecretExpiresAt: Date | null;
  event: { id: string; type: string; createdAt: Date; data: Record<string, unknown> };
}

interface ClaimRow {
  store_id: string;
  id: string;
  endpoint_id: string;
  kind: DeliveryKind;
  attempts: number;
  url: string;
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: Date | null;
  event_id: string;
  event_type: string;
  event_created_at: Date;
  event_data: Record<string, unknown>;
}

/**
 * Claims up to `limit` due deliveries of enabled endpoints, takes a lease on them (`locked_until`)
 * and counts the attempt, in one statement. Fair across stores (decision `per-resource-ordering`): each store's due deliveries
 * are ranked and every store's first comes before any store's second, so one store's backlog never
 * delays another's (the stores with pending deliveries are found by skipping through the pending
 * index, one probe per store). A delivery is not claimed unless it is the head of its queue: the
 * oldest (by event seq) pending delivery of its endpoint and resource, so a newer one waits while
 * an older one is in flight or waiting for a retry. The UPDATE re-checks every condition on the
 * row it locks, so two relays that picked the same row cannot both claim it. A relay that dies
 * mid-attempt loses its lease; the row is claimed again, as the next attempt, when the lease ends.
 */
export async function claimDeliveries(
  db: Kysely<Database>,
  now: Date,
  leaseMs: number,
  limit: number,
): Promise<ClaimedDelivery[]> {
  const lease = new Date(now.getTime() + leaseMs);
  const result = await sql<ClaimRow>`
    WITH RECURSIVE stores_with_work(store_id) AS (
      (SELECT store_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY store_id LIMIT 1)
      UNION ALL
      SELECT (
        SELECT d.store_id FROM webhook_deliveries d
        WHERE d.status = 'pending' AND d.store_id > s.store_id
        ORDER BY d.store_id LIMIT 1
      )
      FROM stores_with_work s
      WHERE s.store_id IS NOT NULL
    ),
    picked AS (
      SELECT c.store_id, c.id FROM stores_with_work s
      CROSS JOIN LATERAL (
        SELECT h.store_id, h.id, h.next_attempt_at, h.event_seq,
          row_number() OVER (ORDER BY h.next_attempt_at, h.event_seq) AS fair_rank
        FROM (
          -- The head of each (endpoint, resource) queue: one ordered pass over the store's pending
          -- rows in the resource index, instead of probing for the head once per pending row.
          SELECT DISTINCT ON (d.endpoint_id, d.resource_key)
            d.store_id, d.id, d.endpoint_id, d.next_attempt_at, d.event_seq, d.locked_until
          FROM webhook_deliveries d
          WHERE d.store_id = s.store_id AND d.status = 'pending'
          ORDER BY d.endpoint_id, d.resource_key, d.event_seq, d.id
        ) h
        JOIN webhook_endpoints e ON e.store_id = h.store_id AND e.id = h.endpoint_id
        WHERE h.next_attempt_at <= ${now}
          AND (h.locked_until IS NULL OR h.locked_until <= ${now})
          AND e.enabled
        ORDER BY h.next_attempt_at, h.event_seq
        LIMIT ${limit}
      ) c
      WHERE s.store_id IS NOT NULL
      ORDER BY c.fair_rank, c.next_attempt_at, c.event_seq
      LIMIT ${limit}
    ),
    claimed AS (
      -- Joined to the picked rows by primary key only: with the endpoint and the event in this
      -- FROM list, stale statistics (a table that grew fast) made the planner reach the rows
      -- through the endpoint's index and filter thousands of them per claimed row.
      UPDATE webhook_deliveries w
      SET locked_until = ${lease}, attempts = w.attempts + 1, last_attempt_at = ${now}, updated_at = ${now}
      FROM picked
      WHERE w.store_id = picked.store_id AND w.id = picked.id
        AND w.status = 'pending'
        AND w.next_attempt_at <= ${now}
        AND (w.locked_until IS NULL OR w.locked_until <= ${now})
        -- A scalar subquery, not EXISTS: a semi-join would bring the endpoint back into the join.
        AND (SELECT x.enabled FROM webhook_endpoints x WHERE x.store_id = w.store_id AND x.id = w.endpoint_id)
      RETURNING w.store_id, w.id, w.endpoint_id, w.event_id, w.kind, w.attempts
    )
    SELECT w.store_id, w.id, w.endpoint_id, w.kind, w.attempts,
      e.url, e.secret_ciphertext, e.previous_secret_ciphertext, e.previous_secret_expires_at,
      ev.id AS event_id, ev.type AS event_type, ev.created_at AS event_created_at, ev.data AS event_data
    FROM claimed w
    JOIN webhook_endpoints e ON e.store_id = w.store_id AND e.id = w.endpoint_id
    JOIN events ev ON ev.store_id = w.store_id AND ev.id = w.event_id`.execute(db);
  return result.rows.map(claimedOf);
}

function claimedOf(row: ClaimRow): ClaimedDelivery {
  return {
    storeId: row.store_id,
    id: row.id,
    endpointId: row.endpoint_id,
    kind: row.kind,
    attempt: row.attempts,
    url: row.url,
    secretCiphertext: row.secret_ciphertext,
    previousSecretCiphertext: row.previous_secret_ciphertext,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    event: {
      id: row.event_id,
      type: row.event_type,
      createdAt: row.event_created_at,
      data: row.event_data,
    },
  };
}

export interface OutcomeOptions {
  /** Delays between attempts (WEBHOOK_RETRY_SCHEDULE). */
  retryScheduleMs: readonly number[];
  now: Date;
  /** Random number in [0, 1) for jitter (injectable for tests). */
  random?: () => number;
}

export interface Outcome {
  status: 'delivered' | 'pending' | 'failed' | 'lost';
  /** When the next attempt is due (pending only). */
  nextAttemptAt: Date | null;
  /** The endpoint answered 410 Gone and was disabled. */
  disabled: boolean;
  /** Newer deliveries of the same endpoint and resource were waiting for this one. */
  unblocked: boolean;
}

/** One finished attempt to record. */
export interface AttemptResult {
  delivery: Pick<ClaimedDelivery, 'storeId' | 'id' | 'endpointId' | 'attempt'>;
  result: SendResult;
  options: OutcomeOptions;
}

/**
 * What an attempt's result makes of its delivery: delivered on 2xx; failures are retried on the
 * schedule with ±20 % jitter, and never earlier than a `Retry-After` asks; after the last attempt
 * the delivery is `failed`. 410 Gone fails the delivery (and disables the endpoint). An attempt
 * interrupted by a stopping worker is retried at once and never fails the delivery.
 */
function nextStateOf({ delivery, result, options }: AttemptResult): {
  status: 'delivered' | 'pending' | 'failed';
  nextAttemptAt: Date | null;
  gone: boolean;
} {
  const { now } = options;
  const random = options.random ?? Math.random;
  const gone = !result.ok && result.status === 410;
  if (result.ok) return { status: 'delivered', nextAttemptAt: null, gone };
  if (gone) return { status: 'failed', nextAttemptAt: null, gone };
  if (result.interrupted) return { status: 'pending', nextAttemptAt: now, gone };
  const delay = options.retryScheduleMs[delivery.attempt - 1];
  if (delay === undefined) return { status: 'failed', nextAttemptAt: null, gone };
  const jittered = Math.round(delay * (0.8 + 0.4 * random()));
  return {
    status: 'pending',
    nextAttemptAt: new Date(now.getTime() + Math.max(jittered, result.retryAfterMs ?? 0)),
    gone,
  };
}

/** Attempts recorded in one statement at most (10 parameters each). */
export const OUTCOME_BATCH = 200;

/**
 * Records the results of attempts that finished together, in one statement (one UPDATE … FROM
 * (VALUES …)), each fenced by its attempt number: if the lease ran out and another relay started a
 * later attempt, that result is dropped (`lost`). The statement also tells, per delivery, whether
 * newer deliveries of the same endpoint and resource are waiting behind it (`unblocked`), and, when
 * `notifyPayload` is given and some are, wakes the other relays (one NOTIFY). A 410 Gone disables
 * its endpoint in the same statement. Outcomes come back in the order of `attempts`.
 */
export async function recordOutcomes(
  db: Kysely<Database>,
  attempts: readonly AttemptResult[],
  notifyPayload: string | null = '',
): Promise<Outcome[]> {
  if (attempts.length === 0) return [];
  if (attempts.length > OUTCOME_BATCH) {
    const outcomes: Outcome[] = [];
    for (let i = 0; i < attempts.length; i += OUTCOME_BATCH) {
      outcomes.push(...(await recordOutcomes(db, attempts.slice(i, i + OUTCOME_BATCH), notifyPayload)));
    }
    return outcomes;
  }
  const states = attempts.map(nextStateOf);
  const values = attempts.map(({ delivery, result, options }, i) => {
    const state = states[i]!;
    const { now } = options;
    return sql`(${delivery.storeId}::uuid, ${delivery.id}::uuid, ${delivery.attempt}::int, ${state.status}::text,
      ${state.nextAttemptAt ?? now}::timestamptz, ${result.status}::int,
      ${result.ok ? null : result.error.slice(0, 1000)}::text,
      ${state.status === 'delivered' ? now : null}::timestamptz,
      ${state.status === 'failed' ? now : null}::timestamptz, ${now}::timestamptz, ${state.gone}::boolean)`;
  });
  const { rows } = await sql<{ id: string; waiting: boolean; disabled: boolean }>`
    WITH v (store_id, id, attempts, status, next_attempt_at, last_status_code, last_error, delivered_at, failed_at, at, gone) AS (
      VALUES ${sql.join(values)}
    ),
    updated AS (
      UPDATE webhook_deliveries w
      SET status = v.status, locked_until = NULL, next_attempt_at = v.next_attempt_at,
        last_status_code = v.last_status_code, last_error = v.last_error,
        delivered_at = v.delivered_at, failed_at = v.failed_at, updated_at = v.at
      FROM v
      WHERE w.store_id = v.store_id AND w.id = v.id AND w.attempts = v.attempts AND w.status = 'pending'
      RETURNING w.store_id, w.id, w.endpoint_id, w.resource_key, w.status
    ),
    -- 410 Gone disables the endpoint in the same statement, so no new delivery is made for it
    -- once its delivery shows failed.
    disabled AS (
      UPDATE webhook_endpoints e
      SET enabled = false, disabled_reason = 'gone', updated_at = v.at
      FROM updated u
      JOIN v ON v.store_id = u.store_id AND v.id = u.id
      WHERE v.gone AND e.store_id = u.store_id AND e.id = u.endpoint_id AND e.enabled
      RETURNING e.store_id, e.id
    ),
    outcomes AS (
      SELECT u.id, u.status <> 'pending' AND EXISTS (
        SELECT 1 FROM webhook_deliveries o
        WHERE o.store_id = u.store_id
          AND o.endpoint_id = u.endpoint_id
          AND o.resource_key = u.resource_key
          AND o.id <> u.id
          AND o.status = 'pending'
      ) AS waiting,
      EXISTS (SELECT 1 FROM disabled d WHERE d.store_id = u.store_id AND d.id = u.endpoint_id) AS disabled
      FROM updated u
    )
    SELECT o.id, o.waiting, o.disabled,
      CASE WHEN o.waiting AND ${notifyPayload !== null} THEN pg_notify(${WEBHOOK_CHANNEL}, ${notifyPayload ?? ''}) END AS notified
    FROM outcomes o`.execute(db);
  const recorded = new Map(rows.map((row) => [row.id, row]));

  const outcomes: Outcome[] = [];
  const disabledEndpoints = new Set<string>();
  for (const [i, { delivery }] of attempts.entries()) {
    const state = states[i]!;
    const row = recorded.get(delivery.id);
    if (row === undefined) {
      outcomes.push({ status: 'lost', nextAttemptAt: null, disabled: false, unblocked: false });
      continue;
    }
    // Several 410s of one endpoint in a batch disable it once: the first says so.
    const endpointKey = `${delivery.storeId}:${delivery.endpointId}`;
    const disabled = state.gone && row.disabled && !disabledEndpoints.has(endpointKey);
    if (disabled) disabledEndpoints.add(endpointKey);
    outcomes.push({
      status: state.status,
      nextAttemptAt: state.nextAttemptAt,
      disabled,
      unblocked: state.status !== 'pending' && row.waiting,
    });
  }
  return outcomes;
}

/** Records one attempt's result (recordOutcomes for a single attempt). */
export async function recordOutcome(
  db: Kysely<Database>,
  delivery: Pick<ClaimedDelivery, 'storeId' | 'id' | 'endpointId' | 'attempt'>,
  result: SendResult,
  options: OutcomeOptions,
): Promise<Outcome> {
  const [outcome] = await recordOutcomes(db, [{ delivery, result, options }]);
  return outcome!;
}

/**
 * A delivery that cannot be signed because the endpoint's secret cannot be decrypted (decision `secret-unreadable`): the
 * delivery fails now with the reason (a dead letter, retried by hand once the keys are fixed), and
 * the endpoint is disabled with `secret_unreadable`, so its other deliveries wait instead of
 * failing one by one. Fenced by the attempt number like every outcome.
 */
export async function failUnsignable(
  db: Kysely<Database>,
  delivery: Pick<ClaimedDelivery, 'storeId' | 'id' | 'endpointId' | 'attempt'>,
  reason: string,
  now: Date,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('webhook_deliveries')
      .set({
        status: 'failed',
        locked_until: null,
        last_status_code: null,
        last_error: reason.slice(0, 1000),
        failed_at: now,
        updated_at: now,
      })
      .where('store_id', '=', delivery.storeId)
      .where('id', '=', delivery.id)
      .where('attempts', '=', delivery.attempt)
      .where('status', '=', 'pending')
      .execute();
    await trx
      .updateTable('webhook_endpoints')
      .set({ enabled: false, disabled_reason: 'secret_unreadable', updated_at: now })
      .where('store_id', '=', delivery.storeId)
      .where('id', '=', delivery.endpointId)
      .where('enabled', '=', true)
      .execute();
  });
}

/**
 * When the relay should look again: the earliest future moment a pending delivery becomes due or
 * a lease ends (a relay that died mid-attempt). Null when nothing is scheduled.
 */
export async function nextDueAt(db: Kysely<Database>, now: Date): Promise<Date | null> {
  const result = await sql<{ at: Date | null }>`
    SELECT min(GREATEST(next_attempt_at, COALESCE(locked_until, next_attempt_at))) AS at
    FROM webhook_deliveries
    WHERE status = 'pending' AND GREATEST(next_attempt_at, COALESCE(locked_until, next_attempt_at)) > ${now}`.execute(
    db,
  );
  return result.rows[0]?.at ?? null;
}

const PURGE_BATCH = 1000;

/**
 * Deletes deliveries that were delivered (or failed for good) more than `retentionMs` ago, then
 * dispatched events older than that which no delivery row references any more (a dead letter
 * keeps its event until it is purged itself). Batched, so a large backlog never holds long locks.
 */
export async function purgeWebhookData(
  db: Kysely<Database>,
  now: Date,
  retentionMs: number,
): Promise<{ deliveries: number; events: number }> {
  const cutoff = new Date(now.getTime() - retentionMs);
  let deliveries = 0;
  for (;;) {
    const result = await sql`
      DELETE FROM webhook_deliveries
      WHERE (store_id, id) IN (
        SELECT store_id, id FROM webhook_deliveries
        WHERE (status = 'delivered' AND delivered_at < ${cutoff})
           OR (status = 'failed' AND failed_at < ${cutoff})
        LIMIT ${PURGE_BATCH}
      )`.execute(db);
    const count = Number(result.numAffectedRows ?? 0n);
    deliveries += count;
    if (count < PURGE_BATCH) break;
  }
  let events = 0;
  for (;;) {
    const result = await sql`
      DELETE FROM events
      WHERE (store_id, id) IN (
        SELECT ev.store_id, ev.id FROM events ev
        WHERE ev.dispatched_at IS NOT NULL AND ev.created_at < ${cutoff}
          AND NOT EXISTS (
            SELECT 1 FROM webhook_deliveries d WHERE d.store_id = ev.store_id AND d.event_id = ev.id
          )
        LIMIT ${PURGE_BATCH}
      )`.execute(db);
    const count = Number(result.numAffectedRows ?? 0n);
    events += count;
    if (count < PURGE_BATCH) break;
  }
  return { deliveries, events };
}

/** The name of the database `db` is connected to. */
export async function currentDatabaseName(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ name: string }>`SELECT current_database() AS name`.execute(db);
  return rows[0]!.name;
}

/** Deliveries waiting for an attempt and the oldest one's age, across stores (metrics, decision `metrics-off-until-readable`). */
export async function deliveryBacklog(db: Kysely<Database>, now: Date): Promise<QueueBacklog> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .where('status', '=', 'pending')
    .select((eb) => backlogColumns(eb))
    .executeTakeFirst();
  return queueBacklog(row, now);
}
