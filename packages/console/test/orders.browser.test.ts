/**
 * Home, orders and pricing in Chromium: a paid order (through the storefront client and the
 * sandbox) shows on Home and in the orders list; its page refuses an over-refund before asking the
 * server and makes a partial refund; the list's search finds orders by number, email and name, and
 * an order shows its addresses, shipping method and phone; discount codes and country rates are
 * made from the pricing screen. What the user sees is checked on the page, what happened through the Admin API.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createProduct, openShop, startedForFile, type Shop } from '../../client/test/server.test-support.ts';
import { assertAccessible, screenshot, signedInPage, startConsole, until } from './browser.test-support.ts';

const h = startedForFile(startConsole);

/** A cart of `quantity` units checked out; paid through the sandbox unless `pay` is false. */
async function order(shop: Shop, variantId: string, quantity: number, pay = true) {
  const cart = await shop.storefront.carts.create({ items: [{ variantId, quantity }] });
  const checkout = await shop.storefront.checkout.create({ cartId: cart.id, email: 'buyer@example.com' });
  if (pay) {
    await shop.storefront.sandbox.confirm(checkout.payment, 'pm_card_visa');
    await shop.storefront.orders.waitForPaid(checkout.order.id, { timeoutMs: 10_000, intervalMs: 50 });
  }
  return checkout.order;
}

/** The text of a Home figure (a region named by its label). */
async function figure(page: Page, label: string): Promise<string> {
  return (await page.getByRole('region', { name: label }).locator('.value').textContent()) ?? '';
}

