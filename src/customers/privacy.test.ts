/**
 * Personal data (decision `customer-accounts`, docs/customers.md): every table is classified, export covers every place a
 * customer's data lives, and erasure leaves none of it anywhere in the database, while their orders
 * keep numbers, lines and amounts. The dump of every table after an erasure is searched for the
 * customer's name, email, phone, street and the staff's notes about them.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { ShopDriver, type CheckoutBody } from '../orders/orders.test-support.ts';
import {
  addressesOf,
  clientAddresses,
  createTestStore,
  startTestAppWithDb,
  readMailDir,
  waitFor,
  waitForMail,
  type TestApp,
  type TestDb,
  type TestStore,
} from '../test/harness.ts';

let db: TestDb;
let t: TestApp;
before(async () => ({ db, t } = await startTestAppWithDb({ workers: true })));
after(() => t.close());

/**
 * Every table and whether it holds a customer's personal data. A new table fails the first test
 * until it is added here, and, if it holds personal data, to export and erasure and to the list in
 * docs/customers.md.
 */
const TABLES: Record<string, string> = {
  // A customer's personal data: exported and erased.
  customers: 'personal: email, name, phone (export: customer; erase: deleted)',
  customer_addresses: 'personal: addresses (export: addresses; erase: deleted)',
  customer_sessions: 'personal: session times (export: sessions; erase: deleted with their credentials)',
  customer_sign_in_codes: 'personal: an HMAC of the email (erase: deleted)',
  customer_group_members:
    'personal: the groups a customer is in (export: groups; erase: deleted with the customer)',
  orders: 'personal: email, addresses, phone, cancel reason (export: orders; erase: scrubbed)',
  carts: "personal: the shipping address (export: the order's; erase: cleared on the orders' carts)",
  mail_outbox: 'personal: recipient, subject, body (export: mail; erase: deleted)',
  returns: 'personal: the reason staff typed (export: orders[].returns; erase: cleared)',
  refunds: 'personal: the note staff typed (export: orders[].refunds; erase: cleared)',
  idempotency_keys: "personal: a checkout's stored answer (sealed; erase: deleted)",
  events: "personal: order.cancelled's reason (erase: cleared); customer events carry ids only",
  // Staff's own data, not a customer's.
  staff_members: 'staff: email',
  staff_sessions: 'staff',
  sign_in_codes: 'staff',
  privacy_log: "ids and the acting staff member's email; no customer data",
  // No personal data.
  apps: 'none',
  cart_lines: 'none',
  collection_products: 'none',
  collections: 'none',
  credentials: 'none: hashes',
  customer_groups: 'none: names of groups',
  discounts: 'none',
  dkim_keys: 'none',
  fulfillments: 'none: carrier and tracking',
  market_card_prices: 'none: card prices per market',
  market_countries: 'none: countries of markets',
  markets: 'none: names, currencies and rates',
  media: 'none',
  menus: 'none',
  order_counters: 'none',
  order_lines: 'none',
  pages: 'none',
  payments: 'none',
  platform_secrets: 'none',
  price_history: 'none: prices over time',
  price_list_groups: 'none: groups of price lists',
  price_list_markets: 'none: markets of price lists',
  price_list_prices: 'none: prices of price lists',
  price_lists: 'none: names, kinds and dates of price lists',
  product_handle_redirects: 'none',
  product_images: 'none',
  products: 'none',
  provider_events: 'none',
  read_versions: 'none',
  regions: 'none',
  sandbox_intents: 'none',
  sandbox_refunds: 'none',
  sandbox_webhooks: 'none: store and order ids',
  search_words: 'none: words of product titles, tags and option values',
  sending_domain_claims: 'none',
  sending_domain_clocks: 'none',
  sending_domain_records: 'none',
  sending_domains: 'none',
  shipping_methods: 'none',
  shipping_zones: 'none',
  storefront_keys: 'none',
  stores: 'none',
  tax_rates: 'none',
  tax_classes: 'none: codes and names of tax classes',
  tax_services: 'none: a URL and a sealed secret',
  themes: 'none',
  variant_prices: 'none: prices per currency',
  variants: 'none',
  webhook_deliveries: 'none',
  webhook_endpoints: 'none',
  kysely_migration: 'none',
  kysely_migration_lock: 'none',
};

