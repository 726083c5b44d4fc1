/** PostgreSQL's type oids the drivers parse by hand. */
export const INT8_OID = 20;
export const NUMERIC_OID = 1700;

/** bigint columns hold minor units and counters far below 2^53: read them as JS numbers. */
export function parseInt8(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 value ${value} exceeds the safe integer range`);
  return n;
}
