import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import {
  createTestStore,
  startTestApp,
  waitFor,
  waitForMail,
  type TestApp,
  type TestStore,
} from '../test/harness.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp({ workers: true });
});
after(() => t.close());

function codeOf(mail: ParsedMail): string {
  const match = /\b(\d{6})\b/.exec(mail.text ?? '');
  assert.ok(match, `a 6-digit code in: ${mail.text}`);
  return match[1]!;
}

async function signIn(shop: TestStore, email = shop.ownerEmail) {
  return t.app.inject({
    method: 'POST',
    url: '/admin/v1/auth/sign-in',
    payload: { storeSlug: shop.store.slug, email },
  });
}

async function verify(shop: TestStore, code: string, email = shop.ownerEmail) {
  return t.app.inject({
    method: 'POST',
    url: '/admin/v1/auth/verify',
    payload: { storeSlug: shop.store.slug, email, code },
  });
}

const session = (token: string) =>
  t.app.inject({
    method: 'GET',
    url: '/admin/v1/auth/session',
    headers: { authorization: `Bearer ${token}` },
  });

describe('staff sign-in by emailed code', () => {
  test('a code is mailed from the platform sender and exchanged once for a session', async () => {
    const shop = await createTestStore(t);
    const response = await signIn(shop, shop.ownerEmail.toUpperCase());
    assert.equal(response.statusCode, 202);
    const mail = await waitForMail(t, shop.ownerEmail);
    assert.equal(mail.from?.value[0]?.address, 'no-reply@storefront.test');
    assert.match(mail.subject ?? '', new RegExp(shop.store.name));
    const code = codeOf(mail);

    const verified = await verify(shop, code);
    assert.equal(verified.statusCode, 200, verified.body);
    const body = verified.json<{
      token: string;
      expiresAt: string;
      staff: { id: string; email: string; role: string };
    }>();
    assert.match(body.token, /^st_[0-9A-Za-z]{40}$/);
    assert.equal(body.staff.email, shop.ownerEmail);
    assert.equal(body.staff.role, 'owner');
    const ttl = Date.parse(body.expiresAt) - Date.now();
    assert.ok(ttl > 11.9 * 3600_000 && ttl <= 12 * 3600_000, `expires in 12 h (${ttl} ms)`);

    const me = await session(body.token);
    assert.equal(me.statusCode, 200);
    assert.equal(me.json<{ storeId: string }>().storeId, shop.store.id);

    const reused = await verify(shop, code);
    assert.equal(reused.statusCode, 401);
    assert.equal(reused.json<{ title: string }>().title, 'unauthorized');
  });

  test('the code is stored only as a hash', async () => {
    const shop = await createTestStore(t);
    await signIn(shop);
    const code = codeOf(await waitForMail(t, shop.ownerEmail));
    const rows = await t.db.kysely
      .selectFrom('sign_in_codes')
      .select('code_hash')
      .where('store_id', '=', shop.store.id)
      .execute();
    assert.equal(rows.length, 1);
    assert.ok(!rows[0]!.code_hash.includes(code));
    assert.match(rows[0]!.code_hash, /^[0-9a-f]{64}$/);
  });

  test('an unknown address still gets 202 and no mail is queued', async () => {
    const shop = await createTestStore(t);
    const response = await signIn(shop, 'stranger@example.com');
    assert.equal(response.statusCode, 202);
    assert.deepEqual(response.json(), { status: 'sent' });
    const unknownStore = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/auth/sign-in',
      payload: { storeSlug: 'no-such-store-xyz', email: shop.ownerEmail },
    });
    assert.equal(unknownStore.statusCode, 202);
    const queued = await t.db.kysely
      .selectFrom('mail_outbox')
      .select('id')
      .where('store_id', '=', shop.store.id)
      .execute();
    assert.equal(queued.length, 0);
  });

  test('a malformed address or code is 400', async () => {
    const shop = await createTestStore(t);
    const bad = await signIn(shop, 'not-an-email');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json<{ errors: { pointer: string }[] }>().errors[0]?.pointer, '/email');
    const badCode = await verify(shop, '12345');
    assert.equal(badCode.statusCode, 400);
  });

  test('a wrong code is 401 and the fifth wrong code voids the pending code', async () => {
    const shop = await createTestStore(t);
    await signIn(shop);
    const code = codeOf(await waitForMail(t, shop.ownerEmail));
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      const response = await verify(shop, wrong);
      assert.equal(response.statusCode, 401);
    }
    const late = await verify(shop, code);
    assert.equal(late.statusCode, 401, 'the right code no longer works after 5 wrong ones');
  });

  test('four wrong codes still leave the right one working', async () => {
    const shop = await createTestStore(t);
    await signIn(shop);
    const code = codeOf(await waitForMail(t, shop.ownerEmail));
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 4; i++) assert.equal((await verify(shop, wrong)).statusCode, 401);
    assert.equal((await verify(shop, code)).statusCode, 200);
  });

  test('a code expires after 10 minutes', async () => {
    const shop = await createTestStore(t);
    await signIn(shop);
    const code = codeOf(await waitForMail(t, shop.ownerEmail));
    t.clock.advance(10 * 60 * 1000 + 1000);
    try {
      assert.equal((await verify(shop, code)).statusCode, 401);
    } finally {
      t.clock.advance(-(10 * 60 * 1000 + 1000));
    }
  });

  test('a new code replaces the previous one', async () => {
    const shop = await createTestStore(t);
    await signIn(shop);
    const first = codeOf(await waitForMail(t, shop.ownerEmail));
    await signIn(shop);
    const second = codeOf(await waitForMail(t, shop.ownerEmail, 2));
    if (first !== second) assert.equal((await verify(shop, first)).statusCode, 401);
    assert.equal((await verify(shop, second)).statusCode, 200);
  });

  test('sign-out ends the session', async () => {
    const shop = await createTestStore(t);
    assert.equal((await session(shop.staffToken)).statusCode, 200);
    const out = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/auth/sign-out',
      headers: { authorization: `Bearer ${shop.staffToken}` },
    });
    assert.equal(out.statusCode, 204);
    assert.equal(out.body, '');
    assert.equal((await session(shop.staffToken)).statusCode, 401);
  });
});

