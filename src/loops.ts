import { statisticsLoop } from './statistics.loop.ts';
import { emailIdentityLoops } from './email/email.loops.ts';
import { mailSenders } from './email/email.sender.ts';
import type { Log } from './lib/log.ts';
import { mailWorkerLoop } from './mail/mail-worker.loop.ts';
import type { MailTransport } from './mail/transport.ts';
import { orderLoops } from './orders/orders.loops.ts';
import { retentionLoop } from './retention.loop.ts';
import { ordersDeps, type Runtime } from './runtime.ts';
import { sessionCleanupLoop } from './staff/session-cleanup.loop.ts';
import { customerSessionCleanupLoop } from './customers/session-cleanup.loop.ts';
import { webhookLoops } from './webhooks/webhooks.loops.ts';
import type { WorkerLoop } from './workers/runner.ts';

/**
 * Every background loop of the service, each given its feature's deps. `serve` runs them
 * in-process; `storefront worker` runs them alone.
 */
export function backgroundLoops(
  runtime: Runtime,
  io: { log: Log; mailTransport: MailTransport },
): WorkerLoop[] {
  const { config, keyring, signals, services } = runtime;
  const { db } = services;
  const { log } = io;
  return [
    sessionCleanupLoop(services),
    customerSessionCleanupLoop(services),
    retentionLoop(runtime, log),
    ...orderLoops(ordersDeps(runtime, log)),
    ...webhookLoops({
      ...services,
      keyring,
      log,
      webhooks: config.webhooks,
      databaseUrl: config.databaseUrl,
    }),
    ...emailIdentityLoops({ ...services, config, log, signals }),
    mailWorkerLoop({
      ...services,
      retryScheduleMs: config.mailRetryScheduleMs,
      concurrency: config.mailConcurrency,
      leaseMs: config.mailLeaseMs,
      messageIdDomain: config.platformMailDomain,
      keyring,
      transport: io.mailTransport,
      senderOf: mailSenders({ db, config, keyring }),
      log,
    }),
    // PGlite runs no autovacuum: its tables' statistics are kept up to date here.
    ...(runtime.db.kind === 'pglite' ? [statisticsLoop({ db, log })] : []),
  ];
}
