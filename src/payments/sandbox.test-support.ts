import { pino } from 'pino';
import type { CheckoutBody } from '../orders/orders.test-support.ts';
import { waitFor, type TestApp } from '../test/harness.ts';
import { SandboxProvider } from './sandbox.provider.ts';

/** The sandbox's status of an intent, read from its table. */
export async function intentStatus(t: Pick<TestApp, 'db'>, ref: string): Promise<string | undefined> {
  const row = await t.db.kysely
    .selectFrom('sandbox_intents')
    .select('status')
    .where('ref', '=', ref)
    .executeTakeFirst();
  return row?.status;
}

/**
 * The payment confirmed with Visa by a sandbox whose webhook delivery never returns: a process that
 * died after recording the payment, before its webhook arrived (on the embedded database, where a
 * second process cannot share the data). Resolves once the payment is recorded.
 */
export async function confirmInDeadProcess(t: Pick<TestApp, 'db' | 'clock'>, bought: CheckoutBody) {
  const dead = new SandboxProvider(t.db.kysely, {
    secret: 'the dead process',
    delayMs: 1000,
    log: pino({ level: 'silent' }),
    clock: t.clock,
  });
  dead.setDelivery(() => new Promise<number>(() => undefined));
  void dead.confirm(bought.payment.ref, bought.payment.clientSecret, 'pm_card_visa');
  await waitFor(async () => (await intentStatus(t, bought.payment.ref)) === 'succeeded', 5000, 'payment');
  dead.close();
}
