/**
 * What the archive tests share: a populated store made through the HTTP API and fresh target
 * databases of either kind (archive-reads.test-support.ts reads every GET route on two apps side by side).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import type { LightMyRequestResponse } from 'fastify';
import { openDatabase, type Db } from '../db/database.ts';
import { pgliteOptions } from '../db/pglite.ts';
import { uniqueDomain } from '../email/email.test-support.ts';
import { LocalMediaStorage } from '../media/media.storage.ts';
import { seedDemo } from '../seed/demo.ts';
import {
  addressesOf,
  createTestStore,
  openBlankPostgres,
  openTestDatabase,
  readMailDir,
  waitFor,
  type TestApp,
  type TestStore,
} from '../test/harness.ts';
import { pgliteFromTemplate } from '../test/template.ts';
import { registerEndpoint, type CreatedEndpoint, type Receiver } from '../webhooks/webhooks.test-support.ts';

/** A database to import into: PostgreSQL beside DATABASE_URL when it is set, else a fresh PGlite. */
export interface Target {
  db: Db;
  close(): Promise<void>;
}

/**
 * A fresh target: `blank` has no migrations at all (the import migrates it), otherwise it is
 * migrated to the latest schema, as after `storefront migrate`.
 */
export async function openTarget(blank: boolean): Promise<Target> {
  if (process.env.DATABASE_URL) {
    if (!blank) {
      const db = await openTestDatabase();
      return { db, close: () => db.close() };
    }
    const created = (await openBlankPostgres())!;
    const db = await openDatabase({ databaseUrl: created.url, dataDir: '', poolSize: 4 });
    return {
      db,
      async close() {
        await db.close();
        await created.drop();
      },
    };
  }
  const pglite = blank ? await PGlite.create({ ...pgliteOptions }) : await pgliteFromTemplate();
  const db = await openDatabase({ databaseUrl: null, dataDir: '', pglite });
  return { db, close: () => db.close() };
}

/** The embedded source database, always PGlite (decision `archive-format`: the move is embedded → PostgreSQL). */
export async function openEmbeddedSource(): Promise<Db> {
  return openDatabase({ databaseUrl: null, dataDir: '', pglite: await pgliteFromTemplate() });
}

/** What a populated store is, and the credentials and handles the tests need afterwards. */
export interface World {
  shop: TestStore;
  /** A second store, left out by `--store`. */
  other: TestStore;
  customerEmail: string;
  customerToken: string;
  endpoint: CreatedEndpoint;
  /** A publishable key revoked before the export: 401 after the import too. */
  revokedKey: string;
  cartIds: string[];
  mediaIds: string[];
  mediaUrls: string[];
  /** A checkout with its Idempotency-Key and the body it answered (sealed at rest). */
  checkout: { body: Record<string, unknown>; key: string; answer: string };
  /** When the sessions were last used (the clock the comparison apps are set back to). */
  warmedAt: number;
}

const US_ADDRESS = {
  name: 'Ada Lovelace',
  line1: '1 Market Street',
  city: 'San Francisco',
  region: 'US-CA',
  postalCode: '94105',
  country: 'US',
  phone: '+1 415 555 0100',
};

function ok(response: LightMyRequestResponse, status: number, what: string): Record<string, unknown> {
  assert.equal(response.statusCode, status, `${what}: ${response.body}`);
  return response.body === '' ? {} : response.json<Record<string, unknown>>();
}

/**
 * A store with a bit of everything, made through the HTTP API (the demo seed first: catalog with
 * images, collections, content, shipping zones, a sealed publishable key): staff, keys (one
 * revoked), a theme, an app, a discount, a tax rate, a tax service, pages, menus, a published region with a newer
 * draft, a renamed product handle, a sending domain (DKIM keys), a webhook endpoint with delivered
 * deliveries, a customer with an address, a session and a group, a price list for the group, carts, a paid order fulfilled with a
 * return and a refund, a cancelled order, a pending order, a gift card bought with a gift card product,
 * a privacy-log entry; and a second store.
 * `t` must run the worker loops (mail, relay, payments).
 */
