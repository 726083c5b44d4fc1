/** The one source of time (tests pass a clock they can move; expiry, TTLs and leases read it). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