describe('orders in the console', () => {
  test('a paid order on Home and in the list; its page refuses an over-refund and makes a partial refund', async () => {
    const shop = await openShop(h.live);
    const product = await createProduct(shop.admin, { title: 'Blue mug', priceAmount: 2500, onHand: 4 });
    const variantId = product.variants[0]!.id;
    const paid = await order(shop, variantId, 2);
    const pending = await order(shop, variantId, 1, false);

    const { context, page, problems } = await signedInPage(h, shop.shop);

    // Home: today's numbers, and the mug is low on stock (4 on hand, 2 sold, 1 reserved: 1 left).
    await page.getByRole('region', { name: 'Orders paid today' }).waitFor();
    assert.equal(await figure(page, 'Orders paid today'), '1');
    assert.equal(await figure(page, 'Revenue today'), '$50.00');
    assert.equal(await figure(page, 'Awaiting payment'), '1');
    assert.equal(await figure(page, 'Expired today'), '0');
    const lowStock = page.getByRole('table', { name: /low on stock/ });
    const mugRow = lowStock.getByRole('row', { name: /Blue mug/ });
    assert.deepEqual(
      (await mugRow.getByRole('cell').allTextContents()).slice(1),
      ['One', '—', '1', '2', '1'],
      'variant, SKU, available, on hand, reserved',
    );
    assert.equal(
      await mugRow.getByRole('link', { name: 'Blue mug' }).getAttribute('href'),
      `/admin/products/${product.id}`,
    );
    await page.getByText('No failed webhook delivery.').waitFor();
    assert.equal(
      await page.getByRole('link', { name: 'Set up a sending domain' }).getAttribute('href'),
      '/admin/email',
    );
    await assertAccessible(page, 'home');
    await screenshot(page, 'home');

    // The list: both orders, newest first; the status filter narrows it (and is in the address).
    await page.getByRole('region', { name: 'Awaiting payment' }).getByRole('link').click();
    await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
    assert.equal(new URL(page.url()).search, '?status=pending');
    const rows = page.locator('table.orders-table tbody tr');
    await page.getByRole('link', { name: `#${pending.number}` }).waitFor();
    assert.equal(await rows.count(), 1);
    await page.getByLabel('Payment', { exact: true }).selectOption('');
    await page.getByRole('link', { name: `#${paid.number}` }).waitFor();
    assert.equal(await rows.count(), 2);
    const paidRow = rows.filter({ has: page.getByRole('link', { name: `#${paid.number}` }) });
    const cells = await paidRow.getByRole('cell').allTextContents();
    assert.equal(cells[1], 'buyer@example.com');
    assert.equal(cells[2], '$50.00');
    assert.equal(cells[3], 'paid');
    assert.equal(
      cells[0],
      new Date(paid.createdAt).toLocaleString('en-US', {
        dateStyle: 'medium',
        timeStyle: 'short',
        timeZone: 'UTC',
      }),
      "the date, in the browser's locale and time zone",
    );
    assert.deepEqual(
      await rows.getByRole('rowheader').allTextContents(),
      [`#${pending.number}`, `#${paid.number}`],
      'newest first',
    );
    await assertAccessible(page, 'orders list');
    await screenshot(page, 'orders');
    await page.getByLabel('Payment', { exact: true }).selectOption('paid');
    await page.waitForURL(/status=paid/);
    await until(async () => (await rows.count()) === 1, 'the paid orders');

    // The order: lines, totals, payment, timeline.
    await page.getByRole('link', { name: `#${paid.number}` }).click();
    await page.getByRole('heading', { name: `Order #${paid.number}`, level: 1 }).waitFor();
    const items = page.getByRole('region', { name: 'Items', exact: true });
    assert.match(
      (await items.getByRole('row', { name: /Blue mug/ }).textContent()) ?? '',
      /2\$25\.00\$50\.00/,
    );
    await page.getByRole('region', { name: 'Payment' }).getByText('succeeded').waitFor();
    const timeline = page.getByRole('region', { name: 'Timeline' });
    await timeline.getByText('Order placed by buyer@example.com').waitFor();
    await timeline.getByText('Payment captured: order paid').waitFor();
    await assertAccessible(page, 'order detail');

    // More than was paid is refused in the page: nothing reaches the server.
    const amount = page.getByLabel('Amount to refund (USD)', { exact: true });
    await amount.fill('50.01');
    const tooMuch = 'That is more than can be refunded: at most $50.00 is left on this order.';
    await page.getByText(tooMuch).waitFor();
    assert.equal(await amount.getAttribute('aria-invalid'), 'true');
    await assertAccessible(page, 'order detail with a refund refused');
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    assert.equal(
      await page.evaluate<string | null>('document.activeElement?.getAttribute("name") ?? null'),
      'amount',
      'focus goes back to the amount',
    );
    assert.deepEqual((await shop.admin.orders.get(paid.id)).refunds, []);
    await amount.fill('12.3456');
    await page.getByText('Use at most 2 decimals.').waitFor();

    // A partial refund with a reason.
    await amount.fill('12.34');
    await page.getByLabel('Reason (optional)', { exact: true }).fill('Chipped handle');
    await page.getByRole('button', { name: 'Refund $12.34' }).click();
    await page.getByText('Refund of $12.34 requested.').waitFor();
    const refunds = page.getByRole('region', { name: 'Refunds' });
    await refunds.getByText('Reason: Chipped handle').waitFor();
    // The sandbox settles it: the page looks again until it has.
    await refunds.getByText('succeeded').waitFor({ timeout: 15_000 });
    await timeline.getByText('Refund of $12.34 succeeded').waitFor();
    const settled = await shop.admin.orders.get(paid.id);
    assert.equal(settled.refunds.length, 1);
    assert.equal(settled.refunds[0]!.amount.amount, 1234);
    assert.equal(settled.refunds[0]!.note, 'Chipped handle');
    assert.equal(settled.refunded.amount, 1234);
    // What is left is the new limit.
    await page.getByText('At most $37.66: the amount paid minus refunds made or pending.').waitFor();
    await page.locator('.order-meta').getByText('partially refunded').waitFor();

    // Someone else refunds $30.00 meanwhile: this page still says $37.66 are left, the server
    // refuses $20.00, and the refusal is shown at the amount with what is left now.
    await shop.admin.orders.refund(paid.id, { amount: 3000 });
    await amount.fill('20');
    await page.getByRole('button', { name: 'Refund $20.00' }).click();
    await page
      .getByText('That is more than can be refunded now: at most $7.66 is left on this order.')
      .waitFor();
    assert.equal(await amount.getAttribute('aria-invalid'), 'true');
    assert.deepEqual(
      (await shop.admin.orders.get(paid.id)).refunds.map((refund) => refund.amount.amount).sort(),
      [1234, 3000],
    );

    // The rest, with the shortcut: then nothing is left to refund.
    await page.getByRole('button', { name: 'Refund everything left ($7.66)' }).click();
    // React fills the field on its next render: wait for it rather than read it at once.
    await page.waitForFunction(
      (input) => (input as { value?: string } | null)?.value === '7.66',
      await amount.elementHandle(),
    );
    await page.getByRole('button', { name: 'Refund $7.66' }).click();
    await page.getByText('Refund of $7.66 requested.').waitFor();
    await page.getByText('Everything paid on this order is refunded or being refunded.').waitFor();
    await page.locator('.order-meta').getByText('refunded', { exact: true }).waitFor({ timeout: 15_000 });
    const refunded = await shop.admin.orders.get(paid.id);
    assert.equal(refunded.refunded.amount, 5000);
    assert.deepEqual(
      refunded.refunds.map((refund) => refund.amount.amount).sort((a, b) => a - b),
      [766, 1234, 3000],
    );

    // Usable at 375 px: nothing wider than the screen.
    await page.setViewportSize({ width: 375, height: 740 });
    assert.ok(
      await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth'),
      'no horizontal scrolling at 375 px',
    );

    assert.deepEqual(problems, []);
    await context.close();
  });

  test('the product reached from an order shows the stock after the sale, not the copy seen before it', async () => {
    const shop = await openShop(h.live);
    const product = await createProduct(shop.admin, { title: 'Green vase', priceAmount: 4000, onHand: 5 });
    const variantId = product.variants[0]!.id;
    const { context, page, problems } = await signedInPage(h, shop.shop);

    // The merchant looks at the product first: 5 on hand, 5 available.
    await page.goto(`/admin/products/${product.id}`);
    await page.getByRole('heading', { name: 'Green vase', level: 1 }).waitFor();
    const stock = async () => ({
      onHand: await page.getByLabel('On hand').inputValue(),
      shown: (await page.locator('dl.stock').allTextContents()).join(''),
    });
    assert.deepEqual(await stock(), { onHand: '5', shown: 'Reserved0Available5' });

    // Meanwhile the shop sells 2 and holds 1 for an unpaid order.
    const sold = await order(shop, variantId, 2);
    await order(shop, variantId, 1, false);

    // Within the console (no reload): Orders, the order, its line's product.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Orders' }).click();
    await page.getByRole('link', { name: `#${sold.number}` }).click();
    await page.getByRole('heading', { name: `Order #${sold.number}`, level: 1 }).waitFor();
    await page
      .getByRole('region', { name: 'Items', exact: true })
      .getByRole('link', { name: 'Green vase' })
      .click();
    await page.getByRole('heading', { name: 'Green vase', level: 1 }).waitFor();
    assert.deepEqual(await stock(), { onHand: '3', shown: 'Reserved1Available2' }, 'the stock of now');

    // Saving another field leaves the stock as the shop left it.
    await page.getByLabel('Title', { exact: true }).fill('Green vase, large');
    await page.getByRole('button', { name: 'Save product' }).click();
    await page.getByText('Saved.').waitFor();
    const saved = await shop.admin.products.get(product.id);
    assert.deepEqual(
      saved.variants.map((v) => [v.onHand, v.reserved, v.available]),
      [[3, 1, 2]],
    );
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('the list finds an order by number and by email; an order shows its addresses, method and phone', async () => {
    const shop = await openShop(h.live);
    const product = await createProduct(shop.admin, { title: 'Desk lamp', priceAmount: 3000, onHand: 10 });
    const variantId = product.variants[0]!.id;
    const zone = await shop.admin.request('adminCreateShippingZone', {
      body: { name: 'Domestic', areas: [{ country: 'US' }] },
    });
    const ground = await shop.admin.request('adminCreateShippingMethod', {
      path: { id: zone.id },
      body: { name: 'Ground', kind: 'flat', amount: 800, minDeliveryDays: 3, maxDeliveryDays: 5 },
    });
    const buy = async (email: string, details: object) => {
      const cart = await shop.storefront.carts.create({ items: [{ variantId, quantity: 1 }] });
      return (
        await shop.storefront.checkout.create({
          cartId: cart.id,
          email,
          shippingMethodId: ground.id,
          ...details,
        })
      ).order;
    };
    const ada = await buy('ada.lovelace@example.com', {
      phone: '+1 617 555 0100',
      shippingAddress: {
        name: 'Ada King Lovelace',
        company: 'Analytical Engines',
        line1: '1 Main St',
        line2: 'Suite 4',
        city: 'Boston',
        region: 'MA',
        postalCode: '02108',
        country: 'US',
      },
      billingAddress: {
        name: 'Ada Lovelace',
        line1: '12 St James Sq',
        city: 'London',
        postalCode: 'SW1Y 4JH',
        country: 'GB',
      },
    });
    const grace = await buy('grace@navy.example', {
      shippingAddress: {
        name: 'Grace Hopper',
        line1: '1 Infinite Loop',
        city: 'Cupertino',
        region: 'CA',
        postalCode: '95014',
        country: 'US',
      },
    });

    const { context, page, problems } = await signedInPage(h, shop.shop);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Orders' }).click();
    const rows = page.locator('table.orders-table tbody tr');
    const listed = async (numbers: number[]) =>
      until(
        async () =>
          JSON.stringify(await rows.getByRole('rowheader').allTextContents()) ===
          JSON.stringify(numbers.map((n) => `#${n}`)),
        `orders ${numbers.join(', ')}`,
      );
    await listed([grace.number, ada.number]);
    const search = page.getByRole('searchbox', { name: 'Search' });

    // By number, with or without #; by the start of an email; by part of a name.
    await search.fill(`#${grace.number}`);
    await listed([grace.number]);
    assert.equal(new URL(page.url()).searchParams.get('q'), `#${grace.number}`);
    await search.fill(String(ada.number));
    await listed([ada.number]);
    await search.fill('ADA.LOVELACE@');
    await listed([ada.number]);
    await search.fill('hopper');
    await listed([grace.number]);
    await search.fill('nobody@');
    await page.getByText('No orders match “nobody@”.').waitFor();
    await assertAccessible(page, 'orders search');
    await search.fill('@example.com');
    await page.getByText('No orders match “@example.com”.').waitFor();
    await search.fill('ada@');
    await page.getByText('No orders match “ada@”.').waitFor();
    await search.fill('ada.');
    await listed([ada.number]);

    // Ada's order: where it goes (in the US layout), how, who pays (another address), the phone.
    await page.getByRole('link', { name: `#${ada.number}` }).click();
    await page.getByRole('heading', { name: `Order #${ada.number}`, level: 1 }).waitFor();
    const shipping = page.getByRole('region', { name: 'Shipping', exact: true });
    const addresses = shipping.locator('address');
    assert.deepEqual(await addresses.nth(0).locator('span').allTextContents(), [
      'Ada King Lovelace',
      'Analytical Engines',
      '1 Main St',
      'Suite 4',
      'Boston, MA 02108',
      'United States',
    ]);
    assert.deepEqual(await addresses.nth(1).locator('span').allTextContents(), [
      'Ada Lovelace',
      '12 St James Sq',
      'London',
      'SW1Y 4JH',
      'United Kingdom',
    ]);
    await shipping.getByText('Ground · 3–5 business days').waitFor();
    await page
      .getByRole('region', { name: 'Customer' })
      .getByRole('link', { name: '+1 617 555 0100' })
      .waitFor();
    await assertAccessible(page, 'order detail with addresses');

    // Grace's: no billing address given, so it is the shipping address.
    await page.goto(`/admin/orders/${grace.id}`);
    await page.getByRole('heading', { name: `Order #${grace.number}`, level: 1 }).waitFor();
    await shipping.getByText('Same as shipping').waitFor();
    assert.deepEqual(await shipping.locator('address').locator('span').allTextContents(), [
      'Grace Hopper',
      '1 Infinite Loop',
      'Cupertino, CA 95014',
      'United States',
    ]);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('an order that does not exist says so', async () => {
    const shop = await openShop(h.live);
    const { context, page, problems } = await signedInPage(h, shop.shop);
    await page.goto('/admin/orders/00000000-0000-4000-8000-000000000000');
    await page.getByRole('heading', { name: 'Order not found', level: 1 }).waitFor();
    await page.goto('/admin/orders');
    await page.getByText('No orders yet.').waitFor();
    await assertAccessible(page, 'orders list (empty)');
    assert.deepEqual(problems, []);
    await context.close();
  });
});

describe('discounts, tax and shipping in the console', () => {
  test('discount codes and country rates are created, refused at their fields, and deleted', async () => {
    const shop = await openShop(h.live);
    const { context, page, problems } = await signedInPage(h, shop.shop);
    await page.getByRole('link', { name: 'Discounts, tax & shipping' }).click();
    await page.getByRole('heading', { name: 'Discounts, tax & shipping', level: 1 }).waitFor();
    await page.getByText('No discount codes yet.').waitFor();
    const create = page.getByRole('button', { name: 'Create discount code' });

    // A percentage is whole: 12.5 is refused in the page.
    await page.getByLabel('Code', { exact: true }).fill('spring10');
    await page.getByLabel('Percent off', { exact: true }).fill('12.5');
    await create.click();
    await page.getByText('Enter a whole percentage from 1 to 100.').waitFor();
    await page.getByLabel('Percent off', { exact: true }).fill('10');
    await create.click();
    await page.getByText('Discount code SPRING10 created.').waitFor();
    const discounts = page.getByRole('table', { name: /Discount codes/ });
    await discounts
      .getByRole('row', { name: /SPRING10/ })
      .getByText('10% off')
      .waitFor();

    // A fixed amount, entered as a decimal, with a usage limit.
    await page.getByLabel('Code', { exact: true }).fill('SAVE5');
    await page.getByLabel('Type', { exact: true }).selectOption('fixed');
    await page.getByLabel('Amount off (USD)', { exact: true }).fill('5.50');
    await page.getByLabel('Usage limit (optional)', { exact: true }).fill('100');
    await create.click();
    await page.getByText('Discount code SAVE5 created.').waitFor();
    await discounts.getByRole('row', { name: /SAVE5/ }).getByText('$5.50 off').waitFor();

    // The same code again: the server's refusal is shown at the code.
    await page.getByLabel('Code', { exact: true }).fill('Spring10');
    await page.getByLabel('Type', { exact: true }).selectOption('percent');
    await page.getByLabel('Percent off', { exact: true }).fill('15');
    await create.click();
    await page.getByText('The code SPRING10 exists already.').waitFor();
    assert.equal(await page.getByLabel('Code', { exact: true }).getAttribute('aria-invalid'), 'true');

    const listed = await shop.admin.request('adminListDiscounts');
    const byCode = new Map(listed.items.map((d) => [d.code, d]));
    assert.deepEqual(
      [...byCode.keys()].sort(),
      ['SAVE5', 'SPRING10'],
      'two codes (the duplicate was refused)',
    );
    assert.deepEqual(
      [byCode.get('SPRING10')!.kind, byCode.get('SPRING10')!.value, byCode.get('SPRING10')!.usageLimit],
      ['percent', 10, null],
    );
    assert.deepEqual(
      [byCode.get('SAVE5')!.kind, byCode.get('SAVE5')!.value, byCode.get('SAVE5')!.usageLimit],
      ['fixed', 550, 100],
    );

    // Country rates: 20 % and 4.90 shipping for France; 8.25 % and free shipping for the US.
    const save = page.getByRole('button', { name: 'Save rate' });
    await page.getByLabel('Country', { exact: true }).selectOption('FR');
    await page.getByLabel('Tax rate (%)', { exact: true }).fill('20');
    await page.getByLabel('Flat shipping (USD)', { exact: true }).fill('4.90');
    await save.click();
    await page.getByText('The rate for France was saved.').waitFor();
    await page.getByLabel('Country', { exact: true }).selectOption('US');
    await page.getByLabel('Tax rate (%)', { exact: true }).fill('8.255');
    await save.click();
    await page.getByText('Use at most 2 decimals.').waitFor();
    await page.getByLabel('Tax rate (%)', { exact: true }).fill('8.25');
    await save.click();
    await page.getByText('The rate for United States was saved.').waitFor();
    const rates = page.getByRole('table', { name: /by country/ });
    await rates
      .getByRole('row', { name: /France/ })
      .getByText('20%')
      .waitFor();
    await rates
      .getByRole('row', { name: /France/ })
      .getByText('$4.90')
      .waitFor();
    await rates
      .getByRole('row', { name: /United States/ })
      .getByText('8.25%')
      .waitFor();
    await rates
      .getByRole('row', { name: /United States/ })
      .getByText('Free')
      .waitFor();

    // Change France's rate from its row.
    await page.getByRole('button', { name: 'Edit the rate for France' }).click();
    await page.getByRole('heading', { name: 'Change the rate for France' }).waitFor();
    assert.equal(await page.getByLabel('Tax rate (%)', { exact: true }).inputValue(), '20');
    await page.getByLabel('Tax rate (%)', { exact: true }).fill('5.5');
    await save.click();
    await rates
      .getByRole('row', { name: /France/ })
      .getByText('5.5%')
      .waitFor();

    const taxRates = await shop.admin.request('adminListTaxRates');
    assert.deepEqual(taxRates.items.map((r) => [r.country, r.taxRateBps, r.shippingAmount]).sort(), [
      ['FR', 550, 490],
      ['US', 825, 0],
    ]);
    await assertAccessible(page, 'pricing');
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'pricing');

    // Deleting asks first; Cancel keeps it.
    await page.getByRole('button', { name: 'Delete SPRING10' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete the code SPRING10?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await shop.admin.request('adminListDiscounts')).items.length, 2);
    await page.getByRole('button', { name: 'Delete SPRING10' }).click();
    await dialog.getByRole('button', { name: 'Delete code' }).click();
    await page.getByText('Discount code SPRING10 deleted.').waitFor();
    await page.getByRole('button', { name: 'Delete the rate for United States' }).click();
    await page
      .getByRole('dialog', { name: 'Delete the rate for United States?' })
      .getByRole('button', { name: 'Delete rate' })
      .click();
    await page.getByText('The rate for United States was deleted.').waitFor();
    assert.deepEqual(
      (await shop.admin.request('adminListDiscounts')).items.map((d) => d.code),
      ['SAVE5'],
    );
    assert.deepEqual(
      (await shop.admin.request('adminListTaxRates')).items.map((r) => r.country),
      ['FR'],
    );

    // Usable at 375 px: the forms fit the screen.
    await page.setViewportSize({ width: 375, height: 740 });
    assert.ok(
      await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth'),
      'no horizontal scrolling at 375 px',
    );
    assert.deepEqual(problems, []);
    await context.close();
  });
});
