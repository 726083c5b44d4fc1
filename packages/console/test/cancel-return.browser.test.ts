/**
 * After the sale in Chromium (docs/fulfillment.md): a paid order that has not shipped is cancelled
 * from its page after a dialog that names what happens (restocked, refunded, the buyer emailed); a
 * pending order's dialog says its stock is released and its payment cancelled; a shipment's
 * tracking is changed in place; the orders list's Payment filter finds the cancelled orders; and a
 * unit that came back is returned, restocked, with the refund the server suggests. What the user
 * sees is checked on the page, what happened through the Admin API.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { openShop, startedForFile, type Shop } from '../../client/test/server.test-support.ts';
import { assertAccessible, screenshot, signedInPage, startConsole, until } from './browser.test-support.ts';

const h = startedForFile(startConsole);

const UPS_NUMBER = '1Z999AA10123456784';
const NEW_UPS_NUMBER = '1Z999AA10123456795';

async function product(shop: Shop, title: string, label: string, priceAmount: number, onHand = 10) {
  const created = await shop.admin.products.create({
    title,
    status: 'active',
    variants: [{ label, priceAmount, onHand }],
  });
  return { productId: created.id, variantId: created.variants[0]!.id };
}

/** An order of these lines through the storefront client; paid through the sandbox unless `pay` is false. */
async function order(shop: Shop, items: { variantId: string; quantity: number }[], pay = true) {
  const cart = await shop.storefront.carts.create({ items });
  const checkout = await shop.storefront.checkout.create({ cartId: cart.id, email: 'ada@example.com' });
  if (pay) {
    await shop.storefront.sandbox.confirm(checkout.payment, 'pm_card_visa');
    await shop.storefront.orders.waitForPaid(checkout.order.id, { timeoutMs: 10_000, intervalMs: 50 });
  }
  return checkout.order;
}

/** The variant's stock as the Admin API has it. */
async function stock(shop: Shop, productId: string) {
  const { variants } = await shop.admin.products.get(productId);
  return { onHand: variants[0]!.onHand, reserved: variants[0]!.reserved };
}

async function openOrder(page: Page, number: number, id: string) {
  await page.goto(`/admin/orders/${id}`);
  await page.getByRole('heading', { name: `Order #${number}`, level: 1 }).waitFor();
}

/** The text of the element that has the focus. */
const focused = (page: Page) => page.evaluate<string | null>('document.activeElement?.textContent ?? null');

/** A badge in the order page's header. */
const headerBadge = (page: Page, text: string): Locator =>
  page.locator('.order-meta').getByText(text, { exact: true });

