import type { Log } from '../lib/log.ts';
import { OncePerInterval } from '../lib/once-per-interval.ts';

/** PostgreSQL's unique_violation (SQLSTATE 23505), optionally of one named constraint or index. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint: name } = error as { code?: unknown; constraint?: unknown };
  return code === '23505' && (constraint === undefined || name === constraint);
}

/** SQLSTATEs that say the database (not the statement) is unavailable: retry later. */
const UNAVAILABLE_STATES = new Set([
  '57P01', // admin_shutdown: the server is stopping, or an administrator terminated the connection
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: the server is starting up or in recovery
  '53300', // too_many_connections
]);

/** Errors of the socket under a connection (Node's `code`). */
const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** What `pg` and `pg-pool` say of a connection that is lost or cannot be made. */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'timeout exceeded when trying to connect',
  'Client was closed and is not queryable',
];

/**
 * Whether an error means that the database could not be reached or dropped the connection (an
 * outage, a restart, a terminated backend), rather than that the statement was wrong: such a request
 * may be retried as it was once the database is back (503 with Retry-After, never a 500).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message, errors } = error as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof code === 'string') {
    if (code.startsWith('08') && code.length === 5) return true; // class 08: connection exception
    if (UNAVAILABLE_STATES.has(code) || UNAVAILABLE_SOCKET_CODES.has(code)) return true;
  }
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.startsWith(m))) return true;
  // A connection attempt to every address of a host (IPv4 and IPv6) fails as an AggregateError.
  return Array.isArray(errors) && errors.length > 0 && errors.every(isDatabaseUnavailable);
}

/** While the database is unavailable, its failures are logged once per this interval. */
const OUTAGE_LOG_INTERVAL_MS = 10_000;
const outage = new OncePerInterval(OUTAGE_LOG_INTERVAL_MS);

/**
 * When `error` is the database being unavailable, logs it (once per interval for the whole process,
 * without a stack: every request and loop fails alike during an outage) and returns true; any other
 * error is left to the caller. Requests answer 503 meanwhile and the loops retry on their intervals.
 */
export function reportIfOutage(log: Log, error: unknown, context: Record<string, unknown> = {}): boolean {
  if (!isDatabaseUnavailable(error)) return false;
  const unlogged = outage.hit();
  if (unlogged !== null)
    log.warn(
      { ...context, err: (error as Error).message, failedMeanwhile: unlogged },
      'database unavailable: requests answer 503 and loops retry until it is back',
    );
  return true;
}
