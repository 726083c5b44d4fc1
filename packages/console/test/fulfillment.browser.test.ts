/**
 * Fulfilling an order in Chromium (docs/fulfillment.md): a paid order (through the storefront client
 * and the sandbox) is shipped in parts from its page, with UPS and a number (the tracking link
 * opens the carrier's page in a new tab), refused at its fields and when someone else shipped
 * meanwhile, then in full with another carrier; a shipment is marked delivered, one is cancelled
 * (the order is partially fulfilled again), and the orders list finds the order by its fulfilment
 * status. What the user sees is checked on the page, what happened through the Admin API.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { openShop, startedForFile, type Shop } from '../../client/test/server.test-support.ts';
import { assertAccessible, screenshot, signedInPage, startConsole, until } from './browser.test-support.ts';

const h = startedForFile(startConsole);

const UPS_NUMBER = '1Z999AA10123456784';

async function product(shop: Shop, title: string, label: string, priceAmount: number) {
  const created = await shop.admin.products.create({
    title,
    status: 'active',
    variants: [{ label, priceAmount, onHand: 10 }],
  });
  return created.variants[0]!.id;
}

/** A paid order of these lines, through the storefront client and the sandbox. */
async function paidOrder(shop: Shop, items: { variantId: string; quantity: number }[]) {
  const cart = await shop.storefront.carts.create({ items });
  const checkout = await shop.storefront.checkout.create({ cartId: cart.id, email: 'ada@example.com' });
  await shop.storefront.sandbox.confirm(checkout.payment, 'pm_card_visa');
  await shop.storefront.orders.waitForPaid(checkout.order.id, { timeoutMs: 10_000, intervalMs: 50 });
  return checkout.order;
}

/** The shipping confirmations queued for the store's buyers. */
async function confirmations(shop: Shop): Promise<number> {
  const rows = await h.live.t.db.kysely
    .selectFrom('mail_outbox')
    .select('id')
    .where('store_id', '=', shop.shop.store.id)
    .where('kind', '=', 'shipping_confirmation')
    .execute();
  return rows.length;
}

/** The order's fulfilment badge in the page header. */
const headerBadge = (page: Page, text: string) =>
  page.locator('.order-meta').getByText(text, { exact: true });

