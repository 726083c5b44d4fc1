import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/tables.ts';
import type { DatabaseKind } from '../db/database.ts';
import type { KeyResolver } from '../keys/key-resolver.ts';
import type { Keyring } from '../lib/keyring.ts';
import type { PaymentProvider } from '../payments/provider.ts';
import type { RateLimiter } from '../ratelimit/ratelimit.limiter.ts';
import type { WorkerSignals } from '../workers/runner.ts';
import type { Clock } from '../lib/clock.ts';
import type { CursorCodec } from '../lib/cursors.ts';

/** Everything a route plugin needs, passed explicitly (no globals). */
export interface AppContext {
  config: Readonly<Config>;
  db: Kysely<Database>;
  dbKind: DatabaseKind;
  clock: Clock;
  cursors: CursorCodec;
  keys: KeyResolver;
  /** Wakes this process's worker loops after a commit (mail queued, events recorded). */
  signals: WorkerSignals;
  /** The root secrets (D28): seals stored secrets (webhook signing secrets, DKIM keys, client secrets, …). */
  keyring: Keyring;
  /** Key for hashing one-time sign-in codes (HMAC; a 6-digit code is too small for a plain hash). */
  signInCodeKey: Buffer;
  /** The payment provider checkout, refunds and webhooks use (sandbox or stripe). */
  payments: PaymentProvider;
  /** Storefront request budgets per key and client (D12), counted in memory or Redis. */
  rateLimiter: RateLimiter;
}
