/**
 * Customer accounts through the storefront client against the real service (decision `customer-accounts`): sign-in by a code
 * read from the mail the service really sent, the token kept by the client and sent beside the
 * publishable key on the customer calls and checkout (never on catalog reads), the profile, saved
 * addresses, orders, export, sign-out and erasure, and a token the service refuses being forgotten.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { createStorefrontClient, StorefrontError, type StorefrontClient } from '@storefront/client';
import { waitForMail } from '../../../src/test/harness.ts';
import {
  createProduct,
  openShop,
  rejection,
  scriptedFetch,
  startedForFile,
  startLiveApp,
  type RecordedCall,
} from './server.test-support.ts';

const live = startedForFile(startLiveApp);

const newEmail = () => `shopper-${randomUUID().slice(0, 8)}@example.com`;

/** Asks for a code and reads it from the mail the service sent (the `count`th mail to `email`). */
async function codeFor(client: StorefrontClient, email: string, count = 1): Promise<string> {
  await client.customers.signIn({ email });
  const mail = await waitForMail(live.t, email, count);
  const code = /\b(\d{6})\b/.exec(`${mail.subject ?? ''}\n${mail.text ?? ''}`)?.[1];
  assert.ok(code, `a 6-digit code in the mail: ${mail.text}`);
  return code;
}

const bearer = (call: RecordedCall) => call.headers.get('authorization');

