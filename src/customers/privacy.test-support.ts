/**
 * What the personal-data tests share (privacy.test.ts, erasure.test.ts): a customer with everything
 * a store can hold about them, and a dump of every table to search for them.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { CheckoutBody, ShopDriver } from '../orders/orders.test-support.ts';
import { clientAddresses, waitFor, type TestApp, type TestDb, type TestStore } from '../test/harness.ts';
import { signInCustomer } from '../test/customers.ts';

export async function tableNames(db: TestDb): Promise<string[]> {
  const { rows } = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`.execute(db.kysely);
  return rows.map((row) => row.table_name);
}

/** Every row of every table as text, by table. */
export async function dump(db: TestDb): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const table of await tableNames(db)) {
    const { rows } = await sql<{
      row: string;
    }>`SELECT row_to_json(t)::text AS row FROM ${sql.table(table)} t`.execute(db.kysely);
    out.set(table, rows.map((row) => row.row).join('\n'));
  }
  return out;
}

const client = clientAddresses();

export const signIn = (t: TestApp, shop: TestStore, email: string) =>
  signInCustomer(t, shop, { email, ip: client() });

export const me = (t: TestApp, shop: TestStore, token: string) => ({
  call: (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({
      method,
      url: `/storefront/v1/customers/me${url}`,
      headers: { 'x-publishable-key': shop.publishableKey, authorization: `Bearer ${token}` },
      ...(payload ? { payload } : {}),
    }),
});

/** A customer with everything a store can hold about them; the strings that identify them. */
export async function richCustomer(t: TestApp, db: TestDb, driver: ShopDriver) {
  const tag = randomUUID().slice(0, 8);
  const markers = {
    email: `quokka-${tag}@example.com`,
    name: `Zyxwa Quokka${tag}`,
    phone: `+44 20 7946 ${String(Number.parseInt(tag.slice(0, 4), 16) % 10000).padStart(4, '0')}`,
    street: `${tag} Quokkastraße`,
    cancelReason: `Quokka${tag} called to cancel`,
    returnReason: `Quokka${tag} found it too small`,
    refundNote: `Quokka${tag} goodwill`,
    draftNote: `Quokka${tag} wants it gift-wrapped`,
  };
  const shop = driver.shop;
  const session = await signIn(t, shop, markers.email);
  const account = me(t, shop, session.token);
  assert.equal(
    (await account.call('PATCH', '', { name: markers.name, phone: markers.phone })).statusCode,
    200,
  );
  const address = {
    name: markers.name,
    line1: markers.street,
    city: 'London',
    postalCode: 'SW1Y 4JH',
    country: 'GB',
    phone: markers.phone,
  };
  assert.equal((await account.call('POST', '/addresses', address)).statusCode, 201);
  const variantId = await driver.variant(20, 2500);
  const checkout = async (items = [{ variantId, quantity: 2 }]): Promise<CheckoutBody> => {
    const cartId = await driver.cart(items);
    // The cart keeps the address too (decision `cart-shipping-and-totals`).
    const put = await t.app.inject({
      method: 'PUT',
      url: `/storefront/v1/carts/${cartId}/shipping-address`,
      headers: { 'x-publishable-key': shop.publishableKey },
      payload: address,
    });
    assert.equal(put.statusCode, 200, put.body);
    const placed = await t.app.inject({
      method: 'POST',
      url: '/storefront/v1/checkout',
      headers: {
        'x-publishable-key': shop.publishableKey,
        authorization: `Bearer ${session.token}`,
        'idempotency-key': randomUUID(),
      },
      payload: { cartId, billingAddress: address, phone: markers.phone },
    });
    assert.equal(placed.statusCode, 201, placed.body);
    return placed.json();
  };
  // A paid order, shipped, with a return and a refund note; a paid order cancelled with a reason;
  // a pending guest order with the same email (before or after, it is theirs).
  const kept = await checkout();
  await driver.confirm(kept);
  await driver.waitForStatus(kept.order.id, 'paid');
  const shipped = await driver.admin('POST', `/orders/${kept.order.id}/fulfillments`, {
    lines: [{ variantId, quantity: 2 }],
    carrier: 'Royal Mail',
    trackingNumber: 'RM123456789GB',
  });
  assert.equal(shipped.statusCode, 201, shipped.body);
  const returned = await driver.admin('POST', `/orders/${kept.order.id}/returns`, {
    lines: [{ variantId, quantity: 1 }],
    reason: markers.returnReason,
  });
  assert.equal(returned.statusCode, 201, returned.body);
  const refunded = await driver.admin('POST', `/orders/${kept.order.id}/refunds`, {
    amount: 100,
    reason: markers.refundNote,
  });
  assert.equal(refunded.statusCode, 202, refunded.body);
  const cancelled = await checkout();
  await driver.confirm(cancelled);
  await driver.waitForStatus(cancelled.order.id, 'paid');
  const cancel = await driver.admin('POST', `/orders/${cancelled.order.id}/cancel`, {
    reason: markers.cancelReason,
  });
  assert.equal(cancel.statusCode, 200, cancel.body);
  // A gift card staff issued to them, with a note naming them.
  const card = await driver.admin('POST', '/gift-cards', {
    initialAmount: 1000,
    currency: kept.order.total.currency,
    note: `For ${markers.name}, a thank-you`,
    customerId: session.customer.id,
  });
  assert.equal(card.statusCode, 201, card.body);
  // A gift card they bought (decision `gift-card-products`): theirs, its code mailed to them, sealed.
  const giftCardProduct = await driver.admin('POST', '/products', {
    title: 'Gift card',
    status: 'active',
    giftCard: true,
    variants: [{ label: 'Twenty', priceAmount: 2000, onHand: 10 }],
  });
  assert.equal(giftCardProduct.statusCode, 201, giftCardProduct.body);
  const bought = await checkout([
    { variantId: giftCardProduct.json<{ variants: { id: string }[] }>().variants[0]!.id, quantity: 1 },
  ]);
  await driver.confirm(bought);
  await driver.waitForStatus(bought.order.id, 'paid');
  const guest = await driver.checkout({
    cartId: await driver.cart([{ variantId, quantity: 1 }]),
    email: markers.email,
    shippingAddress: address,
  });
  assert.equal(guest.statusCode, 201, guest.body);
  // A draft order staff made for them (decision `draft-orders`): their address and a note naming them.
  const draft = await driver.admin('POST', '/draft-orders', {
    customerId: session.customer.id,
    lines: [{ variantId, quantity: 1 }],
    shippingAddress: address,
    note: markers.draftNote,
  });
  assert.equal(draft.statusCode, 201, draft.body);
  // Every order mail is out (so the outbox holds them), and the refunds have settled.
  await waitFor(
    async () => {
      const pending = await db.kysely
        .selectFrom('mail_outbox')
        .select('id')
        .where('store_id', '=', shop.store.id)
        .where('status', '=', 'pending')
        .execute();
      return pending.length === 0;
    },
    10_000,
    'mail sent',
  );
  return {
    markers,
    session,
    orders: [kept.order.id, cancelled.order.id, bought.order.id, guest.json<CheckoutBody>().order.id],
    guest: guest.json<CheckoutBody>(),
    totals: [kept.order.total.amount, cancelled.order.total.amount],
  };
}

/** The tables whose rows mention any of the markers, and which markers. */
export function mentions(
  tables: Map<string, string>,
  markers: Record<string, string>,
): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const [table, text] of tables) {
    const hits = Object.entries(markers)
      .filter(([, value]) => text.includes(value) || text.includes(JSON.stringify(value).slice(1, -1)))
      .map(([name]) => name);
    if (hits.length > 0) found.set(table, hits);
  }
  return found;
}