describe('staff sessions', () => {
  test('missing, malformed and unknown tokens are 401 problem+json', async () => {
    const missing = await t.app.inject({ method: 'GET', url: '/admin/v1/auth/session' });
    assert.equal(missing.statusCode, 401);
    assert.match(String(missing.headers['content-type']), /problem\+json/);
    assert.equal((await session('st_nope')).statusCode, 401);
    assert.equal((await session(`st_${'a'.repeat(40)}`)).statusCode, 401);
    const shop = await createTestStore(t);
    assert.equal(
      (await session(shop.publishableKey)).statusCode,
      401,
      'a publishable key is not a staff token',
    );
  });

  test('a session expires after the TTL without use and slides with use', async () => {
    const shop = await createTestStore(t);
    try {
      t.clock.advance(11 * 3600_000);
      assert.equal((await session(shop.staffToken)).statusCode, 200, 'used after 11 h: slides');
      t.clock.advance(11 * 3600_000);
      assert.equal((await session(shop.staffToken)).statusCode, 200, 'still alive 22 h after creation');
      t.clock.advance(12 * 3600_000 + 1000);
      assert.equal((await session(shop.staffToken)).statusCode, 401, 'idle for more than 12 h: expired');
    } finally {
      t.clock.advance(-(34 * 3600_000 + 1000));
    }
  });

  test('admin responses are not cacheable', async () => {
    const shop = await createTestStore(t);
    assert.equal((await session(shop.staffToken)).headers['cache-control'], 'no-store');
  });
});

