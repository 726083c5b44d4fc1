import { randomUUID } from 'node:crypto';

/**
 * A version 7 UUID (RFC 9562) for the millisecond `ms`: 48 bits of Unix time, then 74 random bits.
 * Ids made in time order sort in that order, so a B-tree on them grows at its right edge instead
 * of splitting pages all over (the bulk import's ids, decision `bulk-import`). Two ids of the same
 * millisecond are in random order.
 */
export function uuidV7(ms: number): string {
  if (!Number.isSafeInteger(ms) || ms < 0 || ms >= 2 ** 48) throw new RangeError(`bad uuidV7 time ${ms}`);
  const time = ms.toString(16).padStart(12, '0');
  // randomUUID(): xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx; keep its random bits and variant.
  return `${time.slice(0, 8)}-${time.slice(8)}-7${randomUUID().slice(15)}`;
}
