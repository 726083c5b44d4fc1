import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { Log } from '../lib/log.ts';
import type { PaymentProvider } from '../payments/provider.ts';
import type { WorkerSignals } from '../workers/runner.ts';
import type { Clock } from '../lib/clock.ts';

/** What the money path (provider events, refunds, expiry) works with. */
export interface PaymentDeps {
  db: Kysely<Database>;
  clock: Clock;
  provider: PaymentProvider;
  log: Log;
  signals: WorkerSignals;
}
