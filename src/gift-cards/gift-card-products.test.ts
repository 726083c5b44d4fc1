/**
 * Gift cards sold as products (decision `gift-card-products`), over real HTTP with the real SMTP
 * sink: paying for one issues a card per unit of the unit's price, linked to its order, with
 * `gift_card.issued`, and mails the codes to the buyer, sealed in the outbox; a payment event
 * delivered again issues and mails nothing. The catalog's side is
 * src/catalog/products/gift-card-products.test.ts.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../email/email.test-support.ts';
import { MAIL_PURPOSE, mailContext } from '../mail/outbox.ts';
import { expireOrders } from '../orders/expiry.service.ts';
import { issueGiftCardsOf } from '../orders/gift-card-sales.ts';
import { paymentDeps, ShopDriver } from '../orders/orders.test-support.ts';
import { createTestStore, startTestApp, waitFor, type TestApp, type TestStore } from '../test/harness.ts';
import { findCardByCode } from './gift-cards.ledger.ts';

let sink: SmtpSink;
let t: TestApp;
let base: string;
before(async () => {
  sink = await startSmtpSink();
  t = await startTestApp({ workers: true, config: { emailTransport: { kind: 'smtp', url: sink.url } } });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  await t.close();
  await sink.close();
});

const CODE = /\b[2-9A-HJ-NP-Z]{4}(?:-[2-9A-HJ-NP-Z]{4}){3}\b/g;

interface Money {
  amount: number;
  currency: string;
}
interface Card {
  id: string;
  last4: string;
  initialAmount: Money;
  balance: Money;
  status: string;
  expiresAt: string | null;
  customerId: string | null;
  orderId: string | null;
}
interface Product {
  id: string;
  giftCard: boolean;
  variants: { id: string; label: string; requiresShipping: boolean }[];
}
interface Placed {
  order: { id: string; number: number; status: string; total: Money };
  payment: { ref: string; clientSecret: string };
}

/** One request over HTTP; the answer must have `status`. */
async function call<T>(
  method: string,
  path: string,
  options: { staff?: TestStore; shop?: TestStore; body?: unknown; headers?: Record<string, string> },
  status: number,
): Promise<T> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.staff) headers.authorization = `Bearer ${options.staff.staffToken}`;
  if (options.shop) headers['x-publishable-key'] = options.shop.publishableKey;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  assert.equal(response.status, status, `${method} ${path}: ${text}`);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

const admin = <T>(shop: TestStore, method: string, path: string, body: unknown, status: number) =>
  call<T>(method, `/admin/v1${path}`, { staff: shop, body }, status);

async function giftCardProduct(shop: TestStore, prices: number[]): Promise<Product> {
  return admin<Product>(
    shop,
    'POST',
    '/products',
    {
      title: 'Gift card',
      status: 'active',
      giftCard: true,
      variants: prices.map((priceAmount) => ({ label: `${priceAmount}`, priceAmount, onHand: 1000 })),
    },
    201,
  );
}

/** Cart → checkout → the sandbox's confirmation, as a shop and the buyer's browser do; waits until paid. */
async function buy(
  shop: TestStore,
  items: { variantId: string; quantity: number }[],
  email: string,
  extra: Record<string, unknown> = {},
): Promise<Placed> {
  const cart = await call<{ id: string }>('POST', '/storefront/v1/carts', { shop, body: { items } }, 201);
  const placed = await call<Placed>(
    'POST',
    '/storefront/v1/checkout',
    { shop, body: { cartId: cart.id, email, ...extra }, headers: { 'idempotency-key': randomUUID() } },
    201,
  );
  await call(
    'POST',
    `/sandbox/v1/payments/${placed.payment.ref}/confirm`,
    { body: { clientSecret: placed.payment.clientSecret, paymentMethod: 'pm_card_visa' } },
    200,
  );
  await waitFor(
    async () =>
      (await call<{ status: string }>('GET', `/storefront/v1/orders/${placed.order.id}`, { shop }, 200))
        .status === 'paid',
    10_000,
    'order paid',
  );
  return placed;
}

/** The `count`-th mail of `kind` to `to` the SMTP sink received. */
function mailOf(to: string, kind: string, count = 1): Promise<ReceivedMail> {
  return waitFor(
    () =>
      sink.messages.filter(
        (m) => m.rcptTo.includes(to) && m.parsed.headers.get('x-storefront-mail-kind') === kind,
      )[count - 1],
    10_000,
    `mail ${kind} #${count} to ${to}`,
  );
}

