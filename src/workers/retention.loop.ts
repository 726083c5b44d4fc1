import { purgeStaleCarts } from '../carts/carts.service.ts';
import { purgeSentMail } from '../mail/outbox.ts';
import { purgeProviderEvents } from '../orders/payment-events.ts';
import type { LoopDeps } from './loops.ts';
import type { WorkerLoop } from './runner.ts';

export const RETENTION_LOOP = 'retention';

/**
 * The purge loop (DESIGN D29): abandoned carts, sent mail, processed provider events and the
 * sandbox provider's records, each after its configured retention. Each purge goes store by store
 * along an index, in batches; nothing a live order needs is removed (orders copy their cart lines,
 * and a refundable sandbox payment is kept).
 */
export function retentionLoop(deps: LoopDeps): WorkerLoop {
  const { retention } = deps.config;
  return {
    name: RETENTION_LOOP,
    intervalMs: 60 * 60 * 1000,
    async run() {
      const now = deps.clock.now().getTime();
      const before = (ms: number) => new Date(now - ms);
      const purged = {
        carts: await purgeStaleCarts(deps, before(retention.cartsMs)),
        sentMail: await purgeSentMail(deps.db, before(retention.sentMailMs)),
        providerEvents: await purgeProviderEvents(deps.db, before(retention.providerEventsMs)),
        sandbox: (await deps.payments.purge?.(before(retention.sandboxMs))) ?? 0,
      };
      if (Object.values(purged).some((count) => count > 0))
        deps.log.info(purged, 'purged data past its retention');
    },
  };
}
