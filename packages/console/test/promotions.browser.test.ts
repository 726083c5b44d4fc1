/**
 * Promotions in the console, in Chromium (issue 46, decision `promotions-resource`): a percent code
 * promotion, an automatic free shipping and a buy X get Y made on the screen, each rule said in
 * plain words live in the form and in the list with its uses so far (a checkout with the code
 * counts one); a percentage the server refuses (400 at `/action/value`) and a taken code (409 at
 * `/code`) shown at their fields; a promotion changed and deleted after its confirmation. What the
 * page shows and what the server stored are both checked.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { openShop, startedForFile } from '../../client/test/server.test-support.ts';
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
  country: 'US',
};

function promotionsTable(page: Page) {
  return page.getByRole('table', { name: 'Promotions, oldest first' });
}

/** A promotion's row, once it is there, and its cells' texts (without the buttons' cell). */
async function rowCells(page: Page, name: string): Promise<string[]> {
  const row = promotionsTable(page).getByRole('row', { name: new RegExp(`^${name}`) });
  await row.waitFor();
  return (await row.getByRole('cell').allTextContents()).slice(0, 6);
}

describe('promotions in the console', () => {
  test('a percent code, an automatic free shipping and a buy X get Y: their rules in words and their uses', async () => {
    const shop = await openShop(h.live);
    const socks = await shop.admin.products.create({
      title: 'Socks',
      status: 'active',
      variants: [{ label: 'Pair', sku: 'SOCKS-1', priceAmount: 800, onHand: 50 }],
    });
    const { context, page, problems } = await signedInPage(h, shop.shop, { height: 1100 });

    await openScreen(page, 'Promotions', 'Promotions');
    await page.getByText('No promotions yet.').waitFor();

    // A percent code: the summary follows the form; a percentage over 100 is the server's 400, at its field.
    await page.getByRole('button', { name: 'Add promotion' }).click();
    const form = page.getByRole('region', { name: 'New promotion' });
    const summary = form.getByTestId('promotion-summary');
    await form.getByLabel('Promotion name').fill('Summer sale');
    await form.getByLabel('Code', { exact: true }).fill('summer25');
    await form.getByLabel('Percentage off (%)').fill('150');
    await summary.getByText('150 % off the order', { exact: true }).waitFor();
    await form.getByRole('button', { name: 'Create promotion' }).click();
    const percent = form.getByLabel('Percentage off (%)');
    await form.getByText('The percentage must be a percentage from 0.01 to 100 in steps of 0.01.').waitFor();
    assert.equal(await percent.getAttribute('aria-invalid'), 'true');
    assert.equal((await shop.admin.request('adminListPromotions')).items.length, 0, 'nothing was stored');
    await percent.fill('25');
    await form.getByLabel('Usage limit (optional)').fill('500');
    await form
      .getByRole('group', { name: 'Combines with' })
      .getByRole('checkbox', { name: 'Shipping promotions' })
      .check();
    await summary
      .getByText('25 % off the order, combines with shipping promotions', { exact: true })
      .waitFor();
    await assertAccessible(page, 'the new promotion form');
    await form.getByRole('button', { name: 'Create promotion' }).click();
    await page.getByText('The promotion “Summer sale” was created.').waitFor();

    // An automatic free shipping over $100.00.
    await page.getByRole('button', { name: 'Add promotion' }).click();
    await form.getByLabel('Promotion name').fill('Free shipping over $100');
    await form.getByRole('radio', { name: 'Automatic' }).check();
    await form.getByRole('radio', { name: 'Free shipping' }).check();
    await form.getByLabel('Minimum subtotal (optional) (USD)').fill('100');
    await summary.getByText('Free shipping over $100.00', { exact: true }).waitFor();
    await form.getByRole('button', { name: 'Create promotion' }).click();
    await page.getByText('The promotion “Free shipping over $100” was created.').waitFor();

    // Buy 2 socks, get 1 free: the products found by search on each side.
    await page.getByRole('button', { name: 'Add promotion' }).click();
    await form.getByLabel('Promotion name').fill('Socks: 3 for 2');
    await form.getByLabel('Code', { exact: true }).fill('SOCKS3');
    await form.getByRole('radio', { name: 'Buy X, get Y' }).check();
    for (const [side, quantity] of [
      ['Buys', '2'],
      ['Gets', '1'],
    ] as const) {
      const group = form.getByRole('group', { name: side, exact: true });
      await group.getByLabel('Quantity').fill(quantity);
      await group.getByLabel('Find a product').fill('Sock');
      await group.getByRole('button', { name: 'Add Socks' }).click();
      await group
        .getByRole('list', { name: 'Of these products, chosen' })
        .getByRole('button', { name: 'Remove Socks' })
        .waitFor();
    }
    await summary.getByText('Buy 2 of Socks, get 1 free', { exact: true }).waitFor();
    // The submit button is described by the rule in words (what a screen reader hears on it).
    assert.equal(
      await form.getByRole('button', { name: 'Create promotion' }).getAttribute('aria-describedby'),
      await summary.getAttribute('id'),
    );
    await summary.scrollIntoViewIfNeeded();
    await screenshot(page, 'promotion-form');
    await assertAccessible(page, 'a buy X get Y in the form');
    await form.getByRole('button', { name: 'Create promotion' }).click();
    await page.getByText('The promotion “Socks: 3 for 2” was created.').waitFor();

    // A code another promotion has, whatever its case: 409, at the code.
    await page.getByRole('button', { name: 'Add promotion' }).click();
    await form.getByLabel('Promotion name').fill('Again');
    await form.getByLabel('Code', { exact: true }).fill('Summer25');
    await form.getByLabel('Percentage off (%)').fill('10');
    await form.getByRole('button', { name: 'Create promotion' }).click();
    await form
      .locator('.field-error', { hasText: 'Another promotion of this store has the code SUMMER25.' })
      .waitFor();
    assert.equal(await form.getByLabel('Code', { exact: true }).getAttribute('aria-invalid'), 'true');
    await form.getByRole('button', { name: 'Cancel' }).click();

    // What the server stored.
    const stored = (await shop.admin.request('adminListPromotions')).items;
    assert.deepEqual(
      stored.map((p) => [p.name, p.code, p.automatic, p.action, p.conditions, p.combinesWith, p.usageLimit]),
      [
        [
          'Summer sale',
          'SUMMER25',
          false,
          { kind: 'percent', target: 'order', value: 25 },
          {},
          { order: false, items: false, shipping: true },
          500,
        ],
        [
          'Free shipping over $100',
          null,
          true,
          { kind: 'free_shipping' },
          { minSubtotal: 10000 },
          { order: false, items: false, shipping: false },
          null,
        ],
        [
          'Socks: 3 for 2',
          'SOCKS3',
          false,
          {
            kind: 'buy_x_get_y',
            buy: { quantity: 2, productIds: [socks.id] },
            get: { quantity: 1, productIds: [socks.id], percent: 100 },
          },
          {},
          { order: false, items: false, shipping: false },
          null,
        ],
      ],
    );

    // A checkout with the code counts one use; the list says it.
    const cart = await shop.storefront.carts.create({
      items: [{ variantId: socks.variants[0]!.id, quantity: 2 }],
      country: 'US',
    });
    await shop.storefront.checkout.create({
      cartId: cart.id,
      email: 'ada@example.com',
      shippingAddress: ADDRESS,
      discountCode: 'summer25',
    });
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Promotions' }).waitFor();
    assert.deepEqual(await rowCells(page, 'Summer sale'), [
      'SUMMER25',
      '25 % off the order, combines with shipping promotions',
      'At once',
      'No end',
      'active',
      '1 of 500 used',
    ]);
    assert.deepEqual(await rowCells(page, 'Free shipping over \\$100'), [
      'Automatic',
      'Free shipping over $100.00',
      'At once',
      'No end',
      'active',
      '0 used',
    ]);
    assert.deepEqual(await rowCells(page, 'Socks: 3 for 2'), [
      'SOCKS3',
      'Buy 2 of Socks, get 1 free',
      'At once',
      'No end',
      'active',
      '0 used',
    ]);
    await screenshot(page, 'promotions');
    await assertAccessible(page, 'the promotions list');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('change a promotion’s conditions and limits; delete one after its confirmation', async () => {
    const shop = await openShop(h.live);
    const vip = await shop.admin.request('adminCreateCustomerGroup', { body: { name: 'VIP' } });
    const summer = await shop.admin.request('adminCreatePromotion', {
      body: {
        name: 'Summer sale',
        code: 'SUMMER25',
        action: { kind: 'percent', value: 25, target: 'order' },
        combinesWith: { shipping: true },
        startsAt: '2099-06-01T00:00:00Z',
      },
    });
    const { context, page, problems } = await signedInPage(h, shop.shop, { height: 1100 });
    await openScreen(page, 'Promotions', 'Promotions');
    const cells = await rowCells(page, 'Summer sale');
    assert.deepEqual(
      [cells[1], cells[4]],
      ['25 % off the order, combines with shipping promotions', 'scheduled'],
    );

    await page.getByRole('button', { name: 'Edit the promotion Summer sale' }).click();
    const form = page.getByRole('region', { name: 'Change the promotion “Summer sale”' });
    await form.getByLabel('Minimum subtotal (optional) (USD)').fill('50');
    await form.getByLabel('Uses per customer (optional)').fill('1');
    await form
      .getByTestId('promotion-summary')
      .getByText('25 % off the order over $50.00, once per customer, combines with shipping promotions', {
        exact: true,
      })
      .waitFor();
    await form.getByRole('group', { name: 'Customer groups' }).getByRole('checkbox', { name: 'VIP' }).check();
    await form.getByRole('checkbox', { name: 'First order only' }).check();
    await form.getByLabel('Starts (optional)').fill('');
    await form.getByRole('button', { name: 'Save promotion' }).click();
    await page.getByText('The promotion “Summer sale” was saved.').waitFor();
    const changed = await shop.admin.request('adminGetPromotion', { path: { id: summer.id } });
    assert.deepEqual(
      [changed.conditions, changed.perCustomerLimit, changed.startsAt, changed.code, changed.action],
      [
        { minSubtotal: 5000, customerGroupIds: [vip.id], firstOrderOnly: true },
        1,
        null,
        'SUMMER25',
        { kind: 'percent', target: 'order', value: 25 },
      ],
    );
    const after = await rowCells(page, 'Summer sale');
    assert.deepEqual(
      [after[1], after[4]],
      [
        '25 % off the order over $50.00 for members of VIP on a buyer’s first order, once per customer, combines with shipping promotions',
        'active',
      ],
    );

    await page.getByRole('button', { name: 'Delete the promotion Summer sale' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete the promotion “Summer sale”?' });
    await dialog.getByText('the code SUMMER25 is refused').waitFor();
    await assertAccessible(page, 'a promotion’s deletion, confirmed');
    await dialog.getByRole('button', { name: 'Delete promotion' }).click();
    await page.getByText('The promotion “Summer sale” was deleted.').waitFor();
    await page.getByText('No promotions yet.').waitFor();
    assert.equal((await shop.admin.request('adminListPromotions')).items.length, 0);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
