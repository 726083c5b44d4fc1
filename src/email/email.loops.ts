import type { WorkerLoop } from '../workers/runner.ts';
import { checkDueDomains, releaseAbandonedDomains, type VerifierDeps } from './email.verifier.ts';

export const DOMAIN_CHECK_LOOP = 'sending-domains';

/** The longest pause between two looks for due checks (each domain carries its own next_check_at). */
const MAX_TICK_MS = 60_000;

/**
 * The domain checker: pending domains are looked up every DOMAIN_VERIFY_INTERVAL until verified or
 * DOMAIN_VERIFY_WINDOW has passed; verified ones every DOMAIN_RECHECK_INTERVAL. Any number of
 * processes may run it: due domains are claimed with FOR UPDATE SKIP LOCKED and a lease.
 */
export function emailIdentityLoops(deps: VerifierDeps): WorkerLoop[] {
  const { verifyIntervalMs, recheckIntervalMs } = deps.config.emailIdentity;
  return [
    {
      name: DOMAIN_CHECK_LOOP,
      intervalMs: Math.min(verifyIntervalMs, recheckIntervalMs, MAX_TICK_MS),
      async run(signal) {
        await checkDueDomains(deps, signal);
        await releaseAbandonedDomains(deps);
      },
    },
  ];
}
