/** Test helpers for rate-limit tests: budgets no test reaches by chance, and an app that uses them. Not a test file itself. */
import type { Config, RateLimitConfig } from '../config.ts';
import type { Db } from '../db/database.ts';
import { startTestApp, type TestApp } from '../test/harness.ts';

/** Budgets so high that a test reaches only those it lowers itself. */
export const ROOMY: RateLimitConfig = {
  windowMs: 60_000,
  publicRead: 1000,
  publicWrite: 1000,
  ipRead: 1000,
  ipWrite: 1000,
  signIn: 1000,
  customerSignIn: 1000,
  domainVerify: 1000,
  giftCardGuesses: 1000,
  adminIp: 3000,
  adminRead: 1200,
  adminWrite: 600,
};

/**
 * An app on `db` with `rateLimits` over ROOMY (`config` adds to its settings), its clock at the start
 * of a window, so that no test straddles a window boundary by chance.
 */
export async function startRateLimitedApp(
  db: Db,
  rateLimits: Partial<RateLimitConfig>,
  config: Partial<Config> = {},
): Promise<TestApp> {
  const t = await startTestApp({ db, config: { ...config, rateLimits: { ...ROOMY, ...rateLimits } } });
  toWindowStart(t);
  return t;
}

/**
 * Moves the app's clock to the start of the next rate-limit window. The budgets are fixed windows:
 * requests that straddle two of them see the count start again midway, so a test that spends a
 * budget does so from a window's start.
 */
export function toWindowStart(t: Pick<TestApp, 'clock' | 'config'>): void {
  const { windowMs } = t.config.rateLimits;
  t.clock.advance(windowMs - (t.clock.now().getTime() % windowMs));
}