describe('cancelling and returning in the console', () => {
  test('a paid order that has not shipped is cancelled from its dialog: restocked, refunded, said so', async () => {
    const shop = await openShop(h.live);
    const mug = await product(shop, 'Blue mug', 'Large', 2500);
    const paid = await order(shop, [{ variantId: mug.variantId, quantity: 2 }]);
    assert.deepEqual(await stock(shop, mug.productId), { onHand: 8, reserved: 0 });

    const { context, page, problems } = await signedInPage(h, shop.shop);
    await openOrder(page, paid.number, paid.id);
    const section = page.getByRole('region', { name: 'Cancel order' });
    await section
      .getByText('Restocks the items and refunds the buyer, unless you choose otherwise.')
      .waitFor();
    const open = section.getByRole('button', { name: 'Cancel order…' });

    // The dialog names the consequences; "Keep the order" closes it, changes nothing, and gives the
    // focus back to the button.
    await open.click();
    const dialog = page.getByRole('dialog', { name: `Cancel order #${paid.number}?` });
    await dialog.waitFor();
    const restock = dialog.getByRole('checkbox', { name: 'Restock 2 items' });
    const refund = dialog.getByRole('checkbox', { name: 'Refund $50.00' });
    assert.equal(await restock.isChecked(), true);
    assert.equal(await refund.isChecked(), true);
    await dialog.getByText('The buyer is emailed that the order was cancelled.').waitFor();
    await assertAccessible(page, 'the cancel dialog of a paid order');
    await dialog.getByRole('button', { name: 'Keep the order' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(await focused(page), 'Cancel order…', 'the focus is back on the button');
    assert.equal((await shop.admin.orders.get(paid.id)).status, 'paid');

    // Cancelled with a reason: restocked and refunded.
    await open.click();
    await dialog.getByLabel('Reason for cancelling (optional)').fill('Customer changed their mind');
    await dialog.getByRole('button', { name: 'Cancel order', exact: true }).click();
    await page
      .getByText(
        `Order #${paid.number} cancelled. Its 2 items are back in stock. A refund of $50.00 is on its way`,
      )
      .waitFor();
    await headerBadge(page, 'cancelled').waitFor();
    assert.equal(
      await page.evaluate<string | null>('document.activeElement?.id ?? null'),
      'page-title',
      'the focus goes to the heading once the button is gone',
    );
    assert.equal(await section.count(), 0, 'a cancelled order offers no cancellation');
    const refunds = page.getByRole('region', { name: 'Refunds' });
    await refunds.getByText('$50.00').waitFor();
    // The sandbox settles the refund: the page looks again until it has.
    await refunds.getByText('succeeded').waitFor({ timeout: 15_000 });
    const timeline = page.getByRole('region', { name: 'Timeline' });
    await timeline.getByText('Order cancelled').waitFor();
    await timeline.getByText('Reason: Customer changed their mind').waitFor();
    await timeline.getByText('Refund of $50.00 requested by the cancellation').waitFor();
    await timeline.getByText('Refund of $50.00 succeeded').waitFor();
    await headerBadge(page, 'refunded').waitFor();
    await assertAccessible(page, 'a cancelled order');

    const cancelled = await shop.admin.orders.get(paid.id);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal(cancelled.cancelReason, 'Customer changed their mind');
    assert.deepEqual(
      cancelled.refunds.map((r) => [r.reason, r.amount.amount]),
      [['order_cancelled', 5000]],
    );
    assert.deepEqual(await stock(shop, mug.productId), { onHand: 10, reserved: 0 }, 'restocked');

    // Reloaded, the page says when and why it was cancelled.
    await page.reload();
    await page.getByText('Cancelled', { exact: true }).waitFor();
    await page.getByText('Reason: Customer changed their mind').first().waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("a pending order's dialog: its stock is released and the payment cancelled; a shipped one is returned instead", async () => {
    const shop = await openShop(h.live);
    const tee = await product(shop, 'Tee', 'M', 3000);
    const pending = await order(shop, [{ variantId: tee.variantId, quantity: 1 }], false);
    const shipped = await order(shop, [{ variantId: tee.variantId, quantity: 1 }]);
    await shop.admin.request('adminCreateFulfillment', {
      path: { id: shipped.id },
      body: { lines: [{ variantId: tee.variantId, quantity: 1 }], notifyCustomer: false },
    });
    assert.deepEqual(await stock(shop, tee.productId), { onHand: 9, reserved: 1 });

    const { context, page, problems } = await signedInPage(h, shop.shop);

    // Shipped: not offered, and why.
    await openOrder(page, shipped.number, shipped.id);
    const shippedSection = page.getByRole('region', { name: 'Cancel order' });
    await shippedSection.getByText(/^Shipped orders are returned, not cancelled/).waitFor();
    assert.equal(await shippedSection.getByRole('button').count(), 0);

    await openOrder(page, pending.number, pending.id);
    await headerBadge(page, 'pending').waitFor();
    await page
      .getByRole('region', { name: 'Cancel order' })
      .getByRole('button', { name: 'Cancel order…' })
      .click();
    const dialog = page.getByRole('dialog', { name: `Cancel order #${pending.number}?` });
    await dialog
      .getByText("The reserved stock is released and the buyer's payment is cancelled.", { exact: false })
      .waitFor();
    assert.equal(await dialog.getByRole('checkbox').count(), 0, 'nothing to restock or refund');
    await assertAccessible(page, 'the cancel dialog of a pending order');
    await dialog.getByRole('button', { name: 'Cancel order', exact: true }).click();
    await page.getByText(`Order #${pending.number} cancelled.`).waitFor();
    await page
      .getByText("The reserved stock was released and the buyer's payment cancelled.", { exact: false })
      .waitFor();
    await headerBadge(page, 'cancelled').waitFor();
    const timeline = page.getByRole('region', { name: 'Timeline' });
    await timeline.getByText('Order cancelled').waitFor();
    assert.equal(
      await timeline.getByText('Expires unless paid by then').count(),
      0,
      'a cancelled order no longer expires',
    );

    assert.equal((await shop.admin.orders.get(pending.id)).status, 'cancelled');
    assert.deepEqual(
      await stock(shop, tee.productId),
      { onHand: 9, reserved: 0 },
      'the reservation released',
    );
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("a shipment's tracking is changed in place", async () => {
    const shop = await openShop(h.live);
    const mug = await product(shop, 'Blue mug', 'Large', 2500);
    const paid = await order(shop, [{ variantId: mug.variantId, quantity: 2 }]);
    const first = await shop.admin.request('adminCreateFulfillment', {
      path: { id: paid.id },
      body: {
        lines: [{ variantId: mug.variantId, quantity: 1 }],
        carrier: 'UPS',
        trackingNumber: UPS_NUMBER,
        notifyCustomer: false,
      },
    });
    const second = await shop.admin.request('adminCreateFulfillment', {
      path: { id: paid.id },
      body: { lines: [{ variantId: mug.variantId, quantity: 1 }], notifyCustomer: false },
    });
    await shop.admin.request('adminCancelFulfillment', { path: { id: paid.id, fulfillmentId: second.id } });

    const { context, page, problems } = await signedInPage(h, shop.shop);
    await openOrder(page, paid.number, paid.id);
    const shipments = page.getByRole('region', { name: 'Shipments' });
    const one = shipments.getByRole('listitem', { name: /Shipment 1/ });
    const two = shipments.getByRole('listitem', { name: /Shipment 2/ });
    await two.getByText('cancelled', { exact: true }).waitFor();
    assert.equal(
      await two.getByRole('button', { name: 'Edit tracking' }).count(),
      0,
      'not on a cancelled one',
    );

    const edit = one.getByRole('button', { name: 'Edit tracking' });
    assert.equal(await edit.getAttribute('aria-expanded'), 'false');
    await edit.click();
    assert.equal(await edit.getAttribute('aria-expanded'), 'true');
    const form = one.getByRole('form', { name: 'Tracking of shipment 1' });
    assert.equal(await edit.getAttribute('aria-controls'), await form.getAttribute('id'));
    const carrier = form.getByLabel('Carrier', { exact: true });
    assert.equal(await carrier.inputValue(), 'UPS');
    const number = form.getByLabel('Tracking number', { exact: true });
    assert.equal(await number.inputValue(), UPS_NUMBER);
    assert.equal(
      await carrier.locator('option', { hasText: 'None given' }).count(),
      0,
      'a carrier once given is changed, not removed',
    );
    await assertAccessible(page, 'a shipment with its tracking form');

    // Refused by the server at its field: a tracking page must be https.
    const url = form.getByLabel('New tracking URL (optional)');
    await url.fill('http://tracking.example/1');
    await form.getByRole('button', { name: 'Save tracking' }).click();
    await form
      .getByText('The tracking URL must be an https URL (the carrier’s tracking page)', { exact: true })
      .waitFor();
    assert.equal(await url.getAttribute('aria-invalid'), 'true');
    assert.equal(
      (await shop.admin.orders.get(paid.id)).fulfillments[0]!.trackingNumber,
      UPS_NUMBER,
      'nothing changed',
    );

    // A new number: UPS's link is made again from it.
    await url.fill('');
    await number.fill(NEW_UPS_NUMBER);
    await form.getByRole('button', { name: 'Save tracking' }).click();
    await one.getByText('Tracking saved. The customer was not emailed.').waitFor();
    await form.waitFor({ state: 'hidden' });
    assert.equal(await focused(page), 'Edit tracking', 'the focus is back on the button');
    const link = one.getByRole('link', { name: `${NEW_UPS_NUMBER} (opens in a new tab)` });
    assert.equal(await link.getAttribute('href'), `https://www.ups.com/track?tracknum=${NEW_UPS_NUMBER}`);

    // Another carrier, with its own page.
    await edit.click();
    await carrier.selectOption('other');
    await form.getByLabel('Carrier name').fill('Bike courier');
    await number.fill('BC-7');
    await url.fill('https://bikes.example/track/BC-7');
    await form.getByRole('button', { name: 'Save tracking' }).click();
    await one.getByRole('link', { name: 'BC-7 (opens in a new tab)' }).waitFor();
    await one.getByText(/^Bike courier ·/).waitFor();
    const changed = (await shop.admin.orders.get(paid.id)).fulfillments.find((f) => f.id === first.id)!;
    assert.deepEqual(
      [changed.carrier, changed.trackingNumber, changed.trackingUrl],
      ['Bike courier', 'BC-7', 'https://bikes.example/track/BC-7'],
    );

    // A delivered parcel's tracking can still be corrected.
    await shop.admin.request('adminUpdateFulfillment', {
      path: { id: paid.id, fulfillmentId: first.id },
      body: { status: 'delivered' },
    });
    await page.reload();
    await one.getByText('delivered', { exact: true }).waitFor();
    assert.deepEqual(await one.getByRole('button').allTextContents(), ['Edit tracking']);
    await assertAccessible(page, 'shipments after a tracking change');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("the orders list's Payment filter finds the cancelled orders", async () => {
    const shop = await openShop(h.live);
    const lamp = await product(shop, 'Desk lamp', 'One', 3000);
    const paid = await order(shop, [{ variantId: lamp.variantId, quantity: 1 }]);
    const pending = await order(shop, [{ variantId: lamp.variantId, quantity: 1 }], false);
    const cancelledPaid = await order(shop, [{ variantId: lamp.variantId, quantity: 1 }]);
    const cancelledPending = await order(shop, [{ variantId: lamp.variantId, quantity: 1 }], false);
    await shop.admin.request('adminCancelOrder', { path: { id: cancelledPaid.id }, body: {} });
    await shop.admin.request('adminCancelOrder', { path: { id: cancelledPending.id }, body: {} });

    const { context, page, problems } = await signedInPage(h, shop.shop);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Orders' }).click();
    await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
    const rows = page.locator('table.orders-table tbody tr');
    await page.getByRole('link', { name: `#${paid.number}` }).waitFor();
    await until(async () => (await rows.count()) === 4, 'every order');

    const filter = page.getByLabel('Payment', { exact: true });
    assert.deepEqual(await filter.locator('option').allTextContents(), [
      'Any',
      'Pending payment',
      'Paid',
      'Expired (unpaid)',
      'Cancelled',
    ]);
    await filter.selectOption('cancelled');
    await page.waitForURL(/status=cancelled/);
    await until(async () => (await rows.count()) === 2, 'the cancelled orders');
    assert.deepEqual(
      await rows.getByRole('rowheader').allTextContents(),
      [`#${cancelledPending.number}`, `#${cancelledPaid.number}`],
      'newest first',
    );
    for (const number of [cancelledPending.number, cancelledPaid.number]) {
      const row = rows.filter({ has: page.getByRole('link', { name: `#${number}` }) });
      await row.locator('.order-badges').getByText('cancelled', { exact: true }).waitFor();
    }
    assert.equal(await page.getByRole('link', { name: `#${paid.number}` }).count(), 0);
    assert.equal(await page.getByRole('link', { name: `#${pending.number}` }).count(), 0);
    await assertAccessible(page, 'cancelled orders');

    // With the fulfilment filter beside it, and after a reload: both stay.
    await page.getByLabel('Fulfilment', { exact: true }).selectOption('fulfilled');
    await page.getByText('No cancelled order is fulfilled.').waitFor();
    await page.reload();
    await page.getByText('No cancelled order is fulfilled.').waitFor();
    assert.equal(await filter.inputValue(), 'cancelled');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a unit that came back is returned: restocked, with the suggested refund, and listed', async () => {
    const shop = await openShop(h.live);
    const mug = await product(shop, 'Blue mug', 'Large', 2500);
    const tee = await product(shop, 'Tee', 'M', 3000);
    const paid = await order(shop, [
      { variantId: mug.variantId, quantity: 2 },
      { variantId: tee.variantId, quantity: 1 },
    ]);
    await shop.admin.request('adminCreateFulfillment', {
      path: { id: paid.id },
      body: {
        lines: [{ variantId: mug.variantId, quantity: 2 }],
        carrier: 'UPS',
        trackingNumber: UPS_NUMBER,
      },
    });
    assert.deepEqual(await stock(shop, mug.productId), { onHand: 8, reserved: 0 });

    const { context, page, problems } = await signedInPage(h, shop.shop);
    await openOrder(page, paid.number, paid.id);
    const form = page.getByRole('region', { name: 'Return items' });
    const mugUnits = form.getByLabel('Units of Blue mug (Large) to return (0 to 2)');
    assert.equal(await mugUnits.inputValue(), '0');
    await form.getByRole('row', { name: /Tee/ }).getByText('Not shipped').waitFor();
    const restock = form.getByRole('checkbox', { name: 'Restock Blue mug (Large)' });
    assert.equal(await restock.isChecked(), true);
    assert.equal(await form.getByLabel('Email the customer that the return was received').isChecked(), true);
    await form.getByText('Most you can refund: $80.00.', { exact: false }).waitFor();

    // Refused in the page: more than came back, and nothing at all.
    await mugUnits.fill('3');
    await form.getByText('At most 2 can come back: 2 units shipped and not returned.').waitFor();
    await mugUnits.fill('0');
    await form.getByRole('button', { name: 'Return items' }).click();
    await form.getByText('Choose at least one unit that came back.').waitFor();

    // One mug: the refund starts at its share of what was paid for the goods.
    await mugUnits.fill('1');
    await form.getByText('Suggested: $25.00, these units’ share of what was paid for the goods.').waitFor();
    const amount = form.getByLabel('Refund amount (USD)', { exact: true });
    assert.equal(await amount.inputValue(), '25.00');
    await assertAccessible(page, 'the return form');
    await form.scrollIntoViewIfNeeded();
    await screenshot(page, 'order-return');
    await form.getByLabel('Reason for the return (optional)').fill('Too small');
    await form.getByRole('button', { name: 'Return 1 unit' }).click();
    await form
      .getByText(
        'Return recorded: 1 unit, restocked. A refund of $25.00 is on its way; it settles when the payment provider confirms it. The customer is emailed.',
      )
      .waitFor();
    // The form starts again from what can come back: 1 mug.
    await form.getByLabel('Units of Blue mug (Large) to return (0 to 1)').waitFor();

    const returns = page.getByRole('region', { name: 'Returns' });
    const first = returns.getByRole('listitem', { name: 'Return 1' });
    await first.getByText('1 × Blue mug (Large) · restocked').waitFor();
    await first.getByText('Refund of $25.00', { exact: false }).waitFor();
    await first.getByText('Reason: Too small').waitFor();
    const timeline = page.getByRole('region', { name: 'Timeline' });
    await timeline.getByText('Return received: 1 unit').waitFor();
    await timeline.getByText('Refund of $25.00 requested for returned items').waitFor();
    await timeline.getByText(/^Shipping confirmation (emailed|waiting to be sent)$/).waitFor();
    await assertAccessible(page, 'an order with a return');

    const returned = await shop.admin.orders.get(paid.id);
    assert.deepEqual(
      returned.returns.map((r) => [r.lines, r.refundAmount.amount]),
      [[[{ variantId: mug.variantId, quantity: 1, restock: true }], 2500]],
    );
    assert.deepEqual(await stock(shop, mug.productId), { onHand: 9, reserved: 0 }, 'restocked');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
