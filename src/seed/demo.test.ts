import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { Keyring } from '../lib/keyring.ts';
import { systemClock } from '../lib/clock.ts';
import { LocalMediaStorage } from '../media/media.storage.ts';
import { openTestDatabase } from '../test/harness.ts';
import { DEMO_SLUG, demoStoreKey, seedDemo } from './demo.ts';

const keyring = new Keyring([{ name: 'test root', secret: randomBytes(32) }]);
const sessions = { ttlMs: 60_000, maxAgeMs: 60_000 };
const mediaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-demo-media-'));
const media = new LocalMediaStorage(mediaDir);
after(() => fs.rmSync(mediaDir, { recursive: true, force: true }));

test('the demo seed is all or nothing: a failure half-way leaves no demo store, and a retry works', async () => {
  const db = await openTestDatabase();
  try {
    // Break the last step (regions come after the catalog, menus and pages) for this database only.
    await sql`ALTER TABLE regions RENAME TO regions_away`.execute(db.kysely);
    // The step that broke is what fails (not the clean-up after it, which would name both).
    await assert.rejects(
      seedDemo({ db: db.kysely, clock: systemClock, sessions, keyring, media }),
      (error) => {
        assert.ok(
          !(error instanceof AggregateError),
          `the clean-up failed too: ${String((error as AggregateError).errors?.[1])}`,
        );
        assert.match(String((error as Error).message), /regions/);
        return true;
      },
    );
    const left = await db.kysely.selectFrom('stores').select('id').where('slug', '=', DEMO_SLUG).execute();
    assert.deepEqual(left, [], 'no half-made demo store');
    const products = await db.kysely.selectFrom('products').select('id').execute();
    assert.equal(products.length, 0, 'its catalog went with it');

    await sql`ALTER TABLE regions_away RENAME TO regions`.execute(db.kysely);
    const seeded = await seedDemo({ db: db.kysely, clock: systemClock, sessions, keyring, media });
    assert.ok(seeded);
    assert.match(seeded.publishableKey, /^pk_/);
    assert.equal(
      await seedDemo({ db: db.kysely, clock: systemClock, sessions, keyring, media }),
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
    const seeded = await seedDemo({ db: db.kysely, clock: systemClock, sessions, keyring, media });
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

test('the demo catalog ships real pictures: every product has an uploaded image, kept in the media storage', async () => {
  const db = await openTestDatabase();
  try {
    const started = performance.now();
    const seeded = await seedDemo({ db: db.kysely, clock: systemClock, sessions, keyring, media });
    assert.ok(seeded);
    const products = await db.kysely
      .selectFrom('products')
      .select(['id', 'image'])
      .where('store_id', '=', seeded.storeId)
      .execute();
    assert.equal(products.length, 20);
    const rows = await db.kysely
      .selectFrom('media')
      .select(['store_id', 'hash', 'content_type', 'width', 'height'])
      .where('store_id', '=', seeded.storeId)
      .execute();
    assert.equal(rows.length, 20, 'a picture of its own for each product');
    for (const product of products) {
      const match = /^\/media\/([0-9a-f-]{36})\/([0-9a-f]{64})\.jpg$/.exec(product.image ?? '');
      assert.ok(match, `the card image is an uploaded picture: ${product.image}`);
      assert.equal(match[1], seeded.storeId);
      assert.ok(await media.has(`${match[1]}/${match[2]}.jpg`), 'its file is kept');
    }
    assert.ok(
      rows.every((row) => row.content_type === 'image/jpeg' && row.width === 800 && row.height === 800),
    );
    assert.ok(performance.now() - started < 20_000, 'seeding stays quick');
    // The EU-style tax setup (decision `tax-classes`): a book in the reduced class, rated in Germany.
    const book = await db.kysely
      .selectFrom('products')
      .select('tax_class')
      .where('store_id', '=', seeded.storeId)
      .where('title', '=', 'The Workwear Handbook')
      .executeTakeFirstOrThrow();
    assert.equal(book.tax_class, 'reduced');
    const germany = await db.kysely
      .selectFrom('tax_rates')
      .select(['tax_rate_bps', 'class_rates', 'shipping_tax'])
      .where('store_id', '=', seeded.storeId)
      .where('country', '=', 'DE')
      .executeTakeFirstOrThrow();
    assert.deepEqual(germany, {
      tax_rate_bps: 1900,
      class_rates: { reduced: 700 },
      shipping_tax: 'follow_goods',
    });
  } finally {
    await db.close();
  }
});
