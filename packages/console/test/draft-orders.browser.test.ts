/**
 * Draft orders in the console, in Chromium (issue 47, docs/draft-orders.md): a draft made from the
 * Orders list's "Create order" with two products and a customer found by email, its totals read
 * from the server after each change (quantity, address, discount) and equal to what the API
 * answers; marked as paid, which makes a paid order (checked through the API) and leaves the draft
 * completed and read-only with a link to its order. Then a draft invoiced: a bad email and a hold
 * past 30 days refused by the server at their fields, the invoice sent (its mail queued to the
 * customer, the stock held until the time shown), then marked as paid from the invoice (the money
 * came by bank transfer: its pending order paid, the held units sold); "Mark as paid" on a draft
 * deleted meanwhile shows the API's refusal.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { formatMoney } from '@storefront/client';
import { openShop, startedForFile, type Shop } from '../../client/test/server.test-support.ts';
import {
  assertAccessible,
  openScreen,
  screenshot,
  signedInPage,
  startConsole,
  until,
} from './browser.test-support.ts';

const h = startedForFile(startConsole);

async function product(shop: Shop, title: string, sku: string, price: number): Promise<string> {
  const created = await shop.admin.products.create({
    title,
    status: 'active',
    variants: [{ label: 'One', sku, priceAmount: price, onHand: 20 }],
  });
  return created.variants[0]!.id;
}

/** A customer of the store: a guest's checkout records one. */
async function customer(shop: Shop, variantId: string, email: string) {
  const cart = await shop.storefront.carts.create({ items: [{ variantId, quantity: 1 }] });
  await shop.storefront.checkout.create({ cartId: cart.id, email });
}

/** The totals panel's amounts, by name. */
async function totals(page: Page) {
  const panel = page.getByRole('region', { name: 'Totals' });
  const read = async (name: string) => (await panel.locator(`[data-total="${name}"]`).textContent()) ?? '';
  return {
    subtotal: await read('subtotal'),
    discount: await read('discount'),
    shipping: await read('shipping'),
    tax: await read('tax'),
    total: await read('total'),
  };
}

/** The API's totals of a draft, formatted as the console shows them. */
async function apiTotals(shop: Shop, id: string) {
  const draft = await shop.admin.draftOrders.get(id);
  const money = (value: { amount: number; currency: string }) => formatMoney(value.amount, value.currency);
  const { totals: t } = draft;
  return {
    subtotal: money(t.subtotal),
    discount: t.discount.amount > 0 ? `−${money(t.discount)}` : money(t.discount),
    shipping: money(t.shipping),
    tax: money(t.tax),
    total: money(t.total),
  };
}

/** Waits until the totals on the page show `subtotal`, then checks every one equals the API's. */
async function totalsMatchApi(page: Page, shop: Shop, id: string, subtotal: string) {
  const panel = page.getByRole('region', { name: 'Totals' });
  await panel.locator('[data-total="subtotal"]', { hasText: subtotal }).waitFor();
  await page
    .getByRole('status')
    .getByText(/^Saved; totals priced by the server/)
    .waitFor();
  const shown = await totals(page);
  assert.deepEqual(shown, await apiTotals(shop, id));
  return shown;
}

const draftIdOf = (page: Page) => /\/draft-orders\/([0-9a-f-]{36})$/.exec(page.url())?.[1] ?? '';

