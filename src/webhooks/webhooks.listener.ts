import type { Log } from '../lib/log.ts';
import pg from 'pg';
import { reportIfOutage } from '../db/errors.ts';

/**
 * A wake-up flag a loop can sleep on: `notify()` ends the current `wait()` at once, or makes the
 * next one return immediately, so a notification that arrives while the loop is busy is not lost.
 */
export class Waker {
  #pending = false;
  #wakeUp: (() => void) | null = null;

  notify(): void {
    this.#pending = true;
    this.#wakeUp?.();
  }

  /** Forgets earlier notifications (call before doing the work they asked for). */
  clear(): void {
    this.#pending = false;
  }

  /** Sleeps until notified, `ms` elapsed, or `signal` aborted; true when it was notified. */
  async wait(ms: number, signal: AbortSignal): Promise<boolean> {
    if (this.#pending || signal.aborted) return this.#pending;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.#wakeUp = null;
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal.addEventListener('abort', done, { once: true });
      this.#wakeUp = done;
    });
    return this.#pending;
  }
}

const RECONNECT_EVERY_MS = 5000;

/**
 * A dedicated PostgreSQL connection that LISTENs on a channel and calls `onNotify` with the payload
 * of every notification. If the connection drops it is reopened on the next `ensure()` (at most every 5 s),
 * and `onNotify` is called after every (re)connect, since notifications sent while it was down
 * are lost. Polling covers the gap meanwhile.
 */
export class NotificationListener {
  readonly #connectionString: string;
  readonly #channel: string;
  readonly #onNotify: (payload: string) => void;
  readonly #log: Log;
  #client: pg.Client | null = null;
  #lastAttempt = 0;
  #closed = false;

  constructor(options: {
    connectionString: string;
    channel: string;
    onNotify: (payload: string) => void;
    log: Log;
  }) {
    this.#connectionString = options.connectionString;
    this.#channel = options.channel;
    this.#onNotify = options.onNotify;
    this.#log = options.log;
  }

  get connected(): boolean {
    return this.#client !== null;
  }

  async ensure(): Promise<void> {
    if (this.#client || this.#closed || Date.now() - this.#lastAttempt < RECONNECT_EVERY_MS) return;
    this.#lastAttempt = Date.now();
    const client = new pg.Client({
      connectionString: this.#connectionString,
      application_name: 'storefront webhook listener',
    });
    const drop = (error?: Error): void => {
      if (this.#client === client) this.#client = null;
      if (error && !this.#closed) this.#log.warn({ err: error.message }, 'webhook LISTEN connection lost');
      client.end().catch(() => undefined);
    };
    client.on('error', drop);
    client.on('end', () => drop());
    client.on('notification', (message) => this.#onNotify(message.payload ?? ''));
    try {
      await client.connect();
      await client.query(`LISTEN ${this.#channel}`);
    } catch (error) {
      // While the database is away this fails every 5 s: logged with the outage, throttled.
      if (!reportIfOutage(this.#log, error, { loop: 'webhook listener' }))
        this.#log.warn(
          { err: (error as Error).message },
          'webhook LISTEN connection failed; polling meanwhile',
        );
      drop();
      return;
    }
    if (this.#closed) {
      drop();
      return;
    }
    this.#client = client;
    // As if anything had happened meanwhile: a commit ('') and a claim ('reconnected').
    this.#onNotify('');
    this.#onNotify('reconnected');
  }

  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => undefined);
  }
}
