/**
 * A `storefront worker` (no HTTP app) delivers the sandbox's webhooks itself, on PostgreSQL: a
 * payment confirmed by a process whose delivery never came back is settled by a real worker process
 * once the dead attempt's lease has ended, its webhook verified and applied as the webhook route
 * would (decision `sandbox-webhook-outbox`).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ShopDriver } from '../orders/orders.test-support.ts';
import {
  startTestAppWithDb,
  serveProcess,
  skipUnlessPostgres,
  waitFor,
  type TestApp,
  type TestDb,
} from '../test/harness.ts';
import { confirmInDeadProcess } from './sandbox.test-support.ts';
import { ATTEMPT_LEASE_MS } from './sandbox.webhooks.ts';

let db: TestDb;
let t: TestApp;

before(async () => {
  if (skipUnlessPostgres) return;
  ({ db, t } = await startTestAppWithDb());
});
after(async () => {
  if (skipUnlessPostgres) return;
  await t.close();
});

test(
  'a storefront worker delivers a sandbox webhook its confirming process never did',
  { skip: skipUnlessPostgres },
  async () => {
    const shop = await ShopDriver.open(t);
    const bought = await shop.buy(await shop.variant(5));
    await confirmInDeadProcess(t, bought);

    const worker = await serveProcess(db, t.config.secretKey!, { REDIS_URL: undefined }, 'worker');
    try {
      await waitFor(
        async () => (await shop.order(bought.order.id)).status === 'paid',
        ATTEMPT_LEASE_MS + 10_000,
        'the worker to deliver the webhook',
      );
    } finally {
      worker.child.kill('SIGTERM');
      await new Promise((resolve) => worker.child.once('exit', resolve));
    }
    assert.equal((await shop.events('order.paid')).length, 1);
    assert.doesNotMatch(worker.output(), /"level":50/, `no error in the worker's log:\n${worker.output()}`);
  },
);
