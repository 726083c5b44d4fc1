/**
 * Promotions (decision `promotions-resource`): CRUD through the Admin API, validation
 * at each field's pointer, the code's uniqueness whatever its case, events in the write's
 * transaction, roles, and discount codes of the old endpoints as code promotions (decision
 * `discount-codes-are-promotions`).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { openStaffSession } from '../staff/staff.service.ts';
import { ok } from '../test/answers.ts';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../test/harness.ts';
import type { Promotion } from './promotions.schemas.ts';

let t: TestApp;
before(async () => (t = await startTestApp()));
after(() => t.close());

async function problem(
  response: Promise<{ statusCode: number; body: string }>,
  status: number,
): Promise<{ title: string; pointers: string[] }> {
  const answer = await response;
  assert.equal(answer.statusCode, status, answer.body);
  const body = JSON.parse(answer.body) as { title: string; errors?: { pointer: string }[] };
  return { title: body.title, pointers: [...new Set((body.errors ?? []).map((error) => error.pointer))] };
}

async function eventsOf(shop: TestStore): Promise<[string, unknown][]> {
  const rows = await t.db.kysely
    .selectFrom('events')
    .select(['type', 'data'])
    .where('store_id', '=', shop.store.id)
    .where('type', 'like', 'promotion.%')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => {
    const { promotionId, code } = row.data as { promotionId: string; code: string | null };
    return [row.type, { promotionId, code }];
  });
}

const productId = randomUUID();

describe('promotions', () => {
  test('create, read, list, change and delete, each with its event', async () => {
    const shop = await createTestStore(t);
    const admin = t.admin(shop);
    const summer = await ok<Promotion>(
      admin.post('/promotions', {
        name: 'Summer sale',
        code: 'summer-12',
        conditions: { minSubtotal: 5000, productIds: [productId], marketIds: [] },
        action: { kind: 'percent', value: 12.5, target: 'items' },
        combinesWith: { shipping: true },
        startsAt: '2026-06-01T00:00:00.000Z',
        endsAt: '2026-09-01T00:00:00.000Z',
        usageLimit: 100,
        perCustomerLimit: 1,
      }),
      201,
    );
    assert.deepEqual(
      { ...summer, id: undefined, createdAt: undefined, updatedAt: undefined },
      {
        id: undefined,
        name: 'Summer sale',
        code: 'SUMMER-12',
        automatic: false,
        conditions: { minSubtotal: 5000, productIds: [productId] },
        action: { kind: 'percent', target: 'items', value: 12.5 },
        combinesWith: { order: false, items: false, shipping: true },
        startsAt: '2026-06-01T00:00:00.000Z',
        endsAt: '2026-09-01T00:00:00.000Z',
        usageLimit: 100,
        perCustomerLimit: 1,
        usedCount: 0,
        createdAt: undefined,
        updatedAt: undefined,
      },
    );
    const stored = await t.db.kysely
      .selectFrom('promotions')
      .select('action')
      .where('id', '=', summer.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      stored.action,
      { kind: 'percent', target: 'items', bps: 1250 },
      'stored in basis points',
    );

    const free = await ok<Promotion>(
      admin.post('/promotions', {
        name: 'Free shipping over $100',
        automatic: true,
        conditions: { minSubtotal: 10000 },
        action: { kind: 'free_shipping' },
        combinesWith: { order: true, items: true },
      }),
      201,
    );
    assert.deepEqual([free.code, free.automatic, free.action], [null, true, { kind: 'free_shipping' }]);
    const bogo = await ok<Promotion>(
      admin.post('/promotions', {
        name: 'Buy 2 get 1 free',
        code: 'B2G1',
        action: { kind: 'buy_x_get_y', buy: { quantity: 2 }, get: { quantity: 1, percent: 100 } },
      }),
      201,
    );
    assert.deepEqual(bogo.action, {
      kind: 'buy_x_get_y',
      buy: { quantity: 2 },
      get: { quantity: 1, percent: 100 },
    });

    assert.deepEqual(await ok<Promotion>(admin.get(`/promotions/${summer.id}`)), summer);
    const first = await ok<{ items: Promotion[]; nextCursor: string | null }>(
      admin.get('/promotions?limit=2'),
    );
    assert.deepEqual(
      first.items.map((p) => p.name),
      ['Summer sale', 'Free shipping over $100'],
    );
    const second = await ok<{ items: Promotion[]; nextCursor: string | null }>(
      admin.get(`/promotions?limit=2&cursor=${encodeURIComponent(first.nextCursor!)}`),
    );
    assert.deepEqual([second.items.map((p) => p.name), second.nextCursor], [['Buy 2 get 1 free'], null]);

    t.clock.advance(1000);
    const changed = await ok<Promotion>(
      admin.patch(`/promotions/${summer.id}`, {
        name: 'Late summer',
        action: { kind: 'amount', value: 500 },
        endsAt: null,
        perCustomerLimit: null,
      }),
    );
    assert.deepEqual(
      [
        changed.name,
        changed.code,
        changed.action,
        changed.endsAt,
        changed.perCustomerLimit,
        changed.usageLimit,
      ],
      ['Late summer', 'SUMMER-12', { kind: 'amount', target: 'order', value: 500 }, null, null, 100],
    );
    assert.deepEqual(changed.conditions, summer.conditions, 'what the change leaves out stays');
    assert.notEqual(changed.updatedAt, summer.updatedAt);
    const automatic = await ok<Promotion>(admin.patch(`/promotions/${bogo.id}`, { automatic: true }));
    assert.deepEqual(
      [automatic.code, automatic.automatic],
      [null, true],
      'made automatic, it drops its code',
    );

    const gone = await admin.delete(`/promotions/${free.id}`);
    assert.equal(gone.statusCode, 204, gone.body);
    await problem(admin.get(`/promotions/${free.id}`), 404);
    await problem(admin.delete(`/promotions/${free.id}`), 404);
    await problem(admin.patch(`/promotions/${free.id}`, { name: 'x' }), 404);

    assert.deepEqual(await eventsOf(shop), [
      ['promotion.created', { promotionId: summer.id, code: 'SUMMER-12' }],
      ['promotion.created', { promotionId: free.id, code: null }],
      ['promotion.created', { promotionId: bogo.id, code: 'B2G1' }],
      ['promotion.updated', { promotionId: summer.id, code: 'SUMMER-12' }],
      ['promotion.updated', { promotionId: bogo.id, code: null }],
      ['promotion.deleted', { promotionId: free.id, code: null }],
    ]);
  });

  test('a code is unique in the store whatever its case: 409 at /code, and no event', async () => {
    const shop = await createTestStore(t);
    const admin = t.admin(shop);
    const body = { name: 'Ten off', code: 'Ten', action: { kind: 'amount', value: 1000 } };
    const ten = await ok<Promotion>(admin.post('/promotions', body), 201);
    const taken = await problem(admin.post('/promotions', { ...body, code: 'TEN' }), 409);
    assert.deepEqual([taken.title, taken.pointers], ['promotion_code_exists', ['/code']]);
    const other = await ok<Promotion>(admin.post('/promotions', { ...body, code: 'eleven' }), 201);
    const clash = await problem(admin.patch(`/promotions/${other.id}`, { code: 'ten' }), 409);
    assert.deepEqual([clash.title, clash.pointers], ['promotion_code_exists', ['/code']]);
    const viaOld = await problem(admin.post('/discounts', { code: 'ten', kind: 'fixed', value: 5 }), 409);
    assert.equal(viaOld.title, 'discount_exists', 'the old endpoint answers as it did');
    assert.equal((await eventsOf(shop)).length, 2);
    assert.equal((await ok<Promotion>(admin.get(`/promotions/${ten.id}`))).code, 'TEN');
    // Another store may use the same code.
    await ok(t.admin(await createTestStore(t)).post('/promotions', body), 201);
  });

  test('validation: 400 at each field’s pointer', async () => {
    const admin = t.admin(await createTestStore(t));
    const cases: [Record<string, unknown>, string[]][] = [
      [{ name: 'P', code: 'A', action: { kind: 'percent' } }, ['/action/value']],
      [{ name: 'P', code: 'A', action: { kind: 'percent', value: 100.5 } }, ['/action/value']],
      [{ name: 'P', code: 'A', action: { kind: 'percent', value: 12.345 } }, ['/action/value']],
      [{ name: 'P', code: 'A', action: { kind: 'amount', value: 9.5 } }, ['/action/value']],
      [
        { name: 'P', code: 'A', action: { kind: 'free_shipping', value: 5, target: 'order' } },
        ['/action/value', '/action/target'],
      ],
      [{ name: 'P', code: 'A', action: { kind: 'buy_x_get_y', buy: { quantity: 2 } } }, ['/action/get']],
      [
        { name: 'P', code: 'A', action: { kind: 'buy_x_get_y', buy: { quantity: 2 }, get: { quantity: 1 } } },
        ['/action/get/percent'],
      ],
      [
        { name: 'P', code: 'A', action: { kind: 'percent', value: 10, buy: { quantity: 1 } } },
        ['/action/buy'],
      ],
      [{ name: 'P', action: { kind: 'amount', value: 5 } }, ['/code']],
      [{ name: 'P', code: 'A', automatic: true, action: { kind: 'amount', value: 5 } }, ['/code']],
      [
        {
          name: 'P',
          code: 'A',
          action: { kind: 'amount', value: 5 },
          startsAt: '2026-02-01T00:00:00Z',
          endsAt: '2026-01-01T00:00:00Z',
        },
        ['/endsAt'],
      ],
      [{ name: 'P', code: 'not a code!', action: { kind: 'amount', value: 5 } }, ['/code']],
      [{ name: ' ', code: 'A', action: { kind: 'amount', value: 5 } }, ['/name']],
      [{ name: 'P', code: 'A', action: { kind: 'amount', value: 5 }, usageLimit: 0 }, ['/usageLimit']],
      [
        { name: 'P', code: 'A', action: { kind: 'amount', value: 5 }, conditions: { productIds: ['x'] } },
        ['/conditions/productIds/0'],
      ],
      [
        { name: 'P', code: 'A', action: { kind: 'amount', value: 5 }, combinesWith: { everything: true } },
        ['/combinesWith'],
      ],
    ];
    for (const [body, pointers] of cases) {
      const answer = await problem(admin.post('/promotions', body), 400);
      assert.deepEqual(
        pointers.every((pointer) => answer.pointers.some((p) => p.startsWith(pointer))),
        true,
        `${JSON.stringify(body)} → ${JSON.stringify(answer.pointers)}`,
      );
    }
    const one = await ok<Promotion>(
      admin.post('/promotions', { name: 'P', code: 'A', action: { kind: 'amount', value: 5 } }),
      201,
    );
    const patched = await problem(
      admin.patch(`/promotions/${one.id}`, { action: { kind: 'percent', value: 0 } }),
      400,
    );
    assert.deepEqual(patched.pointers, ['/action/value']);
    assert.equal(
      (await ok<{ items: unknown[] }>(admin.get('/promotions'))).items.length,
      1,
      'nothing bad was stored',
    );
  });

  test('staff read promotions; writing them is an admin’s', async () => {
    const shop = await createTestStore(t);
    const admin = t.admin(shop);
    const promotion = await ok<Promotion>(
      admin.post('/promotions', { name: 'P', code: 'P', action: { kind: 'amount', value: 5 } }),
      201,
    );
    const invited = await ok<{ email: string }>(
      admin.post('/staff', { email: `clerk-${randomUUID().slice(0, 6)}@example.com`, role: 'staff' }),
      201,
    );
    const clerk = t.admin((await openStaffSession(t.deps, shop.store.id, invited.email)).token);
    assert.equal((await ok<{ items: Promotion[] }>(clerk.get('/promotions'))).items[0]!.id, promotion.id);
    await ok(clerk.get(`/promotions/${promotion.id}`));
    await problem(
      clerk.post('/promotions', { name: 'Q', code: 'Q', action: { kind: 'amount', value: 5 } }),
      403,
    );
    await problem(clerk.patch(`/promotions/${promotion.id}`, { name: 'Q' }), 403);
    await problem(clerk.delete(`/promotions/${promotion.id}`), 403);
  });
});

describe('discount codes are promotions', () => {
  test('a code made by POST /discounts is a promotion; the old list shows only what a discount code can say', async () => {
    const shop = await createTestStore(t);
    const admin = t.admin(shop);
    const old = await ok<{ id: string; code: string; kind: string; value: number }>(
      admin.post('/discounts', { code: 'welcome', kind: 'percent', value: 15, usageLimit: 5 }),
      201,
    );
    const fixed = await ok<{ id: string }>(
      admin.post('/discounts', { code: 'fiver', kind: 'fixed', value: 500 }),
      201,
    );
    const asPromotion = await ok<Promotion>(admin.get(`/promotions/${old.id}`));
    assert.deepEqual(
      [
        asPromotion.name,
        asPromotion.code,
        asPromotion.action,
        asPromotion.combinesWith,
        asPromotion.usageLimit,
      ],
      [
        'WELCOME',
        'WELCOME',
        { kind: 'percent', target: 'order', value: 15 },
        { order: false, items: false, shipping: false },
        5,
      ],
    );
    // Promotions a discount code cannot say stay out of the old list (and the old checkout path).
    await ok(
      admin.post('/promotions', { name: 'Auto', automatic: true, action: { kind: 'percent', value: 10 } }),
      201,
    );
    await ok(
      admin.post('/promotions', { name: 'Half', code: 'HALFPCT', action: { kind: 'percent', value: 12.5 } }),
      201,
    );
    const items = await ok<Promotion>(
      admin.post('/promotions', {
        name: 'Items',
        code: 'ITEMS',
        conditions: { minQuantity: 2 },
        action: { kind: 'amount', value: 100 },
      }),
      201,
    );
    const plain = await ok<Promotion>(
      admin.post('/promotions', { name: 'Plain', code: 'plain', action: { kind: 'amount', value: 250 } }),
      201,
    );
    const list = await ok<{ items: { id: string; code: string; kind: string; value: number }[] }>(
      admin.get('/discounts'),
    );
    assert.deepEqual(
      list.items.map((d) => [d.code, d.kind, d.value]),
      [
        ['WELCOME', 'percent', 15],
        ['FIVER', 'fixed', 500],
        ['PLAIN', 'fixed', 250],
      ],
    );
    await problem(admin.delete(`/discounts/${items.id}`), 404);
    assert.equal((await admin.delete(`/discounts/${fixed.id}`)).statusCode, 204);
    await problem(admin.get(`/promotions/${fixed.id}`), 404);
    assert.equal((await admin.delete(`/promotions/${plain.id}`)).statusCode, 204);
    const events = await eventsOf(shop);
    assert.deepEqual(events[0], ['promotion.created', { promotionId: old.id, code: 'WELCOME' }]);
    assert.deepEqual(events.at(-2), ['promotion.deleted', { promotionId: fixed.id, code: 'FIVER' }]);
  });
});