export async function populate(t: TestApp, receiver: Receiver): Promise<World> {
  const demo = (await seedDemo({
    ...t.deps,
    keyring: t.runtime.keyring,
    media: new LocalMediaStorage(t.config.media.dir),
  }))!;
  const shop: TestStore = {
    store: { id: demo.storeId, slug: 'demo' } as TestStore['store'],
    ownerEmail: 'owner@demo.storefront.test',
    publishableKey: demo.publishableKey,
    keyId: '',
    staffToken: demo.staffToken,
  };
  const admin = t.admin(shop);
  const storefront = t.storefront(shop);
  const endpoint = await registerEndpoint(t, shop, `${receiver.url}/archive`);

  ok(await admin.post('/staff', { email: 'clerk@demo.storefront.test', role: 'staff' }), 201, 'staff');
  ok(await admin.post('/integrations/storefront-keys', { label: 'spare', allowedOrigins: [] }), 201, 'key');
  const revoked = ok(
    await admin.post('/integrations/storefront-keys', { label: 'gone', allowedOrigins: [] }),
    201,
    'key',
  );
  ok(await admin.delete(`/integrations/storefront-keys/${String(revoked.id)}`), 204, 'revoke');
  const theme = ok(
    await admin.post('/themes', { name: 'Autumn', settings: { accent: '#aa3300' } }),
    201,
    'theme',
  );
  ok(await admin.post(`/themes/${String(theme.id)}/publish`), 200, 'publish theme');
  ok(await admin.post('/apps', { name: 'Reviews', scopes: ['read_products'] }), 201, 'app');
  ok(await admin.post('/discounts', { code: 'WELCOME10', kind: 'percent', value: 10 }), 201, 'discount');
  ok(await admin.put('/tax-rates/US', { taxRateBps: 825 }), 200, 'tax rate');
  // A tax service, inactive (nothing asks it): its signing secret travels sealed like the others.
  ok(
    await admin.put('/tax-service', { url: 'https://tax.example.com/quote', active: false }),
    201,
    'tax service',
  );
  ok(
    await admin.put('/pages/returns', {
      title: 'Returns',
      body: 'Thirty days, “no” questions.\nÜbrigens: ✓',
    }),
    200,
    'page',
  );
  ok(await admin.put('/menus/footer', { items: [{ label: 'Returns', url: '/pages/returns' }] }), 200, 'menu');
  const blocks = (text: string) => [{ id: 'a', type: 'text', settings: { text } }];
  ok(await admin.put('/regions/banner/draft', { blocks: blocks('Published') }), 200, 'draft');
  ok(await admin.post('/regions/banner/publish'), 200, 'publish region');
  ok(await admin.put('/regions/banner/draft', { blocks: blocks('Next week') }), 200, 'newer draft');
  ok(
    await admin.post('/email/sending-domain', { domain: uniqueDomain('archive'), fromLocalPart: 'orders' }),
    201,
    'sending domain',
  );

  const products = ok(await storefront.get('/products?limit=100'), 200, 'products').items as { id: string }[];
  // A product with images; one of its variants gets stock enough for every order below.
  const detail = ok(await storefront.get(`/products/${products[0]!.id}`), 200, 'product');
  const variantId = (detail.variants as { id: string }[])[1]!.id;
  ok(await admin.patch(`/variants/${variantId}`, { onHand: 100 }), 200, 'stock');
  ok(
    await admin.patch(`/products/${products[1]!.id}`, { handle: `renamed-${randomUUID().slice(0, 6)}` }),
    200,
    'handle',
  );
  const mediaIds = (detail.images as { id: string; url: string }[]).map((image) => image.id);
  const mediaUrls = (detail.images as { id: string; url: string }[]).map((image) => image.url);

  // A customer: signs in with an emailed code, names themself, keeps an address.
  const customerEmail = `ada-${randomUUID().slice(0, 6)}@example.com`;
  ok(await storefront.post('/customers/sign-in', { email: customerEmail }), 202, 'sign-in');
  const transport = t.config.emailTransport;
  assert.equal(transport.kind, 'file');
  const mail = await waitFor(async () => {
    const mails = await readMailDir(transport.kind === 'file' ? transport.dir : '');
    return mails.find((m) => addressesOf(m).includes(customerEmail));
  }, 10_000);
  const code = /\b(\d{6})\b/.exec(mail.text ?? '')![1]!;
  const verified = ok(
    await storefront.post('/customers/verify', { email: customerEmail, code }),
    200,
    'verify',
  );
  const customerToken = String(verified.token);
  const me = { authorization: `Bearer ${customerToken}` };
  ok(
    await storefront.patch('/customers/me', { name: 'Ada Lovelace', phone: '+1 415 555 0100' }, me),
    200,
    'me',
  );
  ok(await storefront.post('/customers/me/addresses', US_ADDRESS, me), 201, 'address');

  // Carts with an address, a method, a discount; checkouts.
  const cart = async (quantity: number, code?: string): Promise<string> => {
    const created = ok(await storefront.post('/carts', { items: [{ variantId, quantity }] }), 201, 'cart');
    const id = String(created.id);
    ok(await storefront.put(`/carts/${id}/shipping-address`, US_ADDRESS), 200, 'cart address');
    const options = ok(await storefront.get(`/carts/${id}/shipping-options`), 200, 'options').items as {
      id: string;
    }[];
    ok(await storefront.put(`/carts/${id}/shipping-method`, { id: options[0]!.id }), 200, 'method');
    if (code) ok(await storefront.put(`/carts/${id}/discount-code`, { code }), 200, 'code');
    return id;
  };
  const checkout = async (cartId: string, headers: Record<string, string> = {}) => {
    const key = randomUUID();
    const body = { cartId, email: customerEmail };
    const placed = await storefront.post('/checkout', body, { 'idempotency-key': key, ...headers });
    const answer = ok(placed, 201, 'checkout') as {
      order: { id: string };
      payment: { ref: string; clientSecret: string };
    };
    return { key, body, answer, text: placed.body };
  };
  const pay = async (placed: {
    answer: { order: { id: string }; payment: { ref: string; clientSecret: string } };
  }) => {
    ok(
      await t.app.inject({
        method: 'POST',
        url: `/sandbox/v1/payments/${placed.answer.payment.ref}/confirm`,
        payload: { clientSecret: placed.answer.payment.clientSecret, paymentMethod: 'pm_card_visa' },
      }),
      200,
      'confirm',
    );
    await waitFor(
      async () =>
        (await storefront.get(`/orders/${placed.answer.order.id}`)).json<{ status: string }>().status ===
        'paid',
      10_000,
      'paid',
    );
  };
  const open = await cart(1, 'WELCOME10');
  const kept = await checkout(await cart(2, 'WELCOME10'), me);
  await pay(kept);
  const orderId = kept.answer.order.id;
  ok(
    await admin.post(`/orders/${orderId}/fulfillments`, {
      lines: [{ variantId, quantity: 2 }],
      carrier: 'UPS',
      trackingNumber: '1Z999AA10123456784',
    }),
    201,
    'fulfilment',
  );
  ok(
    await admin.post(`/orders/${orderId}/returns`, {
      lines: [{ variantId, quantity: 1 }],
      reason: 'Too small',
    }),
    201,
    'return',
  );
  ok(await admin.post(`/orders/${orderId}/refunds`, { amount: 150, reason: 'Goodwill' }), 202, 'refund');
  const cancelled = await checkout(await cart(1));
  await pay(cancelled);
  ok(
    await admin.post(`/orders/${cancelled.answer.order.id}/cancel`, { reason: 'Changed their mind' }),
    200,
    'cancel',
  );
  const pending = await checkout(await cart(1));
  // A gift card product, one unit bought: its card names the order that sold it, and the mail of
  // its code was sealed (decision `gift-card-products`).
  const giftCardProduct = ok(
    await admin.post('/products', {
      title: 'Gift card',
      status: 'active',
      giftCard: true,
      variants: [{ label: '$20', priceAmount: 2000, onHand: 50 }],
    }),
    201,
    'gift card product',
  );
  const giftCardCart = ok(
    await storefront.post('/carts', {
      items: [{ variantId: (giftCardProduct.variants as { id: string }[])[0]!.id, quantity: 1 }],
    }),
    201,
    'gift card cart',
  );
  await pay(await checkout(String(giftCardCart.id), me));

  // The staff's export of the customer (the privacy log records it).
  const customers = ok(
    await admin.get(`/customers?q=${encodeURIComponent(customerEmail)}`),
    200,
    'customers',
  );
  const customerId = (customers.items as { id: string }[])[0]!.id;
  // A customer group the customer is in.
  const group = ok(await admin.post('/customer-groups', { name: 'Wholesale' }), 201, 'customer group');
  ok(await admin.put(`/customers/${customerId}/groups`, { groupIds: [group.id] }), 200, 'groups');
  // A gift card of the customer's, with an adjustment in its ledger: it travels with its code's hash.
  const card = ok(
    await admin.post('/gift-cards', { initialAmount: 2500, currency: 'USD', customerId }),
    201,
    'gift card',
  );
  ok(
    await admin.patch(`/gift-cards/${String(card.id)}`, { adjustment: { amount: -500, reason: 'Spent' } }),
    200,
    'gift card adjustment',
  );
  // A price list for the group, in the default market.
  ok(
    await admin.post('/price-lists', {
      name: 'Trade prices',
      kind: 'override',
      marketIds: [shop.store.id],
      customerGroupIds: [group.id],
      startsAt: '2026-01-01T00:00:00Z',
      prices: [{ variantId, currency: 'USD', amount: 1234 }],
    }),
    201,
    'price list',
  );
  // Draft orders (decision `draft-orders`): an open one with a custom line, and one completed by hand.
  ok(
    await admin.post('/draft-orders', {
      customerId,
      lines: [
        { variantId, quantity: 1, unitPrice: 999 },
        { title: 'Engraving', unitPrice: 500, quantity: 1, requiresShipping: false },
      ],
      note: 'Phone order',
    }),
    201,
    'draft order',
  );
  const completed = ok(
    await admin.post('/draft-orders', {
      customerId,
      lines: [{ title: 'Repair', unitPrice: 4000, quantity: 1 }],
    }),
    201,
    'draft order to complete',
  );
  ok(
    await admin.post(
      `/draft-orders/${String(completed.id)}/complete`,
      { payment: 'manual' },
      { 'idempotency-key': randomUUID() },
    ),
    200,
    'draft order completed',
  );
  ok(await admin.get(`/customers/${customerId}/export`), 200, 'export');

  // A second store, which `--store demo` leaves out.
  const other = await createTestStore(t);
  ok(
    await t.admin(other).post('/products', {
      title: 'Elsewhere',
      status: 'active',
      variants: [{ label: 'One', priceAmount: 999, onHand: 5 }],
    }),
    201,
    'other product',
  );

  // Everything settles: mail sent, deliveries made, the refund settled.
  await waitFor(
    async () => {
      const pendingMail = await t.db.kysely
        .selectFrom('mail_outbox')
        .select('id')
        .where('status', '=', 'pending')
        .execute();
      const pendingDeliveries = await t.db.kysely
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('status', '=', 'pending')
        .execute();
      const undispatched = await t.db.kysely
        .selectFrom('events')
        .select('id')
        .where('dispatched_at', 'is', null)
        .execute();
      const refunds = await t.db.kysely
        .selectFrom('refunds')
        .select('id')
        .where('status', '=', 'pending')
        .execute();
      return pendingMail.length + pendingDeliveries.length + undispatched.length + refunds.length === 0;
    },
    20_000,
    'the store to settle',
  );
  // The sessions' last use (a session slides at most once a minute): the comparison apps' clocks go
  // back to this moment, so reading on one side never slides a session the other side does not.
  ok(await admin.get('/auth/session'), 200, 'staff session');
  ok(await storefront.get('/customers/me', me), 200, 'customer session');
  return {
    shop,
    other,
    customerEmail,
    customerToken,
    endpoint,
    revokedKey: String(revoked.key),
    cartIds: [open, kept.body.cartId, pending.body.cartId],
    mediaIds,
    mediaUrls,
    checkout: { body: kept.body, key: kept.key, answer: kept.text },
    warmedAt: Date.now(),
  };
}
