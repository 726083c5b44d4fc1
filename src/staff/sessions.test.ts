/**
 * Staff sessions and sign-in after review (decision `staff-sessions`): an absolute session lifetime, a per-IP
 * limit on the sign-in routes, and the same work for known and unknown addresses.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  clientAddresses,
  createTestStore,
  startTestAppWithDb,
  QueryObserver,
  testConfig,
  waitFor,
  type TestApp,
  type TestDb,
} from '../test/harness.ts';
import { toWindowStart } from '../ratelimit/ratelimit.test-support.ts';

/** Counts the SQL statements an app runs (the same work shows as the same statements). */
const counter = { count: 0 };
let db: TestDb;
let t: TestApp;
before(async () => {
  ({ db, t } = await startTestAppWithDb({
    plugin: new QueryObserver({ onQuery: () => (counter.count += 1) }),
    config: { rateLimits: { ...testConfig().rateLimits, signIn: 8 } },
  }));
});
after(() => t.close());

/** Each test speaks from its own client address, so the sign-in limit of one does not touch another. */
const client = clientAddresses();

const post = (url: string, payload: object, remoteAddress: string) =>
  t.app.inject({ method: 'POST', url: `/admin/v1/auth/${url}`, payload, remoteAddress });

describe('session lifetime (decision `staff-sessions`)', () => {
  test('a session slides with use but never lives past STAFF_SESSION_MAX_AGE from sign-in', async () => {
    const shop = await createTestStore(t);
    const hour = 3_600_000;
    const use = () =>
      t.app.inject({
        method: 'GET',
        url: '/admin/v1/auth/session',
        headers: { authorization: `Bearer ${shop.staffToken}` },
      });
    let moved = 0;
    try {
      // Used every 10 hours: the 12 h sliding expiry alone would keep it alive for ever.
      for (let elapsed = 10; elapsed < 7 * 24; elapsed += 10) {
        t.clock.advance(10 * hour);
        moved += 10 * hour;
        const response = await use();
        assert.equal(response.statusCode, 200, `still signed in after ${elapsed} h`);
        const expiresAt = Date.parse(response.json<{ expiresAt: string }>().expiresAt);
        assert.ok(expiresAt - (t.clock.now().getTime() - moved) <= 7 * 24 * hour + 1000, 'capped at 7 days');
      }
      t.clock.advance(10 * hour);
      moved += 10 * hour;
      const expired = await use();
      assert.equal(expired.statusCode, 401);
      assert.match(String(expired.headers['www-authenticate']), /invalid_token/);
    } finally {
      t.clock.advance(-moved);
    }
  });
});

describe('sign-in limits and enumeration (decision `sign-in-answers-first`)', () => {
  test('at most RATE_LIMIT_SIGN_IN sign-in and verify requests per client IP and window', async () => {
    const shop = await createTestStore(t);
    toWindowStart(t);
    const ip = client();
    const answers = [];
    for (let i = 0; i < 5; i++)
      answers.push(
        (await post('sign-in', { storeSlug: shop.store.slug, email: `x${i}@example.com` }, ip)).statusCode,
      );
    for (let i = 0; i < 3; i++)
      answers.push(
        (await post('verify', { storeSlug: shop.store.slug, email: shop.ownerEmail, code: '000000' }, ip))
          .statusCode,
      );
    assert.deepEqual(answers, [202, 202, 202, 202, 202, 401, 401, 401]);
    const refused = await post('sign-in', { storeSlug: shop.store.slug, email: shop.ownerEmail }, ip);
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json<{ title: string }>().title, 'rate_limited');
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.equal(
      (await post('sign-in', { storeSlug: shop.store.slug, email: shop.ownerEmail }, client())).statusCode,
      202,
      'another client is not affected',
    );
  });

  test('known and unknown addresses get the same answer after the same statements', async () => {
    const shop = await createTestStore(t);
    const ip = client();
    const statements = async (fn: () => Promise<{ statusCode: number; body: string }>) => {
      const before = counter.count;
      const response = await fn();
      return { status: response.statusCode, body: response.body, statements: counter.count - before };
    };
    // Sign-in answers before it looks the address up: the same answer, whoever asks.
    const known = await post('sign-in', { storeSlug: shop.store.slug, email: shop.ownerEmail }, ip);
    const unknown = await post('sign-in', { storeSlug: shop.store.slug, email: 'nobody@example.com' }, ip);
    assert.deepEqual([unknown.statusCode, unknown.body], [known.statusCode, known.body]);
    await waitFor(async () => {
      const codes = await db.kysely
        .selectFrom('sign_in_codes')
        .select('id')
        .where('store_id', '=', shop.store.id)
        .execute();
      return codes.length === 1;
    });

    const wrong = await statements(() =>
      post('verify', { storeSlug: shop.store.slug, email: shop.ownerEmail, code: '123456' }, ip),
    );
    const nobody = await statements(() =>
      post('verify', { storeSlug: shop.store.slug, email: 'nobody@example.com', code: '123456' }, ip),
    );
    const noStore = await statements(() =>
      post('verify', { storeSlug: 'no-such-store', email: shop.ownerEmail, code: '123456' }, ip),
    );
    assert.equal(wrong.status, 401);
    assert.deepEqual(nobody, wrong, 'verify: same answer and statements for an unknown address');
    assert.deepEqual(noStore, wrong, 'verify: and for an unknown store');
  });
});
