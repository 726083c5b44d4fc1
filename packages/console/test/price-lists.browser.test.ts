/**
 * Customer groups, price lists and "Why this price?" in the console, in Chromium (issue 45,
 * decisions `customer-groups`, `price-lists` and `price-function`): a group created on its screen, a
 * customer put in it on their page; a price list made by pasting CSV, one bad line shown with what is
 * wrong and nothing saved until it is fixed; the product form's "Why this price?" naming the list
 * for the group's member and the regular price for a guest; and Home's revenue in another market's
 * currency. What the page shows and what the server stored are both checked.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openShop, startedForFile, type Shop } from '../../client/test/server.test-support.ts';
import {
  assertAccessible,
  openScreen,
  screenshot,
  signedInPage,
  startConsole,
} from './browser.test-support.ts';

const h = startedForFile(startConsole);

const ADDRESS = {
  name: 'Ada Lovelace',
  line1: '1 Main St',
  city: 'Boston',
  region: 'MA',
  postalCode: '02108',
};

/** A checkout of one unit as a guest (a customer of the store from then on); paid when `pay`. */
async function checkout(shop: Shop, variantId: string, email: string, country = 'US', pay = false) {
  const cart = await shop.storefront.carts.create({ items: [{ variantId, quantity: 1 }], country });
  const started = await shop.storefront.checkout.create({
    cartId: cart.id,
    email,
    shippingAddress: { ...ADDRESS, country, ...(country === 'US' ? {} : { region: '' }) },
  });
  if (pay) {
    await shop.storefront.sandbox.confirm(started.payment, 'pm_card_visa');
    await shop.storefront.orders.waitForPaid(started.order.id, { timeoutMs: 10_000, intervalMs: 50 });
  }
  return started.order;
}

async function customerId(shop: Shop, email: string): Promise<string> {
  const [customer] = (await shop.admin.request('adminListCustomers', { query: { q: email } })).items;
  assert.ok(customer, `the customer ${email}`);
  return customer.id;
}

