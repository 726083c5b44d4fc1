/**
 * A route made idempotent by its options alone (`config.idempotent`): the handler stays a plain
 * handler, and the hook requires the key, runs the handler once per key, replays its answer and
 * refuses the key with another body.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { AppError } from '../lib/errors.ts';
import { requestHash } from './idempotency.ts';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../test/harness.ts';

let t: TestApp;
let shop: TestStore;
let runs = 0;
let recoverable: { status: number; body: unknown } | null = null;

before(async () => {
  t = await startTestApp({
    routes(app) {
      app.post(
        '/test/idempotent',
        {
          config: {
            idempotent: {
              name: 'test',
              storeId: () => shop.store.id,
              recover: () => Promise.resolve(recoverable),
            },
          },
        },
        async (request, reply) => {
          runs += 1;
          const body = request.body as { fail?: boolean; n?: number };
          if (body.fail) throw new AppError('cart_empty', 409, 'Nothing to buy.');
          void reply.code(201);
          return { run: runs, key: request.idempotencyKey, n: body.n ?? null };
        },
      );
      app.post('/test/plain', async (request) => ({ key: request.idempotencyKey }));
    },
  });
  shop = await createTestStore(t);
});
after(() => t.close());

const post = (url: string, payload: object, key?: string) =>
  t.app.inject({
    method: 'POST',
    url,
    payload,
    headers: key === undefined ? {} : { 'idempotency-key': key },
  });

test('the handler runs once per key; a retry replays its answer byte for byte', async () => {
  const key = randomUUID();
  const before = runs;
  const first = await post('/test/idempotent', { n: 1 }, key);
  assert.equal(first.statusCode, 201, first.body);
  assert.deepEqual(first.json(), { run: before + 1, key, n: 1 });
  assert.equal(first.headers['idempotent-replayed'], undefined);

  const retry = await post('/test/idempotent', { n: 1 }, key.toUpperCase());
  assert.equal(retry.statusCode, 201);
  assert.equal(retry.body, first.body);
  assert.equal(retry.headers['idempotent-replayed'], 'true');
  assert.equal(runs, before + 1, 'the handler ran once');
});

test('no key is 400, a key that is not a UUID is 400, and the handler does not run', async () => {
  const before = runs;
  const missing = await post('/test/idempotent', { n: 2 });
  assert.equal(missing.statusCode, 400);
  assert.equal(missing.json<{ title: string }>().title, 'idempotency_key_required');
  const malformed = await post('/test/idempotent', { n: 2 }, 'not-a-uuid');
  assert.equal(malformed.statusCode, 400);
  assert.equal(malformed.json<{ title: string }>().title, 'validation_failed');
  assert.equal(runs, before);
});

test('the same key with another body is 422; a business refusal is stored and replayed too', async () => {
  const key = randomUUID();
  assert.equal((await post('/test/idempotent', { n: 3 }, key)).statusCode, 201);
  const reused = await post('/test/idempotent', { n: 4 }, key);
  assert.equal(reused.statusCode, 422);
  assert.equal(reused.json<{ title: string }>().title, 'idempotency_key_reused');

  const refused = randomUUID();
  const before = runs;
  const first = await post('/test/idempotent', { fail: true }, refused);
  assert.equal(first.statusCode, 409);
  const again = await post('/test/idempotent', { fail: true }, refused);
  assert.equal(again.statusCode, 409);
  assert.equal(again.body, first.body);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(runs, before + 1);
});

test('a key whose first attempt made its resource but stored no answer is answered by recover', async () => {
  const key = randomUUID();
  // A first attempt that holds the key (in progress) and made its resource, then died.
  await t.db.kysely
    .insertInto('idempotency_keys')
    .values({
      store_id: shop.store.id,
      route: 'test',
      key,
      request_hash: requestHash({ n: 5 }),
      status: 'in_progress',
      locked_until: new Date(Date.now() + 60_000),
      lease_token: randomUUID(),
      response_status: null,
      response_type: null,
      response_body: null,
      created_at: new Date(),
    })
    .execute();
  recoverable = { status: 201, body: { recovered: true } };
  try {
    const before = runs;
    const answer = await post('/test/idempotent', { n: 5 }, key);
    assert.equal(answer.statusCode, 201);
    assert.deepEqual(answer.json(), { recovered: true });
    assert.equal(answer.headers['idempotent-replayed'], 'true');
    assert.equal(runs, before, 'the handler did not run again');
  } finally {
    recoverable = null;
  }
});

test('a route without the option is untouched: no key required, none seen', async () => {
  const plain = await post('/test/plain', {});
  assert.equal(plain.statusCode, 200);
  assert.deepEqual(plain.json(), { key: '' });
});