describe('staff management (owner only)', () => {
  const as = (token: string) => ({ authorization: `Bearer ${token}` });

  test('add, list, change role, remove; removing a member ends their sessions', async () => {
    const shop = await createTestStore(t);
    const added = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/staff',
      headers: as(shop.staffToken),
      payload: { email: 'Clerk@Example.com', role: 'staff' },
    });
    assert.equal(added.statusCode, 201, added.body);
    const clerk = added.json<{ id: string; email: string; role: string }>();
    assert.equal(clerk.email, 'clerk@example.com');

    const duplicate = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/staff',
      headers: as(shop.staffToken),
      payload: { email: 'clerk@example.com', role: 'admin' },
    });
    assert.equal(duplicate.statusCode, 409);

    const list = await t.app.inject({
      method: 'GET',
      url: '/admin/v1/staff?limit=1',
      headers: as(shop.staffToken),
    });
    const page1 = list.json<{ items: { email: string }[]; nextCursor: string }>();
    assert.equal(page1.items.length, 1);
    const page2 = (
      await t.app.inject({
        method: 'GET',
        url: `/admin/v1/staff?limit=1&cursor=${page1.nextCursor}`,
        headers: as(shop.staffToken),
      })
    ).json<{ items: { email: string }[]; nextCursor: string | null }>();
    assert.deepEqual(
      [...page1.items, ...page2.items].map((s) => s.email).sort(),
      ['clerk@example.com', shop.ownerEmail].sort(),
    );
    assert.equal(page2.nextCursor, null);

    // The clerk signs in; as staff they cannot manage staff.
    await signIn(shop, 'clerk@example.com');
    const token = (
      await verify(shop, codeOf(await waitForMail(t, 'clerk@example.com')), 'clerk@example.com')
    ).json<{ token: string }>().token;
    const forbidden = await t.app.inject({ method: 'GET', url: '/admin/v1/staff', headers: as(token) });
    assert.equal(forbidden.statusCode, 403);
    assert.equal(forbidden.json<{ title: string }>().title, 'forbidden');

    const promoted = await t.app.inject({
      method: 'PATCH',
      url: `/admin/v1/staff/${clerk.id}`,
      headers: as(shop.staffToken),
      payload: { role: 'admin' },
    });
    assert.equal(promoted.json<{ role: string }>().role, 'admin');
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/admin/v1/staff', headers: as(token) })).statusCode,
      403,
      'admin is not owner',
    );

    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/admin/v1/staff/${clerk.id}`,
      headers: as(shop.staffToken),
    });
    assert.equal(removed.statusCode, 204);
    assert.equal((await session(token)).statusCode, 401, 'the removed member is signed out');
  });

  test('the last owner cannot be removed or demoted', async () => {
    const shop = await createTestStore(t);
    const me = (await session(shop.staffToken)).json<{ staff: { id: string } }>().staff;
    const remove = await t.app.inject({
      method: 'DELETE',
      url: `/admin/v1/staff/${me.id}`,
      headers: as(shop.staffToken),
    });
    assert.equal(remove.statusCode, 409);
    assert.equal(remove.json<{ title: string }>().title, 'last_owner');
    const demote = await t.app.inject({
      method: 'PATCH',
      url: `/admin/v1/staff/${me.id}`,
      headers: as(shop.staffToken),
      payload: { role: 'admin' },
    });
    assert.equal(demote.statusCode, 409);
  });

  test("another store's staff id is 404", async () => {
    const a = await createTestStore(t);
    const b = await createTestStore(t);
    const bOwner = (await session(b.staffToken)).json<{ staff: { id: string } }>().staff;
    const response = await t.app.inject({
      method: 'GET',
      url: `/admin/v1/staff/${bOwner.id}`,
      headers: as(a.staffToken),
    });
    assert.equal(response.statusCode, 404);
    const removal = await t.app.inject({
      method: 'DELETE',
      url: `/admin/v1/staff/${bOwner.id}`,
      headers: as(a.staffToken),
    });
    assert.equal(removal.statusCode, 404);
  });

  test('unknown fields in an admin write are 400', async () => {
    const shop = await createTestStore(t);
    const response = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/staff',
      headers: as(shop.staffToken),
      payload: { email: 'x@example.com', role: 'staff', admin: true },
    });
    assert.equal(response.statusCode, 400);
  });
});

describe('mail over SMTP', () => {
  test('sign-in codes arrive at a real SMTP server; a failed delivery is retried, not lost', async () => {
    const received: ParsedMail[] = [];
    let rejectNext = true;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, _session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          if (rejectNext) {
            rejectNext = false;
            const error = Object.assign(new Error('try again later'), { responseCode: 451 });
            callback(error);
            return;
          }
          void simpleParser(Buffer.concat(chunks)).then((mail) => {
            received.push(mail);
            callback();
          });
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.server.address() as AddressInfo).port;
    const smtp = await startTestApp({
      workers: true,
      config: { emailTransport: { kind: 'smtp', url: `smtp://127.0.0.1:${port}` } },
    });
    try {
      const shop = await createTestStore(smtp);
      const response = await smtp.app.inject({
        method: 'POST',
        url: '/admin/v1/auth/sign-in',
        payload: { storeSlug: shop.store.slug, email: shop.ownerEmail },
      });
      assert.equal(response.statusCode, 202);
      const mail = await waitFor(
        () => received.find((m) => m.to && JSON.stringify(m.to).includes(shop.ownerEmail)),
        10_000,
        'SMTP mail',
      );
      assert.equal(mail.from?.value[0]?.address, 'no-reply@storefront.test');
      // The SMTP server accepts before the worker records the result: wait for the row to settle.
      const row = await waitFor(
        async () => {
          const found = await smtp.db.kysely
            .selectFrom('mail_outbox')
            .selectAll()
            .where('store_id', '=', shop.store.id)
            .executeTakeFirstOrThrow();
          return found.status === 'pending' ? undefined : found;
        },
        10_000,
        'outbox row settled',
      );
      assert.equal(row.status, 'sent');
      assert.equal(row.attempts, 2, 'the first attempt was refused and retried');
      const verified = await smtp.app.inject({
        method: 'POST',
        url: '/admin/v1/auth/verify',
        payload: { storeSlug: shop.store.slug, email: shop.ownerEmail, code: codeOf(mail) },
      });
      assert.equal(verified.statusCode, 200);
    } finally {
      await smtp.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  test('with the SMTP server down the request still answers 202 and the mail stays queued', async () => {
    const down = await startTestApp({
      workers: true,
      config: { emailTransport: { kind: 'smtp', url: 'smtp://127.0.0.1:1' }, mailRetryScheduleMs: [60_000] },
    });
    try {
      const shop = await createTestStore(down);
      const started = Date.now();
      const response = await down.app.inject({
        method: 'POST',
        url: '/admin/v1/auth/sign-in',
        payload: { storeSlug: shop.store.slug, email: shop.ownerEmail },
      });
      assert.equal(response.statusCode, 202);
      assert.ok(Date.now() - started < 2000);
      const row = await waitFor(
        async () => {
          const mail = await down.db.kysely
            .selectFrom('mail_outbox')
            .selectAll()
            .where('store_id', '=', shop.store.id)
            .executeTakeFirst();
          return mail && mail.attempts >= 1 && mail.locked_until === null ? mail : undefined;
        },
        10_000,
        'a failed attempt',
      );
      assert.equal(row.status, 'pending', 'kept for the next attempt');
      assert.ok(row.last_error);
    } finally {
      await down.close();
    }
  });
});
