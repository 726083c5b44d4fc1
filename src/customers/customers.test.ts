/**
 * Customer accounts (decision `customer-accounts`): sign-in by code, tokens, `me`, addresses, orders linked to accounts,
 * and the attacks on sign-in (guess races, floods from other clients).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { ParsedMail } from 'mailparser';
import { ShopDriver, type CheckoutBody } from '../orders/orders.test-support.ts';
import {
  addressesOf,
  clientAddresses,
  createTestStore,
  observedDb,
  openTestDatabase,
  QueryObserver,
  readMailDir,
  skipUnlessPostgres,
  startTestApp,
  waitFor,
  waitForMail,
  type TestApp,
  type TestDb,
  type TestStore,
} from '../test/harness.ts';
import { mayIssueCode } from './sign-in.service.ts';

let db: TestDb;
let t: TestApp;
before(async () => {
  db = await openTestDatabase();
  // Results a turn later, so concurrent requests interleave on the embedded database too.
  t = await startTestApp({ db: observedDb(db, new QueryObserver({ nextTurn: true })), workers: true });
});
after(async () => {
  await t.close();
  await db.close();
});

const client = clientAddresses();
const newEmail = () => `ada-${randomUUID().slice(0, 8)}@example.com`;

function store(shop: TestStore) {
  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    options: { payload?: object; token?: string; ip?: string; headers?: Record<string, string> } = {},
  ) =>
    t.app.inject({
      method,
      url: `/storefront/v1${url}`,
      headers: {
        'x-publishable-key': shop.publishableKey,
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...options.headers,
      },
      ...(options.payload ? { payload: options.payload } : {}),
      ...(options.ip ? { remoteAddress: options.ip } : {}),
    });
  return call;
}

function codeOf(mail: ParsedMail): string {
  const match = /\b(\d{6})\b/.exec(mail.text ?? '');
  assert.ok(match, `a 6-digit code in: ${mail.text}`);
  return match[1]!;
}

/** Asks for a sign-in code from one client address; the code of the mail that brings it. */
async function requestCode(shop: TestStore, email: string, ip: string): Promise<string> {
  const count = await mailCount(email);
  assert.equal((await store(shop)('POST', '/customers/sign-in', { payload: { email }, ip })).statusCode, 202);
  return codeOf(await waitForMail(t, email, count + 1));
}

/** Signs in by code from one client address; the session's answer. */
async function signIn(
  shop: TestStore,
  email: string,
  ip = client(),
): Promise<{ token: string; expiresAt: string; customer: Record<string, unknown> }> {
  const code = await requestCode(shop, email, ip);
  const verified = await store(shop)('POST', '/customers/verify', { payload: { email, code }, ip });
  assert.equal(verified.statusCode, 200, verified.body);
  return verified.json();
}

/** Mails to `email` so far. */
async function mailCount(email: string): Promise<number> {
  const transport = t.config.emailTransport;
  assert.equal(transport.kind, 'file');
  return (await readMailDir(transport.kind === 'file' ? transport.dir : '')).filter((mail) =>
    addressesOf(mail).includes(email),
  ).length;
}

const LONDON = {
  name: 'Ada Lovelace',
  line1: '12 St James’s Square',
  city: 'London',
  postalCode: 'SW1Y 4JH',
  country: 'GB',
};

async function events(shop: TestStore, type: string) {
  const rows = await db.kysely
    .selectFrom('events')
    .select(['type', 'data'])
    .where('store_id', '=', shop.store.id)
    .where('type', '=', type)
    .orderBy('seq')
    .execute();
  return rows.map((row) => row.data);
}

