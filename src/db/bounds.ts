/**
 * Bounds on what the PostgreSQL pool may cost a caller (decision `database-faults`):
 *
 * - the server cancels a statement that runs longer than `statement_timeout` (set per connection
 *   at its start-up, no round trip), and the error answers 503 like any outage;
 * - a statement whose answer does not come at all (a stalled server, a network that went silent)
 *   fails on the client after that bound plus {@link DEADLINE_MARGIN_MS}: its connection is closed,
 *   so the pool can never hand it out again;
 * - a request's database work, all of it (waiting for a pooled connection, every statement, the
 *   statements of its error path), ends within the same deadline counted from the request's start
 *   ({@link runAsRequest}): a request fails with 503 within it instead of waiting for one bound
 *   after another;
 * - a statement that failed because its connection is gone (PostgreSQL terminated the session, the
 *   socket broke) closes the connection before the failure reaches the caller, who then gives the
 *   client back to the pool: the pool drops a client that is ending instead of keeping it idle.
 *   Without this, a session terminated during a statement outside a transaction went back to the
 *   pool before pg noticed the socket's end, and the next caller's statement failed on it with
 *   "Connection terminated unexpectedly".
 *
 * A BEGIN kept for the next statement and a COMMIT sent with the last one (./pg-transactions.ts)
 * travel in that statement's message group, under its bound; a COMMIT or ROLLBACK sent alone is a
 * statement of its own, bounded the same way.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';
import { DatabaseDeadlineError, isDatabaseUnavailable } from './errors.ts';

/**
 * How much longer than the statement bound the client waits for an answer before it closes the
 * connection: time for the server's own cancellation (a 57014 error, the connection kept) to arrive.
 */
export const DEADLINE_MARGIN_MS = 2000;

/** An HTTP request whose database work is bounded from its start, until it is answered. */
export interface RequestScope {
  /** When its bound started counting (moved on by the long work it ran, `withLongBound`). */
  startedAt: number;
  answered: boolean;
  /** A bound of its own, longer than the configured one (`withLongBound`), in ms. */
  readonly longMs?: number;
  /**
   * The least WAL position the replica was known to have replayed when one of the request's reads
   * went to it (./replica-routing.ts); absent when none did. The read cache keeps such an answer only
   * if that position covers what the cache's versions saw (decision `replica-reads`).
   */
  replicaReplayed?: number;
}
const requests = new AsyncLocalStorage<RequestScope>();

/** A scope for a request starting now. */
export function requestScope(): RequestScope {
  return { startedAt: performance.now(), answered: false };
}

/**
 * Runs `next` (the rest of a request's hooks and its handler) as work of `scope`: the statements it
 * sends until the request is answered share one deadline. What runs after the answer (work the
 * request left behind) is bounded per statement only.
 */
export function runAsRequest(scope: RequestScope, next: () => void): void {
  requests.run(scope, next);
}

/** Notes that the current request read from the replica, which had replayed up to `replayed`. */
export function noteReplicaRead(replayed: number): void {
  const scope = requests.getStore();
  if (scope !== undefined) scope.replicaReplayed = Math.min(scope.replicaReplayed ?? replayed, replayed);
}

/** The replay position under the current request's replica reads; undefined when it made none. */
export function replicaReplayedOfRequest(): number | undefined {
  return requests.getStore()?.replicaReplayed;
}

/**
 * Runs `work` (and every statement it sends) under a bound of `ms` instead of the configured one:
 * the few operations whose one statement covers a whole catalog (a market's creation prices every
 * product), each of which also lifts the server's `statement_timeout` for its transaction. The
 * rest of the request keeps its own bound.
 */
export async function withLongBound<T>(ms: number, work: () => Promise<T>): Promise<T> {
  const outer = requests.getStore();
  const start = performance.now();
  try {
    return await requests.run({ startedAt: start, answered: false, longMs: ms }, work);
  } finally {
    // The long work's time is not the request's: what follows it keeps the request's own bound.
    if (outer) outer.startedAt += performance.now() - start;
  }
}

/**
 * Runs `work` (one page of an answer that streams for as long as a store is large, such as an
 * export) under a bound counted from now: each page reads under the configured bound, where a
 * request's one deadline would cut a million products' export off after its first seconds.
 */
export function withFreshBound<T>(work: () => Promise<T>): Promise<T> {
  return requests.run({ startedAt: performance.now(), answered: false }, work);
}

/** The bound of one statement sent now: the configured one, or the current long work's. */
function statementBound(deadlineMs: number): number {
  return requests.getStore()?.longMs ?? deadlineMs;
}

/** Milliseconds the current request's database work has left under `deadlineMs`; Infinity outside one. */
function requestTimeLeft(deadlineMs: number): number {
  const scope = requests.getStore();
  if (scope === undefined || scope.answered) return Number.POSITIVE_INFINITY;
  return scope.startedAt + (scope.longMs ?? deadlineMs) - performance.now();
}

const REQUEST_WORK = "the request's database work did not end";

