/** Fixed-window request budgets (D12): per publishable key and tier, and per client IP under a key. */
export interface RateLimitConfig {
  readonly windowMs: number;
  readonly publicRead: number;
  readonly publicWrite: number;
  readonly ipRead: number;
  readonly ipWrite: number;
  /** Admin sign-in and code checks per client IP and window (D30). */
  readonly signIn: number;
  /** Sending-domain verify-now requests per store and window (each runs five DNS lookups). */
  readonly domainVerify: number;
}
