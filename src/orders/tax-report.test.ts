/**
 * The tax report (decision `tax-report`): orders placed through the storefront's checkout and paid
 * through the sandbox, refunds made by staff and settled by the provider, read back through
 * GET /admin/v1/reports/tax as JSON and as CSV.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, waitFor, type TestApp } from '../test/harness.ts';
import { US_ADDRESS } from '../test/addresses.ts';
import { ShopDriver, type CheckoutBody } from './orders.test-support.ts';
import { taxReport } from './tax-report.service.ts';
import { systemClock } from '../lib/clock.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

interface Money {
  amount: number;
  currency: string;
}
interface Row {
  country: string | null;
  region: string | null;
  class: string;
  rateBps: number | null;
  currency: string;
  orders: number;
  net: Money;
  tax: Money;
  gross: Money;
  taxRefunded: Money;
}
interface Report {
  from: string;
  to: string;
  items: Row[];
}

const usd = (amount: number): Money => ({ amount, currency: 'USD' });
const row = (
  key: Pick<Row, 'country' | 'region' | 'class' | 'rateBps'>,
  orders: number,
  net: number,
  tax: number,
  taxRefunded: number,
): Row => ({
  ...key,
  currency: 'USD',
  orders,
  net: usd(net),
  tax: usd(tax),
  gross: usd(net + tax),
  taxRefunded: usd(taxRefunded),
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function report(shop: ShopDriver, query: Record<string, string>): Promise<Report> {
  const response = await shop.admin('GET', `/reports/tax?${new URLSearchParams(query).toString()}`);
  assert.equal(response.statusCode, 200, response.body);
  return response.json<Report>();
}

/** The report's raw answer for `query`, asked with this Accept header. */
function asked(shop: ShopDriver, query: Record<string, string>, accept: string) {
  return shop.t.app.inject({
    method: 'GET',
    url: `/admin/v1/reports/tax?${new URLSearchParams(query).toString()}`,
    headers: { authorization: `Bearer ${shop.shop.staffToken}`, accept },
  });
}

async function paidAt(shop: ShopDriver, orderId: string): Promise<Date> {
  const response = await shop.admin('GET', `/orders/${orderId}`);
  return new Date(response.json<{ paidAt: string }>().paidAt);
}

/** A staff refund of `amount`, waited for until the provider settled it. */
async function refund(shop: ShopDriver, order: CheckoutBody, amount: number): Promise<void> {
  const before = (await shop.adminOrder(order.order.id)).refunded.amount;
  const made = await shop.admin('POST', `/orders/${order.order.id}/refunds`, { amount });
  assert.equal(made.statusCode, 202, made.body);
  await waitFor(
    async () => (await shop.adminOrder(order.order.id)).refunded.amount === before + amount,
    10_000,
    'refund settled',
  );
}

/** A store with DE 19 % (reduced 7 %), FR 20 % and US-CA 7.25 %, and two products. */
async function taxedShop(): Promise<{ shop: ShopDriver; cheap: string; dear: string }> {
  const shop = await ShopDriver.open(t);
  const reduced = await shop.admin('POST', '/tax-classes', { code: 'reduced', name: 'Reduced' });
  assert.equal(reduced.statusCode, 201, reduced.body);
  for (const [area, body] of [
    ['DE', { taxRateBps: 1900, classRates: { reduced: 700 } }],
    ['FR', { taxRateBps: 2000 }],
    ['US-CA', { taxRateBps: 725 }],
  ] as const) {
    const rate = await shop.admin('PUT', `/tax-rates/${area}`, body);
    assert.equal(rate.statusCode, 200, rate.body);
  }
  return { shop, cheap: await shop.variant(100, 1000), dear: await shop.variant(100, 2000) };
}