describe('draft orders in the console', () => {
  test('create a draft with two products and a customer, totals from the API, mark it paid', async () => {
    const shop = await openShop(h.live);
    const mug = await product(shop, 'Blue mug', 'MUG-1', 2500);
    await product(shop, 'Linen tee', 'TEE-1', 3000);
    // 10 % tax in the US and flat shipping of $5.00: the draft is priced as checkout would.
    await shop.admin.request('adminSetTaxRate', {
      path: { country: 'US' },
      body: { taxRateBps: 1000, shippingAmount: 500 },
    });
    await customer(shop, mug, 'ada@example.com');
    const { context, page, problems } = await signedInPage(h, shop.shop, { height: 1300 });

    await openScreen(page, 'Drafts', 'Draft orders');
    await page.getByText('No draft orders yet.').waitFor();
    await page.getByText('a phone order, a wholesale or trade deal, a quote', { exact: false }).waitFor();
    await assertAccessible(page, 'the empty draft orders list');

    // From the Orders list's "Create order".
    await openScreen(page, 'Orders', 'Orders');
    await page.getByRole('link', { name: 'Create order' }).click();
    await page.getByRole('heading', { level: 1, name: 'New draft order' }).waitFor();
    // Nothing chosen: said before anything is sent.
    await page.getByRole('button', { name: 'Create draft' }).click();
    await page.getByText('Add at least one product.').waitFor();
    await page.getByLabel('Find a product').fill('mug');
    await page.getByRole('button', { name: 'Add Blue mug, One' }).click();
    await page.getByLabel('Find a product').fill('TEE-1');
    await page.getByRole('button', { name: 'Add Linen tee, One' }).click();
    await page.getByRole('button', { name: 'Added Linen tee, One' }).waitFor();
    await page.getByLabel('Find a customer').fill('ada@');
    await page.getByRole('button', { name: 'Choose ada@example.com' }).click();
    await assertAccessible(page, 'a new draft');
    await page.getByRole('button', { name: 'Create draft' }).click();
    await page.getByRole('heading', { level: 1, name: 'Draft order for ada@example.com' }).waitFor();
    const id = draftIdOf(page);
    const stored = await shop.admin.draftOrders.get(id);
    const [ada] = (await shop.admin.request('adminListCustomers', { query: { q: 'ada@' } })).items;
    assert.deepEqual(
      [stored.status, stored.customerId, stored.lines.map((line) => [line.title, line.quantity])],
      [
        'open',
        ada!.id,
        [
          ['Blue mug', 1],
          ['Linen tee', 1],
        ],
      ],
    );
    const panel = page.getByRole('region', { name: 'Totals' });
    await panel.locator('[data-total="subtotal"]', { hasText: '$55.00' }).waitFor();
    assert.deepEqual(await totals(page), await apiTotals(shop, id));

    // Three mugs: priced again by the server.
    await page.getByLabel('Quantity of Blue mug, One').fill('3');
    await page.getByLabel('Quantity of Blue mug, One').press('Enter');
    await totalsMatchApi(page, shop, id, '$105.00');

    // A Boston address: the US flat shipping and 10 % tax, from the server.
    const address = page.getByRole('form', { name: 'Shipping address' });
    await address.getByLabel('Country').selectOption('US');
    await address.getByLabel('Name').fill('Ada Lovelace');
    await address.getByLabel('Street address').fill('1 Main St');
    await address.getByLabel('City').fill('Boston');
    await address.getByLabel('State').selectOption('US-MA');
    await address.getByLabel('ZIP code').fill('02108');
    await address.getByRole('button', { name: 'Save address' }).click();
    await panel.locator('[data-total="shipping"]', { hasText: '$5.00' }).waitFor();
    let shown = await totalsMatchApi(page, shop, id, '$105.00');
    assert.notEqual(shown.tax, '$0.00', 'the US rate taxes the draft');

    // Staff's discount: 10 % for a phone order.
    const discount = page.getByRole('form', { name: 'Discount' });
    await discount.getByLabel('Percentage off').fill('10');
    await discount.getByLabel('Reason').fill('Phone order');
    await discount.getByRole('button', { name: 'Apply discount' }).click();
    await panel.locator('[data-total="discount"]', { hasText: '−$10.50' }).waitFor();
    shown = await totalsMatchApi(page, shop, id, '$105.00');
    await page.getByText('Staff discount (Phone order): −$10.50').waitFor();
    await assertAccessible(page, 'an open draft with its totals');
    await page.getByRole('heading', { level: 1 }).scrollIntoViewIfNeeded();
    await screenshot(page, 'draft-orders');

    // Mark as paid: a paid order at once.
    await page.getByRole('button', { name: 'Mark as paid' }).click();
    const dialog = page.getByRole('dialog', { name: 'Mark as paid?' });
    await dialog.getByText(`Records a payment of ${shown.total} taken outside`, { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'Mark as paid' }).click();
    await page.getByText(/^Marked as paid: order #\d+ for .* is paid\.$/).waitFor();
    const completed = await shop.admin.draftOrders.get(id);
    assert.equal(completed.status, 'completed');
    assert.ok(completed.orderId);
    const order = await shop.admin.orders.get(completed.orderId);
    assert.deepEqual(
      [order.status, order.source, order.draftOrderId, formatMoney(order.total.amount, order.total.currency)],
      ['paid', 'draft', id, shown.total],
    );
    // Read-only now, with its order.
    await page.locator('.order-meta').getByText('completed', { exact: true }).waitFor();
    assert.equal(await page.getByRole('button', { name: /^Remove / }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Mark as paid' }).count(), 0);
    await page.getByRole('link', { name: `View order #${order.number}` }).waitFor();

    // The list: completed, with its order.
    await openScreen(page, 'Drafts', 'Draft orders');
    const row = page.getByRole('table', { name: 'Draft orders, newest first' }).getByRole('row', {
      name: /ada@example\.com/,
    });
    await row.getByText('completed').waitFor();
    await row.getByText(shown.total).waitFor();
    await row.getByRole('link', { name: /^View order/ }).click();
    await page.getByRole('heading', { level: 1, name: `Order #${order.number}` }).waitFor();

    assert.deepEqual(problems, []);
    await context.close();
  });

  test('an invoice: the server’s refusals at their fields, the mail queued, the stock held, then marked as paid; a refusal shown', async () => {
    const shop = await openShop(h.live);
    const lamp = await product(shop, 'Desk lamp', 'LAMP-1', 4000);
    const draft = await shop.admin.draftOrders.create({
      email: 'grace@example.com',
      lines: [{ variantId: lamp, quantity: 2 }],
    });
    const other = await shop.admin.draftOrders.create({
      email: 'alan@example.com',
      lines: [{ variantId: lamp, quantity: 1 }],
    });
    const { context, page, problems } = await signedInPage(h, shop.shop);

    await openScreen(page, 'Drafts', 'Draft orders');
    await page
      .getByRole('table', { name: 'Draft orders, newest first' })
      .getByRole('link', { name: /for grace@example\.com/ })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Draft order for grace@example.com' }).waitFor();

    // The server refuses an email it cannot use: said at the field, nothing changed.
    await page.getByRole('button', { name: 'Change customer' }).click();
    await page.getByLabel('Or an email').fill('grace@@example');
    await page.getByRole('button', { name: 'Use this email' }).click();
    await page.getByText('The email must be an email address.').waitFor();
    assert.equal(await page.getByLabel('Or an email').getAttribute('aria-invalid'), 'true');
    assert.equal((await shop.admin.draftOrders.get(draft.id)).email, 'grace@example.com');

    // The invoice: a hold past 30 days refused by the server in the dialog, then sent.
    await page.getByRole('button', { name: 'Send invoice' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send the invoice?' });
    const far = new Date(Date.now() + 40 * 24 * 3600_000).toISOString().slice(0, 16);
    await dialog.getByLabel('Hold the stock until (optional)').fill(far);
    await dialog.getByRole('button', { name: 'Send invoice' }).click();
    await dialog.getByText('The time must be at most 30 days ahead.').waitFor();
    assert.equal((await shop.admin.draftOrders.get(draft.id)).status, 'open');
    const soon = new Date(Date.now() + 5 * 24 * 3600_000);
    soon.setUTCSeconds(0, 0);
    await dialog.getByLabel('Hold the stock until (optional)').fill(soon.toISOString().slice(0, 16));
    await assertAccessible(page, 'the invoice dialog');
    await dialog.getByRole('button', { name: 'Send invoice' }).click();
    await page
      .getByText(/^Invoice sent to grace@example\.com: order #\d+ for \$80\.00 awaits payment/)
      .waitFor();
    const invoiced = await shop.admin.draftOrders.get(draft.id);
    assert.equal(invoiced.status, 'invoiced');
    const order = await shop.admin.orders.get(invoiced.orderId!);
    assert.deepEqual([order.status, order.expiresAt], ['pending', soon.toISOString()]);
    await page.locator('.order-meta').getByText('invoiced', { exact: true }).waitFor();
    const held = page.locator('[data-reserve-until]');
    assert.equal(await held.getAttribute('datetime'), soon.toISOString());
    // The mail with the link to pay, queued to the customer.
    const mail = await until(
      () =>
        h.live.t.db.kysely
          .selectFrom('mail_outbox')
          .select(['to_address', 'text_body'])
          .where('store_id', '=', shop.shop.store.id)
          .where('kind', '=', 'draft_order_invoice')
          .executeTakeFirst(),
      'the invoice mail',
    );
    assert.equal(mail.to_address, 'grace@example.com');
    assert.match(mail.text_body, new RegExp(`/pay/orders/${order.id}\\?token=`));
    assert.deepEqual(
      (await shop.admin.products.list({ q: 'LAMP-1' })).items[0]!.variants.map((v) => v.reserved),
      [2],
    );

    // The money came by bank transfer: "Mark as paid" on the invoice pays its pending order.
    await page.locator('.draft-side').getByRole('button', { name: 'Mark as paid' }).click();
    await page
      .getByRole('dialog', { name: 'Mark as paid?' })
      .getByRole('button', { name: 'Mark as paid' })
      .click();
    await page.getByText(`Marked as paid: order #${order.number} for $80.00 is paid.`).waitFor();
    const paid = await shop.admin.orders.get(order.id);
    assert.deepEqual(
      [paid.status, (await shop.admin.draftOrders.get(draft.id)).status],
      ['paid', 'completed'],
    );
    assert.deepEqual(
      (await shop.admin.products.list({ q: 'LAMP-1' })).items[0]!.variants.map((v) => [v.reserved, v.onHand]),
      [[0, 18]],
      'the held units sold, not held again',
    );

    // Another draft, deleted behind the page's back: "Mark as paid" shows the API's refusal.
    await page.goto(`/admin/draft-orders/${other.id}`);
    await page.getByRole('heading', { level: 1, name: 'Draft order for alan@example.com' }).waitFor();
    await shop.admin.draftOrders.delete(other.id);
    await page.getByRole('button', { name: 'Mark as paid' }).click();
    await page
      .getByRole('dialog', { name: 'Mark as paid?' })
      .getByRole('button', { name: 'Mark as paid' })
      .click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const refused = await shop.admin.draftOrders.complete(other.id).then(
      () => null,
      (error: Error & { detail?: string; title?: string }) => error.detail ?? error.title,
    );
    assert.ok(refused, 'the API refuses completing a deleted draft');
    assert.equal((await alert.textContent())?.trim(), refused);

    assert.deepEqual(problems, []);
    await context.close();
  });
});
