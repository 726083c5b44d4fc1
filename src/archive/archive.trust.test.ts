/**
 * What `storefront import` trusts (issue 42): the manifest's signature (a changed row with its sums
 * recomputed is refused), archives of the previous, unsigned format (only with --trust-unsigned),
 * the bounds on a line and on the whole archive (an import bomb is an archive error, read in linear
 * work), damaged and hostile files; and what the commands say of it all.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { sql } from 'kysely';
import { after, before, describe, test } from 'node:test';
import { decryptPrivateKey } from '../email/email.dkim.ts';
import { loadKeyring } from '../secrets/keyring.loader.ts';
import { createTestStore, startTestApp } from '../test/harness.ts';
import { dataDirFromTemplate } from '../test/template.ts';
import { decryptSecret } from '../webhooks/webhooks.secrets.ts';
import { registerEndpoint, webhookTestConfig } from '../webhooks/webhooks.test-support.ts';
import { ArchiveError, DEFAULT_LIMITS, MAC_NAME, MANIFEST_NAME } from './archive.format.ts';
import { rewrite, rootOf, storefront } from './archive-files.test-support.ts';
import { openEmbeddedSource, openTarget } from './archive.test-support.ts';
import { exportArchive } from './export.ts';
import { importArchive, type ImportOptions } from './import.ts';
import { LineReader } from './lines.ts';

const K1 = `archive-trust-first-${randomUUID()}`;
const K2 = `archive-trust-second-${randomUUID()}`;
const ONLY_K1 = { secretKey: K1, secretKeyPrevious: [] };
const ONLY_K2 = { secretKey: K2, secretKeyPrevious: [] };
const NO_KEY = { secretKey: null, secretKeyPrevious: [] };
const MiB = 1024 * 1024;

/**
 * An archive of format 1, written by `exportArchive` of the version before signatures (commit
 * ad2f6b2) from an embedded database without SECRET_KEY: one store with a webhook endpoint, a
 * sending domain (three DKIM keys) and a product; the generated root travels in platform_secrets.
 */
const FORMAT_1 = path.join(import.meta.dirname, 'fixtures', 'format-1.tar.gz');
const FORMAT_1_HOLDS = {
  storeId: '37d832b1-e79b-4a6a-bd57-38e0104e128a',
  endpointId: '9b7f9ba6-72ee-4352-a009-1e73deae6a45',
  endpointSecret: 'whsec_dqu0GPnyt2S7DXSHZvtgJ6N6U+NJ6bxliaD3RoP78MU=',
  root: 'yU1hTop5ggtHRn278e16nMVwx69Xoz3Tlsrb01REKSs',
  /** Rows of data (the root's row is not one). */
  rows: 20,
};

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-archive-trust-'));
/** A small archive signed with K1: a store, a webhook endpoint, a product "Linen Shirt". */
let archive: string;

before(async () => {
  const source = await openEmbeddedSource();
  const t = await startTestApp({ db: source, config: { ...webhookTestConfig(), ...ONLY_K1 } });
  try {
    const shop = await createTestStore(t);
    await registerEndpoint(t, shop, 'http://127.0.0.1:9/trust');
    const product = await t.admin(shop).post('/products', {
      title: 'Linen Shirt',
      status: 'active',
      variants: [{ label: 'M', priceAmount: 4200, onHand: 4 }],
    });
    assert.equal(product.statusCode, 201, product.body);
  } finally {
    await t.close();
  }
  try {
    archive = path.join(work, 'signed.tar.gz');
    await exportArchive(source, { out: archive, secrets: ONLY_K1 });
  } finally {
    await source.close();
  }
});

after(() => fs.rmSync(work, { recursive: true, force: true }));

/** Imports into a fresh blank target; returns what `onWarning` heard, or the refusal. */
async function attempt(
  file: string,
  options: Partial<ImportOptions> = {},
  inspect?: (db: Awaited<ReturnType<typeof openTarget>>['db']) => Promise<void>,
): Promise<{ warnings: string[]; error: ArchiveError | null }> {
  const target = await openTarget(true);
  const warnings: string[] = [];
  try {
    try {
      await importArchive(target.db, {
        file,
        secrets: ONLY_K1,
        ...options,
        onWarning: (message) => warnings.push(message),
      });
    } catch (error) {
      assert.ok(error instanceof ArchiveError, `an archive error, not ${String(error).slice(0, 300)}`);
      const stores = await sql<{ n: number }>`SELECT count(*)::int AS n FROM stores`
        .execute(target.db.kysely)
        .catch(() => ({ rows: [{ n: 0 }] }));
      assert.equal(stores.rows[0]!.n, 0, 'nothing was imported');
      return { warnings, error };
    }
    await inspect?.(target.db);
    return { warnings, error: null };
  } finally {
    await target.close();
  }
}

