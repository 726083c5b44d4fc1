import { OncePerInterval } from '../lib/once-per-interval.ts';

/** PostgreSQL's unique_violation (SQLSTATE 23505), optionally of one named constraint or index. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint: name } = error as { code?: unknown; constraint?: unknown };
  return code === '23505' && (constraint === undefined || name === constraint);
}

/** PostgreSQL's foreign_key_violation (SQLSTATE 23503), optionally of one named constraint. */
export function isForeignKeyViolation(error: unknown, constraint?: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint: name } = error as { code?: unknown; constraint?: unknown };
  return code === '23503' && (constraint === undefined || name === constraint);
}

/**
 * SQLSTATE classes and codes that say the database (not the statement) cannot do the work now, so
 * the same request may succeed later as it is: retry later (decision `database-faults`).
 */
const UNAVAILABLE_CLASSES = [
  '08', // connection exception
  '53', // insufficient resources: 53100 disk_full, 53200 out_of_memory, 53300 too_many_connections, …
  '58', // system error, outside PostgreSQL: 58030 io_error, 58P01 undefined_file, …
  '57P', // operator intervention: admin or crash shutdown, cannot connect now, database dropped, …
  '28', // invalid authorization: a new connection is refused (the role or its password changed)
];
const UNAVAILABLE_STATES = new Set([
  '57014', // query_canceled: DATABASE_STATEMENT_TIMEOUT ran out (or an administrator cancelled it)
  '3D000', // invalid_catalog_name: the database does not exist (dropped while the service runs)
]);
/** Of those, the classes that say the database cannot write (disk full, out of memory, I/O error). */
const RESOURCE_CLASSES = ['53', '58'];

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

/** Five characters of digits and capitals: a SQLSTATE (Node's socket codes are longer words). */
const isSqlState = (code: string): boolean => /^[0-9A-Z]{5}$/.test(code);

/**
 * A statement the database did not answer within the client-side deadline (a stalled server, a
 * network that dropped without a word): its connection was closed, never to be reused.
 */
export class DatabaseDeadlineError extends Error {
  constructor(ms: number, what = 'the database did not answer') {
    super(`${what} within ${ms} ms`);
    this.name = 'DatabaseDeadlineError';
  }
}

/**
 * Whether `error` says the connection failed (a client deadline, a socket error, a connection `pg`
 * lost or could not make, each address of a host failing alike) or carries a SQLSTATE `counts`
 * accepts: what the two questions below share.
 */
function isConnectionError(error: unknown, counts: (sqlState: string) => boolean): boolean {
  if (typeof error !== 'object' || error === null) return false;
  if (error instanceof DatabaseDeadlineError) return true;
  const { code, message, errors } = error as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof code === 'string') {
    if (isSqlState(code) && counts(code)) return true;
    if (UNAVAILABLE_SOCKET_CODES.has(code)) return true;
  }
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.startsWith(m))) return true;
  // A connection attempt to every address of a host (IPv4 and IPv6) fails as an AggregateError.
  return (
    Array.isArray(errors) && errors.length > 0 && errors.every((each) => isConnectionError(each, counts))
  );
}

/**
 * Whether an error means that the database could not be reached or dropped the connection (an
 * outage, a restart, a terminated backend), rather than that the statement was wrong: such a request
 * may be retried as it was once the database is back (503 with Retry-After, never a 500).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return isConnectionError(
    error,
    (code) => UNAVAILABLE_CLASSES.some((prefix) => code.startsWith(prefix)) || UNAVAILABLE_STATES.has(code),
  );
}

/** SQLSTATE classes of a connection lost under a statement: it may have run to its end, COMMIT included. */
const LOST_CONNECTION_CLASSES = ['08', '57P'];

/**
 * Whether a failed transaction may have committed all the same (decision
 * `intent-of-an-unknown-outcome`): the connection was lost, or the database stopped answering, while
 * its statements or its COMMIT were on their way, so the answer, not the work, may be what was lost.
 * An error the database raised for a statement (a constraint, a full disk, a cancelled statement)
 * rolled the transaction back: its outcome is known.
 */
export function isOutcomeUnknown(error: unknown): boolean {
  return isConnectionError(error, (code) =>
    LOST_CONNECTION_CLASSES.some((prefix) => code.startsWith(prefix)),
  );
}

/** What {@link reportIfOutage} logs with: any logger (pino, a request's, a feature's narrower one). */
export interface OutageLog {
  warn(object: object, message: string): void;
  debug(object: object, message: string): void;
}

/** While the database is unavailable, its failures are logged once per this interval. */
const OUTAGE_LOG_INTERVAL_MS = 10_000;
const outage = new OncePerInterval(OUTAGE_LOG_INTERVAL_MS);

/**
 * How long after the last reported failure for lack of resources (disk full, out of memory, an I/O
 * error) readiness keeps failing: such a database still answers a `SELECT 1`, so readiness cannot
 * see it by asking.
 */
export const RESOURCE_FAILURE_WINDOW_MS = 30_000;
let lastResourceFailure: { at: number; code: string } | null = null;

/**
 * The SQLSTATE of a failure for lack of resources reported (by {@link reportIfOutage}) in this
 * process within the last {@link RESOURCE_FAILURE_WINDOW_MS} before `now` (the runtime's clock), or
 * null.
 */
export function recentResourceFailure(now = Date.now()): string | null {
  if (lastResourceFailure === null || now - lastResourceFailure.at > RESOURCE_FAILURE_WINDOW_MS) return null;
  return lastResourceFailure.code;
}

/** The error's `code`: a SQLSTATE from the database, or a socket's code (`ECONNREFUSED`). */
function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * When `error` is the database being unavailable, logs it (once per interval for the whole process,
 * without a stack: every request and loop fails alike during an outage; the others at debug level)
 * and returns true; any other
 * error is left to the caller. Requests answer 503 meanwhile and the loops retry on their intervals.
 * A failure for lack of resources is also remembered for readiness ({@link recentResourceFailure}).
 */
export function reportIfOutage(
  log: OutageLog,
  error: unknown,
  context: Record<string, unknown> = {},
): boolean {
  if (!isDatabaseUnavailable(error)) return false;
  const code = codeOf(error);
  if (code !== undefined && isSqlState(code) && RESOURCE_CLASSES.some((prefix) => code.startsWith(prefix)))
    lastResourceFailure = { at: Date.now(), code };
  const unlogged = outage.hit();
  if (unlogged !== null)
    log.warn(
      {
        ...context,
        err: (error as Error).message,
        ...(code === undefined ? {} : { code }),
        failedMeanwhile: unlogged,
      },
      'database unavailable: requests answer 503 and loops retry until it is back',
    );
  // The failures in between, at debug level: which loop retried when, for whoever needs to see it.
  else log.debug({ ...context, ...(code === undefined ? {} : { code }) }, 'database still unavailable');
  return true;
}