const cardsOfOrder = (shop: TestStore, orderId: string) =>
  admin<{ items: Card[] }>(shop, 'GET', `/gift-cards?orderId=${orderId}`, undefined, 200);

async function issuedEvents(shop: TestStore) {
  const rows = await t.db.kysely
    .selectFrom('events')
    .select('data')
    .where('store_id', '=', shop.store.id)
    .where('type', '=', 'gift_card.issued')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => row.data);
}

/** Every row of every table as text. */
async function everyRow(): Promise<string> {
  const { rows: tables } = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.tables
    WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`.execute(t.db.kysely);
  const out: string[] = [];
  for (const { table_name } of tables) {
    const { rows } = await sql<{
      row: string;
    }>`SELECT row_to_json(t)::text AS row FROM ${sql.table(table_name)} t`.execute(t.db.kysely);
    out.push(...rows.map((row) => row.row));
  }
  return out.join('\n');
}

const lookup = (shop: TestStore, code: string) =>
  findCardByCode(
    { db: t.db.kysely, limitGuess: async () => {} },
    { storeId: shop.store.id, client: '192.0.2.1', now: t.clock.now() },
    code,
  );

describe('buying a gift card', () => {
  test('paying issues a card of the price, linked to the order, and mails its code, which works; a payment event delivered again issues nothing', async () => {
    const shop = await createTestStore(t);
    const product = await giftCardProduct(shop, [2500]);
    const email = `buyer-${randomUUID().slice(0, 8)}@example.com`;
    const placed = await buy(shop, [{ variantId: product.variants[0]!.id, quantity: 1 }], email);

    const { items } = await cardsOfOrder(shop, placed.order.id);
    assert.equal(items.length, 1);
    const card = items[0]!;
    // The order's customer (a guest checkout's email makes one) owns it.
    const { customerId } = await admin<{ customerId: string | null }>(
      shop,
      'GET',
      `/orders/${placed.order.id}`,
      undefined,
      200,
    );
    assert.ok(customerId);
    assert.deepEqual(
      [card.initialAmount, card.balance, card.status, card.expiresAt, card.customerId, card.orderId],
      [
        { amount: 2500, currency: 'USD' },
        { amount: 2500, currency: 'USD' },
        'active',
        null,
        customerId,
        placed.order.id,
      ],
    );
    const listed = await admin<{ items: Card[] }>(shop, 'GET', '/gift-cards', undefined, 200);
    assert.deepEqual(
      listed.items.map((c) => [c.id, c.last4, c.balance.amount]),
      [[card.id, card.last4, 2500]],
    );
    const detail = await admin<{ ledger: { kind: string; amount: number }[] }>(
      shop,
      'GET',
      `/gift-cards/${card.id}`,
      undefined,
      200,
    );
    assert.deepEqual(
      detail.ledger.map((entry) => [entry.kind, entry.amount]),
      [['issue', 2500]],
    );
    assert.deepEqual(await issuedEvents(shop), [
      {
        storeId: shop.store.id,
        giftCardId: card.id,
        last4: card.last4,
        balance: { amount: 2500, currency: 'USD' },
        orderId: placed.order.id,
      },
    ]);

    // The mail: from the store, text and HTML, the amount, the code, its expiry and how to use it.
    const mail = await mailOf(email, 'gift_card_codes');
    const { parsed } = mail;
    assert.equal(parsed.subject, `Your gift card from ${shop.store.name}`);
    assert.equal(parsed.from?.value[0]?.name, shop.store.name);
    const text = parsed.text ?? '';
    const html = typeof parsed.html === 'string' ? parsed.html : '';
    const codes = [...new Set(text.match(CODE))];
    assert.equal(codes.length, 1, text);
    const code = codes[0]!;
    assert.deepEqual([...new Set(html.match(CODE))], [code], 'the HTML part carries the same code');
    for (const part of [text, html]) {
      assert.ok(part.includes('$25.00'), part);
      assert.ok(part.includes(`#${placed.order.number}`), part);
      assert.ok(part.includes('It does not expire.'), part);
      assert.ok(part.includes('enter the code at checkout'), part);
    }
    assert.equal(code.slice(-4), card.last4);
    const found = await lookup(shop, code);
    assert.deepEqual([found?.id, found?.balance.amount], [card.id, 2500]);
    assert.equal(await lookup(await createTestStore(t), code), null, 'another store’s code finds nothing');

    // Sealed in the outbox, erased once sent; the code is nowhere in the database nor the logs.
    const row = await waitFor(
      () =>
        t.db.kysely
          .selectFrom('mail_outbox')
          .selectAll()
          .where('store_id', '=', shop.store.id)
          .where('kind', '=', 'gift_card_codes')
          .where('status', '=', 'sent')
          .executeTakeFirst(),
      10_000,
      'the mail marked sent',
    );
    assert.deepEqual(
      [row.sealed, row.subject, row.text_body, row.html_body, row.about],
      [true, '(erased after sending)', '', null, `order:${placed.order.id}`],
    );
    const normal = code.replaceAll('-', '');
    const rows = await everyRow();
    assert.ok(!rows.includes(code) && !rows.includes(normal), 'no code at rest');
    const logs = JSON.stringify(t.logs);
    assert.ok(!logs.includes(code) && !logs.includes(normal), 'no code in the logs');
    // The order's history lists the mail, not what it says.
    const order = await admin<{ mails: { kind: string; subject: string; status: string }[] }>(
      shop,
      'GET',
      `/orders/${placed.order.id}`,
      undefined,
      200,
    );
    assert.deepEqual(
      order.mails.filter((m) => m.kind === 'gift_card_codes').map((m) => [m.subject, m.status]),
      [['(sealed)', 'sent']],
    );

    // The sandbox's webhook delivered again, and a second event for the same payment: nothing more.
    const webhook = await t.db.kysely
      .selectFrom('sandbox_webhooks')
      .select('body')
      .where('intent_ref', '=', placed.payment.ref)
      .where('body', 'like', '%payment_intent.succeeded%')
      .executeTakeFirstOrThrow();
    const another = JSON.stringify({ ...JSON.parse(webhook.body), id: `evt_again_${randomUUID()}` });
    for (const body of [webhook.body, webhook.body, another])
      await call(
        'POST',
        '/payments/webhooks/sandbox',
        {
          body: JSON.parse(body) as unknown,
          headers: {
            'sandbox-signature': t.runtime.payments.sandbox!.sign(JSON.stringify(JSON.parse(body))),
          },
        },
        200,
      );
    assert.equal((await cardsOfOrder(shop, placed.order.id)).items.length, 1);
    assert.equal((await issuedEvents(shop)).length, 1);
    const mails = await t.db.kysely
      .selectFrom('mail_outbox')
      .select('id')
      .where('store_id', '=', shop.store.id)
      .where('kind', '=', 'gift_card_codes')
      .execute();
    assert.equal(mails.length, 1);
  });

  test('two units make two cards with two codes in one mail; the face value is the unit price, whatever the discount; other lines issue nothing', async () => {
    const shop = await createTestStore(t);
    const product = await giftCardProduct(shop, [2500, 5000]);
    const mug = await admin<Product>(
      shop,
      'POST',
      '/products',
      { title: 'Mug', status: 'active', variants: [{ label: 'Blue', priceAmount: 1200, onHand: 5 }] },
      201,
    );
    await admin(
      shop,
      'POST',
      '/promotions',
      { name: 'Ten off', code: 'TENOFF', action: { kind: 'percent', value: 10, target: 'order' } },
      201,
    );
    const email = `pair-${randomUUID().slice(0, 8)}@example.com`;
    const placed = await buy(
      shop,
      [
        { variantId: mug.variants[0]!.id, quantity: 1 },
        { variantId: product.variants[1]!.id, quantity: 2 },
      ],
      email,
      { discountCode: 'TENOFF' },
    );
    const { items } = await cardsOfOrder(shop, placed.order.id);
    assert.deepEqual(
      items.map((card) => card.initialAmount),
      [
        { amount: 5000, currency: 'USD' },
        { amount: 5000, currency: 'USD' },
      ],
    );
    assert.equal(new Set(items.map((card) => card.id)).size, 2);

    const mail = await mailOf(email, 'gift_card_codes');
    assert.equal(mail.parsed.subject, `Your 2 gift cards from ${shop.store.name}`);
    const codes = [...new Set((mail.parsed.text ?? '').match(CODE))];
    assert.equal(codes.length, 2);
    const found = await Promise.all(codes.map((code) => lookup(shop, code)));
    assert.deepEqual(
      new Set(found.map((card) => card?.id)),
      new Set(items.map((card) => card.id)),
      'each code is one of the cards',
    );
    assert.deepEqual(new Set(codes.map((code) => code.slice(-4))), new Set(items.map((card) => card.last4)));
    assert.equal((await issuedEvents(shop)).length, 2);
    // One mail of codes for the order, besides its confirmation.
    await mailOf(email, 'order_confirmation');
    const queued = await t.db.kysely
      .selectFrom('mail_outbox')
      .select('kind')
      .where('store_id', '=', shop.store.id)
      .where('about', '=', `order:${placed.order.id}`)
      .orderBy('kind')
      .execute();
    assert.deepEqual(
      queued.map((row) => row.kind),
      ['gift_card_codes', 'order_confirmation'],
    );
  });

  test('the codes are sealed while the mail waits, and issuing twice for an order issues nothing more', async () => {
    const shop = await createTestStore(t);
    const product = await giftCardProduct(shop, [700]);
    // An order left pending (not paid): its issuing is run by hand, in a transaction rolled back.
    const cart = await call<{ id: string }>(
      'POST',
      '/storefront/v1/carts',
      { shop, body: { items: [{ variantId: product.variants[0]!.id, quantity: 3 }] } },
      201,
    );
    const placed = await call<Placed>(
      'POST',
      '/storefront/v1/checkout',
      {
        shop,
        body: { cartId: cart.id, email: 'sealed@example.com' },
        headers: { 'idempotency-key': randomUUID() },
      },
      201,
    );
    const rollback = new Error('roll back');
    await assert.rejects(
      t.db.kysely.transaction().execute(async (trx) => {
        const order = await trx
          .selectFrom('orders')
          .selectAll()
          .where('store_id', '=', shop.store.id)
          .where('id', '=', placed.order.id)
          .executeTakeFirstOrThrow();
        const lines = await trx
          .selectFrom('order_lines')
          .selectAll()
          .where('store_id', '=', shop.store.id)
          .where('order_id', '=', order.id)
          .execute();
        const tx = { db: trx, keyring: t.runtime.keyring };
        assert.equal(await issueGiftCardsOf(tx, shop.store.name, order, lines, t.clock.now()), 3);
        assert.equal(await issueGiftCardsOf(tx, shop.store.name, order, lines, t.clock.now()), 0);
        const mails = await trx
          .selectFrom('mail_outbox')
          .selectAll()
          .where('store_id', '=', shop.store.id)
          .where('kind', '=', 'gift_card_codes')
          .execute();
        assert.equal(mails.length, 1);
        const mail = mails[0]!;
        assert.equal(mail.sealed, true);
        const open = (value: string) =>
          t.runtime.keyring.open(MAIL_PURPOSE, value, mailContext(mail.store_id, mail.id), 'mail');
        const codes = [...new Set(open(mail.text_body).match(CODE))];
        assert.equal(codes.length, 3);
        assert.deepEqual([...new Set(open(mail.html_body!).match(CODE))].sort(), [...codes].sort());
        assert.match(open(mail.subject), /Your 3 gift cards/);
        const { rows } = await sql<{ row: string }>`
          SELECT row_to_json(m)::text AS row FROM mail_outbox m WHERE store_id = ${shop.store.id}
          UNION ALL SELECT row_to_json(g)::text FROM gift_cards g WHERE store_id = ${shop.store.id}
          UNION ALL SELECT row_to_json(e)::text FROM events e WHERE store_id = ${shop.store.id}`.execute(trx);
        const stored = rows.map((row) => row.row).join('\n');
        for (const code of codes)
          assert.ok(!stored.includes(code) && !stored.includes(code.replaceAll('-', '')), 'sealed');
        throw rollback;
      }),
      rollback,
    );
  });

  test('a late payment that revives an expired order issues its cards then', async () => {
    const driver = await ShopDriver.open(t);
    const product = await giftCardProduct(driver.shop, [1500]);
    const late = await driver.buy(product.variants[0]!.id, 2);
    const ms = t.config.payments.orderTtlMs + 60_000;
    t.clock.advance(ms);
    try {
      await expireOrders(paymentDeps(t));
    } finally {
      t.clock.advance(-ms);
    }
    assert.equal((await driver.order(late.order.id)).status, 'expired');
    assert.deepEqual((await cardsOfOrder(driver.shop, late.order.id)).items, []);
    await driver.latePaymentSucceeded(late);
    await driver.waitForStatus(late.order.id, 'paid');
    const { items } = await cardsOfOrder(driver.shop, late.order.id);
    assert.deepEqual(
      items.map((card) => card.balance.amount),
      [1500, 1500],
    );
    const mail = await mailOf('buyer@example.com', 'gift_card_codes');
    assert.deepEqual(
      new Set((mail.parsed.text ?? '').match(CODE)?.map((code) => code.slice(-4))),
      new Set(items.map((card) => card.last4)),
    );
  });
});
