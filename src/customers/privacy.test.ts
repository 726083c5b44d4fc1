/**
 * Personal data (decision `customer-accounts`, docs/customers.md): every table is classified, and
 * export covers every place a customer's data lives; that erasure leaves none of it anywhere in the
 * database is erasure.test.ts's. Then the admin customer list.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ShopDriver, type CheckoutBody } from '../orders/orders.test-support.ts';
import { startTestAppWithDb, waitFor, type TestApp, type TestDb } from '../test/harness.ts';
import { dump, me, mentions, richCustomer, signIn, tableNames } from './privacy.test-support.ts';

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
  gift_cards:
    "personal: the owning customer (who bought it, when an order sold it) and staff's note (export: giftCards, without notes or codes; erase: note cleared, customer_id unlinked by SET NULL; the selling order's id stays)",
  gift_card_ledger: 'none: amounts and order ids of gift cards',
  customer_group_members:
    'personal: the groups a customer is in (export: groups; erase: deleted with the customer)',
  orders: 'personal: email, addresses, phone, cancel reason (export: orders; erase: scrubbed)',
  carts: "personal: the shipping address (export: the order's; erase: cleared on the orders' carts)",
  mail_outbox: 'personal: recipient, subject, text and HTML bodies (export: mail; erase: deleted)',
  returns: 'personal: the reason staff typed (export: orders[].returns; erase: cleared)',
  refunds: 'personal: the note staff typed (export: orders[].refunds; erase: cleared)',
  idempotency_keys: "personal: a checkout's stored answer (sealed; erase: deleted)",
  events: "personal: order.cancelled's reason (erase: cleared); customer events carry ids only",
  draft_orders:
    "personal: email, addresses and staff's note (export: draftOrders; erase: deleted with the customer, ON DELETE CASCADE)",
  draft_order_lines: 'none: variants, titles staff typed, quantities and prices',
  imports: 'none: counts and row errors, which never quote a cell (decision `csv-imports`)',
  import_chunks:
    'personal while a customers import runs: the uploaded file, deleted when its import ends (decision `csv-imports`)',
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
  promotions: 'none: names, codes, rules and use counts of promotions',
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

describe('where personal data lives', () => {
  test('every table of the schema is classified (a new table must say whether it holds personal data)', async () => {
    const names = await tableNames(db);
    const unclassified = names.filter((name) => !(name in TABLES));
    assert.deepEqual(unclassified, [], 'classify these tables in privacy.test.ts and docs/customers.md');
    const gone = Object.keys(TABLES).filter((name) => !names.includes(name));
    assert.deepEqual(gone, [], 'tables listed here that no longer exist');
  });

  test("a customer's data appears only in tables classified personal, and the export holds every piece", async () => {
    const driver = await ShopDriver.open(t);
    const { markers, orders } = await richCustomer(t, db, driver);
    const found = mentions(await dump(db), markers);
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
      giftCards: { last4: string; balance: { amount: number } }[];
    }>();
    assert.deepEqual(new Set(data.orders.map((o) => o.id)), new Set(orders));
    assert.equal(data.addresses.length, 1);
    assert.ok(data.sessions.length >= 1);
    assert.ok(data.mail.some((m) => m.kind === 'order_confirmation'));
    // A sign-in code's subject is the code: never exported; nor a gift card's codes' mail's.
    assert.ok(data.mail.filter((m) => m.kind === 'customer_sign_in_code').every((m) => m.subject === null));
    assert.deepEqual(
      data.mail.filter((m) => m.kind === 'gift_card_codes').map((m) => m.subject),
      [null],
    );
    // The card staff issued them and the one they bought.
    assert.deepEqual(data.giftCards.map((c) => c.balance.amount).sort(), [1000, 2000]);
  });
});

describe('the admin customer list', () => {
  test('search by email prefix or part of a name (accents ignored), accounts or guests, totals, pages', async () => {
    const driver = await ShopDriver.open(t);
    const variantId = await driver.variant(50, 1000);
    const tag = randomUUID().slice(0, 6);
    const renee = `renee-${tag}@example.com`;
    const session = await signIn(t, driver.shop, renee);
    await me(t, driver.shop, session.token).call('PATCH', '', { name: 'Renée Dupré' });
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
