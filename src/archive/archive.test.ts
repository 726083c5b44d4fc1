/**
 * `storefront export` and `storefront import` (DESIGN D50): a store populated through the HTTP API
 * on the embedded database is exported, imported into a fresh database (PostgreSQL beside
 * DATABASE_URL when it is set, else a fresh PGlite), and every GET route of the OpenAPI document is
 * read on both sides: under the same SECRET_KEY every answer is identical; under another key (the
 * old one in SECRET_KEY_PREVIOUS) they differ only in the cursors, and every credential and secret
 * still works.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'kysely';
import { after, before, describe, test } from 'node:test';
import { openDatabase, type Db } from '../db/database.ts';
import { pgliteOptions } from '../db/pglite.ts';
import { acquireDataDirLock } from '../db/data-dir-lock.ts';
import { Keyring } from '../lib/keyring.ts';
import { loadKeyring } from '../secrets/keyring.loader.ts';
import { rotateSecrets } from '../secrets/rotate.ts';
import {
  createTestStore,
  openBlankPostgres,
  startTestApp,
  testConfig,
  type TestApp,
} from '../test/harness.ts';
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
import { ArchiveError, MANIFEST_NAME, type Manifest } from './archive.format.ts';
import {
  answerOf,
  compareReads,
  get,
  openEmbeddedSource,
  openTarget,
  planReads,
  populate,
  type World,
} from './archive.test-support.ts';
import { exportArchive } from './export.ts';
import { importArchive } from './import.ts';
import { readCatalog, TABLE_RULES, unclassified } from './tables.ts';
import { readTar, TarWriter } from './tar.ts';

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
 * their clocks set back to the sessions' last use, so that no read slides a session on one side.
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
  for (const app of [a, b]) app.clock.advance(world.warmedAt - Date.now());
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

/** Every GET route with its parameters filled, plus searches and filters. */
async function plan(t: TestApp) {
  return planReads(
    t,
    world,
    {
      '/storefront/v1/carts/{id}': world.cartIds,
      '/storefront/v1/carts/{id}/shipping-options': world.cartIds,
      '/admin/v1/media/{id}': world.mediaIds,
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

const rowsOf = (m: Manifest) =>
  m.tables.filter((t) => t.name !== 'platform_secrets').reduce((n, t) => n + t.rows, 0);

describe('the archive carries every table or says why not', () => {
  test('every table of the schema has a rule in src/archive/tables.ts', async () => {
    const db = await openEmbeddedSource();
    try {
      assert.deepEqual(unclassified(await readCatalog(db.kysely)), { missing: [], gone: [] });
    } finally {
      await db.close();
    }
  });

  test('the manifest: format, schema, source, checksums; tables in load order, parents first', () => {
    assert.equal(manifest.format, 'storefront-archive');
    assert.equal(manifest.formatVersion, 1);
    assert.match(manifest.schemaVersion, /^\d{4}_/);
    assert.equal(manifest.source.database, 'pglite');
    assert.equal(manifest.store, null);
    const names = manifest.tables.map((table) => table.name);
    assert.ok(names.indexOf('stores') < names.indexOf('products'));
    assert.ok(names.indexOf('products') < names.indexOf('variants'));
    assert.ok(names.indexOf('orders') < names.indexOf('payments'));
    assert.ok(names.indexOf('events') < names.indexOf('webhook_deliveries'));
    for (const skipped of ['sign_in_codes', 'customer_sign_in_codes', 'read_versions', 'kysely_migration'])
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
      assert.equal(summary.rows, rowsOf(manifest));
      assert.equal(summary.resealed, 0, 'everything was sealed by this key already');
      const apps = await readers(target.db, ONLY_K1);
      try {
        const planned = await plan(apps.source);
        const { reads, answered } = await compareReads(apps.source, apps.target, world, planned, true);
        const routes = new Set(planned.map((read) => read.route));
        assert.deepEqual(
          [...routes].filter((route) => !answered.has(route)),
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
          [...new Set(planned.map((r) => r.route))].filter((route) => !answered.has(route)),
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

describe('without SECRET_KEY, the generated root travels', () => {
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
    sourceRoot = (
      await source.kysely.selectFrom('platform_secrets').select('value').executeTakeFirstOrThrow()
    ).value;
    file = path.join(work, 'generated-root.tar.gz');
    const exported = await exportArchive(source, { out: file, secrets: NO_KEY });
    assert.equal(exported.manifest.tables.find((table) => table.name === 'platform_secrets')!.rows, 1);
    await source.close();
  });

  test('a target without SECRET_KEY takes it as its own: nothing is re-sealed, cursors stay the same', async () => {
    const target = await openTarget(true);
    try {
      const summary = await importArchive(target.db, { file, secrets: NO_KEY });
      assert.equal(summary.adoptedRoot, true);
      assert.equal(summary.resealed, 0);
      const root = await target.db.kysely
        .selectFrom('platform_secrets')
        .select('value')
        .executeTakeFirstOrThrow();
      assert.equal(root.value, sourceRoot);
      // The same root derives the same cursor key: cursors issued before the move still work.
      const before = new Keyring([{ name: 'source', secret: Buffer.from(sourceRoot, 'base64url') }]);
      const after = await loadKeyring(target.db.kysely, NO_KEY);
      assert.deepEqual(after.key('cursor'), before.key('cursor'));
      await signsWebhooks(target.db, NO_KEY, endpoint, storeId);
    } finally {
      await target.close();
    }
  });

  test('a target with SECRET_KEY re-seals everything under it and keeps no root in the database', async () => {
    const target = await openTarget(true);
    try {
      const summary = await importArchive(target.db, { file, secrets: ONLY_K2 });
      assert.equal(summary.adoptedRoot, false);
      assert.ok(summary.resealed >= 1);
      assert.deepEqual(await target.db.kysely.selectFrom('platform_secrets').select('name').execute(), []);
      await signsWebhooks(target.db, ONLY_K2, endpoint, storeId);
    } finally {
      await target.close();
    }
  });
});

/** Copies an archive, changing each entry's content with `edit` (the tar is rewritten, gzip again). */
async function rewrite(
  from: string,
  to: string,
  edit: (name: string, content: Buffer) => Buffer,
): Promise<void> {
  const gzip = zlib.createGzip();
  const done = pipeline(gzip, fs.createWriteStream(to));
  const tar = new TarWriter(gzip, new Date());
  const input = fs.createReadStream(from).pipe(zlib.createGunzip());
  for await (const entry of readTar(input)) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry.body) chunks.push(chunk);
    const content = edit(entry.name, Buffer.concat(chunks));
    await tar.add(entry.name, content.length, [content]);
  }
  await tar.finish();
  gzip.end();
  await done;
}

const editManifest = (change: (m: Record<string, unknown>) => void) => (name: string, content: Buffer) => {
  if (name !== MANIFEST_NAME) return content;
  const m = JSON.parse(content.toString('utf8')) as Record<string, unknown>;
  change(m);
  return Buffer.from(JSON.stringify(m));
};

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
    await refused(format, /format version 99; this Storefront reads up to version 1/);
    const older = path.join(work, 'older-schema.tar.gz');
    await rewrite(
      archive,
      older,
      editManifest((m) => (m.schemaVersion = '0032_variant_archive')),
    );
    await refused(older, /migrated past the archive's schema \(0032_variant_archive/, ONLY_K1, false);
  });
});

describe('the commands', () => {
  const MAIN = path.resolve(import.meta.dirname, '..', 'main.ts');
  const run = (args: string[], env: Record<string, string>) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [MAIN, ...args], {
        env: { ...process.env, SEED_DEMO: '0', LOG_LEVEL: 'error', SECRET_KEY: K1, DATABASE_URL: '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });
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
