import { ConfigError, duration, integer, read, type Env } from '../lib/env.ts';

/** Checkout and payment settings (decisions `order-states`, `idempotency-keys` and `payment-providers`). */
export interface PaymentsConfig {
  readonly provider: 'sandbox' | 'stripe';
  readonly stripeSecretKey: string | null;
  readonly stripeWebhookSecret: string | null;
  /** Stripe API host override (tests point the SDK at a local stub); null = api.stripe.com. */
  readonly stripeApiBase: string | null;
  /** Secret the sandbox provider signs its webhooks with; null = derived from SECRET_KEY/root secret. */
  readonly sandboxWebhookSecret: string | null;
  /** Delay before a `pm_card_delayed` sandbox payment succeeds. */
  readonly sandboxDelayMs: number;
  /** Unpaid orders expire after this long at the latest (ORDER_TTL). */
  readonly orderTtlMs: number;
  /**
   * How long an unpaid order holds its stock and discount use before its buyer has tried to pay at
   * the provider (PAYMENT_HOLD; a longer one than ORDER_TTL counts as ORDER_TTL). A payment tried
   * (declined, challenged, processing) extends the hold to ORDER_TTL from checkout.
   */
  readonly paymentHoldMs: number;
  /** How long idempotency keys are kept. */
  readonly idempotencyTtlMs: number;
  /**
   * How long a request holds its idempotency key before a retry may take it over (the first attempt
   * is presumed dead). Overlap is harmless (the order carries its key, decision `checkout-after-a-crash`); this bounds how long a
   * retry after a crash waits with 409 idempotency_in_progress.
   */
  readonly idempotencyLeaseMs: number;
  /**
   * Pending (unpaid) orders one client address may hold in a store at once
   * (PENDING_ORDERS_PER_CLIENT, decision `pending-orders-per-client`); a store behind one proxy that is not trusted raises it.
   */
  readonly pendingOrdersPerClient: number;
}

export function loadPaymentsConfig(env: Env): PaymentsConfig {
  const provider = read(env, 'PAYMENT_PROVIDER') ?? 'sandbox';
  if (provider !== 'sandbox' && provider !== 'stripe') {
    throw new ConfigError('PAYMENT_PROVIDER', 'sandbox or stripe', provider);
  }
  const stripeSecretKey = read(env, 'STRIPE_SECRET_KEY') ?? null;
  const stripeWebhookSecret = read(env, 'STRIPE_WEBHOOK_SECRET') ?? null;
  if (provider === 'stripe' && (!stripeSecretKey || !/^(sk|rk)_/.test(stripeSecretKey))) {
    throw new ConfigError(
      'STRIPE_SECRET_KEY',
      'a Stripe secret key (sk_…) when PAYMENT_PROVIDER=stripe',
      '<hidden>',
    );
  }
  if (provider === 'stripe' && (!stripeWebhookSecret || !stripeWebhookSecret.startsWith('whsec_'))) {
    throw new ConfigError(
      'STRIPE_WEBHOOK_SECRET',
      'a Stripe webhook secret (whsec_…) when PAYMENT_PROVIDER=stripe',
      '<hidden>',
    );
  }
  const stripeApiBase = read(env, 'STRIPE_API_BASE') ?? null;
  if (stripeApiBase !== null && !/^https?:\/\/[^/]+\/?$/.test(stripeApiBase)) {
    throw new ConfigError('STRIPE_API_BASE', 'a base URL such as http://127.0.0.1:12111', stripeApiBase);
  }
  return Object.freeze({
    provider,
    stripeSecretKey,
    stripeWebhookSecret,
    stripeApiBase,
    sandboxWebhookSecret: read(env, 'SANDBOX_WEBHOOK_SECRET') ?? null,
    sandboxDelayMs: duration(env, 'SANDBOX_DELAY', '3s'),
    orderTtlMs: duration(env, 'ORDER_TTL', '30m'),
    paymentHoldMs: duration(env, 'PAYMENT_HOLD', '10m'),
    idempotencyTtlMs: duration(env, 'IDEMPOTENCY_TTL', '24h'),
    idempotencyLeaseMs: duration(env, 'IDEMPOTENCY_LEASE', '30s'),
    pendingOrdersPerClient: integer(env, 'PENDING_ORDERS_PER_CLIENT', 5, 1, 1_000_000),
  });
}