describe('sign-in by code (decision `customer-accounts`)', () => {
  test('any email gets 202 and a code from the store; verifying makes the account (customer.created) and a ct_ token', async () => {
    const shop = await createTestStore(t);
    const email = newEmail();
    const session = await signIn(shop, email);
    assert.match(session.token, /^ct_[0-9A-Za-z]{40}$/);
    assert.equal(session.customer.email, email);
    assert.equal(session.customer.hasAccount, true);
    assert.ok(Date.parse(session.expiresAt) > Date.now());
    const created = await events(shop, 'customer.created');
    assert.deepEqual(created, [
      { storeId: shop.store.id, customerId: session.customer.id, hasAccount: true, acceptsMarketing: false },
    ]);
    // The token is stored only as a hash; the code only as an HMAC; the codes never hold the email.
    const stored = await db.kysely
      .selectFrom('credentials')
      .selectAll()
      .where('kind', '=', 'customer_session')
      .execute();
    assert.ok(stored.every((row) => !JSON.stringify(row).includes(session.token)));
    const codes = await db.kysely
      .selectFrom('customer_sign_in_codes')
      .selectAll()
      .where('store_id', '=', shop.store.id)
      .execute();
    assert.ok(codes.length > 0 && codes.every((row) => !JSON.stringify(row).includes(email)));
  });

  test('the mail comes from the store (store tier), and says the code works once for 10 minutes', async () => {
    const shop = await createTestStore(t);
    const email = newEmail();
    await store(shop)('POST', '/customers/sign-in', { payload: { email } });
    const mail = await waitForMail(t, email);
    assert.match(mail.subject ?? '', new RegExp(`is your code for ${shop.store.name}`));
    assert.match(mail.text ?? '', /works once, for 10 minutes/);
    const row = await db.kysely
      .selectFrom('mail_outbox')
      .select(['tier', 'sealed'])
      .where('store_id', '=', shop.store.id)
      .where('kind', '=', 'customer_sign_in_code')
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { tier: 'store', sealed: true });
  });

  test('a wrong code is 401; a code works once; a code from another client is 401', async () => {
    const shop = await createTestStore(t);
    const email = newEmail();
    const ip = client();
    const call = store(shop);
    const code = await requestCode(shop, email, ip);
    const wrong = code === '000000' ? '000001' : '000000';
    const refused = await call('POST', '/customers/verify', { payload: { email, code: wrong }, ip });
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.json<{ title: string }>().title, 'unauthorized');
    assert.equal(
      (await call('POST', '/customers/verify', { payload: { email, code }, ip: client() })).statusCode,
      401,
    );
    assert.equal((await call('POST', '/customers/verify', { payload: { email, code }, ip })).statusCode, 200);
    assert.equal((await call('POST', '/customers/verify', { payload: { email, code }, ip })).statusCode, 401);
  });

  test('a bad email or code shape is 400 validation_failed', async () => {
    const shop = await createTestStore(t);
    const call = store(shop);
    const badEmail = await call('POST', '/customers/sign-in', { payload: { email: 'nope' } });
    assert.equal(badEmail.statusCode, 400);
    const badCode = await call('POST', '/customers/verify', { payload: { email: newEmail(), code: '12ab' } });
    assert.equal(badCode.statusCode, 400);
    assert.equal(badCode.json<{ title: string }>().title, 'validation_failed');
  });

  test('12 guesses at once spend at most 5 attempts: the right code sent after them is refused', async () => {
    const shop = await createTestStore(t);
    const email = newEmail();
    const ip = client();
    const call = store(shop);
    const code = await requestCode(shop, email, ip);
    const wrong = Array.from({ length: 12 }, (_, n) =>
      String((Number(code) + 1 + n * 7919) % 1_000_000).padStart(6, '0'),
    );
    const answers = await Promise.all(
      wrong.map((guess) => call('POST', '/customers/verify', { payload: { email, code: guess }, ip })),
    );
    assert.ok(answers.every((answer) => answer.statusCode === 401));
    const row = await db.kysely
      .selectFrom('customer_sign_in_codes')
      .select('attempts')
      .where('store_id', '=', shop.store.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.attempts, 5);
    assert.equal((await call('POST', '/customers/verify', { payload: { email, code }, ip })).statusCode, 401);
  });

  test('a flood of code requests and guesses from other clients never locks the real person out', async () => {
    const shop = await createTestStore(t);
    const email = newEmail();
    const call = store(shop);
    // 30 other addresses ask for codes for the victim's email, and guess.
    for (let n = 0; n < 30; n++) {
      const ip = client();
      await call('POST', '/customers/sign-in', { payload: { email }, ip });
      await call('POST', '/customers/verify', { payload: { email, code: '123456' }, ip });
    }
    await waitForMail(t, email, 30);
    // The real person, from their own network, still gets a code and signs in with it.
    const session = await signIn(shop, email);
    assert.equal(session.customer.email, email);
    // Mail to the address is bounded: 20 an hour from everyone, plus each client's guaranteed share.
    assert.equal(mayIssueCode({ member: 20, client: 2 }), false);
    assert.equal(mayIssueCode({ member: 500, client: 1 }), true);
  });

  test('two first sign-ins of one email at once make one customer and one customer.created', async () => {
    const shop = await createTestStore(t);
    const email = newEmail();
    const [a, b] = [client(), client()];
    const call = store(shop);
    const codeA = await requestCode(shop, email, a);
    const codeB = await requestCode(shop, email, b);
    const [one, two] = await Promise.all([
      call('POST', '/customers/verify', { payload: { email, code: codeA }, ip: a }),
      call('POST', '/customers/verify', { payload: { email, code: codeB }, ip: b }),
    ]);
    assert.equal(one.statusCode, 200, one.body);
    assert.equal(two.statusCode, 200, two.body);
    assert.equal(
      one.json<{ customer: { id: string } }>().customer.id,
      two.json<{ customer: { id: string } }>().customer.id,
    );
    assert.equal((await events(shop, 'customer.created')).length, 1);
  });
});