describe('customers', () => {
  test('sign in with the emailed code: the client keeps the token and sends it beside the publishable key, only where it belongs', async () => {
    const tracing = scriptedFetch();
    const { storefront, shop, admin } = await openShop(live, { fetch: tracing });
    const changes: (string | null)[] = [];
    const client = createStorefrontClient({
      baseUrl: live.baseUrl,
      publishableKey: shop.publishableKey,
      fetch: tracing,
      onCustomerTokenChange: (token) => changes.push(token),
    });
    const email = newEmail();
    assert.equal(client.customers.token, null);

    const code = await codeFor(client, email);
    const wrong = await rejection(
      client.customers.verify({ email, code: code === '000000' ? '111111' : '000000' }),
    );
    assert.ok(wrong instanceof StorefrontError);
    assert.equal(wrong.status, 401);
    assert.equal(client.customers.token, null, 'a wrong code keeps no token');

    const session = await client.customers.verify({ email, code });
    assert.match(session.token, /^ct_[0-9A-Za-z]{40}$/);
    assert.equal(session.customer.email, email);
    assert.equal(session.customer.hasAccount, true);
    assert.equal(client.customers.token, session.token);
    assert.deepEqual(changes, [session.token]);

    const me = await client.customers.me();
    assert.equal(me.id, session.customer.id);
    const meCall = tracing.calls.at(-1)!;
    assert.equal(bearer(meCall), `Bearer ${session.token}`);
    assert.equal(meCall.headers.get('x-publishable-key'), shop.publishableKey);

    // A catalog read is the same for everyone: no token on it (caches stay shared).
    const product = await createProduct(admin);
    await client.products.get(product.id);
    assert.equal(bearer(tracing.calls.at(-1)!), null);
    assert.equal(storefront.customers.token, null, 'another client of the same store is a guest');
  });

  test('profile, addresses (the first is the default; a bad field points at itself), checkout as the customer and the orders, export', async () => {
    const { storefront, admin } = await openShop(live);
    const email = newEmail();
    await storefront.customers.verify({ email, code: await codeFor(storefront, email) });

    const updated = await storefront.customers.update({ name: 'Ada Lovelace', acceptsMarketing: true });
    assert.equal(updated.name, 'Ada Lovelace');
    assert.equal(updated.acceptsMarketing, true);
    assert.equal((await storefront.customers.update({ name: null })).name, null);

    const home = await storefront.customers.addresses.create({
      name: 'Ada Lovelace',
      line1: '1 Infinite Loop',
      city: 'Cupertino',
      region: 'US-CA',
      postalCode: '95014',
      country: 'US',
    });
    assert.equal(home.isDefault, true, 'the first address is the default');
    const work = await storefront.customers.addresses.create({
      name: 'Ada Lovelace',
      line1: 'Unter den Linden 1',
      city: 'Berlin',
      postalCode: '10117',
      country: 'DE',
    });
    assert.equal(work.isDefault, false);
    const bad = await rejection(storefront.customers.addresses.update(work.id, { postalCode: 'nope' }));
    assert.ok(bad instanceof StorefrontError);
    assert.equal(bad.status, 400);
    assert.deepEqual(
      bad.errors.map((error) => error.pointer),
      ['/postalCode'],
    );
    await storefront.customers.addresses.update(work.id, { isDefault: true });
    assert.deepEqual(
      (await storefront.customers.addresses.list()).map((address) => [address.id, address.isDefault]),
      [
        [work.id, true],
        [home.id, false],
      ],
      'the default first',
    );
    await storefront.customers.addresses.delete(home.id);
    assert.deepEqual(
      (await storefront.customers.addresses.list()).map((address) => address.id),
      [work.id],
    );
    assert.equal((await storefront.customers.me()).defaultAddressId, work.id);

    // Checkout with the token: the email may be left out, and the order is the customer's.
    const product = await createProduct(admin, { priceAmount: 1200 });
    const orders = [];
    for (let i = 0; i < 3; i++) {
      const cart = await storefront.carts.create({
        items: [{ variantId: product.variants[0]!.id, quantity: 1 }],
      });
      orders.push((await storefront.checkout.create({ cartId: cart.id })).order);
    }
    assert.equal(orders[0]!.email, email);
    const first = await storefront.customers.orders({ limit: 2 });
    assert.deepEqual(
      first.items.map((order) => order.number),
      [orders[2]!.number, orders[1]!.number],
      'newest first',
    );
    assert.ok(first.nextCursor);
    const second = await storefront.customers.orders({ limit: 2, cursor: first.nextCursor });
    assert.deepEqual(
      second.items.map((order) => order.number),
      [orders[0]!.number],
    );
    const all = [];
    for await (const order of storefront.list('listCurrentCustomerOrders', { query: { limit: 1 } }))
      all.push(order.id);
    assert.deepEqual(all, orders.map((order) => order.id).reverse());

    const exported = await storefront.customers.export();
    assert.equal(exported.customer.email, email);
    assert.deepEqual(
      exported.addresses.map((address) => address.id),
      [work.id],
    );
    assert.equal(exported.orders.length, 3);
    assert.ok(exported.sessions.length >= 1);
  });

  test('sign out revokes the token; a token the service refuses is forgotten; setToken restores one; erase ends the account', async () => {
    const { storefront, shop } = await openShop(live);
    const email = newEmail();
    const { token } = await storefront.customers.verify({ email, code: await codeFor(storefront, email) });

    // Restored from storage by another page of the shop: the same session.
    const changes: (string | null)[] = [];
    const restored = createStorefrontClient({
      baseUrl: live.baseUrl,
      publishableKey: shop.publishableKey,
      customerToken: token,
      onCustomerTokenChange: (next) => changes.push(next),
    });
    assert.equal((await restored.customers.me()).email, email);

    await storefront.customers.signOut();
    assert.equal(storefront.customers.token, null);
    const refused = await rejection(restored.customers.me());
    assert.ok(refused instanceof StorefrontError);
    assert.equal(refused.status, 401);
    assert.equal(restored.customers.token, null, 'a refused token is forgotten');
    assert.deepEqual(changes, [null]);
    await storefront.customers.signOut(); // signed out already: nothing to do

    // A token of another store is worthless here (401), and forgotten too.
    const other = await openShop(live);
    const otherEmail = newEmail();
    const { token: foreign } = await other.storefront.customers.verify({
      email: otherEmail,
      code: await codeFor(other.storefront, otherEmail),
    });
    storefront.customers.setToken(foreign);
    assert.equal(storefront.customers.token, foreign);
    assert.equal(((await rejection(storefront.customers.me())) as StorefrontError).status, 401);
    assert.equal(storefront.customers.token, null);

    // Signing in again (the second code to this email), then erasing the account.
    const again = await storefront.customers.verify({ email, code: await codeFor(storefront, email, 2) });
    await storefront.customers.erase();
    assert.equal(storefront.customers.token, null);
    storefront.customers.setToken(again.token);
    assert.equal(((await rejection(storefront.customers.me())) as StorefrontError).status, 401);
    assert.throws(() => storefront.customers.setToken(''), TypeError);
  });
});
