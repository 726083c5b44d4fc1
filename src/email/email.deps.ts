import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { Clock } from '../lib/clock.ts';
import type { Keyring } from '../lib/keyring.ts';
import type { WorkerSignals } from '../workers/runner.ts';
import type { EmailSettings } from './email.config.ts';

/**
 * What the email part works with: sending domains, their verification and the sender of each
 * mail. Every function takes these first, or the part of them it uses (`db` may be a transaction).
 */
export interface EmailDeps {
  db: Kysely<Database>;
  config: EmailSettings;
  clock: Clock;
  /** Seals and opens the DKIM private keys (decision `sealed-secrets`). */
  keyring: Keyring;
  /** Wakes this process's mail loop after a notice was queued. */
  signals?: WorkerSignals | undefined;
}

export interface EmailLog {
  debug(object: object, message: string): void;
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}