describe('tokens (decision `customer-accounts`)', () => {
  test('me answers with the token beside the key; without a token, or a bad one, 401 with WWW-Authenticate', async () => {
    const shop = await createTestStore(t);
    const session = await signIn(shop, newEmail());
    const call = store(shop);
    const me = await call('GET', '/customers/me', { token: session.token });
    assert.equal(me.statusCode, 200, me.body);
    assert.equal(me.json<{ id: string }>().id, session.customer.id);
    assert.match(String(me.headers['cache-control']), /no-store/);
    const none = await call('GET', '/customers/me');
    assert.equal(none.statusCode, 401);
    const bad = await call('GET', '/customers/me', { token: `ct_${'x'.repeat(40)}` });
    assert.equal(bad.statusCode, 401);
    assert.match(String(bad.headers['www-authenticate']), /invalid_token/);
  });

  test("a customer token of one store is worthless in another, even with that store's key", async () => {
    const a = await createTestStore(t);
    const b = await createTestStore(t);
    const session = await signIn(a, newEmail());
    const inB = await store(b)('GET', '/customers/me', { token: session.token });
    assert.equal(inB.statusCode, 401);
    const ordersInB = await store(b)('GET', '/customers/me/orders', { token: session.token });
    assert.equal(ordersInB.statusCode, 401);
  });

  test('a token without the publishable key is 401 naming the header to use', async () => {
    const shop = await createTestStore(t);
    const session = await signIn(shop, newEmail());
    const answer = await t.app.inject({
      method: 'GET',
      url: '/storefront/v1/customers/me',
      headers: { authorization: `Bearer ${session.token}` },
    });
    assert.equal(answer.statusCode, 401);
    assert.match(answer.json<{ detail: string }>().detail, /X-Publishable-Key/);
  });

  test('sign-out kills the token at once; other sessions live on', async () => {
    const shop = await createTestStore(t);
    const email = newEmail();
    const first = await signIn(shop, email);
    const second = await signIn(shop, email);
    const call = store(shop);
    assert.equal((await call('POST', '/customers/sign-out', { token: first.token })).statusCode, 204);
    assert.equal((await call('GET', '/customers/me', { token: first.token })).statusCode, 401);
    assert.equal((await call('GET', '/customers/me', { token: second.token })).statusCode, 200);
  });

  test('sessions slide on use within the absolute lifetime, then die', async () => {
    const shop = await createTestStore(t);
    const session = await signIn(shop, newEmail());
    const call = store(shop);
    const { customerSessionTtlMs: ttl, customerSessionMaxAgeMs: maxAge } = t.config;
    // Used just before expiry, the session slides; it never passes its absolute lifetime.
    let used = 0;
    while (used + ttl - 60_000 < maxAge) {
      t.clock.advance(ttl - 60_000);
      used += ttl - 60_000;
      assert.equal(
        (await call('GET', '/customers/me', { token: session.token })).statusCode,
        200,
        `after ${used} ms`,
      );
    }
    t.clock.advance(maxAge - used + 1000);
    assert.equal((await call('GET', '/customers/me', { token: session.token })).statusCode, 401);
  });

  test('an unused session expires after its TTL', async () => {
    const shop = await createTestStore(t);
    const session = await signIn(shop, newEmail());
    t.clock.advance(t.config.customerSessionTtlMs + 1000);
    assert.equal((await store(shop)('GET', '/customers/me', { token: session.token })).statusCode, 401);
  });

  test('CORS preflight allows the key and token headers and the methods of me', async () => {
    const answer = await t.app.inject({
      method: 'OPTIONS',
      url: '/storefront/v1/customers/me',
      headers: {
        origin: 'https://shop.example',
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'authorization, x-publishable-key',
      },
    });
    assert.equal(answer.statusCode, 204);
    const headers = String(answer.headers['access-control-allow-headers']);
    assert.match(headers, /Authorization/);
    assert.match(headers, /X-Publishable-Key/);
    assert.match(String(answer.headers['access-control-allow-methods']), /PATCH.*DELETE/);
  });
});

