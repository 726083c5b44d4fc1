/**
 * Sign-in codes under attack (issue #26): guesses that arrive together, and floods from other
 * clients while a staff member signs in. Clients are told apart by their address (inject's
 * remoteAddress).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import type { ParsedMail } from 'mailparser';
import {
  createTestStore,
  openTestDatabase,
  startTestApp,
  waitForMail,
  type TestApp,
  type TestDb,
  type TestStore,
} from '../test/harness.ts';

/**
 * Counts the sign-in code hashes the database hands to the app (each one is compared with a guess),
 * and answers every statement a turn of the event loop later, as a database across a network does:
 * on the embedded database a request would otherwise run all its statements before the next one
 * starts, and concurrent requests would never interleave.
 */
class CodeHashReads implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    this.count += args.result.rows.filter((row) => 'code_hash' in row).length;
    await new Promise((resolve) => setImmediate(resolve));
    return args.result;
  }
}

const reads = new CodeHashReads();
let db: TestDb;
let t: TestApp;
before(async () => {
  db = await openTestDatabase();
  const observed = {
    kind: db.kind,
    url: db.url,
    kysely: db.kysely.withPlugin(reads),
    onReadChange: db.onReadChange,
    close: () => Promise.resolve(),
  };
  t = await startTestApp({ db: observed, workers: true });
});
after(async () => {
  await t.close();
  await db.close();
});

/** A fresh client address per call (with Redis the per-IP counters outlive one run). */
const run = 1 + Math.floor(Math.random() * 250);
let nextClient = 10;
const client = () => `10.${run}.${Math.floor(Math.random() * 250)}.${nextClient++}`;

const post = (url: string, payload: object, remoteAddress: string) =>
  t.app.inject({ method: 'POST', url: `/admin/v1/auth/${url}`, payload, remoteAddress });

function codeOf(mail: ParsedMail): string {
  const match = /\b(\d{6})\b/.exec(mail.text ?? '');
  assert.ok(match, `a 6-digit code in: ${mail.text}`);
  return match[1]!;
}

const signIn = (shop: TestStore, ip: string) =>
  post('sign-in', { storeSlug: shop.store.slug, email: shop.ownerEmail }, ip);
const verify = (shop: TestStore, code: string, ip: string) =>
  post('verify', { storeSlug: shop.store.slug, email: shop.ownerEmail, code }, ip);

/** `count` distinct six-digit codes other than `code`. */
function wrongCodes(code: string, count: number): string[] {
  const wrong: string[] = [];
  for (let n = 0; wrong.length < count; n++) {
    const candidate = String((Number(code) + 1 + n * 7919) % 1_000_000).padStart(6, '0');
    if (candidate !== code) wrong.push(candidate);
  }
  return wrong;
}

describe('attempts on a code (issue #26, item 10)', () => {
  test('of 12 guesses sent at once, at most 5 are compared with the code; the right one sent 12th counts only among them', async () => {
    const shop = await createTestStore(t);
    const ip = client();
    assert.equal((await signIn(shop, ip)).statusCode, 202);
    const code = codeOf(await waitForMail(t, shop.ownerEmail));

    const before = reads.count;
    const guesses = [...wrongCodes(code, 11), code];
    const answers = await Promise.all(guesses.map((guess) => verify(shop, guess, ip)));
    const compared = reads.count - before;
    assert.ok(compared <= 5, `${compared} guesses were compared with the code`);
    // Which 5 reach the code first is up to the database; the right code signs in only if it is one.
    const statuses = answers.map((answer) => answer.statusCode);
    const signedIn = statuses[11] === 200;
    assert.deepEqual(statuses, [...Array<number>(11).fill(401), signedIn ? 200 : 401]);
    assert.equal((await verify(shop, code, ip)).statusCode, 401, 'the code is used or spent');
    const row = await t.db.kysely
      .selectFrom('sign_in_codes')
      .select(['attempts', 'used_at'])
      .where('store_id', '=', shop.store.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.attempts, signedIn ? compared : 5);
    assert.equal(row.used_at !== null, signedIn);
  });

  test('the right code as the fifth guess, with four wrong ones sent at the same time, signs in', async () => {
    const shop = await createTestStore(t);
    const ip = client();
    await signIn(shop, ip);
    const code = codeOf(await waitForMail(t, shop.ownerEmail));
    const answers = await Promise.all([...wrongCodes(code, 4), code].map((guess) => verify(shop, guess, ip)));
    assert.deepEqual(
      answers.map((answer) => answer.statusCode),
      [401, 401, 401, 401, 200],
    );
  });
});
