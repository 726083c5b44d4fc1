/**
 * The tax service asked for real (decision `tax-service`): a local HTTP receiver on 127.0.0.1
 * (ALLOW_HTTP_WEBHOOKS on) answers well, slowly, wrongly or not at all, and serviceTax gives the
 * checked answer or a TaxServiceFailure, never a zero. The receiver verifies the signature with
 * the secret shown once, as a real service would.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../test/harness.ts';
import {
  startReceiver,
  webhookTestConfig,
  type Receiver,
  type ReceivedRequest,
  type Reply,
} from '../webhooks/webhooks.test-support.ts';
import { serviceTax, TaxServiceFailure, type TaxServiceRequest } from './tax-service.ts';

const TIMEOUT_MS = 300;
/** How each store's receiver path answers, as its test says. */
const answers = new Map<string, (request: ReceivedRequest) => Reply>();
let t: TestApp;
let receiver: Receiver;
before(async () => {
  t = await startTestApp({ config: { ...webhookTestConfig(), taxServiceTimeoutMs: TIMEOUT_MS } });
  receiver = await startReceiver(
    (request) => answers.get(request.path)?.(request) ?? { status: 404, body: 'no such store here' },
  );
});
after(async () => {
  await receiver.close();
  await t.close();
});

const QUOTE: TaxServiceRequest = {
  currency: 'EUR',
  pricesIncludeTax: false,
  lines: [
    {
      variantId: null,
      sku: 'TEE-M',
      title: 'Tee',
      quantity: 2,
      amount: 4000,
      discount: 400,
      taxClass: 'standard',
    },
    {
      variantId: null,
      sku: 'BOOK',
      title: 'Book',
      quantity: 1,
      amount: 1500,
      discount: 0,
      taxClass: 'reduced',
    },
  ],
  shipping: { amount: 500, taxClass: null },
  shippingAddress: {
    name: 'Ada Lovelace',
    line1: 'Unter den Linden 1',
    city: 'Berlin',
    postalCode: '10117',
    country: 'DE',
  },
  country: 'DE',
};
const GOOD = { lines: [{ tax: 684 }, { tax: 105 }], shipping: { tax: 95 } };

async function withService(
  answer: (request: ReceivedRequest) => Reply,
  options: { active?: boolean } = {},
): Promise<{ shop: TestStore; secret: string; path: string }> {
  const shop = await createTestStore(t);
  const path = `/tax/${shop.store.id}`;
  answers.set(path, answer);
  const response = await t
    .admin(shop)
    .put('/tax-service', { url: `http://127.0.0.1:${receiver.port}${path}`, ...options });
  assert.equal(response.statusCode, 201, response.body);
  return { shop, secret: response.json<{ secret: string }>().secret, path };
}

const json = (body: unknown): Reply => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