describe('profile and addresses (decision `customer-accounts`)', () => {
  test('PATCH me changes name, phone and consent; customer.updated names what changed, no personal data', async () => {
    const shop = await createTestStore(t);
    const session = await signIn(shop, newEmail());
    const call = store(shop);
    const changed = await call('PATCH', '/customers/me', {
      token: session.token,
      payload: { name: 'Ada Lovelace', phone: '+44 20 7946 0000', acceptsMarketing: true },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.deepEqual(
      (({ name, phone, acceptsMarketing }: Record<string, unknown>) => ({ name, phone, acceptsMarketing }))(
        changed.json(),
      ),
      { name: 'Ada Lovelace', phone: '+44 20 7946 0000', acceptsMarketing: true },
    );
    const updated = await events(shop, 'customer.updated');
    assert.deepEqual(updated.at(-1), {
      storeId: shop.store.id,
      customerId: session.customer.id,
      hasAccount: true,
      acceptsMarketing: true,
      changed: ['name', 'phone', 'acceptsMarketing'],
    });
    assert.ok(!JSON.stringify(updated).includes('Ada'));
    const bad = await call('PATCH', '/customers/me', { token: session.token, payload: { phone: 'call me' } });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json<{ errors: { pointer: string }[] }>().errors[0]!.pointer, '/phone');
    const unknown = await call('PATCH', '/customers/me', {
      token: session.token,
      payload: { email: 'x@y.z' },
    });
    assert.equal(unknown.statusCode, 400);
  });

  test('addresses: the first is the default, one more can take it, a bad field points at itself, delete clears the default', async () => {
    const shop = await createTestStore(t);
    const session = await signIn(shop, newEmail());
    const call = store(shop);
    const token = session.token;
    const first = await call('POST', '/customers/me/addresses', { token, payload: LONDON });
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.json<{ isDefault: boolean }>().isDefault, true);
    const bad = await call('POST', '/customers/me/addresses', {
      token,
      payload: { ...LONDON, postalCode: 'NOPE' },
    });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json<{ errors: { pointer: string }[] }>().errors[0]!.pointer, '/postalCode');
    const second = await call('POST', '/customers/me/addresses', {
      token,
      payload: {
        name: 'Ada L.',
        line1: '1 Main St',
        city: 'Springfield',
        region: 'US-IL',
        postalCode: '62701',
        country: 'US',
        isDefault: true,
      },
    });
    assert.equal(second.statusCode, 201, second.body);
    const list = await call('GET', '/customers/me/addresses', { token });
    const items = list.json<{ items: { id: string; isDefault: boolean }[] }>().items;
    assert.deepEqual(
      items.map((a) => [a.id, a.isDefault]),
      [
        [second.json<{ id: string }>().id, true],
        [first.json<{ id: string }>().id, false],
      ],
    );
    const moved = await call('PATCH', `/customers/me/addresses/${first.json<{ id: string }>().id}`, {
      token,
      payload: { line2: 'Flat 3', isDefault: true },
    });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.equal(moved.json<{ line2: string; isDefault: boolean }>().line2, 'Flat 3');
    assert.equal(moved.json<{ isDefault: boolean }>().isDefault, true);
    const badPatch = await call('PATCH', `/customers/me/addresses/${first.json<{ id: string }>().id}`, {
      token,
      payload: { country: 'US' },
    });
    assert.equal(badPatch.statusCode, 400, 'a London address is no US address');
    assert.equal(
      (await call('DELETE', `/customers/me/addresses/${first.json<{ id: string }>().id}`, { token }))
        .statusCode,
      204,
    );
    const me = await call('GET', '/customers/me', { token });
    assert.equal(me.json<{ defaultAddressId: string | null }>().defaultAddressId, null);
    assert.equal(
      (await call('DELETE', `/customers/me/addresses/${first.json<{ id: string }>().id}`, { token }))
        .statusCode,
      404,
    );
  });

  test("another customer's address is not found", async () => {
    const shop = await createTestStore(t);
    const ada = await signIn(shop, newEmail());
    const bob = await signIn(shop, newEmail());
    const call = store(shop);
    const saved = await call('POST', '/customers/me/addresses', { token: ada.token, payload: LONDON });
    const id = saved.json<{ id: string }>().id;
    assert.equal(
      (await call('PATCH', `/customers/me/addresses/${id}`, { token: bob.token, payload: { city: 'Paris' } }))
        .statusCode,
      404,
    );
    assert.equal(
      (await call('DELETE', `/customers/me/addresses/${id}`, { token: bob.token })).statusCode,
      404,
    );
  });

  test('at most 20 addresses, even when saved at once', async () => {
    const shop = await createTestStore(t);
    const session = await signIn(shop, newEmail());
    const call = store(shop);
    const answers = await Promise.all(
      Array.from({ length: 24 }, () =>
        call('POST', '/customers/me/addresses', { token: session.token, payload: LONDON }),
      ),
    );
    assert.equal(answers.filter((a) => a.statusCode === 201).length, 20);
    assert.equal(answers.filter((a) => a.statusCode === 409).length, 4);
    assert.equal(answers.find((a) => a.statusCode === 409)!.json<{ title: string }>().title, 'limit_reached');
  });
});

