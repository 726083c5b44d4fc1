/**
 * Fulfilments (decision `fulfilments`): partial and complete, never more than ordered, only once paid; tracking made
 * from a known carrier's number; delivered; cancelled (idempotent); the order's fulfilment status in
 * both views; the event and the buyer's mail with it; two fulfilments of the last units at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, waitFor, type TestApp } from '../test/harness.ts';
import { ShopDriver } from './orders.test-support.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

interface Fulfillment {
  id: string;
  status: string;
  lines: { variantId: string; quantity: number }[];
  carrier: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
  deliveredAt: string | null;
  cancelledAt: string | null;
}

/** A paid order of 3 mugs and 1 tee. */
async function paidOrder(shop: ShopDriver) {
  const mug = await shop.variant(10, 1200);
  const tee = await shop.variant(10, 3000);
  const body = await shop.placeOrder([
    { variantId: mug, quantity: 3 },
    { variantId: tee, quantity: 1 },
  ]);
  return { orderId: body.order.id, mug, tee };
}

const fulfil = (shop: ShopDriver, orderId: string, body: object) =>
  shop.admin('POST', `/orders/${orderId}/fulfillments`, body);

async function fulfilmentStatus(shop: ShopDriver, orderId: string): Promise<[string, string]> {
  const admin = (await shop.admin('GET', `/orders/${orderId}`)).json<{ fulfillmentStatus: string }>();
  const buyer = (await shop.storefront('GET', `/orders/${orderId}`)).json<{ fulfillmentStatus: string }>();
  return [admin.fulfillmentStatus, buyer.fulfillmentStatus];
}