const products = (change: (text: string) => string) => (name: string, content: Buffer) =>
  name === 'tables/products.jsonl' ? Buffer.from(change(content.toString('utf8'))) : content;

describe('the signature of the manifest', () => {
  test('a row changed with its sums recomputed is refused; --trust-unsigned lets it in, with a warning', async () => {
    const planted = path.join(work, 'planted.tar.gz');
    await rewrite(
      archive,
      planted,
      products((text) => text.replace('Linen Shirt', 'Planted Owner')),
      { recompute: true },
    );
    const refused = await attempt(planted);
    assert.match(refused.error?.message ?? '', /signature does not verify: its manifest .* was changed/);
    assert.match(refused.error?.message ?? '', /--trust-unsigned/);

    const trusted = await attempt(planted, { trustUnsigned: true }, async (db) => {
      const titles = await sql<{ title: string }>`SELECT title FROM products`.execute(db.kysely);
      assert.deepEqual(
        titles.rows.map((row) => row.title),
        ['Planted Owner'],
      );
    });
    assert.equal(trusted.error, null);
    assert.equal(trusted.warnings.length, 1);
    assert.match(trusted.warnings[0]!, /signature does not verify \(--trust-unsigned\)/);
  });

  test('a manifest signed with another key, or without its manifest.mac, is refused', async () => {
    const resigned = path.join(work, 'resigned.tar.gz');
    await rewrite(
      archive,
      resigned,
      products((text) => text.replace('Linen Shirt', 'Planted Owner')),
      { recompute: true, signWith: rootOf(K2) },
    );
    assert.match((await attempt(resigned)).error?.message ?? '', /signature does not verify/);
    const unsigned = path.join(work, 'unsigned.tar.gz');
    await rewrite(archive, unsigned, (_name, content) => content, { dropMac: true });
    assert.match((await attempt(unsigned)).error?.message ?? '', /or its manifest\.mac is missing/);
    // The intact archive imports without a warning.
    assert.deepEqual(await attempt(archive), { warnings: [], error: null });
  });
});

describe('an archive of format 1 (before signatures)', () => {
  test('is refused without --trust-unsigned, saying why', async () => {
    const { error } = await attempt(FORMAT_1, { secrets: NO_KEY });
    assert.match(
      error?.message ?? '',
      /earlier Storefront \(format 1\), which did not sign.*--trust-unsigned/,
    );
  });

  test("with --trust-unsigned and no SECRET_KEY: its root becomes the target's, and its secrets open", async () => {
    const { warnings, error } = await attempt(
      FORMAT_1,
      { secrets: NO_KEY, trustUnsigned: true },
      async (db) => {
        const root = await db.kysely.selectFrom('platform_secrets').select('value').executeTakeFirstOrThrow();
        assert.equal(root.value, FORMAT_1_HOLDS.root);
        await opensFormat1(db, NO_KEY);
      },
    );
    assert.equal(error, null);
    assert.match(warnings.join('\n'), /format 1, which is not signed \(--trust-unsigned\)/);
  });

  test('with --trust-unsigned and SECRET_KEY: everything is re-sealed under it, no root is kept', async () => {
    const target = await openTarget(true);
    try {
      const summary = await importArchive(target.db, {
        file: FORMAT_1,
        secrets: ONLY_K2,
        trustUnsigned: true,
      });
      assert.equal(summary.rows, FORMAT_1_HOLDS.rows);
      assert.equal(summary.adoptedRoot, false);
      assert.ok(summary.resealed >= 4, `${summary.resealed} re-sealed`);
      assert.deepEqual(await target.db.kysely.selectFrom('platform_secrets').select('name').execute(), []);
      await opensFormat1(target.db, ONLY_K2);
    } finally {
      await target.close();
    }
  });

  /** The fixture's endpoint secret and DKIM keys open under the target's keyring alone. */
  async function opensFormat1(
    db: Awaited<ReturnType<typeof openTarget>>['db'],
    keys: { secretKey: string | null; secretKeyPrevious: string[] },
  ): Promise<void> {
    const keyring = await loadKeyring(db.kysely, keys);
    const endpoint = await db.kysely
      .selectFrom('webhook_endpoints')
      .select('secret_ciphertext')
      .where('id', '=', FORMAT_1_HOLDS.endpointId)
      .executeTakeFirstOrThrow();
    assert.equal(
      decryptSecret(keyring, FORMAT_1_HOLDS.storeId, FORMAT_1_HOLDS.endpointId, endpoint.secret_ciphertext),
      FORMAT_1_HOLDS.endpointSecret,
    );
    const dkim = await db.kysely.selectFrom('dkim_keys').selectAll().execute();
    assert.equal(dkim.length, 3);
    for (const key of dkim)
      assert.match(
        decryptPrivateKey(keyring, key.store_id, key.token, key.private_key_ciphertext),
        /PRIVATE KEY/,
      );
  }
});