describe('orders and accounts (decision `customer-accounts`)', () => {
  test("a checkout with a token needs no email, is the customer's, and shows in /me/orders newest first", async () => {
    const driver = await ShopDriver.open(t);
    const shop = driver.shop;
    const email = newEmail();
    const session = await signIn(shop, email);
    const variantId = await driver.variant(10);
    const call = store(shop);
    const placed: CheckoutBody[] = [];
    for (let n = 0; n < 2; n++) {
      const answer = await call('POST', '/checkout', {
        token: session.token,
        headers: { 'idempotency-key': randomUUID() },
        payload: { cartId: await driver.cart([{ variantId, quantity: 1 }]) },
      });
      assert.equal(answer.statusCode, 201, answer.body);
      placed.push(answer.json());
    }
    assert.equal((placed[0]!.order as unknown as { email: string }).email, email);
    const admin = await driver.adminOrder(placed[0]!.order.id);
    assert.equal((admin as unknown as { customerId: string }).customerId, session.customer.id);
    const mine = await call('GET', '/customers/me/orders', { token: session.token });
    assert.equal(mine.statusCode, 200, mine.body);
    assert.deepEqual(
      mine.json<{ items: { id: string }[] }>().items.map((o) => o.id),
      [placed[1]!.order.id, placed[0]!.order.id],
    );
    const paged = await call('GET', '/customers/me/orders?limit=1', { token: session.token });
    const cursor = paged.json<{ nextCursor: string }>().nextCursor;
    assert.ok(cursor);
    const next = await call('GET', `/customers/me/orders?limit=1&cursor=${encodeURIComponent(cursor)}`, {
      token: session.token,
    });
    assert.deepEqual(
      next.json<{ items: { id: string }[] }>().items.map((o) => o.id),
      [placed[0]!.order.id],
    );
  });

  test('paid guest orders with the email attach once the email is proven by a code; others’ never do', async () => {
    const driver = await ShopDriver.open(t);
    const email = newEmail();
    const variantId = await driver.variant(10);
    const guest = await driver.checkout({
      cartId: await driver.cart([{ variantId, quantity: 1 }]),
      email: email.toUpperCase(),
    });
    assert.equal(guest.statusCode, 201, guest.body);
    const other = await driver.checkout({
      cartId: await driver.cart([{ variantId, quantity: 1 }]),
      email: newEmail(),
    });
    assert.equal(other.statusCode, 201);
    const again = await driver.checkout({ cartId: await driver.cart([{ variantId, quantity: 1 }]), email });
    assert.equal(again.statusCode, 201, again.body);
    const created = await events(driver.shop, 'customer.created');
    assert.equal(
      created.length,
      2,
      'each new buyer is a (guest) customer, once: not again on a second order',
    );
    const customerOf = async (answer: typeof guest) =>
      (
        await db.kysely
          .selectFrom('orders')
          .select('customer_id')
          .where('id', '=', answer.json<CheckoutBody>().order.id)
          .executeTakeFirstOrThrow()
      ).customer_id;
    assert.deepEqual(
      created.map((data) => data.customerId),
      [await customerOf(guest), await customerOf(other)],
      'each event names the customer its order is for',
    );
    assert.equal(await customerOf(again), await customerOf(guest), 'the second order is the same customer’s');
    assert.ok(created.every((data) => data.hasAccount === false));
    const session = await signIn(driver.shop, email);
    assert.equal(session.customer.id, created[0]!.customerId, 'the guest became the account');
    const updated = await events(driver.shop, 'customer.updated');
    assert.deepEqual(updated.at(-1)!.changed, ['hasAccount']);
    for (const answer of [guest, other, again]) {
      await driver.confirm(answer.json<CheckoutBody>());
      await driver.waitForStatus(answer.json<CheckoutBody>().order.id, 'paid');
    }
    const mine = await store(driver.shop)('GET', '/customers/me/orders', { token: session.token });
    assert.deepEqual(
      mine.json<{ items: { id: string }[] }>().items.map((o) => o.id),
      [again, guest].map((answer) => answer.json<CheckoutBody>().order.id),
    );
  });

  test("unpaid checkouts someone else made with the email stay out of the account; paid ones and the customer's own show", async () => {
    const driver = await ShopDriver.open(t);
    const email = newEmail();
    const session = await signIn(driver.shop, email);
    const variantId = await driver.variant(10);
    const call = store(driver.shop);
    const ids = async () =>
      (await call('GET', '/customers/me/orders', { token: session.token }))
        .json<{ items: { id: string }[] }>()
        .items.map((o) => o.id);
    // Another client types the customer's email into checkouts and never pays.
    const planted: CheckoutBody[] = [];
    for (let n = 0; n < 2; n++) {
      const answer = await call('POST', '/checkout', {
        ip: '192.0.2.201',
        headers: { 'idempotency-key': randomUUID() },
        payload: { cartId: await driver.cart([{ variantId, quantity: 1 }]), email },
      });
      assert.equal(answer.statusCode, 201, answer.body);
      planted.push(answer.json());
    }
    assert.deepEqual(await ids(), [], 'nothing in the account the customer did not place or pay');
    // The customer's own checkout, signed in, shows while unpaid.
    const own = await call('POST', '/checkout', {
      token: session.token,
      headers: { 'idempotency-key': randomUUID() },
      payload: { cartId: await driver.cart([{ variantId, quantity: 1 }]) },
    });
    assert.equal(own.statusCode, 201, own.body);
    const ownId = own.json<CheckoutBody>().order.id;
    assert.deepEqual(await ids(), [ownId]);
    // A guest order with the email that is paid is the customer's purchase: it shows.
    await driver.confirm(planted[1]!);
    await driver.waitForStatus(planted[1]!.order.id, 'paid');
    assert.deepEqual(await ids(), [ownId, planted[1]!.order.id]);
    // The merchant still sees every order of the email under the customer.
    const admin = await driver.adminOrder(planted[0]!.order.id);
    assert.equal((admin as unknown as { customerId: string }).customerId, session.customer.id);
  });

  test('a checkout without a token and without an email is 400 /email; a dead token is 401 and places nothing', async () => {
    const driver = await ShopDriver.open(t);
    const variantId = await driver.variant(10);
    const cartId = await driver.cart([{ variantId, quantity: 1 }]);
    const missing = await driver.checkout({ cartId });
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json<{ errors: { pointer: string }[] }>().errors[0]!.pointer, '/email');
    const dead = await store(driver.shop)('POST', '/checkout', {
      token: `ct_${'a'.repeat(40)}`,
      headers: { 'idempotency-key': randomUUID() },
      payload: { cartId },
    });
    assert.equal(dead.statusCode, 401);
    assert.equal((await driver.stock(variantId)).reserved, 0);
  });

  test('no log line holds the personal data of a sign-in, a profile, an address or a checkout', async () => {
    const driver = await ShopDriver.open(t);
    const email = newEmail();
    const session = await signIn(driver.shop, email);
    const call = store(driver.shop);
    const name = `Quilla ${randomUUID().slice(0, 6)}`;
    const street = `${randomUUID().slice(0, 6)} Lovelace Lane`;
    await call('PATCH', '/customers/me', {
      token: session.token,
      payload: { name, phone: '+44 20 7946 0123' },
    });
    await call('POST', '/customers/me/addresses', {
      token: session.token,
      payload: { ...LONDON, name, line1: street },
    });
    await call('POST', '/customers/me/addresses', {
      token: session.token,
      payload: { ...LONDON, postalCode: 'bad' },
    });
    const variantId = await driver.variant(3);
    const placed = await call('POST', '/checkout', {
      token: session.token,
      headers: { 'idempotency-key': randomUUID() },
      payload: {
        cartId: await driver.cart([{ variantId, quantity: 1 }]),
        shippingAddress: { ...LONDON, name, line1: street },
      },
    });
    assert.equal(placed.statusCode, 201, placed.body);
    const logs = JSON.stringify(t.logs);
    for (const secret of [email, name, street, '7946 0123', session.token])
      assert.ok(!logs.includes(secret), `the logs hold ${secret}`);
  });
});

