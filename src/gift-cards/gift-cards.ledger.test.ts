/**
 * The ledger the checkout will call (decision `gift-card-ledger`), each function in the caller's
 * transaction: holds that never overdraw (also when two race for one card's whole balance),
 * commits, releases, refunds back to the cards an order spent, and the events of balance moves.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { ok } from '../test/answers.ts';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../test/harness.ts';
import { commit, refundToCards, release, reserve } from './gift-cards.ledger.ts';
import { findCard } from './gift-cards.repository.ts';

let t: TestApp;
before(async () => (t = await startTestApp()));
after(() => t.close());

interface Card {
  id: string;
  balance: { amount: number };
  ledger: { kind: string; amount: number; held: number; orderId: string | null }[];
}

async function issue(shop: TestStore, amount: number, extra: Record<string, unknown> = {}): Promise<string> {
  const card = await ok<{ id: string }>(
    t.admin(shop).post('/gift-cards', { initialAmount: amount, currency: 'USD', ...extra }),
    201,
  );
  return card.id;
}

const read = (shop: TestStore, cardId: string) => ok<Card>(t.admin(shop).get(`/gift-cards/${cardId}`));

function hold(shop: TestStore, cardId: string, orderId: string, amount: number, currency = 'USD') {
  return t.deps.db
    .transaction()
    .execute((trx) =>
      reserve(trx, { storeId: shop.store.id, cardId, orderId, amount, currency, now: t.clock.now() }),
    );
}

const order = (shop: TestStore, orderId: string) => ({ storeId: shop.store.id, orderId, now: t.clock.now() });

describe('gift card ledger', () => {
  test('a hold takes from the balance; commit spends it, the balance stays; refunds go back to the card', async () => {
    const shop = await createTestStore(t);
    const cardId = await issue(shop, 5000);
    const orderId = randomUUID();
    const held = await hold(shop, cardId, orderId, 3000);
    assert.equal(held.balance.amount, 2000);
    assert.equal(await t.deps.db.transaction().execute((trx) => commit(trx, order(shop, orderId))), 3000);
    // Committing again spends nothing more.
    assert.equal(await t.deps.db.transaction().execute((trx) => commit(trx, order(shop, orderId))), 0);
    assert.equal((await read(shop, cardId)).balance.amount, 2000);
    // A refund of more than the cards paid: the cards get what they paid, the rest is the provider's.
    const first = await t.deps.db
      .transaction()
      .execute((trx) => refundToCards(trx, { ...order(shop, orderId), amount: 1000 }));
    const second = await t.deps.db
      .transaction()
      .execute((trx) => refundToCards(trx, { ...order(shop, orderId), amount: 4000 }));
    assert.deepEqual([first, second], [1000, 2000]);
    const card = await read(shop, cardId);
    assert.equal(card.balance.amount, 5000);
    assert.deepEqual(
      card.ledger.map((entry) => [entry.kind, entry.amount, entry.held, entry.orderId]),
      [
        ['issue', 5000, 0, null],
        ['reserve', -3000, 3000, orderId],
        ['commit', 0, -3000, orderId],
        ['refund', 1000, 0, orderId],
        ['refund', 2000, 0, orderId],
      ],
    );
    // The balance is the ledger's sum.
    assert.equal(
      card.ledger.reduce((sum, entry) => sum + entry.amount, 0),
      card.balance.amount,
    );
  });

  test('release gives an unpaid order’s holds back, once; a released order commits nothing', async () => {
    const shop = await createTestStore(t);
    const a = await issue(shop, 1000);
    const b = await issue(shop, 800);
    const orderId = randomUUID();
    await t.deps.db.transaction().execute(async (trx) => {
      const now = t.clock.now();
      await reserve(trx, { storeId: shop.store.id, cardId: a, orderId, amount: 1000, currency: 'USD', now });
      await reserve(trx, { storeId: shop.store.id, cardId: b, orderId, amount: 300, currency: 'USD', now });
    });
    assert.deepEqual([(await read(shop, a)).balance.amount, (await read(shop, b)).balance.amount], [0, 500]);
    assert.equal(await t.deps.db.transaction().execute((trx) => release(trx, order(shop, orderId))), 1300);
    assert.equal(await t.deps.db.transaction().execute((trx) => release(trx, order(shop, orderId))), 0);
    assert.equal(await t.deps.db.transaction().execute((trx) => commit(trx, order(shop, orderId))), 0);
    assert.equal(
      await t.deps.db
        .transaction()
        .execute((trx) => refundToCards(trx, { ...order(shop, orderId), amount: 500 })),
      0,
    );
    assert.deepEqual(
      [(await read(shop, a)).balance.amount, (await read(shop, b)).balance.amount],
      [1000, 800],
    );
    const events = await t.deps.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('store_id', '=', shop.store.id)
      .where('resource_key', '=', `gift_card:${a}`)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    assert.deepEqual(
      events.map((event) => [
        event.type,
        (event.data as unknown as { balance: { amount: number } }).balance.amount,
      ]),
      [
        ['gift_card.issued', 1000],
        ['gift_card.updated', 0],
        ['gift_card.updated', 1000],
      ],
    );
  });

  test('a hold never overdraws, nor pays from a disabled or expired card or in another currency; the transaction rolls back', async () => {
    const shop = await createTestStore(t);
    const cardId = await issue(shop, 1000, {
      expiresAt: new Date(t.clock.now().getTime() + 60_000).toISOString(),
    });
    const refused = async (promise: Promise<unknown>) =>
      assert.rejects(promise, (error: { title?: string }) => error.title === 'gift_card_balance_too_low');
    await refused(hold(shop, cardId, randomUUID(), 1001));
    await refused(hold(shop, cardId, randomUUID(), 500, 'EUR'));
    await assert.rejects(hold(shop, cardId, randomUUID(), 0), RangeError);
    // A hold that succeeds in a transaction that fails later leaves nothing.
    await assert.rejects(
      t.deps.db.transaction().execute(async (trx) => {
        await reserve(trx, {
          storeId: shop.store.id,
          cardId,
          orderId: randomUUID(),
          amount: 400,
          currency: 'USD',
          now: t.clock.now(),
        });
        throw new Error('the checkout failed after the hold');
      }),
      /checkout failed/,
    );
    assert.deepEqual(
      (await read(shop, cardId)).ledger.map((entry) => entry.kind),
      ['issue'],
    );
    await ok(t.admin(shop).patch(`/gift-cards/${cardId}`, { disabled: true }));
    await refused(hold(shop, cardId, randomUUID(), 10));
    await ok(t.admin(shop).patch(`/gift-cards/${cardId}`, { disabled: false }));
    assert.equal((await hold(shop, cardId, randomUUID(), 10)).balance.amount, 990);
    t.clock.advance(120_000);
    await refused(hold(shop, cardId, randomUUID(), 10));
    const row = await findCard(t.deps.db, shop.store.id, cardId);
    assert.equal(row?.balance, 990);
  });

  test('race: two checkouts hold one card’s whole balance at once: exactly one succeeds', async () => {
    const shop = await createTestStore(t);
    for (let round = 0; round < 5; round++) {
      const cardId = await issue(shop, 2500);
      const checkout = () =>
        t.deps.db.transaction().execute(async (trx) => {
          // Each reads the card first (as a checkout does: on PostgreSQL both see 2500), waits,
          // then holds the whole balance.
          assert.ok(await findCard(trx, shop.store.id, cardId));
          await sleep(20);
          const orderId = randomUUID();
          await reserve(trx, {
            storeId: shop.store.id,
            cardId,
            orderId,
            amount: 2500,
            currency: 'USD',
            now: t.clock.now(),
          });
          await sleep(20);
          return orderId;
        });
      const results = await Promise.allSettled([checkout(), checkout()]);
      const won = results.filter((result) => result.status === 'fulfilled');
      const lost = results.filter((result) => result.status === 'rejected');
      assert.equal(won.length, 1, JSON.stringify(results));
      assert.equal((lost[0]!.reason as { title?: string }).title, 'gift_card_balance_too_low');
      const card = await read(shop, cardId);
      assert.equal(card.balance.amount, 0);
      assert.deepEqual(
        card.ledger.map((entry) => [entry.kind, entry.amount, entry.orderId]),
        [
          ['issue', 2500, null],
          ['reserve', -2500, (won[0] as PromiseFulfilledResult<string>).value],
        ],
      );
    }
  });
});
