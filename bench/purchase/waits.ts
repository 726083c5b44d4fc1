/** Where the database's backends wait (PostgreSQL, not --no-waits). */
import { setTimeout as sleep } from 'node:timers/promises';
import { withClient } from '../lib/databases.ts';
import { tally } from './format.ts';
import { type Role, roleOf } from './readings.ts';
import type { Target } from './target.ts';

/** How often the wait sampling reads pg_stat_activity during a recorded round. */
export const WAIT_SAMPLE_MS = 50;

/**
 * Where the client backends of the target's database were during a recorded round: pg_stat_activity
 * read every WAIT_SAMPLE_MS on a connection of its own (itself excluded), each backend counted in its
 * class: `active, on CPU`, `active, waiting: <wait_event_type>/<wait_event>`, `idle in transaction`
 * or `idle`, for the process it serves (by application_name, as roleOf tells them apart).
 */
export interface Waits {
  /** Reads of pg_stat_activity. */
  samples: number;
  /** Per process and class: the backends seen in that class, summed over the samples. */
  seen: Record<Role, Record<string, number>>;
  /** Why the sampling stopped before the round's end, if it did. */
  failure: string | null;
}

const noWaits = (): Waits => ({ samples: 0, seen: { api: {}, worker: {}, other: {} }, failure: null });

interface ActivityRow {
  application_name: string | null;
  state: string | null;
  wait_event_type: string | null;
  wait_event: string | null;
  backend_type: string | null;
}

/** The start of the class of an active backend that waits (for a lock, I/O, …). */
export const WAITING = 'active, waiting: ';

/** The class of a client backend in a sample of pg_stat_activity. */
function waitClassOf(row: ActivityRow): string {
  if (row.state === 'active')
    return row.wait_event_type === null
      ? 'active, on CPU'
      : `${WAITING}${row.wait_event_type}/${row.wait_event ?? '?'}`;
  // `idle in transaction (aborted)` too: the backend waits for its client between statements.
  if (row.state?.startsWith('idle in transaction')) return 'idle in transaction';
  return row.state ?? 'unknown';
}

/**
 * Starts sampling where the target's backends wait (null: PGlite or --no-waits); resolves once its
 * connection is open. `stop()` ends it (at once, not after the next 50 ms) and `counted` then gives
 * the samples, once the connection is closed; it never rejects (a failure is in `failure`).
 */
export async function sampleWaits(
  target: Target,
  enabled: boolean,
): Promise<{ stop: () => void; counted: Promise<Waits> } | null> {
  if (!enabled || target.databaseUrl === null) return null;
  const separate = target.worker !== null;
  const waits = noWaits();
  let stopped = false;
  let stop = (): void => undefined;
  const stopping = new Promise<void>((resolve) => {
    stop = () => {
      stopped = true;
      resolve();
    };
  });
  let opened = (): void => undefined;
  const open = new Promise<void>((resolve) => (opened = resolve));
  const counted = withClient(target.databaseUrl, async (client) => {
    opened();
    while (!stopped) {
      const next = performance.now() + WAIT_SAMPLE_MS;
      const result = await client.query<ActivityRow>(
        'SELECT application_name, state, wait_event_type, wait_event, backend_type FROM pg_stat_activity ' +
          'WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      waits.samples += 1;
      for (const row of result.rows) {
        if (row.backend_type !== 'client backend') continue;
        tally(waits.seen[roleOf(row.application_name ?? '', separate)], waitClassOf(row));
      }
      await Promise.race([sleep(Math.max(0, next - performance.now())), stopping]);
    }
  }).then(
    () => waits,
    (error: unknown) => {
      waits.failure = error instanceof Error ? error.message : String(error);
      opened();
      return waits;
    },
  );
  await open;
  return { stop, counted };
}

/** The waits of several rounds together (null: none was sampled). */
export function sumWaits(all: (Waits | null)[]): Waits | null {
  const sampled = all.filter((w): w is Waits => w !== null);
  if (sampled.length === 0) return null;
  const sum = noWaits();
  for (const w of sampled) {
    sum.samples += w.samples;
    sum.failure ??= w.failure;
    for (const role of ['api', 'worker', 'other'] as const)
      for (const [what, n] of Object.entries(w.seen[role]))
        sum.seen[role][what] = (sum.seen[role][what] ?? 0) + n;
  }
  return sum;
}

/** Backends in the classes `which` picks, on average per sample, over every process. */
export function backendsIn(waits: Waits, which: (what: string) => boolean): number {
  if (waits.samples === 0) return Number.NaN;
  let seen = 0;
  for (const role of ['api', 'worker', 'other'] as const)
    for (const [what, n] of Object.entries(waits.seen[role])) if (which(what)) seen += n;
  return seen / waits.samples;
}

export const isLockWait = (what: string): boolean => what.startsWith(`${WAITING}Lock/`);
