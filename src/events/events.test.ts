import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestStore, startTestApp, type TestApp } from '../test/harness.ts';
import { EVENT_TYPES, listEvents, recordEvent } from './events.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

describe('recordEvent', () => {
  test('the ten event types of the spec, then those it adds (decision `event-types`)', () => {
    assert.deepEqual(EVENT_TYPES.slice(10), [
      'fulfillment.created',
      'fulfillment.updated',
      'order.cancelled',
      'return.created',
      'customer.created',
      'customer.updated',
      'customer.deleted',
      'promotion.created',
      'promotion.updated',
      'promotion.deleted',
      'gift_card.issued',
      'gift_card.updated',
      'import.completed',
      'draft_order.created',
      'draft_order.updated',
      'draft_order.completed',
    ]);
    assert.equal(EVENT_TYPES.length, 26);
  });

  test('writes the event in the caller transaction, with storeId in data', async () => {
    const { store } = await createTestStore(t);
    const event = await t.db.kysely.transaction().execute((trx) =>
      recordEvent(trx, {
        storeId: store.id,
        type: 'theme.published',
        resource: 'theme',
        data: { themeId: 'x' },
      }),
    );
    assert.deepEqual(event.data, { themeId: 'x', storeId: store.id });
    const events = await listEvents(t.db.kysely, store.id);
    assert.deepEqual(
      events.map((e) => [e.id, e.type, e.data]),
      [[event.id, 'theme.published', { themeId: 'x', storeId: store.id }]],
    );
  });

  test('a rolled-back transaction leaves no event', async () => {
    const { store } = await createTestStore(t);
    await assert.rejects(
      t.db.kysely.transaction().execute(async (trx) => {
        await recordEvent(trx, { storeId: store.id, type: 'app.installed', resource: 'app:a', data: {} });
        throw new Error('rollback');
      }),
      /rollback/,
    );
    assert.deepEqual(await listEvents(t.db.kysely, store.id), []);
  });

  test('undelivered events can be claimed with FOR UPDATE SKIP LOCKED and a lease', async () => {
    const { store } = await createTestStore(t);
    await t.db.kysely.transaction().execute(async (trx) => {
      for (let i = 0; i < 3; i++)
        await recordEvent(trx, {
          storeId: store.id,
          type: 'content.updated',
          resource: `content:test:${i}`,
          data: { i },
        });
    });
    const claimed = await t.db.kysely.transaction().execute(async (trx) => {
      const rows = await trx
        .selectFrom('events')
        .select('id')
        .where('store_id', '=', store.id)
        .where('dispatched_at', 'is', null)
        .orderBy('seq')
        .limit(2)
        .forUpdate()
        .skipLocked()
        .execute();
      await trx
        .updateTable('events')
        .set({ locked_until: new Date(Date.now() + 30_000) })
        .where(
          'id',
          'in',
          rows.map((r) => r.id),
        )
        .execute();
      return rows;
    });
    assert.equal(claimed.length, 2);
  });
});
