import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Database } from '../db/tables.ts';
import { emailIdentityLoops } from '../email/email.loops.ts';
import { webhookLoops } from '../webhooks/webhooks.loops.ts';
import { mailWorkerLoop } from '../mail/mail-worker.loop.ts';
import type { MailTransport } from '../mail/transport.ts';
import { sessionCleanupLoop } from '../staff/session-cleanup.loop.ts';
import { orderLoops } from '../orders/orders.loops.ts';
import type { PaymentProvider } from '../payments/provider.ts';
import type { Keyring } from '../lib/keyring.ts';
import { retentionLoop } from './retention.loop.ts';
import type { WorkerLoop, WorkerSignals } from './runner.ts';
import type { Clock } from '../lib/clock.ts';

export interface LoopDeps {
  db: Kysely<Database>;
  config: Readonly<Config>;
  keyring: Keyring;
  clock: Clock;
  log: Logger;
  mailTransport: MailTransport;
  payments: PaymentProvider;
  signals?: WorkerSignals;
}

/** Every background loop of the service. `serve` runs them in-process; `storefront worker` runs them alone. */
export function backgroundLoops(deps: LoopDeps): WorkerLoop[] {
  return [
    sessionCleanupLoop(deps),
    retentionLoop(deps),
    ...orderLoops(deps),
    ...webhookLoops({
      db: deps.db,
      keyring: deps.keyring,
      clock: deps.clock,
      log: deps.log,
      webhooks: deps.config.webhooks,
      databaseUrl: deps.config.databaseUrl,
    }),
    ...emailIdentityLoops(deps),
    mailWorkerLoop({
      db: deps.db,
      config: deps.config,
      keyring: deps.keyring,
      transport: deps.mailTransport,
      clock: deps.clock,
      log: deps.log,
    }),
  ];
}