describe('customer groups, price lists and why this price', () => {
  test('a group, a member, a price list pasted as CSV, and why a variant costs what it costs', async () => {
    const shop = await openShop(h.live);
    const shirt = await shop.admin.products.create({
      title: 'Linen shirt',
      status: 'active',
      variants: [{ label: 'One', sku: 'SHIRT-1', priceAmount: 2400, onHand: 5 }],
    });
    await shop.admin.products.create({
      title: 'Socks',
      status: 'active',
      variants: [{ label: 'Pair', sku: 'SOCKS-1', priceAmount: 800, onHand: 5 }],
    });
    await checkout(shop, shirt.variants[0]!.id, 'ada@example.com');
    const ada = await customerId(shop, 'ada@example.com');
    const { context, page, problems } = await signedInPage(h, shop.shop, { height: 1000 });

    // A group, made on its screen.
    await openScreen(page, 'Customer groups', 'Customer groups');
    await page.getByText('No customer groups yet.').waitFor();
    await page.getByRole('button', { name: 'Add group' }).click();
    const form = page.getByRole('region', { name: 'New customer group' });
    await form.getByRole('button', { name: 'Create group' }).click();
    await form.getByText('Enter a name, like “Wholesale”.').waitFor();
    await form.getByLabel('Group name').fill('Wholesale');
    await assertAccessible(page, 'the new group form');
    await form.getByRole('button', { name: 'Create group' }).click();
    await page.getByText('The group “Wholesale” was created.').waitFor();
    const groups = page.getByRole('table', { name: 'Customer groups, oldest first' });
    const row = groups.getByRole('row', { name: /^Wholesale/ });
    await row.getByRole('cell', { name: '0 customers' }).waitFor();
    // A second group with the same name, whatever its case: 409, said at the field.
    await page.getByRole('button', { name: 'Add group' }).click();
    await form.getByLabel('Group name').fill('WHOLESALE');
    await form.getByRole('button', { name: 'Create group' }).click();
    await form.getByText('Another group is called “WHOLESALE”.').waitFor();
    await form.getByRole('button', { name: 'Cancel' }).click();
    const [wholesale, ...others] = (await shop.admin.request('adminListCustomerGroups')).items;
    assert.equal(others.length, 0);
    assert.equal(wholesale?.name, 'Wholesale');

    // Ada put in it on her page.
    await page.goto(`/admin/customers/${ada}`);
    const panel = page.getByRole('region', { name: 'Groups' });
    await panel.getByRole('checkbox', { name: 'Wholesale' }).check();
    await panel.getByRole('button', { name: 'Save groups' }).click();
    await panel.getByText('Groups saved.').waitFor();
    await assertAccessible(page, 'a customer with their groups');
    assert.deepEqual((await shop.admin.request('adminGetCustomer', { path: { id: ada } })).groupIds, [
      wholesale.id,
    ]);
    await openScreen(page, 'Customer groups', 'Customer groups');
    await row.getByRole('cell', { name: '1 customer' }).waitFor();

    // A price list by CSV: one line names no variant, nothing is saved until it is fixed.
    await openScreen(page, 'Price lists', 'Price lists');
    await page.getByRole('button', { name: 'Add price list' }).click();
    const listForm = page.getByRole('region', { name: 'New price list' });
    await listForm.getByLabel('Price list name').fill('Wholesale prices');
    await listForm.getByRole('radio', { name: 'Override' }).check();
    await listForm
      .getByRole('group', { name: 'Customer groups' })
      .getByRole('checkbox', { name: 'Wholesale' })
      .check();
    const csv = listForm.getByLabel('Prices (CSV)');
    await csv.fill('SKU,price\nSHIRT-1,18.00\nSOKS-1,4.50');
    await listForm.getByText('2 lines: 1 ready, 1 to fix.').waitFor();
    const lines = listForm.getByRole('table', { name: 'The pasted prices, line by line' });
    assert.deepEqual(await lines.getByRole('row', { name: /^3/ }).getByRole('cell').allTextContents(), [
      'SOKS-1',
      '—',
      '$4.50',
      'No variant has the SKU “SOKS-1”.',
    ]);
    assert.deepEqual(await lines.getByRole('row', { name: /^2/ }).getByRole('cell').allTextContents(), [
      'SHIRT-1',
      'Linen shirt: One',
      '$18.00',
      'Ready',
    ]);
    await lines.scrollIntoViewIfNeeded();
    await screenshot(page, 'price-lists');
    await listForm.getByRole('button', { name: 'Create price list' }).click();
    await listForm.getByText(/1 line needs fixing/).waitFor();
    assert.equal(await csv.getAttribute('aria-invalid'), 'true');
    assert.equal((await shop.admin.request('adminListPriceLists')).items.length, 0, 'nothing was sent');
    await csv.fill('SKU,price\nSHIRT-1,18.00\nSOCKS-1,4.50');
    await listForm.getByText('2 lines: 2 ready.').waitFor();
    await assertAccessible(page, 'the new price list form with its preview');
    await listForm.getByRole('button', { name: 'Create price list' }).click();
    await page.getByText('The price list “Wholesale prices” was created.').waitFor();
    const listRow = page
      .getByRole('table', { name: 'Price lists, oldest first' })
      .getByRole('row', { name: /^Wholesale prices/ });
    await listRow.waitFor();
    assert.deepEqual((await listRow.getByRole('cell').allTextContents()).slice(0, 7), [
      'Override',
      'All markets',
      'Wholesale',
      'At once',
      'No end',
      'active',
      '2',
    ]);
    const [saved] = (await shop.admin.request('adminListPriceLists')).items;
    assert.ok(saved);
    const stored = await shop.admin.request('adminGetPriceList', { path: { id: saved.id } });
    assert.deepEqual(
      [stored.kind, stored.customerGroupIds, stored.marketIds, stored.startsAt, stored.endsAt],
      ['override', [wholesale.id], [], null, null],
    );
    assert.deepEqual(stored.prices.map((price) => [price.amount, price.currency]).sort(), [
      [1800, 'USD'],
      [450, 'USD'],
    ]);

    // Its current prices, in its form.
    await listRow.getByRole('button', { name: 'Edit the price list Wholesale prices' }).click();
    const current = page.getByRole('table', { name: 'The list’s current prices' });
    await current.getByRole('row', { name: /^Linen shirt: One SHIRT-1 \$18\.00/ }).waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();

    // Why this price: the list for Wholesale's members, the variant's own price for a guest.
    await page.goto(`/admin/products/${shirt.id}`);
    await page.getByRole('heading', { level: 1, name: 'Linen shirt' }).waitFor();
    const why = page.getByRole('group', { name: 'Variant 1' }).locator('details.why-price');
    await why.getByText('Why this price?', { exact: true }).click();
    await why.getByLabel('Buyer', { exact: true }).selectOption({ label: 'A member of Wholesale' });
    await why.getByRole('button', { name: 'Explain the price' }).click();
    await why.getByText('A member of Wholesale in the market Default pays $18.00').waitFor();
    await why
      .getByText('The override “Wholesale prices” wins: it is the newest override that applies')
      .waitFor();
    const candidates = why.getByRole('table', { name: 'The price lists that apply' });
    assert.deepEqual(
      await candidates
        .getByRole('row', { name: /^Wholesale prices/ })
        .getByRole('cell')
        .allTextContents(),
      ['Override', '$18.00', 'Wins'],
    );
    await candidates.scrollIntoViewIfNeeded();
    await screenshot(page, 'why-price');
    await assertAccessible(page, 'why this price, for a member');
    await why.getByLabel('Buyer', { exact: true }).selectOption({ label: 'A guest (in no group)' });
    await why.getByRole('button', { name: 'Explain the price' }).click();
    await why.getByText('A guest in the market Default pays $24.00').waitFor();
    await why
      .getByText('No price list applies: it is the market’s price, the variant’s own price.')
      .waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('rename and delete a group; change a list’s prices by a new paste; delete a list', async () => {
    const shop = await openShop(h.live);
    const shirt = await shop.admin.products.create({
      title: 'Linen shirt',
      status: 'active',
      variants: [{ label: 'One', sku: 'SHIRT-1', priceAmount: 2400, onHand: 5 }],
    });
    const vip = await shop.admin.request('adminCreateCustomerGroup', { body: { name: 'VIP' } });
    const sale = await shop.admin.request('adminCreatePriceList', {
      body: {
        name: 'Summer sale',
        kind: 'sale',
        customerGroupIds: [vip.id],
        startsAt: '2099-06-01T00:00:00Z',
        prices: [{ variantId: shirt.variants[0]!.id, currency: 'USD', amount: 2000 }],
      },
    });
    const { context, page, problems } = await signedInPage(h, shop.shop);

    await openScreen(page, 'Customer groups', 'Customer groups');
    await page.getByRole('button', { name: 'Rename the group VIP' }).click();
    const rename = page.getByRole('region', { name: 'Rename the group “VIP”' });
    await rename.getByLabel('Group name').fill('Best customers');
    await rename.getByRole('button', { name: 'Save name' }).click();
    await page.getByText('The group “Best customers” was renamed.').waitFor();
    assert.equal(
      (await shop.admin.request('adminGetCustomerGroup', { path: { id: vip.id } })).name,
      'Best customers',
    );

    // The list names the group by its new name; it starts later: scheduled. A new paste replaces its prices.
    await openScreen(page, 'Price lists', 'Price lists');
    const table = page.getByRole('table', { name: 'Price lists, oldest first' });
    const row = table.getByRole('row', { name: /^Summer sale/ });
    await row.waitFor();
    assert.deepEqual((await row.getByRole('cell').allTextContents()).slice(0, 3), [
      'Sale',
      'All markets',
      'Best customers',
    ]);
    await row.getByRole('cell', { name: 'scheduled' }).waitFor();
    await row.getByRole('button', { name: 'Edit the price list Summer sale' }).click();
    const edit = page.getByRole('region', { name: 'Change the price list “Summer sale”' });
    await edit.getByRole('table', { name: 'The list’s current prices' }).getByText('$20.00').waitFor();
    await edit.getByLabel('New prices (CSV)').fill('SHIRT-1\t19,50');
    await edit.getByText('1 line: 1 ready.').waitFor();
    await edit.getByLabel('Ends (optional)').fill('2099-07-01T00:00');
    await edit.getByRole('button', { name: 'Save price list' }).click();
    await page.getByText('The price list “Summer sale” was saved.').waitFor();
    const changed = await shop.admin.request('adminGetPriceList', { path: { id: sale.id } });
    assert.deepEqual(
      [changed.prices.map((price) => price.amount), changed.endsAt, changed.startsAt],
      [[1950], '2099-07-01T00:00:00.000Z', '2099-06-01T00:00:00.000Z'],
    );

    // Deleted after its confirmation; then the group, after its own.
    await row.getByRole('button', { name: 'Delete the price list Summer sale' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete the price list “Summer sale”?' });
    await dialog.getByRole('button', { name: 'Delete price list' }).click();
    await page.getByText('The price list “Summer sale” was deleted.').waitFor();
    assert.equal((await shop.admin.request('adminListPriceLists')).items.length, 0);
    await page.getByText('No price lists yet.').waitFor();
    await openScreen(page, 'Customer groups', 'Customer groups');
    await page.getByRole('button', { name: 'Delete the group Best customers' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete the group “Best customers”?' });
    await confirm.getByText('Its 0 customers leave it').waitFor();
    await assertAccessible(page, 'a group’s deletion, confirmed');
    await confirm.getByRole('button', { name: 'Delete group' }).click();
    await page.getByText('The group “Best customers” was deleted.').waitFor();
    assert.equal((await shop.admin.request('adminListCustomerGroups')).items.length, 0);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('Home shows revenue in each currency paid in', async () => {
    const shop = await openShop(h.live);
    await shop.admin.request('adminCreateMarket', {
      body: { name: 'Europe', countries: ['DE'], currency: 'EUR', exchangeRate: '0.92', rounding: 'to_99' },
    });
    const shirt = await shop.admin.products.create({
      title: 'Linen shirt',
      status: 'active',
      variants: [{ label: 'One', priceAmount: 2400, onHand: 5 }],
    });
    await checkout(shop, shirt.variants[0]!.id, 'hans@example.com', 'DE', true);
    // The console's page runs in UTC: today there starts at UTC midnight.
    const since = new Date(new Date().setUTCHours(0, 0, 0, 0)).toISOString();
    const overview = await shop.admin.request('adminGetOverview', { query: { since } });
    const euros = overview.revenueByCurrency.find((money) => money.currency === 'EUR');
    assert.ok(euros && euros.amount > 0, JSON.stringify(overview.revenueByCurrency));
    const { context, page, problems } = await signedInPage(h, shop.shop);
    const revenue = page.getByRole('region', { name: 'Revenue today' });
    await revenue.getByText('$0.00').waitFor();
    await revenue
      .getByText(`Also €${(euros.amount / 100).toFixed(2)} paid in EUR (other markets).`)
      .waitFor();
    await assertAccessible(page, 'Home with revenue in two currencies');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
