import type { WorkerLoop } from '../workers/runner.ts';
import { WebhookRelay, type RelayDeps } from './webhooks.relay.ts';
import { purgeWebhookData } from './webhooks.relay.repository.ts';

export const WEBHOOK_RELAY_LOOP = 'webhook-relay';
export const WEBHOOK_PURGE_LOOP = 'webhook-purge';

/** What the webhook loops need: the relay's deps. */
export type WebhookLoopDeps = RelayDeps;

/** The outbox relay and the purge of old deliveries and events. */
export function webhookLoops(deps: WebhookLoopDeps): WorkerLoop[] {
  const relay = new WebhookRelay(deps);
  return [
    {
      name: WEBHOOK_RELAY_LOOP,
      // run() returns only when the worker stops; after an unexpected error it restarts after this.
      intervalMs: 1000,
      run: (signal) => relay.run(signal),
    },
    {
      name: WEBHOOK_PURGE_LOOP,
      intervalMs: 10 * 60 * 1000,
      async run() {
        const purged = await purgeWebhookData(deps.db, deps.clock.now(), deps.webhooks.eventRetentionMs);
        if (purged.deliveries + purged.events > 0)
          deps.log.info(purged, 'purged old webhook deliveries and events');
      },
    },
  ];
}
