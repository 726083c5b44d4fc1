import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { systemClock } from '../lib/clock.ts';
import { openTestDatabase } from '../test/harness.ts';
import { DEMO_SLUG, seedDemo } from './demo.ts';

test('the demo seed is all or nothing: a failure half-way leaves no demo store, and a retry works', async () => {
  const db = await openTestDatabase();
  try {
    // Break the last step (regions come after the catalog, menus and pages) for this database only.
    await sql`ALTER TABLE regions RENAME TO regions_away`.execute(db.kysely);
    await assert.rejects(
      seedDemo({ db: db.kysely, clock: systemClock, sessions: { ttlMs: 60_000, maxAgeMs: 60_000 } }),
    );
    const left = await db.kysely.selectFrom('stores').select('id').where('slug', '=', DEMO_SLUG).execute();
    assert.deepEqual(left, [], 'no half-made demo store');
    const products = await db.kysely.selectFrom('products').select('id').execute();
    assert.equal(products.length, 0, 'its catalog went with it');

    await sql`ALTER TABLE regions_away RENAME TO regions`.execute(db.kysely);
    const seeded = await seedDemo({
      db: db.kysely,
      clock: systemClock,
      sessions: { ttlMs: 60_000, maxAgeMs: 60_000 },
    });
    assert.ok(seeded);
    assert.match(seeded.publishableKey, /^pk_/);
    assert.equal(
      await seedDemo({ db: db.kysely, clock: systemClock, sessions: { ttlMs: 60_000, maxAgeMs: 60_000 } }),
      null,
      'a second run finds it',
    );
  } finally {
    await db.close();
  }
});
