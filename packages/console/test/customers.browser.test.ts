/**
 * Customers in Chromium (decision `customer-accounts`): customers made by checkouts through the real Storefront API (a
 * guest with a paid and an unpaid order, another guest, one who signs in to the shop by emailed
 * code) are found by search and by the account filter; a customer's page shows their profile,
 * address and orders (linked both ways with the order's page); the merchant exports the customer's
 * data (the downloaded JSON names them and their orders) and erases them after a confirmation that
 * names what goes and what stays: the customer is gone from the list, their orders keep their
 * numbers and totals without the personal data. A staff member (not admin) sees neither action.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { describe, test } from 'node:test';
import { createProduct, openShop, startedForFile, type Shop } from '../../client/test/server.test-support.ts';
import { addressesOf, readMailDir } from '../../../src/test/harness.ts';
import { assertAccessible, screenshot, signedInPage, startConsole, until } from './browser.test-support.ts';

const h = startedForFile(startConsole);

const ADA = 'ada.lovelace@example.com';
const GRACE = 'grace@navy.example';
const KATHERINE = 'katherine@nasa.example';

const ADDRESS = {
  name: 'Ada King Lovelace',
  line1: '1 Main St',
  city: 'Boston',
  region: 'MA',
  postalCode: '02108',
  country: 'US',
};

/** A checkout of one unit as a guest with this email and address; paid through the sandbox unless `pay` is false. */
async function checkout(shop: Shop, variantId: string, email: string, pay = true) {
  const cart = await shop.storefront.carts.create({ items: [{ variantId, quantity: 1 }] });
  const started = await shop.storefront.checkout.create({
    cartId: cart.id,
    email,
    shippingAddress: { ...ADDRESS, name: email === ADA ? ADDRESS.name : 'Grace Hopper' },
  });
  if (pay) {
    await shop.storefront.sandbox.confirm(started.payment, 'pm_card_visa');
    await shop.storefront.orders.waitForPaid(started.order.id, { timeoutMs: 10_000, intervalMs: 50 });
  }
  return started.order;
}

