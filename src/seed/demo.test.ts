import assert from 'node:assert/strict';
import { test } from 'node:test';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { Keyring } from '../lib/keyring.ts';
import { systemClock } from '../lib/clock.ts';
import { openTestDatabase } from '../test/harness.ts';
import { DEMO_SLUG, demoStoreKey, seedDemo } from './demo.ts';

const keyring = new Keyring([{ name: 'test root', secret: randomBytes(32) }]);
const sessions = { ttlMs: 60_000, maxAgeMs: 60_000 };

test('the demo seed is all or nothing: a failure half-way leaves no demo store, and a retry works', async () => {
  const db = await openTestDatabase();
  try {
    // Break the last step (regions come after the catalog, menus and pages) for this database only.
    await sql`ALTER TABLE regions RENAME TO regions_away`.execute(db.kysely);
    await assert.rejects(seedDemo({ db: db.kysely, clock: systemClock, sessions, keyring }));
    const left = await db.kysely.selectFrom('stores').select('id').where('slug', '=', DEMO_SLUG).execute();
    assert.deepEqual(left, [], 'no half-made demo store');
    const products = await db.kysely.selectFrom('products').select('id').execute();
    assert.equal(products.length, 0, 'its catalog went with it');

    await sql`ALTER TABLE regions_away RENAME TO regions`.execute(db.kysely);
    const seeded = await seedDemo({ db: db.kysely, clock: systemClock, sessions, keyring });
    assert.ok(seeded);
    assert.match(seeded.publishableKey, /^pk_/);
    assert.equal(
      await seedDemo({ db: db.kysely, clock: systemClock, sessions, keyring }),
      null,
      'a second run finds it',
    );
  } finally {
    await db.close();
  }
});

test('the demo key is kept sealed for the reference shop: opened again after a restart, gone once revoked', async () => {
  const db = await openTestDatabase();
  try {
    assert.equal(await demoStoreKey({ db: db.kysely, keyring }), null, 'no demo store, no key');
    const seeded = await seedDemo({ db: db.kysely, clock: systemClock, sessions, keyring });
    assert.ok(seeded);
    assert.equal(await demoStoreKey({ db: db.kysely, keyring }), seeded.publishableKey);

    const rows = await db.kysely.selectFrom('storefront_keys').select(['id', 'sealed_key']).execute();
    assert.equal(rows.length, 1);
    assert.ok(rows[0]!.sealed_key, 'kept');
    assert.ok(!rows[0]!.sealed_key.includes(seeded.publishableKey), 'never in plaintext');
    const other = new Keyring([{ name: 'another root', secret: randomBytes(32) }]);
    await assert.rejects(demoStoreKey({ db: db.kysely, keyring: other }), /sealed publishable key/);

    // Only the seed's key is kept: a key made through the API is shown once and kept hashed.
    await db.kysely.updateTable('storefront_keys').set({ revoked_at: new Date() }).execute();
    assert.equal(await demoStoreKey({ db: db.kysely, keyring }), null, 'revoked: the shop has no key');
  } finally {
    await db.close();
  }
});
