/**
 * The merchant's shipping, end to end in Chromium: a zone and a weight-based method made in the
 * console are what the shop offers, priced by the weight the console gave the variant; the store
 * setting that requires an address is what the shop's checkout enforces.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startedForFile } from '../../client/test/server.test-support.ts';
import { assertAccessible, newPage, openScreen, signIn } from '../../console/test/browser.test-support.ts';
import { waitFor } from '../../../src/test/harness.ts';
import { openStore, seedCatalog, startShop } from './shop.test-support.ts';

const h = startedForFile(startShop);

describe('shipping set up in the console, offered in the shop', () => {
  test('a zone and a weight-based method made in the console are the shop’s options, by the variant’s weight', async () => {
    const shop = await openStore(h);
    const catalog = await seedCatalog(shop);
    const { context, page, problems } = await newPage(h);

    // The merchant: the tee weighs 1.2 kg; a zone for Canada with a method by weight.
    await shop.admin.request('adminUpdateVariant', {
      path: { id: catalog.tee.variant },
      body: { weightGrams: 1200 },
    });
    await signIn(page, shop.store);
    await openScreen(page, 'Shipping', 'Shipping');
    await page.getByRole('button', { name: 'Add zone' }).click();
    const newZone = page.getByRole('region', { name: 'New zone', exact: true });
    await newZone.getByLabel('Zone name').fill('Canada');
    await newZone.getByRole('group', { name: 'Area 1' }).getByLabel('Country').selectOption('CA');
    await newZone.getByRole('button', { name: 'Create zone' }).click();
    await page.getByText('The zone “Canada” was created.').waitFor();
    const canada = page.getByRole('region', { name: 'Canada', exact: true });
    await canada.getByRole('button', { name: 'Add method to Canada' }).click();
    const method = canada.getByRole('region', { name: 'New method for “Canada”' });
    await method.getByLabel('Method name').fill('Canada Post');
    await method.getByLabel('Kind').selectOption('weight');
    await method.getByRole('group', { name: 'Tier 1' }).getByLabel('Up to (g)').fill('1000');
    await method.getByRole('group', { name: 'Tier 1' }).getByLabel('Price (USD)').fill('7');
    await method.getByRole('button', { name: 'Add tier' }).click();
    await method.getByRole('group', { name: 'Tier 2' }).getByLabel('Up to (g)').fill('5000');
    await method.getByRole('group', { name: 'Tier 2' }).getByLabel('Price (USD)').fill('12.50');
    await method.getByRole('button', { name: 'Add method' }).click();
    await page.getByText('The method “Canada Post” was added.').waitFor();

    // The shopper in Ontario: one tee (1.2 kg) is the second tier.
    await page.goto(`/shop/products/${catalog.tee.handle}`);
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.getByRole('link', { name: 'View cart' }).click();
    await page.getByRole('link', { name: 'Check out' }).click();
    await page.getByLabel('Email').fill('jo@example.com');
    await page.getByLabel('Country or region').selectOption('CA');
    await page.getByLabel('Full name', { exact: true }).fill('Jo Tremblay');
    await page.getByLabel('Address', { exact: true }).fill('24 Sussex Dr');
    await page.getByLabel('City', { exact: true }).fill('Ottawa');
    await page.getByLabel('Province', { exact: true }).selectOption('CA-ON');
    await page.getByLabel('Postal code', { exact: true }).fill('K1M 1M4');
    await page.getByRole('button', { name: 'Continue to shipping' }).click();
    await page.getByRole('heading', { name: 'Shipping', level: 2 }).waitFor();
    assert.deepEqual(
      (await page.locator('.shipping-option').allTextContents()).map((text) =>
        text.replace(/\s+/g, ' ').trim(),
      ),
      ['Canada Post$12.50'],
    );
    await assertAccessible(page, 'a method made in the console, in the shop');
    await page.getByRole('button', { name: 'Continue to review' }).click();
    await page.getByRole('heading', { name: 'Review and pay', level: 2 }).waitFor();
    assert.match((await page.locator('.totals').textContent()) ?? '', /Shipping\$12\.50.*Total\$42\.50/);

    // An address the store does not ship to is said at the country, before any method.
    await page.getByRole('button', { name: /^1\. Contact and address/ }).click();
    await page.getByLabel('Country or region').selectOption('DE');
    await page.getByLabel('Postal code', { exact: true }).fill('10117');
    await page.getByLabel('City', { exact: true }).fill('Berlin');
    await page.getByRole('button', { name: 'Continue to shipping' }).click();
    await page.getByText('We do not ship to Germany yet. Choose another address.').waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });
});

describe('shipments on the order page', () => {
  test('a paid order says where it stands, parcel by parcel, with the tracking link', async () => {
    const shop = await openStore(h);
    const catalog = await seedCatalog(shop);
    const cart = await shop.storefront.carts.create({
      items: [
        { variantId: catalog.mug.small, quantity: 2 },
        { variantId: catalog.tee.variant, quantity: 1 },
      ],
    });
    const checkout = await shop.storefront.checkout.create({ cartId: cart.id, email: 'kim@example.com' });
    await shop.storefront.sandbox.confirm(checkout.payment, 'pm_card_visa');
    await shop.storefront.orders.waitForPaid(checkout.order.id, { timeoutMs: 20_000 });
    const { context, page, problems } = await newPage(h, { width: 375, height: 800 });

    await page.goto(`/shop/orders/${checkout.order.id}`);
    await page.getByText('We are preparing your order.').waitFor();

    const parcel = await shop.admin.request('adminCreateFulfillment', {
      path: { id: checkout.order.id },
      body: {
        lines: [{ variantId: catalog.mug.small, quantity: 2 }],
        carrier: 'UPS',
        trackingNumber: '1Z999AA10123456784',
      },
    });
    await page.reload();
    await page.getByText('Part of your order is on its way; the rest follows.').waitFor();
    const link = page.getByRole('link', { name: 'Track parcel 1 (1Z999AA10123456784)' });
    assert.equal(await link.getAttribute('href'), 'https://www.ups.com/track?tracknum=1Z999AA10123456784');
    assert.equal(await link.getAttribute('rel'), 'noopener noreferrer');
    await page.locator('.shipment-list').getByText('2 × Blue mug (Small)').waitFor();
    await assertAccessible(page, 'order with a shipment');

    await shop.admin.request('adminCreateFulfillment', {
      path: { id: checkout.order.id },
      body: { lines: [{ variantId: catalog.tee.variant, quantity: 1 }], notifyCustomer: false },
    });
    await page.reload();
    await page.getByText('Your order is on its way.').waitFor();
    await page.getByText(/^Parcel 2: shipped/).waitFor();
    for (const fulfillment of [
      parcel,
      ...(await shop.admin.orders.get(checkout.order.id)).fulfillments.slice(1),
    ])
      await shop.admin.request('adminUpdateFulfillment', {
        path: { id: checkout.order.id, fulfillmentId: fulfillment.id },
        body: { status: 'delivered' },
      });
    await page.reload();
    await page.getByText('Your order was delivered.').waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a returned unit and its refund, then a cancelled order, in words a buyer understands', async () => {
    const shop = await openStore(h);
    const catalog = await seedCatalog(shop);
    const bought = async () => {
      const cart = await shop.storefront.carts.create({
        items: [{ variantId: catalog.mug.small, quantity: 2 }],
      });
      const checkout = await shop.storefront.checkout.create({ cartId: cart.id, email: 'kim@example.com' });
      await shop.storefront.sandbox.confirm(checkout.payment, 'pm_card_visa');
      await shop.storefront.orders.waitForPaid(checkout.order.id, { timeoutMs: 20_000 });
      return checkout.order;
    };
    const order = await bought();
    await shop.admin.request('adminCreateFulfillment', {
      path: { id: order.id },
      body: { lines: [{ variantId: catalog.mug.small, quantity: 2 }] },
    });
    const received = await shop.admin.request('adminCreateReturn', {
      path: { id: order.id },
      body: { lines: [{ variantId: catalog.mug.small, quantity: 1 }] },
    });
    assert.ok(received.refundAmount.amount > 0);
    const { context, page, problems } = await newPage(h, { width: 375, height: 800 });
    await page.goto(`/shop/orders/${order.id}`);
    const returns = page.getByRole('region', { name: 'Returns' });
    await returns.getByText('1 × Blue mug (Small)').waitFor();
    await returns.getByText(/^Received .*: \$[\d.]+ refunded$/).waitFor();
    // The refund settles (the sandbox's webhook): the page says how much came back.
    await waitFor(async () => (await shop.storefront.orders.get(order.id)).refunded.amount > 0, 10_000);
    await page.reload();
    await returns.getByText(/^Refunded so far: \$[\d.]+ of \$[\d.]+\./).waitFor();
    await assertAccessible(page, 'order with a return');

    const cancelled = await bought();
    await shop.admin.request('adminCancelOrder', { path: { id: cancelled.id }, body: {} });
    await page.goto(`/shop/orders/${cancelled.id}`);
    await page.getByText(/was cancelled by the shop\./).waitFor();
    await waitFor(
      async () => (await shop.storefront.orders.get(cancelled.id)).refunded.amount === cancelled.total.amount,
      10_000,
    );
    await page.reload();
    await page.getByText(/Your payment of \$[\d.]+ was refunded\./).waitFor();
    assert.equal(await page.getByRole('region', { name: 'Shipping' }).count(), 0);
    await assertAccessible(page, 'cancelled order');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