/** A call to the Storefront API with the store's key (and a customer's token); fails the test unless 2xx. */
async function storefrontCall(
  shop: Shop,
  path: string,
  body: object,
  token?: string,
  method = 'POST',
): Promise<unknown> {
  const response = await fetch(`${h.live.baseUrl}/storefront/v1${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      'x-publishable-key': shop.shop.publishableKey,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  assert.ok(response.ok, `${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Signs in to the shop with the emailed code (which makes the account): the customer's token. */
async function signUpInShop(shop: Shop, email: string): Promise<string> {
  await storefrontCall(shop, '/customers/sign-in', { email });
  // The newest sign-in mail to them (they may have had order mail before).
  const { emailTransport } = h.live.t.config;
  assert.equal(emailTransport.kind, 'file');
  const code = await until(async () => {
    const mails = (await readMailDir(emailTransport.dir)).filter((mail) => addressesOf(mail).includes(email));
    const subjects = mails.map((mail) => mail.subject ?? '').reverse();
    return subjects.map((subject) => /^(\d{6}) is your code/.exec(subject)?.[1]).find(Boolean);
  }, `the sign-in code mailed to ${email}`);
  const session = (await storefrontCall(shop, '/customers/verify', { email, code })) as { token: string };
  return session.token;
}

describe('customers in the console', () => {
  test('find a customer, open them, export their data, erase them; their orders stay without it', async () => {
    const shop = await openShop(h.live);
    const product = await createProduct(shop.admin, { title: 'Linen apron', priceAmount: 3200, onHand: 10 });
    const variantId = product.variants[0]!.id;
    const paid = await checkout(shop, variantId, ADA);
    const unpaid = await checkout(shop, variantId, ADA, false);
    const other = await checkout(shop, variantId, GRACE);
    await signUpInShop(shop, KATHERINE);
    // Ada, a guest at checkout, then makes an account in the shop and saves her address.
    const adaToken = await signUpInShop(shop, ADA);
    await storefrontCall(shop, '/customers/me/addresses', ADDRESS, adaToken);
    await storefrontCall(shop, '/customers/me', { name: 'Ada Lovelace' }, adaToken, 'PATCH');
    const adaId = (await shop.admin.orders.get(paid.id)).customerId;
    assert.ok(adaId, 'the guest checkout is linked to a customer');

    const { context, page, problems } = await signedInPage(h, shop.shop);

    // The list, newest first, from the navigation (after Orders and its Drafts, before Products, with the groups).
    const nav = page.getByRole('navigation', { name: 'Console' });
    assert.deepEqual((await nav.getByRole('link').allTextContents()).slice(1, 6), [
      'Orders',
      'Drafts',
      'Customers',
      'Customer groups',
      'Products',
    ]);
    await nav.getByRole('link', { name: 'Customers' }).click();
    await page.getByRole('heading', { name: 'Customers', level: 1 }).waitFor();
    const rows = page.locator('table.customers-table tbody tr');
    const listed = async (emails: string[]) =>
      until(
        async () =>
          JSON.stringify(await rows.getByRole('rowheader').allTextContents()) === JSON.stringify(emails),
        `customers ${emails.join(', ')}`,
      );
    await listed([KATHERINE, GRACE, ADA]);
    const adaRow = rows.filter({ has: page.getByRole('link', { name: ADA }) });
    const cells = await adaRow.getByRole('cell').allTextContents();
    assert.equal(cells[0], 'Ada Lovelace');
    assert.equal(cells[1], '1', 'paid orders');
    assert.equal(cells[2], '$32.00', 'total spent: the paid order');
    assert.equal(cells[4], 'Yes', 'an account, made after her checkouts');
    assert.equal(
      (
        await rows
          .filter({ has: page.getByRole('link', { name: GRACE }) })
          .getByRole('cell')
          .allTextContents()
      )[4],
      'No',
    );
    await page.getByText('3 customers shown, all of them.').waitFor();
    await assertAccessible(page, 'customers list');
    await screenshot(page, 'customers');

    // The account filter and the search, both in the address.
    const show = page.getByLabel('Show', { exact: true });
    await show.selectOption('accounts');
    await listed([KATHERINE, ADA]);
    assert.equal(new URL(page.url()).searchParams.get('account'), 'accounts');
    await show.selectOption('guests');
    await listed([GRACE]);
    await show.selectOption('');
    const search = page.getByRole('searchbox', { name: 'Search' });
    await search.fill('ADA.LOVELACE@');
    await listed([ADA]);
    assert.equal(new URL(page.url()).searchParams.get('q'), 'ADA.LOVELACE@');
    await search.fill('ada LOVELACE');
    await listed([ADA]);
    await search.fill('nobody@');
    await page.getByText('No customers match “nobody@”.', { exact: false }).waitFor();
    await assertAccessible(page, 'customers list, nothing found');
    await search.fill('ada.lovelace@');
    await listed([ADA]);

    // The customer's page: profile, saved address, both orders (newest first), totals.
    await page.getByRole('link', { name: ADA }).click();
    await page.waitForURL(new RegExp(`/admin/customers/${adaId}$`));
    await page.getByRole('heading', { name: 'Ada Lovelace', level: 1 }).waitFor();
    const profile = page.getByRole('region', { name: 'Profile' });
    await profile.getByRole('link', { name: ADA }).waitFor();
    const orders = page.getByRole('region', { name: 'Orders' });
    assert.deepEqual(await orders.getByRole('rowheader').allTextContents(), [
      `#${unpaid.number}`,
      `#${paid.number}`,
    ]);
    const totals = page.getByRole('region', { name: 'Totals' });
    assert.match((await totals.textContent()) ?? '', /Paid orders1Total spent\$32\.00/);
    const addresses = page.getByRole('region', { name: 'Addresses' });
    assert.match(
      (await addresses.textContent()) ?? '',
      /^Addressesdefault.*Ada King Lovelace.*1 Main St.*Boston/,
    );
    await assertAccessible(page, 'customer detail');
    await screenshot(page, 'customer');
    // Usable at 375 px: nothing wider than the screen.
    await page.setViewportSize({ width: 375, height: 740 });
    assert.ok(
      await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth'),
      'no horizontal scrolling at 375 px',
    );
    await page.setViewportSize({ width: 1280, height: 860 });

    // An order links back to its customer.
    await orders.getByRole('link', { name: `#${paid.number}` }).click();
    await page.getByRole('heading', { name: `Order #${paid.number}`, level: 1 }).waitFor();
    await page.getByRole('region', { name: 'Customer' }).getByRole('link', { name: 'View customer' }).click();
    await page.waitForURL(new RegExp(`/admin/customers/${adaId}$`));

    // Export: the JSON names the customer and their orders, and the export is in the privacy log.
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export data' }).click();
    const download = await downloading;
    assert.equal(download.suggestedFilename(), `customer-${adaId}.json`);
    const exported = JSON.parse(await fs.readFile(await download.path(), 'utf8')) as {
      customer: { id: string; email: string; name: string | null };
      orders: { id: string; number: number; email: string }[];
    };
    assert.equal(exported.customer.id, adaId);
    assert.equal(exported.customer.email, ADA);
    assert.equal(exported.customer.name, 'Ada Lovelace');
    assert.deepEqual(
      exported.orders.map((order) => order.number).sort(),
      [paid.number, unpaid.number].sort(),
    );
    await page.getByText(`Exported ${ADA}'s data as customer-${adaId}.json.`).waitFor();

    // Erase: the dialog names what goes and what stays, and asks for the email.
    await page.getByRole('button', { name: 'Erase customer…' }).click();
    const dialog = page.getByRole('dialog', { name: `Erase ${ADA}?` });
    await dialog.waitFor();
    const said = (await dialog.textContent()) ?? '';
    assert.match(said, /Their account, 1 saved address and their sign-in sessions are deleted\./);
    assert.match(
      said,
      /Names, emails, phones and addresses on their 2 orders are scrubbed\. The order numbers, lines and amounts stay/,
    );
    assert.match(said, /2 of their orders have not shipped yet\. They lose their shipping address/);
    await assertAccessible(page, 'erase dialog');
    const confirm = dialog.getByLabel("Type the customer's email to confirm");
    await screenshot(page, 'customer-erase');
    await confirm.fill('ada@example.com');
    await dialog.getByRole('button', { name: 'Erase customer', exact: true }).click();
    await dialog.getByText(`Type ${ADA} exactly to confirm, or keep the customer.`).waitFor();
    assert.equal((await shop.admin.request('adminGetCustomer', { path: { id: adaId } })).email, ADA);
    await confirm.fill(` ${ADA.toUpperCase()} `);
    await dialog.getByRole('button', { name: 'Erase customer', exact: true }).click();

    // Back to the list with a message; the customer is gone, the others stay.
    await page
      .getByText(`Customer ${ADA} erased. Their 2 orders keep their numbers, lines and amounts.`)
      .waitFor();
    await page.getByRole('heading', { name: 'Customers', level: 1 }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/admin/customers');
    await listed([KATHERINE, GRACE]);
    await assertAccessible(page, 'customers list after an erasure');

    // The orders stay with their numbers and totals, without the customer's data.
    await nav.getByRole('link', { name: 'Orders' }).click();
    const orderRows = page.locator('table.orders-table tbody tr');
    const paidRow = orderRows.filter({ has: page.getByRole('link', { name: `#${paid.number}` }) });
    await paidRow.waitFor();
    const orderCells = await paidRow.getByRole('cell').allTextContents();
    assert.equal(orderCells[2], '$32.00');
    assert.ok(!orderCells[1]!.includes(ADA), 'the email is scrubbed');
    const kept = await shop.admin.orders.get(paid.id);
    assert.equal(kept.number, paid.number);
    assert.equal(kept.total.amount, 3200);
    assert.notEqual(kept.email, ADA);
    assert.notEqual(kept.shippingAddress?.name, ADDRESS.name);
    assert.equal(
      (await shop.admin.orders.get(other.id)).email,
      GRACE,
      "another customer's order is untouched",
    );

    // The customer's page is gone; the privacy log has the export and the erasure.
    await page.goto(`/admin/customers/${adaId}`);
    await page.getByRole('heading', { name: 'Customer not found', level: 1 }).waitFor();
    await page.goto('/admin/customers/privacy-log');
    await page.getByRole('heading', { name: 'Privacy log', level: 1 }).waitFor();
    const logRows = page.locator('table tbody tr');
    await until(async () => (await logRows.count()) === 2, 'two privacy log entries');
    assert.deepEqual(
      (await logRows.allTextContents()).map((row) => [
        row.includes('erased'),
        row.includes(shop.shop.ownerEmail),
      ]),
      [
        [true, true],
        [false, true],
      ],
    );
    await assertAccessible(page, 'privacy log');

    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a staff member (not an admin) sees customers, 25 at a time, but can neither export nor erase them', async () => {
    const shop = await openShop(h.live);
    const product = await createProduct(shop.admin, { title: 'Tea towel', priceAmount: 900, onHand: 100 });
    const order = await checkout(shop, product.variants[0]!.id, GRACE);
    // 26 more guests (unpaid checkouts): one more than a page.
    for (let i = 1; i <= 26; i++) {
      await checkout(shop, product.variants[0]!.id, `guest${String(i).padStart(2, '0')}@example.com`, false);
    }
    const customerId = (await shop.admin.orders.get(order.id)).customerId;
    const clerk = 'clerk@example.com';
    await shop.admin.request('adminAddStaffMember', { body: { email: clerk, role: 'staff' } });

    const { context, page, problems } = await signedInPage(h, { ...shop.shop, ownerEmail: clerk });
    await page.goto(`/admin/customers/${customerId}`);
    await page.getByRole('region', { name: 'Profile' }).getByRole('link', { name: GRACE }).waitFor();
    await page
      .getByText("Only the store's owners and admins can export a customer's data or erase a customer.")
      .waitFor();
    assert.equal(await page.getByRole('button', { name: 'Export data' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Erase customer…' }).count(), 0);
    await page.goto('/admin/customers');
    const rows = page.locator('table.customers-table tbody tr');
    await page.getByText('25 customers shown.', { exact: true }).waitFor();
    assert.equal(await rows.count(), 25);
    assert.equal(await page.getByRole('link', { name: GRACE }).count(), 0, 'the oldest is on the next page');
    await page.getByRole('button', { name: 'Load more' }).click();
    await page.getByText('27 customers shown, all of them.').waitFor();
    assert.equal(await rows.count(), 27);
    assert.equal(await rows.last().getByRole('rowheader').textContent(), GRACE);
    assert.equal(await page.getByRole('button', { name: 'Load more' }).count(), 0);
    assert.equal(await page.getByRole('link', { name: 'Privacy log' }).count(), 0);

    // One customer's orders (the link on a customer's page with 50 orders or more).
    await page.goto(`/admin/orders?customer=${customerId}`);
    await page.getByText("Showing one customer's orders").waitFor();
    const orderRows = page.locator('table.orders-table tbody tr');
    await page.getByRole('link', { name: `#${order.number}` }).waitFor();
    assert.equal(await orderRows.count(), 1);
    await page.getByRole('button', { name: "Show every customer's orders" }).click();
    await until(async () => (await orderRows.count()) === 20, 'the first page of every order');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
