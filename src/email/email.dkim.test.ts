import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../db/database.ts';
import { createStore } from '../onboarding/onboarding.service.ts';
import { createTestStore, startTestApp, testConfig, type TestApp } from '../test/harness.ts';
import { runCli } from '../test/cli.ts';
import { dataDirFromTemplate } from '../test/template.ts';
import { platformDkimRecords, zoneFileLines } from './email.dkim.ts';
import { loadKeyring } from '../secrets/keyring.loader.ts';
import { registerSendingDomain } from './email.service.ts';
import { emailApi, uniqueDomain } from './email.test-support.ts';
import { systemClock } from '../lib/clock.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

/** The TXT value of a zone-file line: its quoted character-strings joined. */
function txtOf(line: string): string {
  const strings = [...line.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
  assert.ok(
    strings.every((s) => s.length <= 255),
    'each character-string fits in 255 bytes',
  );
  return strings.join('');
}

function tokensOf(records: { type: string; name: string }[]): string[] {
  return records.filter((r) => r.type === 'CNAME').map((r) => r.name.split('.')[0]!);
}

describe('platform DKIM records', () => {
  test('one TXT record per token at <token>.dkim.<PLATFORM_MAIL_DOMAIN> with the public key', async () => {
    const shop = await createTestStore(t);
    const domain = uniqueDomain();
    const registered = await emailApi(t, shop.staffToken).register(domain);
    assert.equal(registered.statusCode, 201);
    const tokens = tokensOf(registered.body.dnsRecords);

    const records = (await platformDkimRecords({ db: t.db.kysely, config: t.config })).filter(
      (r) => r.domain === domain,
    );
    assert.deepEqual(
      records.map((r) => r.name),
      tokens.map((token) => `${token}.dkim.storefront.test`),
    );
    for (const record of records) {
      const p = /^v=DKIM1; k=rsa; p=([A-Za-z0-9+/=]+)$/.exec(record.value)?.[1];
      assert.ok(p, record.value);
      const key = createPublicKey({ key: Buffer.from(p, 'base64'), format: 'der', type: 'spki' });
      assert.equal(key.asymmetricKeyDetails?.modulusLength, 2048);
    }

    const lines = zoneFileLines(records, 'storefront.test');
    const recordLines = lines.filter((line) => !line.startsWith(';'));
    assert.equal(recordLines.length, 3);
    recordLines.forEach((line, i) => {
      assert.ok(line.startsWith(`${tokens[i]}.dkim.storefront.test. 3600 IN TXT "`), line);
      assert.equal(txtOf(line), records[i]!.value);
    });
  });

  test('`storefront dkim records` prints them', async () => {
    // The CLI runs against the database of this run: a PostgreSQL clone, or an embedded data dir.
    let dataDir: string | null = null;
    let domain: string;
    let tokens: string[];
    const env: Record<string, string | undefined> = { REDIS_URL: undefined };
    if (process.env.DATABASE_URL) {
      const { rows } = await sql<{ name: string }>`SELECT current_database() AS name`.execute(t.db.kysely);
      const url = new URL(process.env.DATABASE_URL);
      url.pathname = `/${rows[0]!.name}`;
      const databaseUrl = url.href;
      const shop = await createTestStore(t);
      domain = uniqueDomain();
      const registered = await emailApi(t, shop.staffToken).register(domain);
      tokens = tokensOf(registered.body.dnsRecords);
      env.DATABASE_URL = databaseUrl;
    } else {
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-dkim-'));
      await dataDirFromTemplate(dataDir);
      const db = await openDatabase({ databaseUrl: null, dataDir });
      try {
        const config = testConfig();
        const { store } = await createStore(
          { db: db.kysely, clock: systemClock },
          {
            name: 'Zone Shop',
            slug: 'zone-shop',
            currency: 'USD',
            ownerEmail: 'owner@zone.example',
          },
        );
        domain = uniqueDomain();
        const registered = await registerSendingDomain(
          {
            db: db.kysely,
            config,
            clock: systemClock,
            keyring: await loadKeyring(db.kysely, config),
          },
          store.id,
          { domain, fromLocalPart: 'orders' },
        );
        tokens = tokensOf(registered.dnsRecords);
      } finally {
        await db.close();
      }
      env.DATA_DIR = dataDir;
      env.DATABASE_URL = undefined;
    }
    try {
      const result = await runCli(['dkim', 'records'], env);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, new RegExp(`; ${domain.replaceAll('.', '\\.')} \\(store `));
      for (const token of tokens) {
        const line = result.stdout.split('\n').find((l) => l.startsWith(`${token}.dkim.storefront.test. `));
        assert.ok(line, `a record for ${token}`);
        assert.match(txtOf(line), /^v=DKIM1; k=rsa; p=[A-Za-z0-9+/=]{300,}$/);
      }
      assert.doesNotMatch(result.stdout, /PRIVATE/);

      assert.match((await runCli(['--help'], env)).stdout, /dkim records/);
    } finally {
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