/** Clients closed here: a transaction open on one ended with its connection. */
const closed = new WeakSet<pg.ClientBase>();
const ROLLBACK = /^\s*rollback\s*;?\s*$/i;
const rolledBack = { command: 'ROLLBACK', rowCount: null, oid: 0, rows: [], fields: [] };

/** Closes `client` now; the pool removes a client that is ending when it is released. */
function discard(client: pg.ClientBase): void {
  closed.add(client);
  (client as pg.Client).end().catch(() => undefined);
}

/**
 * Whether the connection under a failed statement is gone or cannot be trusted with another
 * statement: the server ended the session (severity FATAL or PANIC), or the error came from the
 * socket or the client rather than from the server (no severity), as a lost connection does.
 */
function connectionLost(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const severity = (error as { severity?: unknown }).severity;
  if (severity === 'FATAL' || severity === 'PANIC') return true;
  return severity === undefined && isDatabaseUnavailable(error);
}

/** `pending`, or `late()`'s error after `ms` (then `onLate` closes what the late answer would use). */
function within<T>(pending: Promise<T>, ms: number, onLate: () => void, late: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      onLate();
      reject(late());
    }, ms);
    pending.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: Error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * Wraps `client.query` (outermost): each statement answers within `deadlineMs`, and within what
 * its request has left of it, or its connection is closed (null: no deadline, for the CLI's long
 * work); a statement that failed with its connection closes it before the caller sees the failure.
 */
export function boundStatements(client: pg.ClientBase, deadlineMs: number | null): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = ((...args: unknown[]) => {
    const bound = deadlineMs === null ? null : statementBound(deadlineMs);
    // The ROLLBACK of a transaction whose connection was closed here: the server rolled it back
    // when the connection ended, and the caller keeps the error that ended it.
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: unknown } | null)?.text;
    if (closed.has(client) && typeof text === 'string' && ROLLBACK.test(text))
      return Promise.resolve(rolledBack);
    const left = bound === null ? Number.POSITIVE_INFINITY : requestTimeLeft(bound);
    if (left <= 0) {
      // Nothing is sent; the connection goes, in case a transaction is open on it.
      discard(client);
      return Promise.reject(new DatabaseDeadlineError(bound!, REQUEST_WORK));
    }
    const result = query(...args);
    if (typeof (result as Promise<unknown> | undefined)?.then !== 'function') return result;
    const pending = (result as Promise<unknown>).catch((error: unknown) => {
      if (connectionLost(error)) discard(client);
      throw error;
    });
    if (bound === null) return pending;
    return left < bound
      ? within(
          pending,
          left,
          () => discard(client),
          () => new DatabaseDeadlineError(bound, REQUEST_WORK),
        )
      : within(
          pending,
          bound,
          () => discard(client),
          () => new DatabaseDeadlineError(bound),
        );
  }) as typeof client.query;
}

/** Gives a client the pool hands over after its caller stopped waiting straight back. */
function releaseWhenAcquired(acquiring: Promise<pg.PoolClient>): void {
  acquiring.then(
    (late) => late.release(),
    () => undefined,
  );
}

/**
 * Bounds the wait for a pooled connection of a request by what its database work has left
 * (`pool.connect()` as Kysely calls it; the pool's own callers pass a callback and are left alone).
 */
export function boundAcquisition(pool: pg.Pool, deadlineMs: number | null): void {
  if (deadlineMs === null) return;
  const connect = pool.connect.bind(pool) as (callback?: unknown) => Promise<pg.PoolClient> | undefined;
  pool.connect = ((callback?: unknown) => {
    if (callback !== undefined) return connect(callback);
    const left = requestTimeLeft(statementBound(deadlineMs));
    if (left === Number.POSITIVE_INFINITY) return connect();
    if (left <= 0) return Promise.reject(new DatabaseDeadlineError(deadlineMs, REQUEST_WORK));
    const acquiring = connect()!;
    return within(
      acquiring,
      left,
      () => releaseWhenAcquired(acquiring),
      () => new DatabaseDeadlineError(deadlineMs, REQUEST_WORK),
    );
  }) as typeof pool.connect;
}

/**
 * Readiness on PostgreSQL: a pooled connection answers `SELECT 1` within `timeoutMs` in all (the
 * wait for a connection included), or it fails with a {@link DatabaseDeadlineError}; a connection
 * that did not answer in time is closed.
 */
export async function pingPool(pool: pg.Pool, timeoutMs: number): Promise<void> {
  const started = performance.now();
  const late = (): Error => new DatabaseDeadlineError(timeoutMs);
  const acquiring = pool.connect();
  const client = await within(acquiring, timeoutMs, () => releaseWhenAcquired(acquiring), late);
  try {
    const left = Math.max(1, timeoutMs - (performance.now() - started));
    await within(client.query('SELECT 1'), left, () => discard(client), late);
  } finally {
    client.release();
  }
}

/** Readiness on the embedded database: `probe` resolves within `timeoutMs` or fails. */
export async function pingWithin(probe: Promise<unknown>, timeoutMs: number): Promise<void> {
  await within(
    probe,
    timeoutMs,
    () => undefined,
    () => new DatabaseDeadlineError(timeoutMs),
  );
}
