import type { WorkerLoop } from '../workers/runner.ts';
import type { Payments } from './payments.setup.ts';

export const SANDBOX_WEBHOOK_LOOP = 'sandbox-webhooks';

/**
 * The sandbox provider's side (decision `sandbox-webhook-outbox`): its delayed payments succeed and
 * its webhooks are delivered, retried with backoff, from any process that runs the loops. None
 * with another provider, whose webhooks come from outside.
 */
export function paymentLoops(payments: Payments): WorkerLoop[] {
  const { sandbox } = payments;
  if (!sandbox) return [];
  return [{ name: SANDBOX_WEBHOOK_LOOP, intervalMs: 1000, run: (signal) => sandbox.runDue(signal) }];
}
