/**
 * The read replica's monitor (decision `replica-reads`): whether the PostgreSQL standby of
 * DATABASE_REPLICA_URL may serve the storefront's catalog reads now.
 *
 * Every probe reads the primary's WAL position (`pg_current_wal_lsn()`), then asks the standby
 * whether it is one (`pg_is_in_recovery()`) and how far it has replayed (`pg_last_wal_replay_lsn()`).
 * The replica's lag is how long ago the primary was at the oldest position the standby has not
 * replayed yet: 0 when it has replayed all the primary had written, however long the primary was
 * idle (`now() - pg_last_xact_replay_timestamp()` grows on an idle primary, so it is not used
 * alone). The replica is out of use, and the reads go to the primary, while its lag is over
 * REPLICA_MAX_LAG, while a probe fails or does not answer within the probe's bound, after a read
 * failed on it (./replica-routing.ts), or when it is not a standby; it is used again when a probe
 * finds it within half that lag. Each change is one log line.
 */
import type pg from 'pg';
import type { Log } from '../lib/log.ts';

/** What the metrics show of the replica (src/observability). */
export interface ReplicaStats {
  inUse: boolean;
  /** Seconds behind the primary at the last probe (its last known value while a probe fails). */
  lagSeconds: number;
  /** Statements of the catalog's reads served by each server since the process started. */
  reads: { replica: number; primary: number };
  /** Reads that failed on the replica and were served again by the primary. */
  retried: number;
}

/** A position in the WAL, `X/Y` in hexadecimal, as a number of bytes (exact below 2^53: 8 PiB). */
export function parseLsn(text: string): number {
  const [high = '', low = ''] = text.split('/');
  return Number.parseInt(high, 16) * 2 ** 32 + Number.parseInt(low, 16);
}

/** How often the replica is probed: twice per REPLICA_MAX_LAG, from 100 ms to 500 ms apart. */
export function probeIntervalMs(maxLagMs: number): number {
  return Math.min(500, Math.max(100, Math.floor(maxLagMs / 2)));
}

/** The primary's positions not yet seen replayed, kept at most this many (the oldest stays). */
const MAX_SAMPLES = 256;

export class ReplicaMonitor {
  readonly #primary: pg.Pool;
  readonly #replica: pg.Pool;
  readonly #maxLagMs: number;
  readonly #probeTimeoutMs: number;
  readonly #log: Log;
  readonly stats: ReplicaStats = {
    inUse: false,
    lagSeconds: 0,
    reads: { replica: 0, primary: 0 },
    retried: 0,
  };
  /** The primary's WAL positions the standby had not replayed at the last probe, oldest first. */
  #samples: { lsn: number; at: number }[] = [];
  #replayed = -1;
  #probing: number | null = null;
  #timer: NodeJS.Timeout | null = null;
  /** Whether the state was ever logged (the first "in use" is an info line, not a return). */
  #known = false;

  constructor(options: { primary: pg.Pool; replica: pg.Pool; maxLagMs: number; log: Log }) {
    this.#primary = options.primary;
    this.#replica = options.replica;
    this.#maxLagMs = options.maxLagMs;
    // At least a second: a busy host answers a probe late now and then, and each late probe would be a
    // warning and a return.
    this.#probeTimeoutMs = Math.max(1000, options.maxLagMs);
    this.#log = options.log;
  }

  /** Whether catalog reads go to the replica now. */
  get inUse(): boolean {
    return this.stats.inUse;
  }

  /** The WAL position the standby had replayed at the last probe (-1: none yet). */
  get replayed(): number {
    return this.#replayed;
  }

  /** Probes now, then every {@link probeIntervalMs}. */
  start(): Promise<void> {
    if (!this.#timer) {
      this.#timer = setInterval(() => void this.probe(), probeIntervalMs(this.#maxLagMs));
      this.#timer.unref();
    }
    return this.probe();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** A read failed on the replica with `error` (it was served by the primary): out until a probe. */
  readFailed(error: unknown): void {
    this.stats.retried += 1;
    this.#out(`a read failed on it: ${(error as Error).message}`);
  }

  /** One probe; a probe still running after its bound puts the replica out (a stalled standby). */
  async probe(): Promise<void> {
    const now = performance.now();
    if (this.#probing !== null) {
      if (now - this.#probing > this.#probeTimeoutMs)
        this.#out(`it did not answer within ${this.#probeTimeoutMs} ms`);
      return;
    }
    this.#probing = now;
    try {
      const primary = await this.#primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
      const at = performance.now();
      const standby = await this.#replica.query<{ recovery: boolean; replayed: string | null }>(
        'SELECT pg_is_in_recovery() AS recovery, pg_last_wal_replay_lsn()::text AS replayed',
      );
      const row = standby.rows[0];
      if (!row?.recovery || row.replayed === null) {
        this.#out('it is not a standby in recovery (pg_is_in_recovery() is false)');
        return;
      }
      this.#measure(parseLsn(primary.rows[0]!.lsn), at, parseLsn(row.replayed));
    } catch (error) {
      this.#out(`the probe failed: ${(error as Error).message}`);
    } finally {
      this.#probing = null;
    }
  }

  #measure(primaryLsn: number, at: number, replayed: number): void {
    this.#replayed = replayed;
    this.#samples.push({ lsn: primaryLsn, at });
    this.#samples = this.#samples.filter((sample) => sample.lsn > replayed);
    if (this.#samples.length > MAX_SAMPLES) this.#samples.splice(1, 1);
    const oldest = this.#samples[0];
    const lagMs = oldest === undefined ? 0 : performance.now() - oldest.at;
    this.stats.lagSeconds = lagMs / 1000;
    if (lagMs > this.#maxLagMs) this.#out(`it lags ${Math.round(lagMs)} ms behind the primary`);
    else if (!this.stats.inUse && lagMs <= this.#maxLagMs / 2) {
      this.stats.inUse = true;
      this.#log.info(
        { lagMs: Math.round(lagMs) },
        this.#known ? 'replica back in use for catalog reads' : 'replica in use for catalog reads',
      );
      this.#known = true;
    }
  }

  #out(reason: string): void {
    if (!this.stats.inUse && this.#known) return;
    this.stats.inUse = false;
    this.#known = true;
    this.#log.warn(
      { maxLagMs: this.#maxLagMs },
      `replica out of use, catalog reads go to the primary: ${reason}`,
    );
  }
}