describe('fulfilments (decision `fulfilments`)', () => {
  test('partial, then complete; never more than ordered; tracking made from a known carrier; event and mail', async () => {
    const shop = await ShopDriver.open(t);
    const { orderId, mug, tee } = await paidOrder(shop);
    assert.deepEqual(await fulfilmentStatus(shop, orderId), ['unfulfilled', 'unfulfilled']);

    const first = await fulfil(shop, orderId, {
      lines: [{ variantId: mug, quantity: 2 }],
      carrier: 'ups',
      trackingNumber: '1Z999AA10123456784',
    });
    assert.equal(first.statusCode, 201, first.body);
    const parcel = first.json<Fulfillment>();
    assert.equal(parcel.status, 'shipped');
    assert.deepEqual(parcel.lines, [{ variantId: mug, quantity: 2 }]);
    assert.equal(parcel.trackingUrl, 'https://www.ups.com/track?tracknum=1Z999AA10123456784');
    assert.deepEqual(await fulfilmentStatus(shop, orderId), ['partial', 'partial']);

    // Two more mugs would be five of three.
    const over = await fulfil(shop, orderId, { lines: [{ variantId: mug, quantity: 2 }] });
    assert.equal(over.statusCode, 409, over.body);
    assert.equal(over.json<{ title: string }>().title, 'fulfillment_exceeds_order');

    // The rest, in two lines of one variant merged: complete.
    const rest = await fulfil(shop, orderId, {
      lines: [
        { variantId: tee, quantity: 1 },
        { variantId: mug, quantity: 1 },
      ],
      carrier: 'Pony Express',
      trackingNumber: 'PX-1',
      trackingUrl: 'https://pony.example/track/PX-1',
      notifyCustomer: false,
    });
    assert.equal(rest.statusCode, 201, rest.body);
    assert.equal(rest.json<Fulfillment>().trackingUrl, 'https://pony.example/track/PX-1');
    assert.deepEqual(await fulfilmentStatus(shop, orderId), ['fulfilled', 'fulfilled']);

    // The buyer's view lists the parcels with their tracking.
    const buyer = (await shop.storefront('GET', `/orders/${orderId}`)).json<{
      fulfillments: Fulfillment[];
    }>();
    assert.deepEqual(
      buyer.fulfillments.map((f) => [f.carrier, f.trackingNumber, f.status]),
      [
        ['ups', '1Z999AA10123456784', 'shipped'],
        ['Pony Express', 'PX-1', 'shipped'],
      ],
    );

    const created = await shop.events('fulfillment.created');
    assert.deepEqual(
      created.map((data) => [data.fulfillmentId, data.fulfillmentStatus, data.status]),
      [
        [parcel.id, 'partial', 'shipped'],
        [rest.json<Fulfillment>().id, 'fulfilled', 'shipped'],
      ],
    );
    // Logs: the requests, and no personal data in any line.
    assert.ok(t.logs.some((line) => JSON.stringify(line).includes(`/orders/${orderId}/fulfillments`)));
    assert.ok(!t.logs.some((line) => JSON.stringify(line).includes('ada@example.com')));
    // One shipping confirmation: the second parcel asked for none.
    const mail = await waitFor(async () => {
      const rows = await shop.mails('shipping_confirmation');
      return rows.length > 0 ? rows : undefined;
    });
    assert.equal(mail.length, 1);
    assert.equal(mail[0]!.to_address, 'ada@example.com');
    assert.match(mail[0]!.subject, /^Order #\d+ has shipped$/);
    assert.match(mail[0]!.text_body, /2 × Thing \(One\)/);
    assert.match(
      mail[0]!.text_body,
      /Track your parcel: https:\/\/www\.ups\.com\/track\?tracknum=1Z999AA10123456784/,
    );
  });

  test('only a paid order; a variant not in the order and a tracking URL that is not https point at their fields', async () => {
    const shop = await ShopDriver.open(t);
    const thing = await shop.variant(5);
    const pending = await shop.buy(thing);
    const unpaid = await fulfil(shop, pending.order.id, { lines: [{ variantId: thing, quantity: 1 }] });
    assert.equal(unpaid.statusCode, 409, unpaid.body);
    assert.equal(unpaid.json<{ title: string }>().title, 'order_not_paid');

    const { orderId, mug } = await paidOrder(shop);
    const stranger = await shop.variant(5);
    for (const [body, pointer] of [
      [{ lines: [{ variantId: stranger, quantity: 1 }] }, '/lines/0/variantId'],
      [{ lines: [{ variantId: mug, quantity: 1 }], trackingUrl: 'http://track.example/1' }, '/trackingUrl'],
      [{ lines: [{ variantId: mug, quantity: 1 }], trackingUrl: 'javascript:alert(1)' }, '/trackingUrl'],
    ] as const) {
      const refused = await fulfil(shop, orderId, body);
      assert.equal(refused.statusCode, 400, refused.body);
      assert.equal(refused.json<{ errors: { pointer: string }[] }>().errors[0]!.pointer, pointer);
    }
    assert.deepEqual(await fulfilmentStatus(shop, orderId), ['unfulfilled', 'unfulfilled']);
  });

  test('a tracking URL is kept normalised; credentials, control characters, quotes and other schemes are 400 at /trackingUrl, on create and on change, and nothing is written', async () => {
    const shop = await ShopDriver.open(t);
    const { orderId, mug, tee } = await paidOrder(shop);
    const refusals: [string, RegExp][] = [
      ['https://user:pass@track.example/1', /user name or password/],
      ['https://merchant@track.example/1', /user name or password/],
      ['https://track.example/1\r\nBcc: victim@example.com', /control characters/],
      ['https://track.example/1\nX', /control characters/],
      ['https://track.example/\t1', /control characters/],
      ['https://track.example/1\u0085', /control characters/],
      ['https://track.example/1"onmouseover="alert(1)', /quotes/],
      ["https://track.example/1'x", /quotes/],
      ['https://track.example/1`x', /quotes/],
      ['https://track.example/<script>', /quotes or angle brackets/],
      ['http://track.example/1', /https URL/],
      ['javascript:alert(1)', /https URL/],
      ['data:text/html,<b>x</b>', /quotes or angle brackets|https URL/],
      ['ftp://track.example/1', /https URL/],
      ['//track.example/1', /https URL/],
      ['track.example/1', /https URL/],
      ['', /https URL/],
    ];
    const kept = (
      await fulfil(shop, orderId, { lines: [{ variantId: tee, quantity: 1 }] })
    ).json<Fulfillment>();
    for (const [trackingUrl, detail] of refusals) {
      const created = await fulfil(shop, orderId, { lines: [{ variantId: mug, quantity: 1 }], trackingUrl });
      const changed = await shop.admin('PATCH', `/orders/${orderId}/fulfillments/${kept.id}`, {
        trackingUrl,
      });
      for (const refused of [created, changed]) {
        assert.equal(refused.statusCode, 400, `${JSON.stringify(trackingUrl)}: ${refused.body}`);
        const problem = refused.json<{ title: string; errors: { pointer: string; detail: string }[] }>();
        assert.equal(problem.title, 'validation_failed');
        assert.equal(problem.errors[0]!.pointer, '/trackingUrl', trackingUrl);
        assert.match(problem.errors[0]!.detail, detail, JSON.stringify(trackingUrl));
      }
    }
    // Nothing was written: no parcel of mugs, the kept one's link as it was.
    const order = (await shop.admin('GET', `/orders/${orderId}`)).json<{ fulfillments: Fulfillment[] }>();
    assert.deepEqual(
      order.fulfillments.map((parcel) => [parcel.id, parcel.trackingUrl]),
      [[kept.id, null]],
    );

    // What is kept is the URL as a browser reads it: host in lower case and ASCII, spaces encoded.
    const normalised: [string, string][] = [
      ['  HTTPS://Track.Example/Parcel 1?id=A B  \n', 'https://track.example/Parcel%201?id=A%20B'],
      ['https://bücher.example/t/1', 'https://xn--bcher-kva.example/t/1'],
      ['https://track.example:443/a/../b', 'https://track.example/b'],
    ];
    for (const [given, stored] of normalised) {
      const changed = await shop.admin('PATCH', `/orders/${orderId}/fulfillments/${kept.id}`, {
        trackingUrl: given,
      });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.equal(changed.json<Fulfillment>().trackingUrl, stored);
    }
    const created = await fulfil(shop, orderId, {
      lines: [{ variantId: mug, quantity: 1 }],
      trackingUrl: 'https://Track.Example/x y',
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json<Fulfillment>().trackingUrl, 'https://track.example/x%20y');
    const row = await t.db.kysely
      .selectFrom('fulfillments')
      .select('tracking_url')
      .where('id', '=', created.json<Fulfillment>().id)
      .executeTakeFirstOrThrow();
    assert.equal(row.tracking_url, 'https://track.example/x%20y');
  });

  test('tracking changed, delivered; a shipped parcel cancelled (idempotent) counts no more; a delivered one is not cancelled', async () => {
    const shop = await ShopDriver.open(t);
    const { orderId, mug, tee } = await paidOrder(shop);
    const a = (await fulfil(shop, orderId, { lines: [{ variantId: mug, quantity: 3 }] })).json<Fulfillment>();
    const b = (await fulfil(shop, orderId, { lines: [{ variantId: tee, quantity: 1 }] })).json<Fulfillment>();
    assert.deepEqual(await fulfilmentStatus(shop, orderId), ['fulfilled', 'fulfilled']);

    const tracked = await shop.admin('PATCH', `/orders/${orderId}/fulfillments/${a.id}`, {
      carrier: 'Royal Mail',
      trackingNumber: 'AB123456789GB',
    });
    assert.equal(tracked.statusCode, 200, tracked.body);
    assert.equal(
      tracked.json<Fulfillment>().trackingUrl,
      'https://www.royalmail.com/track-your-item#/tracking-results/AB123456789GB',
    );
    // Another carrier we make no links for: the Royal Mail link is dropped, not kept for the new number.
    const unknownCarrier = await shop.admin('PATCH', `/orders/${orderId}/fulfillments/${a.id}`, {
      carrier: 'Pony Express',
      trackingNumber: 'PX-9',
    });
    assert.equal(unknownCarrier.statusCode, 200, unknownCarrier.body);
    assert.equal(unknownCarrier.json<Fulfillment>().trackingUrl, null);
    // A status change alone keeps the link as it is.
    const linked = await shop.admin('PATCH', `/orders/${orderId}/fulfillments/${a.id}`, {
      trackingUrl: 'https://pony.example/PX-9',
    });
    assert.equal(linked.json<Fulfillment>().trackingUrl, 'https://pony.example/PX-9');
    const delivered = await shop.admin('PATCH', `/orders/${orderId}/fulfillments/${a.id}`, {
      status: 'delivered',
    });
    assert.equal(delivered.json<Fulfillment>().status, 'delivered');
    assert.equal(delivered.json<Fulfillment>().trackingUrl, 'https://pony.example/PX-9');
    assert.ok(delivered.json<Fulfillment>().deliveredAt);

    const cancel = (id: string) => shop.admin('POST', `/orders/${orderId}/fulfillments/${id}/cancel`);
    const refused = await cancel(a.id);
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(refused.json<{ title: string }>().title, 'fulfillment_delivered');

    const cancelled = await cancel(b.id);
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    assert.equal(cancelled.json<Fulfillment>().status, 'cancelled');
    const again = await cancel(b.id);
    assert.deepEqual(again.json<Fulfillment>(), cancelled.json<Fulfillment>(), 'the same answer');
    assert.deepEqual(await fulfilmentStatus(shop, orderId), ['partial', 'partial']);
    const changeCancelled = await shop.admin('PATCH', `/orders/${orderId}/fulfillments/${b.id}`, {
      trackingNumber: 'X',
    });
    assert.equal(changeCancelled.statusCode, 409);
    assert.equal(changeCancelled.json<{ title: string }>().title, 'fulfillment_cancelled');
    // The tee can ship again.
    assert.equal((await fulfil(shop, orderId, { lines: [{ variantId: tee, quantity: 1 }] })).statusCode, 201);

    const updated = await shop.events('fulfillment.updated');
    assert.deepEqual(
      updated.map((data) => [data.fulfillmentId, data.status, data.fulfillmentStatus]),
      [
        [a.id, 'shipped', 'fulfilled'],
        [a.id, 'shipped', 'fulfilled'],
        [a.id, 'shipped', 'fulfilled'],
        [a.id, 'delivered', 'fulfilled'],
        [b.id, 'cancelled', 'partial'],
      ],
    );
    const unknown = await shop.admin('POST', `/orders/${orderId}/fulfillments/${crypto.randomUUID()}/cancel`);
    assert.equal(unknown.statusCode, 404);
  });

  test('two fulfilments of the last units at once: one ships them, the other is refused', async () => {
    const shop = await ShopDriver.open(t);
    const { orderId, mug } = await paidOrder(shop);
    const answers = await Promise.all(
      [1, 2].map(() => fulfil(shop, orderId, { lines: [{ variantId: mug, quantity: 2 }] })),
    );
    assert.deepEqual(answers.map((answer) => answer.statusCode).sort(), [201, 409]);
    const order = (await shop.admin('GET', `/orders/${orderId}`)).json<{ fulfillments: Fulfillment[] }>();
    assert.equal(order.fulfillments.length, 1);
  });

  test('another store’s staff cannot fulfil the order (404)', async () => {
    const shop = await ShopDriver.open(t);
    const other = await ShopDriver.open(t);
    const { orderId, mug } = await paidOrder(shop);
    const foreign = await other.admin('POST', `/orders/${orderId}/fulfillments`, {
      lines: [{ variantId: mug, quantity: 1 }],
    });
    assert.equal(foreign.statusCode, 404, foreign.body);
  });
});
