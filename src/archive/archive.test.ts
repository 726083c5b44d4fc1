/**
 * `storefront export` and `storefront import` (decision `archive-format`): a store populated through the HTTP API
 * on the embedded database is exported, imported into a fresh database (PostgreSQL beside
 * DATABASE_URL when it is set, else a fresh PGlite), and every GET route of the OpenAPI document is
 * read on both sides: under the same SECRET_KEY every answer is identical; under another key (the
 * old one in SECRET_KEY_PREVIOUS) they differ only in the cursors, and every credential and secret
 * still works.
 */
import assert from 'node:assert/strict';
import { createPublicKey, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'kysely';
import { after, before, describe, test } from 'node:test';
import { openDatabase, type Db } from '../db/database.ts';
import { pgliteOptions } from '../db/pglite.ts';
import { acquireDataDirLock } from '../db/data-dir-lock.ts';
import { Keyring, type TextRow } from '../lib/keyring.ts';
import { loadKeyring } from '../secrets/keyring.loader.ts';
import { rotateSecrets, SEALED_COLUMNS } from '../secrets/rotate.ts';
import {
  createTestStore,
  openBlankPostgres,
  startTestApp,
  testConfig,
  type TestApp,
} from '../test/harness.ts';
import { decryptPrivateKey } from '../email/email.dkim.ts';
import { dataDirFromTemplate, ensurePgliteTemplate } from '../test/template.ts';
import {
  emit,
  hmacHex,
  registerEndpoint,
  startReceiver,
  webhookTestConfig,
  type CreatedEndpoint,
  type Receiver,
} from '../webhooks/webhooks.test-support.ts';
import {
  ArchiveError,
  MAC_NAME,
  MANIFEST_NAME,
  dataRows,
  tableFile,
  type Manifest,
} from './archive.format.ts';
import {
  editManifest,
  entries,
  manifestOf,
  rewrite,
  rootOf,
  storefront,
} from './archive-files.test-support.ts';
import { answerOf, compareReads, get, planReads } from './archive-reads.test-support.ts';
import { openEmbeddedSource, openTarget, populate, type World } from './archive.test-support.ts';
import { exportArchive } from './export.ts';
import { importArchive } from './import.ts';
import { readCatalog, TABLE_RULES, unclassified } from './tables.ts';

const K1 = `archive-first-root-${randomUUID()}`;
const K2 = `archive-second-root-${randomUUID()}`;
type Keys = { secretKey: string | null; secretKeyPrevious: string[] };
const ONLY_K1: Keys = { secretKey: K1, secretKeyPrevious: [] };
const ONLY_K2: Keys = { secretKey: K2, secretKeyPrevious: [] };
const NO_KEY: Keys = { secretKey: null, secretKeyPrevious: [] };

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-archive-test-'));
const mediaConfig = (dir: string) => ({ ...testConfig().media, dir });

let receiver: Receiver;
/** The populated source, kept as a data-directory dump: each test reads a pristine copy. */
let sourceDump: Blob;
let sourceMedia: string;
let world: World;
let archive: string;
let manifest: Manifest;

async function pristineSource(): Promise<Db> {
  const pglite = await PGlite.create({ ...pgliteOptions, loadDataDir: sourceDump });
  return openDatabase({ databaseUrl: null, dataDir: '', pglite });
}

before(async () => {
  receiver = await startReceiver();
  sourceMedia = path.join(work, 'source-media');
  const pglite = await PGlite.create({
    ...pgliteOptions,
    loadDataDir: new Blob([fs.readFileSync(await ensurePgliteTemplate())]),
  });
  const source = await openDatabase({ databaseUrl: null, dataDir: '', pglite });
  const t = await startTestApp({
    db: source,
    workers: true,
    config: { ...webhookTestConfig(), ...ONLY_K1, media: mediaConfig(sourceMedia) },
  });
  try {
    try {
      world = await populate(t, receiver);
    } finally {
      await t.close();
    }
    sourceDump = await pglite.dumpDataDir('gzip');
    archive = path.join(work, 'store.tar.gz');
    manifest = (await exportArchive(source, { out: archive, secrets: ONLY_K1 })).manifest;
  } finally {
    await source.close();
  }
});

after(async () => {
  await receiver.close();
  fs.rmSync(work, { recursive: true, force: true });
});

/**
 * Two apps without worker loops to read with: the pristine source (SECRET_KEY K1) and the target
 * with `keys`, each with its own copy of the media directory (the operator copies DATA_DIR/media),
 * their clocks stopped at the moment the world was warmed, so that no read slides a session on one side.
 */
async function readers(
  target: Db,
  keys: Keys,
): Promise<{ source: TestApp; target: TestApp; close(): Promise<void> }> {
  const source = await pristineSource();
  const copy = path.join(work, `media-${randomUUID()}`);
  fs.cpSync(sourceMedia, copy, { recursive: true });
  const a = await startTestApp({ db: source, config: { ...ONLY_K1, media: mediaConfig(sourceMedia) } });
  const b = await startTestApp({ db: target, config: { ...keys, media: mediaConfig(copy) } });
  // Stopped, not set back: however long the reads take (a loaded machine), no session slides.
  for (const app of [a, b]) app.clock.freezeAt(world.warmedAt);
  return {
    source: a,
    target: b,
    async close() {
      await a.close();
      await b.close();
      await source.close();
    },
  };
}

/** Routes of what archives never carry: both sides answer alike (404), never 2xx. */
const NOT_CARRIED = new Set(['/admin/v1/imports/{id}']);

/** Every GET route with its parameters filled, plus searches and filters. */
async function plan(t: TestApp) {
  // "Why this price" of a variant, at a fixed time (its answer says when it was asked).
  const products = (await t.admin(world.shop).get('/products?limit=1')).json<{
    items: { variants: { id: string }[] }[];
  }>();
  const variantId = products.items[0]!.variants[0]!.id;
  return planReads(
    t,
    world,
    {
      '/admin/v1/variants/{id}/price': [
        `/admin/v1/variants/${variantId}/price?at=2026-01-01T00:00:00.000Z`,
        `/admin/v1/variants/${variantId}/price?country=DE&at=2026-01-01T00:00:00.000Z`,
      ],
      '/storefront/v1/carts/{id}': world.cartIds,
      '/storefront/v1/carts/{id}/shipping-options': world.cartIds,
      '/admin/v1/media/{id}': world.mediaIds,
      // Imports are jobs of the database they ran in, never carried (decision `csv-imports`): both answer 404.
      '/admin/v1/imports/{id}': ['00000000-0000-4000-8000-000000000000'],
      '/media/{storeId}/{file}': [...world.mediaUrls, `${world.mediaUrls[0]!}?w=200`].map((url) =>
        url.startsWith('/') ? url : new URL(url).pathname + new URL(url).search,
      ),
    },
    [
      '/storefront/v1/products?q=tee',
      '/storefront/v1/products?q=lnen',
      '/storefront/v1/products?sort=price_desc',
      '/storefront/v1/products?tag=summer&available=true',
      '/storefront/v1/products/facets?q=shirt',
      '/admin/v1/products?q=merino',
      '/admin/v1/products?status=active&sort=title_asc',
      `/admin/v1/orders?q=${encodeURIComponent(world.customerEmail)}`,
      '/admin/v1/orders?status=paid',
      '/admin/v1/customers?q=lovelace',
      '/admin/v1/webhooks/deliveries?status=delivered',
      '/admin/v1/exports?kind=orders',
      '/admin/v1/exports?kind=customers',
    ],
  );
}

/** The endpoint's signing secret signs a delivery made by the target's relay under `keys`. */
async function signsWebhooks(target: Db, keys: Keys, endpoint: CreatedEndpoint, storeId: string) {
  const t = await startTestApp({ db: target, workers: true, config: { ...webhookTestConfig(), ...keys } });
  try {
    const event = await emit(t, storeId, 'product.updated', { productId: randomUUID() });
    const [request] = await receiver.waitForRequests(1, (r) => r.body.id === event.id);
    assert.equal(request!.headers['x-webhook-signature'], hmacHex(endpoint.secret, request!.rawBody));
  } finally {
    await t.close();
  }
}

/** The stored answer of the checkout replays byte for byte (it is sealed at rest). */
async function replaysCheckout(t: TestApp) {
  const replay = await t.app.inject({
    method: 'POST',
    url: '/storefront/v1/checkout',
    headers: { 'x-publishable-key': world.shop.publishableKey, 'idempotency-key': world.checkout.key },
    payload: world.checkout.body,
  });
  assert.equal(replay.statusCode, 201, replay.body);
  assert.equal(replay.headers['idempotent-replayed'], 'true');
  assert.equal(replay.body, world.checkout.answer);
}

/**
 * Every sealed value of an archive, with what opens it: each kind's rows as `SEALED_COLUMNS`
 * describes them, from the archive's table files.
 */
async function sealedValuesOf(file: string) {
  const all = await entries(file);
  const manifest = await manifestOf(file);
  const values: { spec: (typeof SEALED_COLUMNS)[number]; row: TextRow; value: string }[] = [];
  for (const spec of SEALED_COLUMNS) {
    const table = manifest.tables.find((t) => t.name === spec.table)!;
    const content = all.find((entry) => entry.name === tableFile(spec.table))!.content.toString('utf8');
    for (const line of content.split('\n').filter(Boolean)) {
      const cells = JSON.parse(line) as (string | null)[];
      const row: TextRow = Object.fromEntries(table.columns.map((c, i) => [c.name, cells[i] ?? null]));
      if (spec.sealedIn && !spec.sealedIn(row)) continue;
      for (const column of spec.columns) {
        const value = row[column];
        if (value !== null && value !== undefined && Keyring.isSealed(value))
          values.push({ spec, row, value });
      }
    }
  }
  return values;
}

/** Whether `keyring` opens the sealed value. */
function opens(keyring: Keyring, sealed: Awaited<ReturnType<typeof sealedValuesOf>>[number]): boolean {
  try {
    keyring.open(sealed.spec.purpose, sealed.value, sealed.spec.context(sealed.row), sealed.spec.what);
    return true;
  } catch {
    return false;
  }
}

describe('the archive carries every table or says why not', () => {
  test('every table of the schema has a rule in src/archive/tables.ts', async () => {
    const db = await openEmbeddedSource();
    try {
      assert.deepEqual(unclassified(await readCatalog(db.kysely)), { missing: [], gone: [] });
    } finally {
      await db.close();
    }
  });

  test('every kind of sealed value that `secrets rotate` re-seals is described for the archive', async () => {
    const db = await openEmbeddedSource();
    try {
      const keys = { secretKey: K1, secretKeyPrevious: [] };
      const report = await rotateSecrets(db.kysely, await loadKeyring(db.kysely, keys), keys, true);
      assert.deepEqual(
        SEALED_COLUMNS.map((spec) => spec.what),
        report.reports.map((kind) => kind.what),
      );
    } finally {
      await db.close();
    }
  });

  test('the manifest: format, schema, source, checksums; tables in load order, parents first', async () => {
    assert.equal(manifest.format, 'storefront-archive');
    assert.equal(manifest.formatVersion, 2);
    assert.equal(manifest.secrets.sealedWith, 'SECRET_KEY');
    const files = (await entries(archive)).map((entry) => entry.name);
    assert.deepEqual(files.slice(-2), [MANIFEST_NAME, MAC_NAME], 'the manifest, then its MAC, last');
    assert.match(manifest.schemaVersion, /^\d{4}_/);
    assert.equal(manifest.source.database, 'pglite');
    assert.equal(manifest.store, null);
    const names = manifest.tables.map((table) => table.name);
    assert.ok(names.indexOf('stores') < names.indexOf('products'));
    assert.ok(names.indexOf('products') < names.indexOf('variants'));
    assert.ok(names.indexOf('orders') < names.indexOf('payments'));
    assert.ok(names.indexOf('events') < names.indexOf('webhook_deliveries'));
    for (const skipped of [
      'sign_in_codes',
      'customer_sign_in_codes',
      'read_versions',
      'kysely_migration',
      'platform_secrets',
    ])
      assert.ok(!names.includes(skipped), skipped);
    assert.ok(
      !manifest.tables.find((t) => t.name === 'customers')!.columns.some((c) => c.name === 'search_text'),
      'generated',
    );
    for (const table of manifest.tables) assert.match(table.sha256, /^[0-9a-f]{64}$/);
    assert.ok(manifest.tables.find((t) => t.name === 'orders')!.rows >= 3);
  });
});

describe('embedded → another database, same SECRET_KEY', () => {
  test('every storefront and admin read is identical; keys, tokens and webhook signing work', async () => {
    const target = await openTarget(true);
    try {
      const summary = await importArchive(target.db, { file: archive, secrets: ONLY_K1 });
      assert.equal(summary.rows, dataRows(manifest));
      assert.equal(summary.resealed, 0, 'everything was sealed by this key already');
      const apps = await readers(target.db, ONLY_K1);
      try {
        const planned = await plan(apps.source);
        const { reads, answered } = await compareReads(apps.source, apps.target, world, planned, true);
        const routes = new Set(planned.map((read) => read.route));
        assert.deepEqual(
          [...routes].filter((route) => !answered.has(route) && !NOT_CARRIED.has(route)),
          [],
          'every GET route answered 2xx at least once',
        );
        assert.ok(reads > 150, `${reads} reads`);
        await replaysCheckout(apps.target);
        const other = await apps.target.app.inject({
          method: 'GET',
          url: '/admin/v1/auth/session',
          headers: { authorization: `Bearer ${world.other.staffToken}` },
        });
        assert.equal(other.statusCode, 200, 'the other store came along');
        const revoked = await apps.target.storefront(world.revokedKey).get('/store');
        assert.equal(revoked.statusCode, 401, 'a revoked key stays revoked');
        assert.equal((await apps.target.storefront(world.shop).get('/store')).statusCode, 200);
      } finally {
        await apps.close();
      }
      await signsWebhooks(target.db, ONLY_K1, world.endpoint, world.shop.store.id);
    } finally {
      await target.close();
    }
  });
});

describe('embedded → another database, another SECRET_KEY', () => {
  test('secrets are re-sealed under the new key; reads differ only in their cursors; everything still works', async () => {
    const target = await openTarget(false);
    try {
      const keys = { secretKey: K2, secretKeyPrevious: [K1] };
      const summary = await importArchive(target.db, { file: archive, secrets: keys });
      assert.ok(summary.resealed >= 5, `${summary.resealed} re-sealed`);
      // Nothing needs K1 any more: the new key alone opens every sealed value, all current.
      const check = await rotateSecrets(
        target.db.kysely,
        await loadKeyring(target.db.kysely, ONLY_K2),
        ONLY_K2,
        true,
      );
      for (const report of check.reports)
        assert.deepEqual([report.what, report.unreadable, report.resealed], [report.what, 0, 0]);
      assert.ok(check.reports.find((r) => r.what === 'DKIM private keys')!.current >= 1);
      assert.ok(check.reports.find((r) => r.what === 'webhook endpoint signing secrets')!.current >= 1);
      assert.ok(check.reports.find((r) => r.what === 'stored idempotent answers')!.current >= 1);
      assert.deepEqual(await target.db.kysely.selectFrom('platform_secrets').select('name').execute(), []);

      const apps = await readers(target.db, ONLY_K2);
      try {
        const planned = await plan(apps.source);
        const { answered } = await compareReads(apps.source, apps.target, world, planned, false);
        assert.deepEqual(
          [...new Set(planned.map((r) => r.route))].filter(
            (route) => !answered.has(route) && !NOT_CARRIED.has(route),
          ),
          [],
        );
        // The documented difference: a cursor made under the old key is refused (the client starts over).
        const read = { api: 'storefront' as const, route: '/storefront/v1/products' };
        const page = answerOf(await get(apps.source, world, read, '/storefront/v1/products?limit=2'));
        const cursor = (JSON.parse(page.body) as { nextCursor: string }).nextCursor;
        const stale = await get(
          apps.target,
          world,
          read,
          `/storefront/v1/products?limit=2&cursor=${encodeURIComponent(cursor)}`,
        );
        assert.equal(stale.statusCode, 400, stale.body);
        await replaysCheckout(apps.target);
        // The publishable key kept sealed for the reference shop opens under the new key.
        const { handedOutKey } = await import('../keys/keys.sealed.ts');
        assert.equal(
          await handedOutKey(target.db.kysely, apps.target.runtime.keyring, world.shop.store.id),
          world.shop.publishableKey,
        );
      } finally {
        await apps.close();
      }
      await signsWebhooks(target.db, ONLY_K2, world.endpoint, world.shop.store.id);
    } finally {
      await target.close();
    }
  });
});

describe('one store (--store)', () => {
  test("only that store's rows travel; its reads are identical; the other store is not there", async () => {
    const source = await pristineSource();
    const file = path.join(work, 'demo-only.tar.gz');
    let one: Manifest;
    try {
      one = (await exportArchive(source, { out: file, storeSlug: 'demo', secrets: ONLY_K1 })).manifest;
    } finally {
      await source.close();
    }
    assert.deepEqual(one.store, { id: world.shop.store.id, slug: 'demo' });
    assert.equal(one.tables.find((t) => t.name === 'stores')!.rows, 1);
    assert.ok(!one.tables.some((t) => t.name === 'platform_secrets'), 'no platform secret');
    const target = await openTarget(true);
    try {
      await importArchive(target.db, { file, secrets: ONLY_K1 });
      const catalog = await readCatalog(target.db.kysely);
      for (const table of catalog.filter((t) => t.columns.some((c) => c.name === 'store_id'))) {
        const { rows } = await sql<{ n: number }>`
          SELECT count(*)::int AS n FROM ${sql.table(table.name)} WHERE store_id <> ${world.shop.store.id}::uuid`.execute(
          target.db.kysely,
        );
        assert.equal(rows[0]!.n, 0, `${table.name} holds another store's rows`);
      }
      const apps = await readers(target.db, ONLY_K1);
      try {
        await compareReads(apps.source, apps.target, world, await plan(apps.source), true);
        const otherStaff = await apps.target.admin(world.other).get('/auth/session');
        assert.equal(otherStaff.statusCode, 401);
        const otherKey = await apps.target.storefront(world.other).get('/store');
        assert.equal(otherKey.statusCode, 401);
      } finally {
        await apps.close();
      }
    } finally {
      await target.close();
    }
  });

  test("with --key-file: sealed under that key only, nothing opens with the platform's; the store works after an import under another SECRET_KEY", async () => {
    const KA = `one-store-archive-key-${randomUUID()}`;
    const source = await pristineSource();
    const file = path.join(work, 'demo-own-key.tar.gz');
    try {
      const exported = await exportArchive(source, {
        out: file,
        storeSlug: 'demo',
        secrets: ONLY_K1,
        keyFile: rootOf(KA),
      });
      assert.equal(exported.sealedWith, 'key file');
      assert.ok(exported.resealed >= 5, `${exported.resealed} re-sealed on the way`);
    } finally {
      await source.close();
    }
    const one = await manifestOf(file);
    assert.equal(one.secrets.sealedWith, 'key file');
    assert.ok(!one.tables.some((t) => t.name === 'platform_secrets'), 'no platform secret');
    const bytes = Buffer.concat((await entries(file)).map((entry) => entry.content));
    assert.equal(bytes.indexOf(K1), -1);
    const sealed = await sealedValuesOf(file);
    assert.deepEqual([...new Set(sealed.map((value) => value.spec.what))].sort(), [
      'DKIM private keys',
      'payment client secrets',
      'publishable keys kept for the reference shop',
      'stored idempotent answers',
      'tax service signing secrets',
      'webhook endpoint signing secrets',
    ]);
    const platform = new Keyring([{ name: 'SECRET_KEY', secret: Buffer.from(K1) }]);
    for (const value of sealed) {
      assert.equal(opens(platform, value), false, `${value.spec.what} opens with the platform's SECRET_KEY`);
      assert.equal(opens(new Keyring([rootOf(KA)]), value), true, `${value.spec.what} opens with the key`);
    }

    const target = await openTarget(true);
    try {
      await assert.rejects(importArchive(target.db, { file, secrets: ONLY_K1 }), /--key-file FILE/);
      const summary = await importArchive(target.db, { file, secrets: ONLY_K2, keyFile: rootOf(KA) });
      assert.ok(summary.resealed >= 5);
      const keyring = await loadKeyring(target.db.kysely, ONLY_K2);
      const check = await rotateSecrets(target.db.kysely, keyring, ONLY_K2, true);
      for (const report of check.reports)
        assert.deepEqual([report.what, report.unreadable, report.resealed], [report.what, 0, 0]);
      // The DKIM keys open under the new key, each the private half of the key the zone publishes.
      const dkim = await target.db.kysely.selectFrom('dkim_keys').selectAll().execute();
      assert.ok(dkim.length >= 3);
      for (const key of dkim) {
        const pem = decryptPrivateKey(keyring, key.store_id, key.token, key.private_key_ciphertext);
        const published = createPublicKey(pem).export({ type: 'spki', format: 'der' }).toString('base64');
        assert.equal(published, key.public_key);
      }
      const apps = await readers(target.db, ONLY_K2);
      try {
        await compareReads(apps.source, apps.target, world, await plan(apps.source), false);
        await replaysCheckout(apps.target);
      } finally {
        await apps.close();
      }
      await signsWebhooks(target.db, ONLY_K2, world.endpoint, world.shop.store.id);
    } finally {
      await target.close();
    }
  });
});

describe('values round-trip exactly', () => {
  test('bytea, timestamps, bigint beyond 2^53, numeric, arrays, jsonb null beside SQL NULL; generated and identity columns', async () => {
    const ddl = sql`
      CREATE TABLE archive_types (
        store_id uuid NOT NULL,
        id bigint GENERATED ALWAYS AS IDENTITY,
        raw bytea, at timestamptz, day date, span interval, big bigint, exact numeric(30, 10),
        ratio double precision, tags text[], counts integer[], doc jsonb, maybe jsonb, flag boolean,
        name text, folded text GENERATED ALWAYS AS (lower(name)) STORED,
        PRIMARY KEY (store_id, id))`;
    const source = await openEmbeddedSource();
    const target = await openTarget(false);
    const file = path.join(work, 'types.tar.gz');
    TABLE_RULES.archive_types = { carry: 'store', column: 'store_id' };
    try {
      await ddl.execute(source.kysely);
      await ddl.execute(target.db.kysely);
      const store = randomUUID();
      await sql`
        INSERT INTO archive_types (store_id, raw, at, day, span, big, exact, ratio, tags, counts, doc, maybe, flag, name) VALUES
          (${store}, '\\x00ff0a5c'::bytea, '2026-05-01 09:30:00.123456+02', '2026-02-28', '1 day 02:03:04.5',
           9007199254740993, 12345678901234567890.0123456789, 0.1, ARRAY['a', 'b c', NULL, 'd"e', 'f,g', '{}'],
           ARRAY[1, NULL, -3], '{"a": [1, 2.50, null], "s": "ü\\n\\u0001", "n": 1e400}'::jsonb, 'null'::jsonb, true, 'MiXeD'),
          (${store}, NULL, NULL, NULL, NULL, -9223372036854775808, NULL, 'NaN', '{}', NULL, '"text"'::jsonb, NULL, NULL, NULL),
          (${store}, ''::bytea, 'infinity', '-infinity', '-1 mon', 0, 'NaN', '-Infinity', NULL, '{}', '[]'::jsonb, '{}'::jsonb, false, '')`.execute(
        source.kysely,
      );
      await exportArchive(source, { out: file, secrets: ONLY_K1 });
      await importArchive(target.db, { file, secrets: ONLY_K1 });
      const rows = async (db: Db) =>
        (
          await sql<{ row: string }>`SELECT t::text AS row FROM archive_types t ORDER BY id`.execute(
            db.kysely,
          )
        ).rows.map((r) => r.row);
      const [a, b] = [await rows(source), await rows(target.db)];
      assert.equal(a.length, 3);
      assert.deepEqual(b, a);
      const nulls = await sql<{
        sql_null: boolean;
      }>`SELECT maybe IS NULL AS sql_null FROM archive_types ORDER BY id`.execute(target.db.kysely);
      assert.deepEqual(
        nulls.rows.map((r) => r.sql_null),
        [false, true, false],
        "jsonb 'null' stays apart from SQL NULL",
      );
      // The identity sequence moved past the loaded values.
      const next = await sql<{
        id: string;
      }>`INSERT INTO archive_types (store_id) VALUES (${store}) RETURNING id::text`.execute(target.db.kysely);
      assert.equal(next.rows[0]!.id, '4');
    } finally {
      delete TABLE_RULES.archive_types;
      await source.close();
      await target.close();
    }
  });
});

describe('without SECRET_KEY: a key of its own, never the generated root', () => {
  const KA = `archive-key-file-${randomUUID()}`;
  let file: string;
  let endpoint: CreatedEndpoint;
  let storeId: string;
  let sourceRoot: string;

  before(async () => {
    const source = await openEmbeddedSource();
    const t = await startTestApp({ db: source, config: { ...webhookTestConfig(), ...NO_KEY } });
    try {
      const shop = await createTestStore(t);
      storeId = shop.store.id;
      endpoint = await registerEndpoint(t, shop, `${receiver.url}/generated`);
    } finally {
      await t.close();
    }
    try {
      sourceRoot = (
        await source.kysely.selectFrom('platform_secrets').select('value').executeTakeFirstOrThrow()
      ).value;
      const refused = path.join(work, 'no-key.tar.gz');
      await assert.rejects(
        exportArchive(source, { out: refused, secrets: NO_KEY }),
        /SECRET_KEY is not set.*--key-file FILE/,
      );
      assert.ok(!fs.existsSync(refused) && !fs.existsSync(`${refused}.partial`), 'no archive is left');
      file = path.join(work, 'own-key.tar.gz');
      const exported = await exportArchive(source, { out: file, secrets: NO_KEY, keyFile: rootOf(KA) });
      assert.equal(exported.sealedWith, 'key file');
      assert.ok(exported.resealed >= 1, 'what the generated root sealed is sealed again under the key');
    } finally {
      await source.close();
    }
  });

  test('the archive holds no root secret, and nothing in it opens with the source root', async () => {
    const exported = await manifestOf(file);
    assert.ok(!exported.tables.some((table) => table.name === 'platform_secrets'));
    const bytes = Buffer.concat((await entries(file)).map((entry) => entry.content));
    assert.equal(bytes.indexOf(sourceRoot), -1, 'the generated root is nowhere in the archive');
    const sealed = await sealedValuesOf(file);
    assert.ok(sealed.some((value) => value.spec.what === 'webhook endpoint signing secrets'));
    const generated = new Keyring([{ name: 'source root', secret: Buffer.from(sourceRoot, 'base64url') }]);
    for (const value of sealed) {
      assert.equal(opens(generated, value), false, `${value.spec.what} opens with the source's root`);
      assert.equal(opens(new Keyring([rootOf(KA)]), value), true, `${value.spec.what} opens with the key`);
    }
  });

  test('a target without SECRET_KEY needs the key file; it seals everything under a root of its own', async () => {
    const target = await openTarget(true);
    try {
      await assert.rejects(
        importArchive(target.db, { file, secrets: NO_KEY }),
        /sealed and signed with a key of its own .*--key-file FILE/,
      );
      await assert.rejects(
        importArchive(target.db, { file, secrets: NO_KEY, keyFile: rootOf(`another-${KA}`) }),
        /The key file does not open this archive/,
      );
      const summary = await importArchive(target.db, { file, secrets: NO_KEY, keyFile: rootOf(KA) });
      assert.equal(summary.adoptedRoot, false);
      assert.ok(summary.resealed >= 1);
      const root = await target.db.kysely
        .selectFrom('platform_secrets')
        .select('value')
        .executeTakeFirstOrThrow();
      assert.notEqual(root.value, sourceRoot, "the target's own root, never the source's");
      await signsWebhooks(target.db, NO_KEY, endpoint, storeId);
    } finally {
      await target.close();
    }
  });

  test('a target with SECRET_KEY re-seals everything under it and keeps no root in the database', async () => {
    const target = await openTarget(true);
    try {
      const summary = await importArchive(target.db, { file, secrets: ONLY_K2, keyFile: rootOf(KA) });
      assert.equal(summary.adoptedRoot, false);
      assert.ok(summary.resealed >= 1);
      assert.deepEqual(await target.db.kysely.selectFrom('platform_secrets').select('name').execute(), []);
      await signsWebhooks(target.db, ONLY_K2, endpoint, storeId);
    } finally {
      await target.close();
    }
  });
});

describe('what an import refuses (nothing is written)', () => {
  async function refused(file: string, pattern: RegExp, secrets = ONLY_K1, blank = true): Promise<void> {
    const target = await openTarget(blank);
    try {
      await assert.rejects(importArchive(target.db, { file, secrets }), (error: unknown) => {
        assert.ok(error instanceof ArchiveError, String(error));
        assert.match(error.message, pattern);
        return true;
      });
      const stores = await sql<{ n: number }>`SELECT count(*)::int AS n FROM stores`
        .execute(target.db.kysely)
        .catch(() => ({ rows: [{ n: 0 }] }));
      assert.equal(stores.rows[0]!.n, 0, 'nothing was imported');
    } finally {
      await target.close();
    }
  }

  test('a database that is not empty', async () => {
    const target = await openTarget(false);
    try {
      await importArchive(target.db, { file: archive, secrets: ONLY_K1 });
      const before = await sql<{ n: number }>`SELECT count(*)::int AS n FROM products`.execute(
        target.db.kysely,
      );
      await assert.rejects(
        importArchive(target.db, { file: archive, secrets: ONLY_K1 }),
        /The database is not empty \(.*products/,
      );
      const after = await sql<{ n: number }>`SELECT count(*)::int AS n FROM products`.execute(
        target.db.kysely,
      );
      assert.deepEqual(after.rows, before.rows);
    } finally {
      await target.close();
    }
  });

  test('another SECRET_KEY without the old one in SECRET_KEY_PREVIOUS', async () => {
    await refused(
      archive,
      /sealed with a SECRET_KEY this process does not have.*SECRET_KEY_PREVIOUS/,
      ONLY_K2,
    );
  });

  test('a damaged table file (checksum), a truncated archive, a file that is no archive', async () => {
    const damaged = path.join(work, 'damaged.tar.gz');
    await rewrite(archive, damaged, (name, content) =>
      name === 'tables/products.jsonl'
        ? Buffer.from(content.toString('utf8').replace('Linen', 'Linon'))
        : content,
    );
    await refused(damaged, /damaged: the checksum of tables\/products\.jsonl does not match/);
    const truncated = path.join(work, 'truncated.tar.gz');
    fs.writeFileSync(
      truncated,
      fs.readFileSync(archive).subarray(0, Math.floor(fs.statSync(archive).size / 2)),
    );
    await refused(truncated, /damaged|truncated/);
    const stranger = path.join(work, 'stranger.tar.gz');
    fs.writeFileSync(stranger, 'not an archive at all');
    await refused(stranger, /not a Storefront archive/);
    await refused(path.join(work, 'missing.tar.gz'), /no such file/);
  });

  test('a newer schema, a newer format, a database migrated past the archive', async () => {
    const newer = path.join(work, 'newer-schema.tar.gz');
    await rewrite(
      archive,
      newer,
      editManifest((m) => (m.schemaVersion = '9999_from_the_future')),
    );
    await refused(newer, /written by a newer Storefront \(schema 9999_from_the_future\).*Upgrade Storefront/);
    const format = path.join(work, 'newer-format.tar.gz');
    await rewrite(
      archive,
      format,
      editManifest((m) => (m.formatVersion = 99)),
    );
    await refused(format, /format version 99; this Storefront reads up to version 2/);
    // An archive of an older schema (signed again with its key, as that version's export would).
    const older = path.join(work, 'older-schema.tar.gz');
    await rewrite(
      archive,
      older,
      editManifest((m) => (m.schemaVersion = '0032_variant_archive')),
      { signWith: rootOf(K1) },
    );
    await refused(older, /migrated past the archive's schema \(0032_variant_archive/, ONLY_K1, false);
  });
});

describe('the commands', () => {
  const run = (args: string[], env: Record<string, string>) => storefront(args, { SECRET_KEY: K1, ...env });
  const noStack = (text: string) => assert.doesNotMatch(text, /\n\s+at /, 'no stack trace');

  test('export and import an embedded data directory; refusals exit 1 with a message, usage errors 2', async () => {
    const from = path.join(work, 'cli-from');
    const to = path.join(work, 'cli-to');
    await dataDirFromTemplate(from);
    await dataDirFromTemplate(to);
    const created = await run(
      [
        'stores',
        'create',
        '--name',
        'Cli',
        '--slug',
        'cli',
        '--currency',
        'EUR',
        '--owner-email',
        'o@cli.test',
      ],
      { DATA_DIR: from },
    );
    assert.equal(created.code, 0, created.stderr);
    const file = path.join(work, 'cli.tar.gz');
    const exported = await run(['export', '--out', file], { DATA_DIR: from });
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stdout, /^Wrote .*cli\.tar\.gz: \d+ rows of \d+ tables/);
    assert.match(exported.stdout, /personal data/);
    assert.match(exported.stderr, /100 %/, 'progress on stderr');

    const again = await run(['export', '--out', file], { DATA_DIR: from });
    assert.deepEqual(
      [again.code, again.stderr.trim()],
      [1, `storefront: ${file} exists already: remove it or choose another name.`],
    );
    const unknown = await run(['export', '--out', `${file}.x`, '--store', 'nope'], { DATA_DIR: from });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /There is no store with slug "nope"/);
    assert.equal((await run(['export'], { DATA_DIR: from })).code, 2);
    assert.equal((await run(['import'], { DATA_DIR: to })).code, 2);

    const imported = await run(['import', file], { DATA_DIR: to });
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /^Imported \d+ rows of \d+ tables/);
    const twice = await run(['import', file], { DATA_DIR: to });
    assert.equal(twice.code, 1);
    assert.match(twice.stderr, /^storefront: The database is not empty \(.*stores/m);
    noStack(twice.stderr);

    const newer = path.join(work, 'cli-newer.tar.gz');
    await rewrite(
      file,
      newer,
      editManifest((m) => (m.schemaVersion = '9999_from_the_future')),
    );
    const refusedNewer = await run(['import', newer], { DATA_DIR: path.join(work, 'cli-never') });
    assert.equal(refusedNewer.code, 1);
    assert.match(refusedNewer.stderr, /newer Storefront/);
    noStack(refusedNewer.stderr);
    assert.ok(
      !fs.existsSync(path.join(work, 'cli-never')),
      'the archive is checked before a database is made',
    );

    // One process at a time on the embedded database.
    const lock = acquireDataDirLock(path.join(work, 'cli-locked'), 'storefront serve');
    try {
      const locked = await run(['import', file], { DATA_DIR: path.join(work, 'cli-locked') });
      assert.equal(locked.code, 1);
      assert.match(locked.stderr, new RegExp(`in use by process ${process.pid} \\(storefront serve\\)`));
    } finally {
      lock.release();
    }
  });

  test(
    'import into PostgreSQL from the command line',
    { skip: process.env.DATABASE_URL ? false : 'needs DATABASE_URL' },
    async () => {
      const blank = (await openBlankPostgres())!;
      try {
        const imported = await run(['import', archive], {
          DATABASE_URL: blank.url,
          SECRET_KEY: K2,
          SECRET_KEY_PREVIOUS: K1,
        });
        assert.equal(imported.code, 0, imported.stderr);
        assert.match(imported.stdout, /into PostgreSQL/);
        assert.match(imported.stdout, /Secrets: \d+ re-sealed under SECRET_KEY/);
        const db = await openDatabase({ databaseUrl: blank.url, dataDir: '', poolSize: 1 });
        try {
          const stores = await sql<{ n: number }>`SELECT count(*)::int AS n FROM stores`.execute(db.kysely);
          assert.equal(stores.rows[0]!.n, 2);
        } finally {
          await db.close();
        }
      } finally {
        await blank.drop();
      }
    },
  );
});