describe('GET /admin/v1/reports/tax', () => {
  test('paid orders by paid time, refunds by settle time, the same figures as JSON and as CSV', async () => {
    const { shop, cheap, dear } = await taxedShop();
    // Paid before the window: 1000 + 19 % = 1190.
    const early = await shop.placeOrder([{ variantId: cheap, quantity: 1 }], { country: 'DE' });
    const from = new Date((await paidAt(shop, early.order.id)).getTime() + 1);
    await pause(5);

    const de = await shop.placeOrder([{ variantId: cheap, quantity: 2 }], { country: 'DE' }); // 2000 + 380
    const fr = await shop.placeOrder([{ variantId: dear, quantity: 1 }], { country: 'FR' }); // 2000 + 400
    const ca = await shop.placeOrder([{ variantId: dear, quantity: 1 }], { shippingAddress: US_ADDRESS }); // 2000 + 145
    const cancelled = await shop.placeOrder([{ variantId: cheap, quantity: 1 }], { country: 'DE' }); // 1190
    // Charged before tax lines were kept (as an order from before migration 0039): FR, 1000 + 20 %.
    const legacy = await shop.placeOrder([{ variantId: cheap, quantity: 1 }], { country: 'FR' });
    await t.db.kysely
      .updateTable('orders')
      .set({ tax_lines: null })
      .where('store_id', '=', shop.storeId)
      .where('id', '=', legacy.order.id)
      .execute();
    // Placed but never paid: not in the report.
    await shop.placeOrder([{ variantId: dear, quantity: 3 }], { country: 'DE', pay: false });
    assert.deepEqual(
      [de, fr, ca, cancelled, legacy].map((order) => order.order.total.amount),
      [2380, 2400, 2145, 1190, 1200],
    );

    await refund(shop, early, 595); // ⌊190 × 595 / 1190⌋ = 95, by refund time: in the window
    await refund(shop, fr, 900); // ⌊400 × 900 / 2400⌋ = 150
    await refund(shop, ca, 1000); // ⌊145 × 1000 / 2145⌋ = 67
    await refund(shop, ca, 1145); // the rest of the total: 145 − 67 = 78, the whole tax back
    await refund(shop, legacy, 600); // ⌊200 × 600 / 1200⌋ = 100
    const cancel = await shop.admin('POST', `/orders/${cancelled.order.id}/cancel`, {});
    assert.equal(cancel.statusCode, 200, cancel.body);
    await waitFor(
      async () => (await shop.adminOrder(cancelled.order.id)).refunded.amount === 1190,
      10_000,
      'cancellation refunded',
    );
    const to = new Date(Date.now() + 1);

    const window = { from: from.toISOString(), to: to.toISOString() };
    const got = await report(shop, window);
    assert.deepEqual(got, {
      from: window.from,
      to: window.to,
      items: [
        // The cancelled order counts where it was paid; its refund gives its whole tax back.
        row({ country: 'DE', region: null, class: 'standard', rateBps: 1900 }, 2, 3000, 570, 95 + 190),
        row({ country: 'FR', region: null, class: 'standard', rateBps: null }, 1, 1000, 200, 100),
        row({ country: 'FR', region: null, class: 'standard', rateBps: 2000 }, 1, 2000, 400, 150),
        row({ country: 'US', region: 'US-CA', class: 'standard', rateBps: 725 }, 1, 2000, 145, 145),
      ],
    });
    // Refunds read one per statement (each batch after the last one's settle time and id): the same.
    const oneByOne = await taxReport({ db: t.db.kysely, clock: systemClock }, shop.storeId, window, 1);
    assert.deepEqual(oneByOne, got);
    // One currency: the same; another: nothing.
    assert.deepEqual(await report(shop, { ...window, currency: 'USD' }), got);
    assert.deepEqual((await report(shop, { ...window, currency: 'EUR' })).items, []);

    // Before the window: the early order alone, its refund not yet (it settled later).
    const earlier = await report(shop, {
      from: new Date(from.getTime() - 60_000).toISOString(),
      to: window.from,
    });
    assert.deepEqual(earlier.items, [
      row({ country: 'DE', region: null, class: 'standard', rateBps: 1900 }, 1, 1000, 190, 0),
    ]);

    // The same rows as CSV, an attachment named after the window.
    const csv = await asked(shop, window, 'text/csv');
    assert.equal(csv.statusCode, 200, csv.body);
    assert.equal(csv.headers['content-type'], 'text/csv; charset=utf-8');
    const stamp = (at: Date) => at.toISOString().replace(/[:.]/g, '').replace(/000Z$/, 'Z');
    assert.equal(
      csv.headers['content-disposition'],
      `attachment; filename="tax-${stamp(from)}-${stamp(to)}.csv"`,
    );
    assert.equal(
      csv.body,
      [
        'currency,country,region,class,rateBps,orders,net,tax,gross,taxRefunded',
        'USD,DE,,standard,1900,2,3000,570,3570,285',
        'USD,FR,,standard,,1,1000,200,1200,100',
        'USD,FR,,standard,2000,1,2000,400,2400,150',
        'USD,US,US-CA,standard,725,1,2000,145,2145,145',
        '',
      ].join('\r\n'),
    );
    const csvRows = csv.body
      .trim()
      .split('\r\n')
      .slice(1)
      .map((line) => line.split(','));
    assert.deepEqual(
      csvRows.map((cells) => cells.slice(5).map(Number)),
      got.items.map((item) => [
        item.orders,
        item.net.amount,
        item.tax.amount,
        item.gross.amount,
        item.taxRefunded.amount,
      ]),
    );

    // Another store's orders never appear, and ours never in its report.
    const other = await taxedShop();
    await other.shop.placeOrder([{ variantId: other.cheap, quantity: 5 }], { country: 'DE' });
    const wide = { from: window.from, to: new Date(Date.now() + 1).toISOString() };
    assert.deepEqual((await report(shop, wide)).items, got.items);
    assert.deepEqual((await report(other.shop, wide)).items, [
      row({ country: 'DE', region: null, class: 'standard', rateBps: 1900 }, 1, 5000, 950, 0),
    ]);
  });

  test('dates are whole UTC days, the default is this month so far, bad input is 400 with its pointer', async () => {
    const { shop } = await taxedShop();
    assert.deepEqual(await report(shop, { from: '2026-01-01', to: '2026-01-31' }), {
      from: '2026-01-01T00:00:00.000Z',
      to: '2026-02-01T00:00:00.000Z',
      items: [],
    });
    // Only `to`: the month it ends in.
    const march = await report(shop, { to: '2026-03-31' });
    assert.equal(march.from, '2026-03-01T00:00:00.000Z');
    const offset = await report(shop, { from: '2026-01-01T02:00:00+02:00', to: '2026-01-02T00:00:00Z' });
    assert.equal(offset.from, '2026-01-01T00:00:00.000Z');

    const before = Date.now();
    const current = await report(shop, {});
    const now = new Date();
    assert.equal(current.from, new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString());
    assert.ok(Date.parse(current.to) >= before && Date.parse(current.to) <= Date.now());

    const january = { from: '2026-01-01', to: '2026-01-31' };
    const csv = await asked(shop, january, 'text/csv, application/json;q=0.5');
    assert.equal(csv.headers['content-disposition'], 'attachment; filename="tax-2026-01-01-2026-02-01.csv"');
    assert.equal(csv.body, 'currency,country,region,class,rateBps,orders,net,tax,gross,taxRefunded\r\n');
    const json = await asked(shop, january, 'application/json, text/csv;q=0.5');
    assert.match(String(json.headers['content-type']), /^application\/json/);

    for (const [query, pointer] of [
      [{ from: 'yesterday' }, '/from'],
      [{ from: '2026-02-30' }, '/from'],
      [{ from: '2026-13-01' }, '/from'],
      [{ from: '2026-01-01T10:00:00' }, '/from'], // no time zone
      [{ to: '2026-01-01T25:00:00Z' }, '/to'],
      [{ from: '2026-02-01', to: '2026-01-31' }, '/from'], // from after to
      [{ from: '2026-02-01T00:00:00Z', to: '2026-02-01T00:00:00Z' }, '/from'], // empty
      [{ from: '2025-01-01', to: '2026-02-05' }, '/to'], // 401 days
      [{ currency: 'usd' }, '/currency'],
      [{ region: 'DE' }, '/region'],
    ] as const) {
      const refused = await shop.admin('GET', `/reports/tax?${new URLSearchParams(query).toString()}`);
      assert.equal(refused.statusCode, 400, `${JSON.stringify(query)}: ${refused.body}`);
      assert.match(String(refused.headers['content-type']), /^application\/problem\+json/);
      const problem = refused.json<{ title: string; errors: { pointer: string; in?: string }[] }>();
      assert.equal(problem.title, 'validation_failed');
      assert.equal(problem.errors[0]?.pointer, pointer, JSON.stringify(query));
    }
    // 400 days exactly is allowed.
    assert.equal((await report(shop, { from: '2025-01-01', to: '2026-02-04' })).items.length, 0);
  });
});
