/**
 * The shipping method is re-checked in the checkout's transaction (decision `checkout-with-shipping`): a merchant who changes
 * the method's amount after the checkout quoted it, while the provider creates the payment intent,
 * gets the new amount charged, never the quoted one, and never a silent difference between the
 * intent and the order.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  InsertQueryNode,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import { after, before, test } from 'node:test';
import { createTestStore, startTestAppWithDb, type TestApp } from '../test/harness.ts';
import { US_ADDRESS } from '../test/addresses.ts';

/** Runs `during` once, right after the sandbox provider stored a payment intent (between quote and transaction). */
class AfterIntentCreated implements KyselyPlugin {
  during: (() => Promise<void>) | null = null;
  readonly #intentInserts = new Set<unknown>();
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const node = args.node;
    if (InsertQueryNode.is(node) && node.into?.table.identifier.name === 'sandbox_intents')
      this.#intentInserts.add(args.queryId);
    return node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (this.#intentInserts.delete(args.queryId) && this.during) {
      const run = this.during;
      this.during = null;
      await run();
    }
    return args.result;
  }
}

let t: TestApp;
const plugin = new AfterIntentCreated();

before(async () => ({ t } = await startTestAppWithDb({ plugin })));
after(() => t.close());

test('a method whose amount changes between the quote and the order is charged its new amount', async () => {
  const store = await createTestStore(t);
  const zone = (
    await t.admin(store).post('/shipping/zones', { name: 'US', areas: [{ country: 'US' }] })
  ).json<{ id: string }>().id;
  const method = (
    await t
      .admin(store)
      .post(`/shipping/zones/${zone}/methods`, { name: 'Express', kind: 'flat', amount: 1500 })
  ).json<{ id: string }>().id;
  const product = await t.admin(store).post('/products', {
    title: 'Mug',
    status: 'active',
    variants: [{ label: 'One', priceAmount: 3000, onHand: 10 }],
  });
  const variantId = product.json<{ variants: { id: string }[] }>().variants[0]!.id;
  const cartId = (await t.storefront(store).post('/carts', { items: [{ variantId, quantity: 1 }] })).json<{
    id: string;
  }>().id;
  await t.storefront(store).put(`/carts/${cartId}/shipping-address`, US_ADDRESS);
  assert.equal(
    (await t.storefront(store).put(`/carts/${cartId}/shipping-method`, { id: method })).statusCode,
    200,
  );

  let changed = false;
  plugin.during = async () => {
    const patched = await t.admin(store).patch(`/shipping/zones/${zone}/methods/${method}`, { amount: 2100 });
    assert.equal(patched.statusCode, 200, patched.body);
    changed = true;
  };
  const placed = await t
    .storefront(store)
    .post('/checkout', { cartId, email: 'ada@example.com' }, { 'idempotency-key': randomUUID() });
  assert.ok(changed, 'the method changed while the checkout was under way');
  assert.equal(placed.statusCode, 201, placed.body);
  const body = placed.json<{
    order: { shipping: { amount: number }; total: { amount: number } };
    payment: { amount: { amount: number } };
  }>();
  assert.equal(body.order.shipping.amount, 2100, 'the new amount, re-read in the transaction');
  assert.equal(body.order.total.amount, 5100);
  assert.equal(
    body.payment.amount.amount,
    body.order.total.amount,
    'the intent is for what the order charges',
  );
});
