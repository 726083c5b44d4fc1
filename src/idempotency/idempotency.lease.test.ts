/**
 * The idempotency lease (decision `idempotency-lease`): a request holds its key for a lease; a retry after the lease ran
 * out takes the key over with a new token, and only the current holder may store the answer.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../test/harness.ts';
import { requestHash, withIdempotency } from './idempotency.ts';

const LEASE_MS = 1000;
let t: TestApp;
let shop: TestStore;
/** Handlers waiting for the test to let them answer, by the `who` of their request. */
const gates = new Map<string, () => void>();

before(async () => {
  t = await startTestApp({
    routes(app) {
      app.post('/test/idem/:key', async (request, reply) => {
        const { key } = request.params as { key: string };
        const { who } = request.body as { who: string };
        return withIdempotency(
          {
            db: t.db.kysely,
            keyring: t.runtime.keyring,
            clock: t.clock,
            ttlMs: 60_000,
            leaseMs: LEASE_MS,
            storeId: shop.store.id,
            route: 'test',
            key,
            hash: requestHash({ same: 'body' }),
          },
          reply,
          async () => {
            await new Promise<void>((resolve) => gates.set(who, resolve));
            return { status: 201, body: { answeredBy: who } };
          },
        );
      });
    },
  });
  shop = await createTestStore(t);
});
after(() => t.close());

const call = (key: string, who: string) =>
  t.app.inject({ method: 'POST', url: `/test/idem/${key}`, payload: { who } });

async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 5));
}

test('a live lease answers 409 in progress; an expired one is taken over, and the old holder cannot store its answer', async () => {
  const key = randomUUID();
  const first = call(key, 'A');
  await until(() => gates.has('A'));

  const during = await call(key, 'X');
  assert.equal(during.statusCode, 409);
  assert.equal(during.json<{ title: string }>().title, 'idempotency_in_progress');
  assert.equal(during.headers['retry-after'], '1');

  t.clock.advance(LEASE_MS + 1);
  try {
    const second = call(key, 'B');
    await until(() => gates.has('B'));
    gates.get('B')!();
    const taken = await second;
    assert.equal(taken.statusCode, 201);
    assert.deepEqual(taken.json(), { answeredBy: 'B' });

    // The first holder wakes up late: its client gets its answer, but it is not what is stored.
    gates.get('A')!();
    const late = await first;
    assert.deepEqual(late.json(), { answeredBy: 'A' });

    const replay = await call(key, 'C');
    assert.equal(replay.statusCode, 201);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual(replay.json(), { answeredBy: 'B' }, 'the current holder’s answer is the one kept');
    assert.equal(gates.has('C'), false, 'a replay runs nothing');
  } finally {
    t.clock.advance(-(LEASE_MS + 1));
  }
});
