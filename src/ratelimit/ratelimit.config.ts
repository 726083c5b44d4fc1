/** Fixed-window request budgets (decision `budgets-per-key-and-client`): per publishable key and tier, and per client IP under a key. */
export interface RateLimitConfig {
  readonly windowMs: number;
  readonly publicRead: number;
  readonly publicWrite: number;
  readonly ipRead: number;
  readonly ipWrite: number;
  /** Admin sign-in and code checks per client IP and window (decision `staff-sessions`). */
  readonly signIn: number;
  /** Customer sign-in and code checks per client IP, store and window (decision `customer-accounts`). */
  readonly customerSignIn: number;
  /** Gift card code lookups per client IP, store and window (decision `gift-card-codes`). */
  readonly giftCardGuesses: number;
  /** Sending-domain verify-now requests per store and window (each runs five DNS lookups). */
  readonly domainVerify: number;
  /** Admin API requests per client IP and window, signed in or not (before authentication). */
  readonly adminIp: number;
  /** Admin API reads (GET, HEAD) per staff session and window. */
  readonly adminRead: number;
  /** Admin API writes per staff session and window. */
  readonly adminWrite: number;
}

/**
 * A publishable key serves every shopper of a store (decision `key-budget-is-a-safety-cap`): its budget is a high safety cap, at
 * least this many clients' budgets, so that no group of fewer clients can use it up for the others;
 * the per-client budgets do the limiting.
 */
export const KEY_BUDGET_CLIENTS = 50;

/** The least a key's budget may be, per tier: KEY_BUDGET_CLIENTS clients' budgets. */
export function minimumKeyBudgets(config: Pick<RateLimitConfig, 'ipRead' | 'ipWrite'>): {
  publicRead: number;
  publicWrite: number;
} {
  return { publicRead: config.ipRead * KEY_BUDGET_CLIENTS, publicWrite: config.ipWrite * KEY_BUDGET_CLIENTS };
}