describe('fulfilling an order in the console', () => {
  test('ship part with UPS, then the rest; mark delivered; cancel one; find it by fulfilment status', async () => {
    const shop = await openShop(h.live);
    const mug = await product(shop, 'Blue mug', 'Large', 2500);
    const tee = await product(shop, 'Tee', 'M', 3000);
    const other = await paidOrder(shop, [{ variantId: tee, quantity: 1 }]);
    const order = await paidOrder(shop, [
      { variantId: mug, quantity: 3 },
      { variantId: tee, quantity: 1 },
    ]);

    const { context, page, problems } = await signedInPage(h, shop.shop);
    await page.goto(`/admin/orders/${order.id}`);
    await page.getByRole('heading', { name: `Order #${order.number}`, level: 1 }).waitFor();
    await headerBadge(page, 'unfulfilled').waitFor();
    const shipments = page.getByRole('region', { name: 'Shipments' });
    await shipments.getByText('Nothing has shipped yet.').waitFor();
    const form = page.getByRole('region', { name: 'Fulfil items' });
    const mugUnits = form.getByLabel('Units of Blue mug (Large) to ship (0 to 3)');
    const teeUnits = form.getByLabel('Units of Tee (M) to ship (0 to 1)');
    // Each quantity starts at what is left; the customer is emailed unless unticked.
    assert.equal(await mugUnits.inputValue(), '3');
    assert.equal(await teeUnits.inputValue(), '1');
    assert.equal(await form.getByLabel(/Email the customer/).isChecked(), true);
    await assertAccessible(page, 'order to fulfil');

    // Refused in the page: more than is left, and nothing at all. Nothing reaches the server.
    await mugUnits.fill('4');
    await form.getByText('At most 3 are left to ship.').waitFor();
    assert.equal(await mugUnits.getAttribute('aria-invalid'), 'true');
    await mugUnits.fill('0');
    await teeUnits.fill('0');
    await form.getByRole('button', { name: 'Fulfil items' }).click();
    await form.getByText('Choose at least one unit to ship.').waitFor();
    assert.deepEqual((await shop.admin.orders.get(order.id)).fulfillments, []);

    // Refused by the server at its field: a tracking page must be https.
    await mugUnits.fill('2');
    await form.getByLabel('Carrier', { exact: true }).selectOption('UPS');
    await form.getByLabel('Tracking number (optional)').fill(UPS_NUMBER);
    const trackingUrl = form.getByLabel('Tracking URL (optional)');
    await trackingUrl.fill('http://tracking.example/1');
    await form.getByRole('button', { name: 'Fulfil 2 units' }).click();
    await form
      .getByText('The tracking URL must be an https URL (the carrier’s tracking page)', { exact: true })
      .waitFor();
    assert.equal(await trackingUrl.getAttribute('aria-invalid'), 'true');
    await assertAccessible(page, 'fulfil form refused by the server');

    // Left empty, UPS's link is made from the number.
    await trackingUrl.fill('');
    await form.getByRole('button', { name: 'Fulfil 2 units' }).click();
    await form.getByText('Shipment recorded: 2 units with UPS. The customer is emailed.').waitFor();
    const first = shipments.getByRole('listitem', { name: /Shipment 1/ });
    await first.getByText('2 × Blue mug (Large)').waitFor();
    const link = first.getByRole('link', { name: `${UPS_NUMBER} (opens in a new tab)` });
    assert.equal(await link.getAttribute('href'), `https://www.ups.com/track?tracknum=${UPS_NUMBER}`);
    assert.equal(await link.getAttribute('target'), '_blank');
    assert.equal(await link.getAttribute('rel'), 'noopener noreferrer');
    await first.getByText('shipped', { exact: true }).waitFor();
    await headerBadge(page, 'partially fulfilled').waitFor();
    // The form starts again from what is left: 1 mug, 1 tee.
    await form.getByLabel('Units of Blue mug (Large) to ship (0 to 1)').waitFor();
    const shipped = await shop.admin.orders.get(order.id);
    assert.equal(shipped.fulfillmentStatus, 'partial');
    assert.deepEqual(
      shipped.fulfillments.map((f) => [f.carrier, f.trackingNumber, f.lines]),
      [['UPS', UPS_NUMBER, [{ variantId: mug, quantity: 2 }]]],
    );
    await page
      .getByRole('region', { name: 'Timeline' })
      .getByText('Shipment 1 sent: 2 units with UPS')
      .waitFor();

    // Someone else ships the last mug meanwhile: this page's 1 mug and 1 tee is refused, named.
    await shop.admin.request('adminCreateFulfillment', {
      path: { id: order.id },
      body: { lines: [{ variantId: mug, quantity: 1 }], notifyCustomer: false },
    });
    await form.getByRole('button', { name: 'Fulfil 2 units' }).click();
    await form
      .getByText(
        'More units than are left to ship: 1 of Blue mug (Large), 0 left. Another shipment was recorded meanwhile: the quantities below now show what is left.',
      )
      .waitFor();
    await shipments.getByRole('listitem', { name: /Shipment 2/ }).waitFor();
    const mugRow = form.getByRole('row', { name: /Blue mug/ });
    await mugRow.getByText('All shipped').waitFor();
    assert.equal(await mugRow.getByRole('textbox').count(), 0);
    assert.equal(await form.getByLabel('Units of Tee (M) to ship (0 to 1)').inputValue(), '1');
    await assertAccessible(page, 'fulfil form after a conflict');

    // The rest with a carrier not in the list, and no mail.
    await form.getByLabel('Carrier', { exact: true }).selectOption('other');
    await form.getByLabel('Carrier name').fill('Bike courier');
    await form.getByLabel('Tracking number (optional)').fill('BC-7');
    await form.getByLabel(/Email the customer/).uncheck();
    await form.getByRole('button', { name: 'Fulfil 1 unit' }).click();
    await form
      .getByText('Shipment recorded: 1 unit with Bike courier. The customer was not emailed.')
      .waitFor();
    await form.getByText('Every unit of this order has shipped.').waitFor();
    await headerBadge(page, 'fulfilled').waitFor();
    const third = shipments.getByRole('listitem', { name: /Shipment 3/ });
    await third.getByText('1 × Tee (M)').waitFor();
    await third.getByText('Bike courier · Tracking BC-7', { exact: true }).waitFor();
    assert.equal(await third.getByRole('link').count(), 0, 'no link for a carrier the server does not know');
    assert.equal(await confirmations(shop), 1, 'only the first shipment emailed the customer');

    // The first shipment arrived.
    await first.getByRole('button', { name: 'Mark delivered' }).click();
    await first.getByText('delivered', { exact: true }).waitFor();
    await first.getByText(/, delivered /).waitFor();
    assert.deepEqual(
      await first.getByRole('button').allTextContents(),
      ['Edit tracking'],
      'a delivered shipment can only have its tracking corrected',
    );

    // The second was recorded by mistake: cancelling asks first, "Keep it" keeps it.
    const second = shipments.getByRole('listitem', { name: /Shipment 2/ });
    await second.getByRole('button', { name: 'Cancel shipment' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel shipment 2?' });
    await dialog.getByText('Its 1 unit will count as not shipped again').waitFor();
    await dialog.getByRole('button', { name: 'Keep it' }).click();
    assert.equal((await shop.admin.orders.get(order.id)).fulfillments[1]!.status, 'shipped');
    await second.getByRole('button', { name: 'Cancel shipment' }).click();
    await dialog.getByRole('button', { name: 'Cancel shipment' }).click();
    await second.getByText('cancelled', { exact: true }).waitFor();
    await headerBadge(page, 'partially fulfilled').waitFor();
    await form.getByLabel('Units of Blue mug (Large) to ship (0 to 1)').waitFor();
    await assertAccessible(page, 'order with shipments');
    // The Shipments panel at the top of the screenshot, the form under it.
    await page.evaluate(`{
      const panel = [...document.querySelectorAll('section.panel')].find(
        (section) => section.querySelector('h2')?.textContent === 'Shipments',
      );
      window.scrollTo(0, panel.getBoundingClientRect().top + window.scrollY - 16);
    }`);
    await screenshot(page, 'order');

    // The third was delivered meanwhile (another tab): cancelling it is refused, and says why.
    const [, , courier] = (await shop.admin.orders.get(order.id)).fulfillments;
    await shop.admin.request('adminUpdateFulfillment', {
      path: { id: order.id, fulfillmentId: courier!.id },
      body: { status: 'delivered' },
    });
    await third.getByRole('button', { name: 'Cancel shipment' }).click();
    await page
      .getByRole('dialog', { name: 'Cancel shipment 3?' })
      .getByRole('button', { name: 'Cancel shipment' })
      .click();
    await third
      .getByRole('alert')
      .getByText(
        'This parcel was delivered; it cannot be cancelled. Record a return for units that come back.',
      )
      .waitFor();
    await third.getByText('delivered', { exact: true }).waitFor();

    const final = await shop.admin.orders.get(order.id);
    assert.equal(final.fulfillmentStatus, 'partial');
    assert.deepEqual(
      final.fulfillments.map((f) => f.status),
      ['delivered', 'cancelled', 'delivered'],
    );
    await assertAccessible(page, 'order with a refused cancellation');

    // Usable at 375 px: nothing wider than the screen.
    await page.setViewportSize({ width: 375, height: 740 });
    assert.ok(
      await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth'),
      'no horizontal scrolling at 375 px',
    );
    await page.setViewportSize({ width: 1280, height: 860 });

    // The orders list: a column and a filter by fulfilment status, kept in the address.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Orders' }).click();
    const rows = page.locator('table.orders-table tbody tr');
    await page.getByRole('link', { name: `#${other.number}` }).waitFor();
    const row = (number: number): Locator =>
      rows.filter({ has: page.getByRole('link', { name: `#${number}` }) });
    assert.equal((await row(order.number).getByRole('cell').allTextContents())[4], 'partially fulfilled');
    assert.equal((await row(other.number).getByRole('cell').allTextContents())[4], 'unfulfilled');
    const filter = page.getByLabel('Fulfilment', { exact: true });
    await filter.selectOption('partial');
    await page.waitForURL(/fulfillment=partial/);
    await until(async () => (await rows.count()) === 1, 'the partially fulfilled orders');
    await page.getByRole('link', { name: `#${order.number}` }).waitFor();
    await filter.selectOption('unfulfilled');
    await page.getByRole('link', { name: `#${other.number}` }).waitFor();
    await until(async () => (await rows.count()) === 1, 'the unfulfilled orders');
    await filter.selectOption('fulfilled');
    await page.getByText('No order is fulfilled.').waitFor();
    // With the status filter and a reload: both stay.
    await page.getByLabel('Payment', { exact: true }).selectOption('paid');
    await filter.selectOption('partial');
    await page.waitForURL(/status=paid/);
    await page.reload();
    await page.getByRole('link', { name: `#${order.number}` }).waitFor();
    assert.equal(await filter.inputValue(), 'partial');
    const search = new URL(page.url()).searchParams;
    assert.deepEqual([search.get('status'), search.get('fulfillment')], ['paid', 'partial']);
    await assertAccessible(page, 'orders by fulfilment status');

    assert.deepEqual(problems, []);
    await context.close();
  });
});
