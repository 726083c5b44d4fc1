/**
 * Draft orders, staff's side (decision `draft-orders`): the resource with its validation (every bad
 * field at its pointer, nothing written), the list, changes and deletion of an open draft, the
 * customer of an email, tenant isolation, the events of each change in its transaction, and a
 * completion with a manual payment: a paid order at once, idempotent, one order per draft.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ok } from '../test/answers.ts';
import {
  eventsOf as eventsOfIn,
  problem,
  stock as stockIn,
  type Draft,
  type Placed,
} from './draft-orders.test-support.ts';
import { US_ADDRESS } from '../test/addresses.ts';
import { createVariants } from '../test/catalog.ts';
import { createTestStore, startTestApp, waitFor, type TestApp, type TestStore } from '../test/harness.ts';

let t: TestApp;
before(async () => (t = await startTestApp({ workers: true })));
after(() => t.close());

const eventsOf = (shop: TestStore, resource: string) => eventsOfIn(t, shop, resource);
const stock = (variantId: string) => stockIn(t, variantId);

const complete = (shop: TestStore, id: string, key: string = randomUUID()) =>
  t.admin(shop).post(`/draft-orders/${id}/complete`, { payment: 'manual' }, { 'idempotency-key': key });

describe('draft orders (admin)', () => {
  test('create with an email: its customer made as a guest, priced now; draft_order.created in the same transaction', async () => {
    const shop = await createTestStore(t);
    const [mug] = await createVariants(t, shop, [{ price: 1200 }]);
    const email = `Buyer-${randomUUID().slice(0, 6)}@Example.com`;
    const draft = await ok<Draft>(
      t.admin(shop).post('/draft-orders', {
        email,
        lines: [
          { variantId: mug, quantity: 2 },
          { title: 'Gift wrap', unitPrice: 300, quantity: 1, requiresShipping: false },
        ],
        note: 'Call before delivery',
      }),
      201,
    );
    assert.equal(draft.status, 'open');
    assert.equal(draft.email, email.toLowerCase());
    assert.deepEqual(draft.totals.subtotal, { amount: 2700, currency: 'USD' });
    assert.deepEqual(
      draft.lines.map((line) => [line.variantId, line.custom, line.quantity]),
      [
        [mug, false, 2],
        [null, true, 1],
      ],
    );
    const customer = await ok<{ id: string; email: string }>(
      t.admin(shop).get(`/customers/${draft.customerId}`),
    );
    assert.equal(customer.email, email.toLowerCase());
    assert.deepEqual(await eventsOf(shop, `draft_order:${draft.id}`), [
      {
        type: 'draft_order.created',
        data: { storeId: shop.store.id, draftOrderId: draft.id, status: 'open', orderId: null },
      },
    ]);
    // Nothing is held while a draft is open.
    assert.deepEqual(await stock(mug!), { on_hand: 100, reserved: 0 });
  });

  test('validation: every bad field at its pointer, and nothing written', async () => {
    const shop = await createTestStore(t);
    const [mug] = await createVariants(t, shop, [{ price: 1200 }]);
    const admin = t.admin(shop);
    const bad = await problem(
      admin.post('/draft-orders', {
        email: 'not-an-email',
        lines: [
          { variantId: mug, quantity: 1 },
          { variantId: mug, quantity: 2 },
          { variantId: randomUUID(), quantity: 1 },
          { title: 'Custom', unitPrice: 100, quantity: 1, taxClass: 'luxury' },
        ],
        shippingAddress: { ...US_ADDRESS, postalCode: 'nope' },
        shippingMethodId: randomUUID(),
        customShipping: { title: 'Courier', amount: 500 },
        discount: { kind: 'percent', value: 120, reason: 'Too much' },
        reserveUntil: '2001-01-01T00:00:00Z',
      }),
      400,
      'validation_failed',
    );
    assert.deepEqual((bad.errors ?? []).map((error) => error.pointer).sort(), [
      '/customShipping',
      '/discount/value',
      '/email',
      '/lines/1/variantId',
      '/reserveUntil',
      '/shippingAddress/postalCode',
    ]);
    // Past the shape: a variant not sold, an unknown tax class, another store's customer.
    const other = await createTestStore(t);
    const stranger = await ok<Draft>(
      t.admin(other).post('/draft-orders', {
        email: 'x@example.com',
        lines: [{ title: 'A', unitPrice: 1, quantity: 1 }],
      }),
      201,
    );
    const refs = await problem(
      admin.post('/draft-orders', {
        customerId: stranger.customerId,
        lines: [
          { variantId: randomUUID(), quantity: 1 },
          { title: 'Custom', unitPrice: 100, quantity: 1, taxClass: 'luxury' },
        ],
      }),
      400,
      'validation_failed',
    );
    assert.deepEqual((refs.errors ?? []).map((error) => error.pointer).sort(), [
      '/customerId',
      '/lines/0/variantId',
      '/lines/1/taxClass',
    ]);
    await problem(
      admin.post('/draft-orders', { email: 'a@example.com', lines: [] }),
      400,
      'validation_failed',
    );
    await problem(
      admin.post('/draft-orders', {
        email: 'a@example.com',
        lines: [{ variantId: mug, quantity: 1, extra: 1 }],
      }),
      400,
      'validation_failed',
    );
    await problem(
      admin.post('/draft-orders', {
        email: 'a@example.com',
        lines: [{ variantId: mug, quantity: 1, unitPrice: 1.5 }],
      }),
      400,
      'validation_failed',
    );
    const list = await ok<{ items: unknown[] }>(admin.get('/draft-orders'));
    assert.equal(list.items.length, 0);
  });

  test('list newest first with cursors and a status filter; change and delete an open draft', async () => {
    const shop = await createTestStore(t);
    const admin = t.admin(shop);
    const made: Draft[] = [];
    for (let i = 0; i < 3; i++)
      made.push(
        await ok<Draft>(
          admin.post('/draft-orders', {
            email: `d${i}@example.com`,
            lines: [{ title: `Item ${i}`, unitPrice: 100 * (i + 1), quantity: 1 }],
          }),
          201,
        ),
      );
    const first = await ok<{ items: { id: string }[]; nextCursor: string | null }>(
      admin.get('/draft-orders?limit=2'),
    );
    assert.deepEqual(
      first.items.map((item) => item.id),
      [made[2]!.id, made[1]!.id],
    );
    const second = await ok<{ items: { id: string }[]; nextCursor: string | null }>(
      admin.get(`/draft-orders?limit=2&cursor=${encodeURIComponent(first.nextCursor!)}`),
    );
    assert.deepEqual(
      second.items.map((item) => item.id),
      [made[0]!.id],
    );

    const changed = await ok<Draft>(
      admin.patch(`/draft-orders/${made[0]!.id}`, {
        lines: [{ title: 'Bigger', unitPrice: 5000, quantity: 2 }],
        note: 'Changed',
      }),
    );
    assert.deepEqual(changed.totals.subtotal, { amount: 10000, currency: 'USD' });
    assert.equal(changed.note, 'Changed');
    const cleared = await ok<Draft>(admin.patch(`/draft-orders/${made[0]!.id}`, { note: null }));
    assert.equal(cleared.note, null);

    assert.equal((await admin.delete(`/draft-orders/${made[1]!.id}`)).statusCode, 204);
    await problem(admin.get(`/draft-orders/${made[1]!.id}`), 404, 'not_found');
    assert.deepEqual(
      (await eventsOf(shop, `draft_order:${made[0]!.id}`)).map((event) => [event.type, event.data.status]),
      [
        ['draft_order.created', 'open'],
        ['draft_order.updated', 'open'],
        ['draft_order.updated', 'open'],
      ],
    );
    assert.deepEqual(
      (await eventsOf(shop, `draft_order:${made[1]!.id}`)).map((event) => [event.type, event.data.status]),
      [
        ['draft_order.created', 'open'],
        ['draft_order.updated', 'deleted'],
      ],
    );
    const open = await ok<{ items: { id: string }[] }>(admin.get('/draft-orders?status=open'));
    assert.equal(open.items.length, 2);
  });

  test('another store’s staff get 404 on every route', async () => {
    const shop = await createTestStore(t);
    const other = await createTestStore(t);
    const draft = await ok<Draft>(
      t.admin(shop).post('/draft-orders', {
        email: 'a@example.com',
        lines: [{ title: 'A', unitPrice: 100, quantity: 1 }],
      }),
      201,
    );
    const stranger = t.admin(other);
    await problem(stranger.get(`/draft-orders/${draft.id}`), 404, 'not_found');
    await problem(stranger.patch(`/draft-orders/${draft.id}`, { note: 'mine' }), 404, 'not_found');
    await problem(stranger.delete(`/draft-orders/${draft.id}`), 404, 'not_found');
    await problem(
      stranger.post(`/draft-orders/${draft.id}/invoice`, undefined, { 'idempotency-key': randomUUID() }),
      404,
      'not_found',
    );
    await problem(complete(other, draft.id), 404, 'not_found');
    assert.equal((await ok<{ items: unknown[] }>(stranger.get('/draft-orders'))).items.length, 0);
    assert.equal((await ok<Draft>(t.admin(shop).get(`/draft-orders/${draft.id}`))).status, 'open');
  });

  test('complete with a manual payment: a paid order at once, stock sold, order.paid, confirmation; twice is the same order', async () => {
    const shop = await createTestStore(t);
    const [mug] = await createVariants(t, shop, [{ price: 1200 }]);
    const email = `paid-${randomUUID().slice(0, 6)}@example.com`;
    const draft = await ok<Draft>(
      t.admin(shop).post('/draft-orders', {
        email,
        lines: [
          { variantId: mug, quantity: 3 },
          { title: 'Setup', unitPrice: 2000, quantity: 1, requiresShipping: false },
        ],
        shippingAddress: US_ADDRESS,
      }),
      201,
    );
    const key = randomUUID();
    const placed = await ok<Placed>(complete(shop, draft.id, key));
    assert.equal(placed.order.status, 'paid');
    assert.deepEqual(placed.payment, { provider: 'manual', status: 'succeeded', amount: placed.order.total });
    assert.equal(placed.draftOrder.status, 'completed');
    assert.equal(placed.draftOrder.orderId, placed.order.id);
    assert.equal(placed.payUrl, null);
    // The stock is sold (not only held); the custom line moved none.
    assert.deepEqual(await stock(mug!), { on_hand: 97, reserved: 0 });

    const order = await ok<{
      status: string;
      source: string;
      draftOrderId: string;
      lines: { custom?: boolean; variantId: string; title: string }[];
      email: string;
    }>(t.admin(shop).get(`/orders/${placed.order.id}`));
    assert.deepEqual(
      [order.status, order.source, order.draftOrderId, order.email],
      ['paid', 'draft', draft.id, email],
    );
    assert.deepEqual(
      order.lines.map((line) => [line.title, line.custom ?? false]),
      [
        ['Things', false],
        ['Setup', true],
      ],
    );
    assert.deepEqual(
      (await eventsOf(shop, `order:${placed.order.id}`)).map((event) => event.type),
      ['order.created', 'order.paid'],
    );
    assert.deepEqual(
      (await eventsOf(shop, `draft_order:${draft.id}`)).map((event) => [event.type, event.data.orderId]),
      [
        ['draft_order.created', null],
        ['draft_order.completed', placed.order.id],
      ],
    );
    await waitFor(
      async () =>
        (
          await t.deps.db
            .selectFrom('mail_outbox')
            .select('id')
            .where('store_id', '=', shop.store.id)
            .where('kind', '=', 'order_confirmation')
            .where('to_address', '=', email)
            .execute()
        ).length === 1,
      5000,
      'the confirmation queued',
    );

    // The same key replays; another key answers with the same order; the draft no longer changes.
    const replay = await complete(shop, draft.id, key);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    const again = await ok<Placed>(complete(shop, draft.id));
    assert.equal(again.order.id, placed.order.id);
    await problem(
      t.admin(shop).patch(`/draft-orders/${draft.id}`, { note: 'late' }),
      409,
      'draft_order_not_open',
    );
    await problem(t.admin(shop).delete(`/draft-orders/${draft.id}`), 409, 'draft_order_not_open');
    await problem(
      t.admin(shop).post(`/draft-orders/${draft.id}/invoice`, undefined, { 'idempotency-key': randomUUID() }),
      409,
      'draft_order_not_open',
    );
    const orders = await t.deps.db
      .selectFrom('orders')
      .select('id')
      .where('store_id', '=', shop.store.id)
      .where('draft_order_id', '=', draft.id)
      .execute();
    assert.equal(orders.length, 1);
    assert.deepEqual(await stock(mug!), { on_hand: 97, reserved: 0 });
  });

  test('ten completions of one draft at once make one order', async () => {
    const shop = await createTestStore(t);
    const [mug] = await createVariants(t, shop, [{ price: 500 }]);
    const draft = await ok<Draft>(
      t
        .admin(shop)
        .post('/draft-orders', { email: 'race@example.com', lines: [{ variantId: mug, quantity: 1 }] }),
      201,
    );
    const answers = await Promise.all(Array.from({ length: 10 }, () => complete(shop, draft.id)));
    const ids = new Set(
      answers.map((answer) =>
        answer.statusCode === 200 ? answer.json<Placed>().order.id : answer.statusCode,
      ),
    );
    assert.equal(ids.size, 1, JSON.stringify([...ids]));
    assert.deepEqual(await stock(mug!), { on_hand: 99, reserved: 0 });
  });
});