describe('the sign-in limit (decision `customer-sign-in-limit`)', () => {
  test('RATE_LIMIT_CUSTOMER_SIGN_IN requests per client IP and store, then 429 with Retry-After; another store is not affected', async () => {
    const limited = await startTestApp({
      db,
      config: { rateLimits: { ...t.config.rateLimits, customerSignIn: 4 } },
    });
    try {
      const [a, b] = [await createTestStore(limited), await createTestStore(limited)];
      const ask = (shop: TestStore) =>
        limited.app.inject({
          method: 'POST',
          url: '/storefront/v1/customers/sign-in',
          headers: { 'x-publishable-key': shop.publishableKey },
          payload: { email: newEmail() },
          remoteAddress: '203.0.113.9',
        });
      const answers = [];
      for (let n = 0; n < 5; n++) answers.push((await ask(a)).statusCode);
      assert.deepEqual(answers, [202, 202, 202, 202, 429]);
      const refused = await ask(a);
      assert.ok(Number(refused.headers['retry-after']) > 0);
      assert.equal((await ask(b)).statusCode, 202);
    } finally {
      await limited.close();
    }
  });
});

describe('a customer erased while checking out (decision `erasure-is-immediate`)', () => {
  test(
    'the checkout waits for the erasure, then places nothing of theirs: 401, no order, nothing reserved',
    { skip: skipUnlessPostgres },
    async () => {
      const driver = await ShopDriver.open(t);
      const session = await signIn(driver.shop, newEmail());
      const variantId = await driver.variant(5);
      const cartId = await driver.cart([{ variantId, quantity: 1 }]);
      const customerId = String(session.customer.id);
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      // An erasure in flight: it holds the customer's row while the checkout runs.
      const erasure = db.kysely.transaction().execute(async (trx) => {
        await trx.selectFrom('customers').select('id').where('id', '=', customerId).forUpdate().execute();
        await released;
        await trx.deleteFrom('customers').where('id', '=', customerId).execute();
      });
      const checkout = store(driver.shop)('POST', '/checkout', {
        token: session.token,
        headers: { 'idempotency-key': randomUUID() },
        payload: { cartId },
      });
      try {
        await waitFor(
          async () => {
            const { rows } = await sql<{ n: number }>`
              SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE wait_event_type = 'Lock' AND query ILIKE 'update "customers"%'`.execute(db.kysely);
            return rows[0]!.n > 0;
          },
          5000,
          'the checkout waiting on the customer',
        );
      } finally {
        // Also when the wait failed: an erasure left open would hang the file instead of failing it.
        release();
      }
      await erasure;
      const answer = await checkout;
      assert.equal(answer.statusCode, 401, answer.body);
      assert.equal((await driver.stock(variantId)).reserved, 0);
      const orders = await db.kysely
        .selectFrom('orders')
        .select('id')
        .where('cart_id', '=', cartId)
        .execute();
      assert.deepEqual(orders, []);
    },
  );
});
