import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createTestStore, startTestApp, type TestApp } from '../test/harness.ts';
import { purgeIdempotencyKeys } from './idempotency.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const HOUR = 60 * 60 * 1000;

async function insertKeys(storeId: string, count: number, createdAt: Date): Promise<void> {
  const rows = Array.from({ length: count }, () => ({
    store_id: storeId,
    route: 'POST /storefront/v1/checkout',
    key: randomUUID(),
    request_hash: 'h',
    status: 'done' as const,
    response_status: 201,
    response_type: 'application/json',
    response_body: '{}',
    created_at: createdAt,
  }));
  for (let i = 0; i < rows.length; i += 500) {
    await t.db.kysely
      .insertInto('idempotency_keys')
      .values(rows.slice(i, i + 500))
      .execute();
  }
}

async function countKeys(storeId: string): Promise<number> {
  const { n } = await t.db.kysely
    .selectFrom('idempotency_keys')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('store_id', '=', storeId)
    .executeTakeFirstOrThrow();
  return Number(n);
}

test('the purge deletes keys past the retention in every store, in batches, and keeps newer ones', async () => {
  const now = new Date('2026-11-22T12:00:00Z');
  const [a, b] = [await createTestStore(t), await createTestStore(t)];
  await insertKeys(a.store.id, 2300, new Date(now.getTime() - 25 * HOUR)); // more than one batch
  await insertKeys(a.store.id, 3, new Date(now.getTime() - 23 * HOUR));
  await insertKeys(b.store.id, 4, new Date(now.getTime() - 48 * HOUR));
  await insertKeys(b.store.id, 2, new Date(now.getTime() - HOUR));

  const deleted = await purgeIdempotencyKeys(t.deps, now, 24 * HOUR);
  assert.equal(deleted, 2304);
  assert.equal(await countKeys(a.store.id), 3);
  assert.equal(await countKeys(b.store.id), 2);
  assert.equal(await purgeIdempotencyKeys(t.deps, now, 24 * HOUR), 0, 'a second run finds nothing');
});