describe('bounds: an import bomb is an archive error, read in linear work', () => {
  test('the line reader does linear work on a 40 MiB line, and stops at the bound', () => {
    const chunk = 64 * 1024;
    const line = Buffer.alloc(40 * MiB, 0x61);
    const feed = (reader: LineReader, bytes: Buffer): number => {
      let fed = 0;
      for (let at = 0; at < bytes.length; at += chunk) {
        const piece = bytes.subarray(at, at + chunk);
        fed += piece.length;
        for (const text of reader.push(piece)) assert.equal(text.length, line.length);
      }
      return fed;
    };
    const whole = Buffer.concat([line, Buffer.from('\n')]);
    const kept = new LineReader({ maxBytes: 64 * MiB, keep: true, tooLong: () => new Error('too long') });
    feed(kept, whole);
    assert.equal(kept.lines, 1);
    assert.equal(kept.rest, 0);
    assert.equal(kept.work.scanned, whole.length, 'each byte is searched once');
    assert.equal(kept.work.copied, line.length, 'the line is joined once');

    const bounded = new LineReader({
      maxBytes: 16 * MiB,
      keep: true,
      tooLong: (n) => new Error(`line ${n}`),
    });
    let read = 0;
    assert.throws(() => {
      for (let at = 0; at < whole.length; at += chunk) {
        read += chunk;
        bounded.push(whole.subarray(at, at + chunk));
      }
    }, /line 1/);
    assert.ok(read <= 16 * MiB + chunk, `refused after ${read} bytes, not at the end`);
  });

  test('a line longer than the bound (an archive that passes every other check) is refused before the database is touched', async () => {
    const bomb = path.join(work, 'bomb.tar.gz');
    const long = `["${'x'.repeat(40 * MiB)}"]\n`;
    await rewrite(
      archive,
      bomb,
      products((text) => text + long),
      { recompute: true, signWith: rootOf(K1) },
    );
    const { error } = await attempt(bomb);
    assert.match(
      error?.message ?? '',
      /damaged: line 2 of table products is longer than 16 MiB, the most an import reads \(--max-line-mib\)/,
    );
    assert.equal(DEFAULT_LIMITS.maxLineBytes, 16 * MiB);
  });

  test('an archive larger than the bound is refused', async () => {
    const { error } = await attempt(archive, { limits: { maxArchiveBytes: 4096 } });
    assert.match(
      error?.message ?? '',
      /holds more than 4096 bytes uncompressed, the most an import reads \(--max-archive-gib\)/,
    );
  });

  test('garbage: not gzip, gzip of no tar, a line that is not JSON, a line that is not a row', async () => {
    const noise = path.join(work, 'noise.tar.gz');
    fs.writeFileSync(noise, randomBytes(4096));
    assert.match((await attempt(noise)).error?.message ?? '', /not a Storefront archive/);
    const gzipped = path.join(work, 'gzipped-noise.tar.gz');
    fs.writeFileSync(gzipped, zlib.gzipSync(randomBytes(8192)));
    assert.match(
      (await attempt(gzipped)).error?.message ?? '',
      /not a Storefront archive.*not a tar archive/,
    );
    const notJson = path.join(work, 'not-json.tar.gz');
    await rewrite(
      archive,
      notJson,
      products((text) => `${text}not json at all\n`),
      {
        recompute: true,
        signWith: rootOf(K1),
      },
    );
    assert.match(
      (await attempt(notJson)).error?.message ?? '',
      /damaged: lines 1–2 of table products cannot be loaded \(.*json/i,
    );
    const notRow = path.join(work, 'not-a-row.tar.gz');
    await rewrite(
      archive,
      notRow,
      products((text) => `${text}{"id": "not a row"}\n`),
      {
        recompute: true,
        signWith: rootOf(K1),
      },
    );
    assert.match(
      (await attempt(notRow)).error?.message ?? '',
      /damaged: lines 1–2 of table products cannot be loaded/,
    );
    const manifestOnly = path.join(work, 'manifest-last-missing.tar.gz');
    await rewrite(archive, manifestOnly, (name, content) =>
      name === MANIFEST_NAME ? Buffer.from('{"format": "storefront-archive"') : content,
    );
    assert.match((await attempt(manifestOnly)).error?.message ?? '', /manifest\.json is not JSON/);
    assert.notEqual(MAC_NAME, MANIFEST_NAME);
  });
});

describe('the commands', () => {
  const noStack = (text: string) => assert.doesNotMatch(text, /\n\s+at /, 'no stack trace');
  const rowsOf = (text: string) => /([\d,]+) rows of (\d+) tables/.exec(text)?.slice(1);

  test('one store without SECRET_KEY: a key file; both commands count the same rows; the import advises only what applies', async () => {
    const from = path.join(work, 'cli-from');
    await dataDirFromTemplate(from);
    const keyless = { SECRET_KEY: '', DATA_DIR: from };
    const seeded = await storefront(['seed', 'demo'], keyless);
    assert.equal(seeded.code, 0, seeded.stderr);
    const file = path.join(work, 'cli-demo.tar.gz');
    const keyFile = path.join(work, 'archive.key');
    fs.writeFileSync(keyFile, `${randomBytes(36).toString('base64')}\n`, { mode: 0o600 });

    const noKey = await storefront(['export', '--out', file, '--store', 'demo'], keyless);
    assert.equal(noKey.code, 1);
    assert.match(noKey.stderr, /SECRET_KEY is not set.*--key-file FILE/);
    noStack(noKey.stderr);
    const exported = await storefront(
      ['export', '--out', file, '--store', 'demo', '--key-file', keyFile],
      keyless,
    );
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stdout, /signed, with the key in .*archive\.key/);
    const wrote = rowsOf(exported.stdout);
    assert.ok(wrote, exported.stdout);

    const to = path.join(work, 'cli-to');
    await dataDirFromTemplate(to);
    const withoutKey = await storefront(['import', file], { SECRET_KEY: '', DATA_DIR: to });
    assert.equal(withoutKey.code, 1);
    assert.match(withoutKey.stderr, /storefront import --key-file FILE ARCHIVE/);
    const imported = await storefront(['import', '--key-file', keyFile, file], {
      SECRET_KEY: '',
      DATA_DIR: to,
    });
    assert.equal(imported.code, 0, imported.stderr);
    assert.deepEqual(rowsOf(imported.stdout), wrote, 'the import counts what the export counted');
    assert.match(imported.stdout, /Secrets: \d+ re-sealed under this database's generated root/);
    assert.doesNotMatch(imported.stdout, /SECRET_KEY_PREVIOUS/, 'nobody set it');
    assert.match(
      imported.stdout,
      /uploaded images, and none is in .*cli-to\/media: copy the source's DATA_DIR\/media there/,
    );

    // The images already where the target reads them (the source's own directory, say): no copy advised.
    const beside = path.join(work, 'cli-beside');
    await dataDirFromTemplate(beside);
    fs.cpSync(path.join(from, 'media'), path.join(beside, 'media'), { recursive: true });
    const again = await storefront(['import', '--key-file', keyFile, file], {
      SECRET_KEY: K2,
      SECRET_KEY_PREVIOUS: K1,
      DATA_DIR: beside,
    });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /uploaded images: all are in .*cli-beside\/media already/);
    assert.doesNotMatch(again.stdout, /copy/);
    assert.match(again.stdout, /SECRET_KEY_PREVIOUS is needed only to import other archives/, 'it was set');
  });

  test('a changed archive, an oversized line and a bad bound: exit 1 with an archive error (2 for the bound), never a stack', async () => {
    const planted = path.join(work, 'cli-planted.tar.gz');
    await rewrite(
      archive,
      planted,
      products((text) => text.replace('Linen Shirt', 'Planted Owner')),
      {
        recompute: true,
      },
    );
    const env = { SECRET_KEY: K1 };
    const fresh = async () => {
      const dir = path.join(work, `cli-${randomUUID()}`);
      await dataDirFromTemplate(dir);
      return { ...env, DATA_DIR: dir };
    };
    const refused = await storefront(['import', planted], await fresh());
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^storefront: The archive's signature does not verify/m);
    noStack(refused.stderr);
    const trusted = await storefront(['import', '--trust-unsigned', planted], await fresh());
    assert.equal(trusted.code, 0, trusted.stderr);
    assert.match(
      trusted.stderr,
      /storefront: warning: the archive's signature does not verify \(--trust-unsigned\)/,
    );

    const long = path.join(work, 'cli-long.tar.gz');
    await rewrite(
      archive,
      long,
      products((text) => `${text}["${'y'.repeat(2 * MiB)}"]\n`),
      {
        recompute: true,
        signWith: rootOf(K1),
      },
    );
    const bombed = await storefront(['import', '--max-line-mib', '1', long], await fresh());
    assert.equal(bombed.code, 1);
    assert.match(bombed.stderr, /line 2 of table products is longer than 1 MiB/);
    noStack(bombed.stderr);
    const badBound = await storefront(['import', '--max-line-mib', 'lots', long], await fresh());
    assert.equal(badBound.code, 2);
    assert.match(badBound.stderr, /--max-line-mib takes a positive number/);
  });
});
