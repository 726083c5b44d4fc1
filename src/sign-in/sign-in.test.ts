/**
 * The one sign-in module seen from both kinds that use it: one cleanup loop ends staff and
 * customer sessions (with their credentials) and forgets both kinds' old codes, each in its own
 * tables.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openCustomerSession } from '../customers/customers.service.ts';
import { verifyCustomerOfEmail } from '../customers/customers.repository.ts';
import { CUSTOMER_SIGN_IN } from '../customers/customers.sign-in.ts';
import { STAFF_SIGN_IN } from '../staff/staff.sign-in.ts';
import { createTestStore, startTestApp, waitFor, type TestApp } from '../test/harness.ts';
import { sessionCleanupLoop } from './session-cleanup.loop.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(async () => {
  await t.close();
});

const DAY = 24 * 3600 * 1000;

describe('one sign-in for staff and customers', () => {
  test('one cleanup loop ends both kinds of stale sessions with their credentials, and both kinds of old codes', async () => {
    const shop = await createTestStore(t);
    const storeId = shop.store.id;
    const email = `buyer-${storeId.slice(0, 8)}@example.com`;
    const customerToken = await t.deps.db.transaction().execute(async (trx) => {
      const { row } = await verifyCustomerOfEmail(trx, storeId, email, t.clock.now());
      return (await openCustomerSession(t.deps, trx, row)).token;
    });
    assert.equal((await t.storefront(shop).post('/customers/sign-in', { email })).statusCode, 202);
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: '/admin/v1/auth/sign-in',
          payload: { storeSlug: shop.store.slug, email: shop.ownerEmail },
        })
      ).statusCode,
      202,
    );
    const count = async (
      table: 'staff_sessions' | 'customer_sessions' | 'sign_in_codes' | 'customer_sign_in_codes',
    ) =>
      Number(
        (
          await t.deps.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('store_id', '=', storeId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    await waitFor(
      async () => (await count('sign_in_codes')) === 1 && (await count('customer_sign_in_codes')) === 1,
    );
    assert.equal(await count('staff_sessions'), 1);
    assert.equal(await count('customer_sessions'), 1);

    const loop = sessionCleanupLoop(t.deps, [STAFF_SIGN_IN, CUSTOMER_SIGN_IN]);
    await loop.run(new AbortController().signal);
    assert.equal(await count('staff_sessions'), 1, 'a live staff session stays');
    assert.equal(await count('customer_sessions'), 1, 'a live customer session stays');
    assert.equal(await count('sign_in_codes'), 1, 'a fresh staff code stays');
    assert.equal(
      (await t.storefront(shop).get('/customers/me', { authorization: `Bearer ${customerToken}` }))
        .statusCode,
      200,
      'the customer token works',
    );

    // Past every session's absolute lifetime and a day after the codes were made.
    t.clock.advance(400 * DAY);
    await loop.run(new AbortController().signal);
    for (const table of [
      'staff_sessions',
      'customer_sessions',
      'sign_in_codes',
      'customer_sign_in_codes',
    ] as const)
      assert.equal(await count(table), 0, `${table} emptied`);
    const credentials = await t.deps.db
      .selectFrom('credentials')
      .select('kind')
      .where('store_id', '=', storeId)
      .where('kind', 'in', ['staff_session', 'customer_session'])
      .execute();
    assert.deepEqual(credentials, [], 'the session credentials went with their sessions');
    assert.equal(
      (await t.admin(shop.staffToken).get('/auth/session')).statusCode,
      401,
      'the staff token is dead',
    );
    assert.equal(
      (await t.storefront(shop).get('/customers/me', { authorization: `Bearer ${customerToken}` }))
        .statusCode,
      401,
      'the customer token is dead',
    );
  });
});