async function failure(storeId: string): Promise<TaxServiceFailure> {
  const error = await serviceTax(t.app.taxService, storeId, QUOTE).then(
    () => assert.fail('expected a TaxServiceFailure'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof TaxServiceFailure, String(error));
  return error;
}

describe('serviceTax', () => {
  test('a store without a service, or with an inactive one, gets null (the built-in rates apply)', async () => {
    const shop = await createTestStore(t);
    assert.equal(await serviceTax(t.app.taxService, shop.store.id, QUOTE), null);
    const inactive = await withService(() => json(GOOD), { active: false });
    assert.equal(await serviceTax(t.app.taxService, inactive.shop.store.id, QUOTE), null);
    assert.equal(receiver.requests.filter((r) => r.path === inactive.path).length, 0, 'never asked');
  });

  test('a good answer is returned; the request is signed with the secret shown once', async () => {
    const { shop, secret, path } = await withService(() => json({ ...GOOD, note: 'ignored' }));
    assert.deepEqual(await serviceTax(t.app.taxService, shop.store.id, QUOTE), GOOD);

    const [request] = receiver.requests.filter((r) => r.path === path);
    assert.ok(request);
    assert.equal(request.method, 'POST');
    assert.equal(request.headers['content-type'], 'application/json');
    const headers = {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    };
    const raw = request.rawBody.toString('utf8');
    assert.deepEqual(new Webhook(secret).verify(raw, headers), { type: 'tax.quote', data: QUOTE });
    const other = await withService(() => json(GOOD));
    assert.throws(() => new Webhook(other.secret).verify(raw, headers), /No matching signature/);
    assert.throws(() => new Webhook(secret).verify(raw.replace('4000', '4001'), headers));
  });

  test('an answer later than TAX_SERVICE_TIMEOUT is a timeout, in about the timeout', async () => {
    const { shop } = await withService(() => ({ ...json(GOOD), delayMs: TIMEOUT_MS + 700 }));
    const started = performance.now();
    const error = await failure(shop.store.id);
    const took = performance.now() - started;
    assert.equal(error.reason, 'timeout', error.message);
    assert.ok(took >= TIMEOUT_MS - 20 && took < TIMEOUT_MS + 500, `took ${Math.round(took)} ms`);
  });

  test('a service that is down is unreachable', async () => {
    const down = await startReceiver();
    const { port } = down;
    await down.close();
    const shop = await createTestStore(t);
    await t.admin(shop).put('/tax-service', { url: `http://127.0.0.1:${port}/tax` });
    const error = await failure(shop.store.id);
    assert.equal(error.reason, 'unreachable', error.message);
  });

  const wrong: [string, Reply, 'bad_answer' | 'status'][] = [
    ['a missing line', json({ lines: [{ tax: 684 }], shipping: { tax: 95 } }), 'bad_answer'],
    ['one line too many', json({ lines: [...GOOD.lines, { tax: 0 }], shipping: { tax: 95 } }), 'bad_answer'],
    ['a negative tax', json({ lines: [{ tax: -1 }, { tax: 105 }], shipping: { tax: 95 } }), 'bad_answer'],
    // The first line's amount after its discount is 3600.
    [
      'a tax over the amount',
      json({ lines: [{ tax: 3601 }, { tax: 105 }], shipping: { tax: 95 } }),
      'bad_answer',
    ],
    ['a shipping tax over the shipping', json({ lines: GOOD.lines, shipping: { tax: 501 } }), 'bad_answer'],
    ['a fraction', json({ lines: [{ tax: 684.5 }, { tax: 105 }], shipping: { tax: 95 } }), 'bad_answer'],
    [
      'a tax as a string',
      json({ lines: [{ tax: '684' }, { tax: 105 }], shipping: { tax: 95 } }),
      'bad_answer',
    ],
    ['no shipping', json({ lines: GOOD.lines }), 'bad_answer'],
    ['not JSON', json('<html>ok</html>'), 'bad_answer'],
    ['an empty 200', { status: 200 }, 'bad_answer'],
    ['JSON null', json('null'), 'bad_answer'],
    ['a 500', { status: 500, body: 'boom' }, 'status'],
    ['a redirect', { status: 302, headers: { location: 'http://127.0.0.1:1/' } }, 'status'],
  ];
  for (const [what, reply, reason] of wrong) {
    test(`${what} is a failure (${reason}), never a zero`, async () => {
      const { shop } = await withService(() => reply);
      const error = await failure(shop.store.id);
      assert.equal(error.reason, reason, error.message);
    });
  }

  test('a failure is logged without the request (an address) or the secret', async () => {
    const { shop, secret } = await withService(() => ({ status: 503 }));
    const from = t.logs.length;
    await failure(shop.store.id);
    const lines = t.logs.slice(from).filter((line) => line.storeId === shop.store.id);
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.reason, 'status');
    const text = JSON.stringify(lines);
    for (const secretOrPersonal of [secret, 'Ada Lovelace', 'Unter den Linden', '10117'])
      assert.ok(!text.includes(secretOrPersonal), `the log holds ${secretOrPersonal}`);
  });

  test('a failure is not remembered: the next call asks again and takes the good answer', async () => {
    let fail = true;
    const { shop } = await withService(() => (fail ? { status: 500 } : json(GOOD)));
    assert.equal((await failure(shop.store.id)).reason, 'status');
    fail = false;
    assert.deepEqual(await serviceTax(t.app.taxService, shop.store.id, QUOTE), GOOD);
  });

  test('a store without a service costs no statement per pricing after the first', async () => {
    const shop = await createTestStore(t);
    const { db } = t.app.taxService;
    let statements = 0;
    const original = db.selectFrom.bind(db);
    // Counted on the app's own handle: the settings cache keeps what is read through it.
    db.selectFrom = ((...args: Parameters<typeof original>) => {
      statements += 1;
      return original(...args);
    }) as typeof db.selectFrom;
    try {
      for (let i = 0; i < 5; i += 1)
        assert.equal(await serviceTax(t.app.taxService, shop.store.id, QUOTE), null);
    } finally {
      delete (db as { selectFrom?: unknown }).selectFrom;
    }
    assert.equal(statements, 1);
  });

  test('a new service is asked at once after it is set (the cached "none" is dropped)', async () => {
    const shop = await createTestStore(t);
    assert.equal(await serviceTax(t.app.taxService, shop.store.id, QUOTE), null);
    const path = `/tax/${shop.store.id}`;
    answers.set(path, () => json(GOOD));
    await t.admin(shop).put('/tax-service', { url: `http://127.0.0.1:${receiver.port}${path}` });
    assert.deepEqual(await serviceTax(t.app.taxService, shop.store.id, QUOTE), GOOD);
    await t
      .admin(shop)
      .put('/tax-service', { url: `http://127.0.0.1:${receiver.port}${path}`, active: false });
    assert.equal(await serviceTax(t.app.taxService, shop.store.id, QUOTE), null);
  });
});
