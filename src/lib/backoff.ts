/**
 * Exponential backoff with ±20 % jitter for background sweeps (decision `sweeps-reschedule`): `baseMs` after the
 * first failure, doubling each time, never more than `maxMs`. Jitter keeps items that failed
 * together from all coming back in the same instant.
 */
export function backoffMs(
  attempt: number,
  baseMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.max(0, Math.min(attempt - 1, 30)));
  return Math.round(exponential * (0.8 + 0.4 * random()));
}
