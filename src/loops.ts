import { listenUrlOf } from './db/direct-listen.ts';
import { statisticsLoop } from './statistics.loop.ts';
import { emailIdentityLoops } from './email/email.loops.ts';
import { importsLoop } from './imports/imports.loop.ts';
import { mailSenders } from './email/email.sender.ts';
import type { Log } from './lib/log.ts';
import { mailWorkerLoop } from './mail/mail-worker.loop.ts';
import type { MailTransport } from './mail/transport.ts';
import { WorkLimiter } from './media/media.limiter.ts';
import type { Metrics } from './observability/metrics.ts';
import { orderLoops } from './orders/orders.loops.ts';
import { paymentLoops } from './payments/payments.loops.ts';
import { retentionLoop } from './retention.loop.ts';
import { ordersDeps, type Runtime } from './runtime.ts';
import { sessionCleanupLoop } from './sign-in/session-cleanup.loop.ts';
import { STAFF_SIGN_IN } from './staff/staff.sign-in.ts';
import { CUSTOMER_SIGN_IN } from './customers/customers.sign-in.ts';
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
  const { config, keyring, signals, services, metrics } = runtime;
  const { db } = services;
  const { log } = io;
  const transport = metrics ? countedTransport(io.mailTransport, metrics) : io.mailTransport;
  return [
    sessionCleanupLoop(services, [STAFF_SIGN_IN, CUSTOMER_SIGN_IN]),
    retentionLoop(runtime, log),
    ...orderLoops(ordersDeps(runtime, log)),
    ...paymentLoops(runtime.payments),
    ...webhookLoops({
      ...services,
      keyring,
      log,
      webhooks: config.webhooks,
      // Behind a transaction pooler, PostgreSQL itself (DATABASE_DIRECT_URL), or polling.
      databaseUrl: listenUrlOf(config),
      ...(metrics ? { onAttempt: (outcome, seconds) => metrics.webhookAttempt(outcome, seconds) } : {}),
    }),
    ...emailIdentityLoops({ ...services, config, log, signals }),
    mailWorkerLoop({
      ...services,
      retryScheduleMs: config.mailRetryScheduleMs,
      concurrency: config.mailConcurrency,
      leaseMs: config.mailLeaseMs,
      messageIdDomain: config.platformMailDomain,
      keyring,
      transport,
      senderOf: mailSenders({ db, config, keyring }),
      log,
    }),
    importsLoop({
      ...services,
      log,
      // An import's images are decoded one at a time: the process's requests keep their own bound.
      media: {
        storage: runtime.media,
        limiter: new WorkLimiter({ concurrency: 1, queue: 1 }),
        maxPixels: config.media.maxPixels,
        maxBytes: config.media.maxBytes,
      },
      settings: { ...config.imports, allowHttp: config.webhooks.allowHttp },
    }),
    // PGlite runs no autovacuum: its tables' statistics are kept up to date here.
    ...(runtime.db.kind === 'pglite' ? [statisticsLoop({ db, log })] : []),
  ];
}

/** The mail transport, counting each send's outcome (decision `metrics-off-until-readable`). */
function countedTransport(transport: MailTransport, metrics: Metrics): MailTransport {
  return {
    async send(mail) {
      try {
        const sent = await transport.send(mail);
        metrics.mailSend('sent');
        return sent;
      } catch (error) {
        metrics.mailSend('error');
        throw error;
      }
    },
    close: () => transport.close(),
  };
}