async function tableNames(): Promise<string[]> {
  const { rows } = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`.execute(db.kysely);
  return rows.map((row) => row.table_name);
}

/** Every row of every table as text, by table. */
async function dump(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const table of await tableNames()) {
    const { rows } = await sql<{
      row: string;
    }>`SELECT row_to_json(t)::text AS row FROM ${sql.table(table)} t`.execute(db.kysely);
    out.set(table, rows.map((row) => row.row).join('\n'));
  }
  return out;
}

const client = clientAddresses();

async function signIn(shop: TestStore, email: string): Promise<{ token: string; customer: { id: string } }> {
  const ip = client();
  const call = (url: string, payload: object) =>
    t.app.inject({
      method: 'POST',
      url: `/storefront/v1/customers/${url}`,
      headers: { 'x-publishable-key': shop.publishableKey },
      payload,
      remoteAddress: ip,
    });
  const transport = t.config.emailTransport;
  const before = transport.kind === 'file' ? await readMailDir(transport.dir) : [];
  const count = before.filter((mail) => addressesOf(mail).includes(email)).length;
  assert.equal((await call('sign-in', { email })).statusCode, 202);
  const code = /\b(\d{6})\b/.exec((await waitForMail(t, email, count + 1)).text ?? '')![1]!;
  const verified = await call('verify', { email, code });
  assert.equal(verified.statusCode, 200, verified.body);
  return verified.json();
}

const me = (shop: TestStore, token: string) => ({
  call: (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({
      method,
      url: `/storefront/v1/customers/me${url}`,
      headers: { 'x-publishable-key': shop.publishableKey, authorization: `Bearer ${token}` },
      ...(payload ? { payload } : {}),
    }),
});

/** A customer with everything a store can hold about them; the strings that identify them. */
async function richCustomer(driver: ShopDriver) {
  const tag = randomUUID().slice(0, 8);
  const markers = {
    email: `quokka-${tag}@example.com`,
    name: `Zyxwa Quokka${tag}`,
    phone: `+44 20 7946 ${String(Number.parseInt(tag.slice(0, 4), 16) % 10000).padStart(4, '0')}`,
    street: `${tag} Quokkastraße`,
    cancelReason: `Quokka${tag} called to cancel`,
    returnReason: `Quokka${tag} found it too small`,
    refundNote: `Quokka${tag} goodwill`,
  };
  const shop = driver.shop;
  const session = await signIn(shop, markers.email);
  const account = me(shop, session.token);
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
  const checkout = async (): Promise<CheckoutBody> => {
    const cartId = await driver.cart([{ variantId, quantity: 2 }]);
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
  const guest = await driver.checkout({
    cartId: await driver.cart([{ variantId, quantity: 1 }]),
    email: markers.email,
    shippingAddress: address,
  });
  assert.equal(guest.statusCode, 201, guest.body);
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
    orders: [kept.order.id, cancelled.order.id, guest.json<CheckoutBody>().order.id],
    guest: guest.json<CheckoutBody>(),
    totals: [kept.order.total.amount, cancelled.order.total.amount],
  };
}

/** The tables whose rows mention any of the markers, and which markers. */
function mentions(tables: Map<string, string>, markers: Record<string, string>): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const [table, text] of tables) {
    const hits = Object.entries(markers)
      .filter(([, value]) => text.includes(value) || text.includes(JSON.stringify(value).slice(1, -1)))
      .map(([name]) => name);
    if (hits.length > 0) found.set(table, hits);
  }
  return found;
}

describe('where personal data lives', () => {
  test('every table of the schema is classified (a new table must say whether it holds personal data)', async () => {
    const names = await tableNames();
    const unclassified = names.filter((name) => !(name in TABLES));
    assert.deepEqual(unclassified, [], 'classify these tables in privacy.test.ts and docs/customers.md');
    const gone = Object.keys(TABLES).filter((name) => !names.includes(name));
    assert.deepEqual(gone, [], 'tables listed here that no longer exist');
  });

  test("a customer's data appears only in tables classified personal, and the export holds every piece", async () => {
    const driver = await ShopDriver.open(t);
    const { markers, orders } = await richCustomer(driver);
    const found = mentions(await dump(), markers);
    for (const [table, hits] of found)
      assert.match(
        TABLES[table] ?? '',
        /^personal/,
        `${table} holds ${hits.join(', ')} but is not classified personal`,
      );
    for (const name of ['email', 'name', 'phone', 'street', 'cancelReason', 'returnReason', 'refundNote'])
      assert.ok(
        [...found.values()].some((hits) => hits.includes(name)),
        `${name} is stored somewhere`,
      );

    const customerId = (await driver.admin('GET', `/customers?q=${encodeURIComponent(markers.email)}`)).json<{
      items: { id: string }[];
    }>().items[0]!.id;
    const exported = await driver.admin('GET', `/customers/${customerId}/export`);
    assert.equal(exported.statusCode, 200, exported.body);
    assert.match(String(exported.headers['content-disposition']), /attachment; filename="customer-/);
    const text = exported.body;
    for (const [name, value] of Object.entries(markers))
      assert.ok(
        text.includes(value) || text.includes(JSON.stringify(value).slice(1, -1)),
        `the export holds the ${name}`,
      );
    const data = exported.json<{
      orders: { id: string }[];
      addresses: unknown[];
      mail: { kind: string; subject: string | null }[];
      sessions: unknown[];
    }>();
    assert.deepEqual(new Set(data.orders.map((o) => o.id)), new Set(orders));
    assert.equal(data.addresses.length, 1);
    assert.ok(data.sessions.length >= 1);
    assert.ok(data.mail.some((m) => m.kind === 'order_confirmation'));
    // A sign-in code's subject is the code: never exported.
    assert.ok(data.mail.filter((m) => m.kind === 'customer_sign_in_code').every((m) => m.subject === null));
  });
});

describe('erasure (decision `erasure-is-immediate`)', () => {
  test('staff erasure leaves none of the customer anywhere; orders keep numbers, lines and amounts; the accounts add up', async () => {
    const driver = await ShopDriver.open(t);
    const { markers, session, orders, totals, guest } = await richCustomer(driver);
    const list = await driver.admin('GET', `/customers?q=${encodeURIComponent(markers.email)}`);
    const customer = list.json<{
      items: { id: string; ordersCount: number; totalSpent: { amount: number } }[];
    }>().items[0]!;
    const revenueBefore = (await driver.admin('GET', '/overview')).body;
    const before = await Promise.all(orders.map((id) => driver.adminOrder(id)));

    const erased = await driver.admin('DELETE', `/customers/${customer.id}`);
    assert.equal(erased.statusCode, 204, erased.body);

    const left = mentions(await dump(), markers);
    assert.deepEqual([...left.entries()], [], 'no trace of the customer in any table');

    // Orders: the same numbers, lines, amounts, payments and statuses; no email, address or phone.
    for (const [index, id] of orders.entries()) {
      const order = (await driver.adminOrder(id)) as Record<string, unknown>;
      const was = before[index] as Record<string, unknown>;
      for (const field of [
        'number',
        'status',
        'lines',
        'subtotal',
        'total',
        'refunded',
        'payments',
        'fulfillmentStatus',
      ])
        assert.deepEqual(order[field], was[field], `${field} of order ${index}`);
      assert.equal(order.email, 'erased@erased.invalid');
      assert.equal(order.shippingAddress, null);
      assert.equal(order.billingAddress, null);
      assert.equal(order.phone, null);
      assert.equal(order.customerId, null);
      assert.equal(order.cancelReason, null);
      assert.ok(order.erasedAt);
      const buyer = await driver.order(id);
      assert.equal((buyer as unknown as { number: number }).number, was.number);
    }
    assert.equal(
      (await driver.admin('GET', '/overview')).body,
      revenueBefore,
      'the overview adds up as before',
    );
    assert.equal(totals.length, 2);

    // Admin and storefront reads.
    assert.equal((await driver.admin('GET', `/customers/${customer.id}`)).statusCode, 404);
    assert.equal((await driver.admin('GET', `/customers/${customer.id}/export`)).statusCode, 404);
    const search = await driver.admin('GET', `/customers?q=${encodeURIComponent(markers.email)}`);
    assert.deepEqual(search.json<{ items: unknown[] }>().items, []);
    const byName = await driver.admin('GET', `/customers?q=${encodeURIComponent(markers.name)}`);
    assert.deepEqual(byName.json<{ items: unknown[] }>().items, []);
    const orderSearch = await driver.admin('GET', `/orders?q=${encodeURIComponent(markers.email)}`);
    assert.deepEqual(orderSearch.json<{ items: unknown[] }>().items, []);
    assert.equal((await me(driver.shop, session.token).call('GET', '')).statusCode, 401);

    // Events: customer.deleted carries the id alone.
    const deleted = await driver.events('customer.deleted');
    assert.deepEqual(deleted, [{ storeId: driver.storeId, customerId: customer.id }]);
    // The privacy log: who exported or erased whom.
    const log = await driver.admin('GET', '/privacy-log');
    assert.equal(log.statusCode, 200, log.body);
    assert.deepEqual(
      log
        .json<{ items: { action: string; customerId: string; actor: string; staffEmail: string }[] }>()
        .items.map((entry) => [entry.action, entry.customerId, entry.actor, entry.staffEmail]),
      [['erase', customer.id, 'staff', driver.shop.ownerEmail]],
    );

    // No mail goes to the erased buyer any more: their pending order, paid now, confirms to no one.
    await driver.confirm(guest);
    await driver.waitForStatus(guest.order.id, 'paid');
    const toErased = await db.kysely
      .selectFrom('mail_outbox')
      .select('id')
      .where('store_id', '=', driver.storeId)
      .where('to_address', '=', 'erased@erased.invalid')
      .execute();
    assert.deepEqual(toErased, []);
  });

  test("self-erasure from the shop: the token dies, the orders are scrubbed, the log says 'customer'", async () => {
    const driver = await ShopDriver.open(t);
    const email = `self-${randomUUID().slice(0, 8)}@example.com`;
    const session = await signIn(driver.shop, email);
    const variantId = await driver.variant(5);
    const placed = await t.app.inject({
      method: 'POST',
      url: '/storefront/v1/checkout',
      headers: {
        'x-publishable-key': driver.shop.publishableKey,
        authorization: `Bearer ${session.token}`,
        'idempotency-key': randomUUID(),
      },
      payload: { cartId: await driver.cart([{ variantId, quantity: 1 }]) },
    });
    assert.equal(placed.statusCode, 201, placed.body);
    const account = me(driver.shop, session.token);
    const exported = await account.call('GET', '/export');
    assert.equal(exported.statusCode, 200, exported.body);
    assert.ok(exported.body.includes(email));
    assert.equal((await account.call('DELETE', '')).statusCode, 204);
    assert.equal((await account.call('GET', '')).statusCode, 401);
    assert.equal((await account.call('GET', '/orders')).statusCode, 401);
    const order = (await driver.adminOrder(placed.json<CheckoutBody>().order.id)) as unknown as {
      email: string;
      number: number;
    };
    assert.equal(order.email, 'erased@erased.invalid');
    const log = await driver.admin('GET', '/privacy-log');
    assert.deepEqual(
      log
        .json<{ items: { action: string; actor: string; staffEmail: string | null }[] }>()
        .items.map((e) => [e.action, e.actor, e.staffEmail]),
      [
        ['erase', 'customer', null],
        ['export', 'customer', null],
      ],
    );
    // Signing in again with the email starts a new, empty account.
    const again = await signIn(driver.shop, email);
    assert.notEqual(again.customer.id, session.customer.id);
    const orders = await me(driver.shop, again.token).call('GET', '/orders');
    assert.deepEqual(orders.json<{ items: unknown[] }>().items, []);
  });

  test('erasure and export are admin actions; staff see customers but cannot export or erase', async () => {
    const driver = await ShopDriver.open(t);
    const email = `staff-${randomUUID().slice(0, 8)}@example.com`;
    const session = await signIn(driver.shop, email);
    const invited = await driver.admin('POST', '/staff', {
      email: `clerk-${randomUUID().slice(0, 6)}@example.com`,
      role: 'staff',
    });
    assert.equal(invited.statusCode, 201, invited.body);
    const { openStaffSession } = await import('../staff/staff.service.ts');
    const clerk = await openStaffSession(t.deps, driver.storeId, invited.json<{ email: string }>().email);
    const asClerk = t.admin(clerk.token);
    assert.equal((await asClerk.get(`/customers/${session.customer.id}`)).statusCode, 200);
    assert.equal((await asClerk.get(`/customers/${session.customer.id}/export`)).statusCode, 403);
    assert.equal((await asClerk.delete(`/customers/${session.customer.id}`)).statusCode, 403);
  });

  test("one store's staff cannot read, export or erase another store's customer", async () => {
    const a = await ShopDriver.open(t);
    const b = await createTestStore(t);
    const session = await signIn(a.shop, `iso-${randomUUID().slice(0, 8)}@example.com`);
    const asB = t.admin(b);
    assert.equal((await asB.get(`/customers/${session.customer.id}`)).statusCode, 404);
    assert.equal((await asB.get(`/customers/${session.customer.id}/export`)).statusCode, 404);
    assert.equal((await asB.delete(`/customers/${session.customer.id}`)).statusCode, 404);
    assert.deepEqual((await asB.get('/customers')).json<{ items: unknown[] }>().items, []);
    assert.equal((await me(a.shop, session.token).call('GET', '')).statusCode, 200, 'still there');
  });
});

describe('the admin customer list', () => {
  test('search by email prefix or part of a name (accents ignored), accounts or guests, totals, pages', async () => {
    const driver = await ShopDriver.open(t);
    const variantId = await driver.variant(50, 1000);
    const tag = randomUUID().slice(0, 6);
    const renee = `renee-${tag}@example.com`;
    const session = await signIn(driver.shop, renee);
    await me(driver.shop, session.token).call('PATCH', '', { name: 'Renée Dupré' });
    const paid = await driver.checkout({
      cartId: await driver.cart([{ variantId, quantity: 3 }]),
      email: renee,
    });
    await driver.confirm(paid.json());
    await driver.waitForStatus(paid.json<CheckoutBody>().order.id, 'paid');
    await driver.admin('POST', `/orders/${paid.json<CheckoutBody>().order.id}/refunds`, { amount: 500 });
    for (let n = 0; n < 3; n++)
      await driver.checkout({
        cartId: await driver.cart([{ variantId, quantity: 1 }]),
        email: `guest${n}-${tag}@example.com`,
      });

    const byPrefix = await driver.admin('GET', `/customers?q=${encodeURIComponent(`renee-${tag}@`)}`);
    const found = byPrefix.json<{ items: Record<string, unknown>[] }>().items;
    assert.equal(found.length, 1);
    assert.equal(found[0]!.email, renee);
    assert.equal(found[0]!.ordersCount, 1);
    await waitFor(
      async () =>
        (await driver.admin('GET', `/customers/${String(found[0]!.id)}`)).json<{
          totalSpent: { amount: number };
        }>().totalSpent.amount ===
        paid.json<CheckoutBody>().order.total.amount - 500,
      5000,
      'the refund counted',
    );
    assert.equal(found[0]!.openOrders, 1, 'paid, not shipped');
    const byName = await driver.admin('GET', '/customers?q=renee%20dup');
    assert.deepEqual(
      byName.json<{ items: { email: string }[] }>().items.map((c) => c.email),
      [renee],
    );
    const guests = await driver.admin('GET', '/customers?hasAccount=false&limit=2');
    const page = guests.json<{ items: { hasAccount: boolean; ordersCount: number }[]; nextCursor: string }>();
    assert.equal(page.items.length, 2);
    assert.ok(page.items.every((c) => !c.hasAccount && c.ordersCount === 0));
    const next = await driver.admin(
      'GET',
      `/customers?hasAccount=false&limit=2&cursor=${encodeURIComponent(page.nextCursor)}`,
    );
    assert.equal(next.json<{ items: unknown[]; nextCursor: null }>().items.length, 1);
    const accounts = await driver.admin('GET', '/customers?hasAccount=true');
    assert.deepEqual(
      accounts.json<{ items: { email: string }[] }>().items.map((c) => c.email),
      [renee],
    );
    const wild = await driver.admin('GET', '/customers?q=%25');
    assert.deepEqual(wild.json<{ items: unknown[] }>().items, [], '% is a literal, not a wildcard');
    const detail = await driver.admin('GET', `/customers/${String(found[0]!.id)}`);
    const body = detail.json<{ orders: { id: string }[]; addresses: unknown[] }>();
    assert.deepEqual(
      body.orders.map((o) => o.id),
      [paid.json<CheckoutBody>().order.id],
    );
    const filtered = await driver.admin('GET', `/orders?customerId=${String(found[0]!.id)}`);
    assert.deepEqual(
      filtered.json<{ items: { id: string }[] }>().items.map((o) => o.id),
      [paid.json<CheckoutBody>().order.id],
    );
  });
});
