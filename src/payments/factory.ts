import type { Kysely } from 'kysely';
import type { Log } from '../lib/log.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/tables.ts';
import type { Keyring } from '../lib/keyring.ts';
import type { PaymentProvider } from './provider.ts';
import { SandboxProvider } from './sandbox.provider.ts';
import { StripeProvider } from './stripe.provider.ts';

/** The configured payment provider (PAYMENT_PROVIDER). */
export function createPaymentProvider(
  config: Readonly<Config>,
  db: Kysely<Database>,
  keyring: Keyring,
  log: Log,
): PaymentProvider {
  switch (config.payments.provider) {
    case 'sandbox':
      return new SandboxProvider(db, {
        secret: config.payments.sandboxWebhookSecret ?? keyring.key('sandbox-webhook').toString('hex'),
        delayMs: config.payments.sandboxDelayMs,
        log,
      });
    case 'stripe':
      // loadPaymentsConfig refuses to start without both secrets when PAYMENT_PROVIDER=stripe.
      return new StripeProvider({
        secretKey: config.payments.stripeSecretKey!,
        webhookSecret: config.payments.stripeWebhookSecret!,
        apiBase: config.payments.stripeApiBase,
      });
  }
}
