/**
 * Gift cards, staff's side (decisions `gift-card-codes`, `gift-card-ledger`): issuing a card with its
 * code shown once and kept only hashed, the list and its last-4 filter, a card with its ledger, staff
 * changes and adjustments (never below 0), their events, and looking a card up by a typed code with
 * guesses limited per client.
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { MemoryCounterStore } from '../ratelimit/ratelimit.memory-store.ts';
import { clientActionRateLimit } from '../ratelimit/ratelimit.hook.ts';
import { RateLimiter } from '../ratelimit/ratelimit.limiter.ts';
import { ROOMY } from '../ratelimit/ratelimit.test-support.ts';
import { ok } from '../test/answers.ts';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../test/harness.ts';
import { CODE_ALPHABET, normalCode } from './gift-cards.codes.ts';
import { findCardByCode } from './gift-cards.ledger.ts';

let t: TestApp;
before(async () => (t = await startTestApp()));
after(() => t.close());

interface Money {
  amount: number;
  currency: string;
}
interface Card {
  id: string;
  last4: string;
  code?: string;
  initialAmount: Money;
  balance: Money;
  status: string;
  disabled: boolean;
  expiresAt: string | null;
  note: string | null;
  customerId: string | null;
  ledger?: { kind: string; amount: number; held: number; orderId: string | null; reason: string | null }[];
}

async function problem(response: Promise<{ statusCode: number; body: string }>, status: number) {
  const answer = await response;
  assert.equal(answer.statusCode, status, answer.body);
  return JSON.parse(answer.body) as { title: string; errors?: { pointer: string }[] };
}

async function eventsOf(shop: TestStore, cardId: string) {
  const rows = await t.deps.db
    .selectFrom('events')
    .select(['type', 'data'])
    .where('store_id', '=', shop.store.id)
    .where('resource_key', '=', `gift_card:${cardId}`)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ type: row.type, data: row.data }));
}

describe('gift cards (admin)', () => {
  test('issuing shows the code once and keeps only its hash and last 4; gift_card.issued in the same transaction', async () => {
    const shop = await createTestStore(t);
    const admin = t.admin(shop);
    const card = await ok<Card>(
      admin.post('/gift-cards', { initialAmount: 5000, currency: 'USD', note: 'Raffle prize' }),
      201,
    );
    assert.match(card.code!, new RegExp(`^[${CODE_ALPHABET}]{4}(-[${CODE_ALPHABET}]{4}){3}$`));
    assert.doesNotMatch(card.code!, /[01OI]/);
    assert.equal(card.last4, card.code!.slice(-4));
    assert.deepEqual(card.balance, { amount: 5000, currency: 'USD' });
    assert.deepEqual(
      [card.status, card.note, card.expiresAt, card.customerId],
      ['active', 'Raffle prize', null, null],
    );

    // The code is nowhere in the database: the row holds its SHA-256.
    const normal = card.code!.replaceAll('-', '');
    const { rows } = await sql<{
      row: string;
    }>`SELECT gift_cards::text AS row FROM gift_cards WHERE id = ${card.id}`.execute(t.deps.db);
    assert.equal(rows.length, 1);
    assert.ok(!rows[0]!.row.includes(normal) && !rows[0]!.row.includes(card.code!));
    assert.ok(rows[0]!.row.includes(createHash('sha256').update(`gift-card:${normal}`).digest('hex')));

    // Never shown again.
    const read = await ok<Card>(admin.get(`/gift-cards/${card.id}`));
    assert.equal(read.code, undefined);
    assert.deepEqual(
      read.ledger!.map((entry) => [entry.kind, entry.amount, entry.held]),
      [['issue', 5000, 0]],
    );
    const list = await ok<{ items: Card[] }>(admin.get('/gift-cards'));
    assert.ok(list.items.every((item) => item.code === undefined));

    assert.deepEqual(await eventsOf(shop, card.id), [
      {
        type: 'gift_card.issued',
        data: {
          storeId: shop.store.id,
          giftCardId: card.id,
          last4: card.last4,
          balance: { amount: 5000, currency: 'USD' },
        },
      },
    ]);
  });

  test('the list is newest first and finds cards by their last 4 in any case; another store sees none', async () => {
    const shop = await createTestStore(t);
    const admin = t.admin(shop);
    const first = await ok<Card>(admin.post('/gift-cards', { initialAmount: 100, currency: 'USD' }), 201);
    t.clock.advance(1000);
    const second = await ok<Card>(admin.post('/gift-cards', { initialAmount: 200, currency: 'USD' }), 201);
    const all = await ok<{ items: Card[] }>(admin.get('/gift-cards'));
    assert.deepEqual(
      all.items.map((item) => item.id),
      [second.id, first.id],
    );
    const found = await ok<{ items: Card[] }>(admin.get(`/gift-cards?last4=${first.last4.toLowerCase()}`));
    assert.ok(found.items.some((item) => item.id === first.id));
    assert.ok(found.items.every((item) => item.last4 === first.last4));
    await problem(admin.get('/gift-cards?last4=0000'), 400);
    const other = await createTestStore(t);
    assert.deepEqual((await ok<{ items: Card[] }>(t.admin(other).get('/gift-cards'))).items, []);
    await problem(t.admin(other).get(`/gift-cards/${first.id}`), 404);
  });

  test('bad input: a customer of no store, a past expiry, a zero or negative amount', async () => {
    const shop = await createTestStore(t);
    const admin = t.admin(shop);
    const unknown = await problem(
      admin.post('/gift-cards', { initialAmount: 100, currency: 'USD', customerId: randomUUID() }),
      400,
    );
    assert.deepEqual(
      unknown.errors?.map((e) => e.pointer),
      ['/customerId'],
    );
    const past = await problem(
      admin.post('/gift-cards', {
        initialAmount: 100,
        currency: 'USD',
        expiresAt: new Date(t.clock.now().getTime() - 1000).toISOString(),
      }),
      400,
    );
    assert.deepEqual(
      past.errors?.map((e) => e.pointer),
      ['/expiresAt'],
    );
    await problem(admin.post('/gift-cards', { initialAmount: 0, currency: 'USD' }), 400);
    await problem(admin.post('/gift-cards', { initialAmount: 100, currency: 'usd' }), 400);
    assert.deepEqual((await ok<{ items: Card[] }>(admin.get('/gift-cards'))).items, []);
  });

  test('staff changes and adjustments go into the card, its ledger and gift_card.updated; never below 0', async () => {
    const shop = await createTestStore(t);
    const admin = t.admin(shop);
    const card = await ok<Card>(admin.post('/gift-cards', { initialAmount: 1000, currency: 'USD' }), 201);
    const expiresAt = new Date(t.clock.now().getTime() + 60_000).toISOString();
    const changed = await ok<Card>(
      admin.patch(`/gift-cards/${card.id}`, {
        note: 'Apology for order 1042',
        expiresAt,
        adjustment: { amount: -250, reason: 'Spent in the shop' },
      }),
    );
    assert.deepEqual(
      [changed.balance.amount, changed.note, changed.expiresAt],
      [750, 'Apology for order 1042', expiresAt],
    );
    assert.deepEqual(
      changed.ledger!.map((entry) => [entry.kind, entry.amount, entry.reason]),
      [
        ['issue', 1000, null],
        ['adjust', -250, 'Spent in the shop'],
      ],
    );
    const overdraw = await problem(
      admin.patch(`/gift-cards/${card.id}`, {
        note: 'not kept',
        adjustment: { amount: -751, reason: 'Too much' },
      }),
      409,
    );
    assert.equal(overdraw.title, 'gift_card_balance_too_low');
    await problem(
      admin.patch(`/gift-cards/${card.id}`, { adjustment: { amount: 0, reason: 'Nothing' } }),
      400,
    );
    const disabled = await ok<Card>(admin.patch(`/gift-cards/${card.id}`, { disabled: true }));
    assert.deepEqual(
      [disabled.status, disabled.balance.amount, disabled.note],
      ['disabled', 750, 'Apology for order 1042'],
    );
    // The same values again change nothing and record nothing.
    await ok<Card>(admin.patch(`/gift-cards/${card.id}`, { disabled: true }));
    t.clock.advance(120_000);
    const enabled = await ok<Card>(admin.patch(`/gift-cards/${card.id}`, { disabled: false }));
    assert.equal(enabled.status, 'expired');

    const events = await eventsOf(shop, card.id);
    assert.deepEqual(
      events.map((event) => [event.type, event.data.changed, (event.data.balance as Money).amount]),
      [
        ['gift_card.issued', undefined, 1000],
        ['gift_card.updated', ['note', 'expiresAt', 'balance'], 750],
        ['gift_card.updated', ['disabled'], 750],
        ['gift_card.updated', ['disabled'], 750],
      ],
    );
    assert.ok(events.every((event) => !JSON.stringify(event.data).includes('Apology')));
  });

  test('staff may read gift cards; only admins issue or change them', async () => {
    const shop = await createTestStore(t);
    const card = await ok<Card>(
      t.admin(shop).post('/gift-cards', { initialAmount: 100, currency: 'USD' }),
      201,
    );
    await ok(t.admin(shop).post('/staff', { email: 'clerk@example.com', role: 'staff' }), 201);
    const { openStaffSession } = await import('../staff/staff.service.ts');
    const clerk = t.admin((await openStaffSession(t.deps, shop.store.id, 'clerk@example.com')).token);
    await ok(clerk.get(`/gift-cards/${card.id}`));
    await ok(clerk.get('/gift-cards'));
    await problem(clerk.post('/gift-cards', { initialAmount: 100, currency: 'USD' }), 403);
    await problem(
      clerk.patch(`/gift-cards/${card.id}`, { adjustment: { amount: 100, reason: 'Mine' } }),
      403,
    );
    assert.equal((await ok<Card>(clerk.get(`/gift-cards/${card.id}`))).balance.amount, 100);
  });
});

describe('finding a card by its code', () => {
  const limiter = () =>
    clientActionRateLimit(new RateLimiter({ ...ROOMY }, new MemoryCounterStore(), () => 0), 5, {
      name: 'gift-card-guess',
      what: 'gift card codes',
    });

  test('any case, spaces and dashes find the card; a wrong code, or another store’s, finds nothing', async () => {
    const shop = await createTestStore(t);
    const card = await ok<Card>(
      t.admin(shop).post('/gift-cards', { initialAmount: 700, currency: 'USD' }),
      201,
    );
    const deps = { db: t.deps.db, limitGuess: limiter() };
    const who = { storeId: shop.store.id, client: '203.0.113.7', now: t.clock.now() };
    const typed = ` ${card.code!.toLowerCase().replaceAll('-', ' ')} `;
    assert.equal(normalCode(typed), card.code!.replaceAll('-', ''));
    const found = await findCardByCode(deps, who, typed);
    assert.deepEqual([found?.id, found?.balance.amount], [card.id, 700]);
    assert.equal((await findCardByCode(deps, who, card.code!.replaceAll('-', '')))?.id, card.id);
    const wrong = `${card.code!.slice(0, -1)}${card.code!.endsWith('2') ? '3' : '2'}`;
    assert.equal(await findCardByCode(deps, who, wrong), null);
    assert.equal(await findCardByCode(deps, who, 'not a code'), null);
    const other = await createTestStore(t);
    assert.equal(await findCardByCode(deps, { ...who, storeId: other.store.id }, card.code!), null);
  });

  test('each client has a budget of guesses per store: past it, 429 even for the right code; others go on', async () => {
    const shop = await createTestStore(t);
    const card = await ok<Card>(
      t.admin(shop).post('/gift-cards', { initialAmount: 700, currency: 'USD' }),
      201,
    );
    const deps = { db: t.deps.db, limitGuess: limiter() };
    const who = { storeId: shop.store.id, client: '198.51.100.9', now: t.clock.now() };
    for (let i = 0; i < 5; i++)
      assert.equal(await findCardByCode(deps, who, `AAAA-BBBB-CCCC-DDD${i + 2}`), null);
    await assert.rejects(
      findCardByCode(deps, who, card.code!),
      (error: { title?: string; status?: number }) => {
        assert.deepEqual([error.title, error.status], ['rate_limited', 429]);
        return true;
      },
    );
    assert.equal((await findCardByCode(deps, { ...who, client: '198.51.100.10' }, card.code!))?.id, card.id);
  });
});
