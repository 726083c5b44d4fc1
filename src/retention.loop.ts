import { purgeStaleCarts } from './carts/carts.service.ts';
import type { Log } from './lib/log.ts';
import { purgeSentMail } from './mail/outbox.ts';
import { purgeProviderEvents } from './orders/provider-events.service.ts';
import type { Runtime } from './runtime.ts';
import type { WorkerLoop } from './workers/runner.ts';

export const RETENTION_LOOP = 'retention';

/**
 * The purge loop (decision `retention`): abandoned carts, sent mail, processed provider events and the
 * sandbox provider's records, each after its configured retention. Each purge goes store by store
 * along an index, in batches; nothing a live order needs is removed (orders copy their cart lines,
 * and a refundable sandbox payment is kept).
 */
export function retentionLoop(runtime: Runtime, log: Log): WorkerLoop {
  const { retention } = runtime.config;
  const deps = { db: runtime.db.kysely };
  return {
    name: RETENTION_LOOP,
    intervalMs: 60 * 60 * 1000,
    async run() {
      const now = runtime.clock.now().getTime();
      const before = (ms: number) => new Date(now - ms);
      const purged = {
        carts: await purgeStaleCarts(deps, before(retention.cartsMs)),
        sentMail: await purgeSentMail(deps.db, before(retention.sentMailMs)),
        providerEvents: await purgeProviderEvents(deps, before(retention.providerEventsMs)),
        sandbox: (await runtime.payments.sandbox?.purge(before(retention.sandboxMs))) ?? 0,
      };
      if (Object.values(purged).some((count) => count > 0))
        log.info(purged, 'purged data past its retention');
    },
  };
}
