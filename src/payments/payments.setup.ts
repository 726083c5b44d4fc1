import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { Keyring } from '../lib/keyring.ts';
import type { Clock } from '../lib/clock.ts';
import type { Log } from '../lib/log.ts';
import type { PaymentsConfig } from './payments.config.ts';
import type { PaymentProvider } from './provider.ts';
import { SandboxProvider } from './sandbox.provider.ts';

/**
 * The configured payment provider (PAYMENT_PROVIDER), built by the composition and passed into the
 * app and the workers. `sandbox` is the same object when it is the built-in sandbox (which has its
 * own confirm endpoint and webhook delivery), null otherwise.
 */
export interface Payments {
  provider: PaymentProvider;
  sandbox: SandboxProvider | null;
}

export async function createPayments(
  settings: PaymentsConfig,
  deps: { db: Kysely<Database>; keyring: Keyring; log: Log; clock: Clock },
): Promise<Payments> {
  switch (settings.provider) {
    case 'sandbox': {
      const sandbox = new SandboxProvider(deps.db, {
        secret: settings.sandboxWebhookSecret ?? deps.keyring.key('sandbox-webhook').toString('hex'),
        delayMs: settings.sandboxDelayMs,
        log: deps.log,
        clock: deps.clock,
      });
      return { provider: sandbox, sandbox };
    }
    case 'stripe': {
      // The Stripe SDK (~200 modules) is loaded only when it is the provider (decision
      // `optional-packages-on-demand`).
      const { StripeProvider } = await import('./stripe.provider.ts');
      // loadPaymentsConfig refuses to start without both secrets when PAYMENT_PROVIDER=stripe.
      return {
        provider: new StripeProvider({
          secretKey: settings.stripeSecretKey!,
          webhookSecret: settings.stripeWebhookSecret!,
          apiBase: settings.stripeApiBase,
        }),
        sandbox: null,
      };
    }
  }
}
