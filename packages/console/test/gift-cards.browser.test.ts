/**
 * Gift cards in the console, in Chromium (issue 46, decisions `gift-card-codes` and
 * `gift-card-ledger`): a card issued by hand for a customer, its code shown once with its warning
 * and a copy button and gone after; the card in the list by its last 4; its page with its balance
 * history; an adjustment with its reason in the history, one below zero refused at its field (409);
 * its note and expiry changed; disabling it after a confirmation. What the page shows and what the
 * server stored are both checked.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openShop, startedForFile } from '../../client/test/server.test-support.ts';
import {
  assertAccessible,
  openScreen,
  screenshot,
  signedInPage,
  startConsole,
} from './browser.test-support.ts';

const h = startedForFile(startConsole);

describe('gift cards in the console', () => {
  test('issue a card, see its code once, adjust its balance and read its history', async () => {
    const shop = await openShop(h.live);
    // A customer of the store: a guest's checkout makes one.
    const hat = await shop.admin.products.create({
      title: 'Hat',
      status: 'active',
      variants: [{ label: 'One', priceAmount: 2000, onHand: 5 }],
    });
    const cart = await shop.storefront.carts.create({
      items: [{ variantId: hat.variants[0]!.id, quantity: 1 }],
      country: 'US',
    });
    await shop.storefront.checkout.create({
      cartId: cart.id,
      email: 'ada@example.com',
      shippingAddress: {
        name: 'Ada Lovelace',
        line1: '1 Main St',
        city: 'Boston',
        region: 'MA',
        postalCode: '02108',
        country: 'US',
      },
    });
    const [ada] = (await shop.admin.request('adminListCustomers', { query: { q: 'ada@' } })).items;
    assert.ok(ada);
    const { context, page, problems } = await signedInPage(h, shop.shop, { height: 1000 });

    await openScreen(page, 'Gift cards', 'Gift cards');
    await page.getByText('No gift cards yet.').waitFor();
    await page.getByRole('button', { name: 'Issue gift card' }).click();
    const form = page.getByRole('region', { name: 'Issue a gift card' });
    await form.getByRole('button', { name: 'Issue gift card' }).click();
    await form.getByText('Enter the card’s amount, like 50.00.').waitFor();
    await form.getByLabel('Amount (USD)').fill('50');
    await form.getByLabel('Note (optional)').fill('Raffle prize');
    await form.getByLabel('Find a customer').fill('ada@');
    await form.getByRole('button', { name: 'Choose ada@example.com' }).click();
    await form.getByRole('button', { name: 'Remove ada@example.com' }).waitFor();
    await assertAccessible(page, 'the issue form');
    await form.getByRole('button', { name: 'Issue gift card' }).click();

    // The code, once: with its warning and a copy button.
    const once = page.getByRole('region', { name: 'Gift card code' });
    const code = (await once.getByTestId('secret-value').textContent()) ?? '';
    assert.match(code, /^[2-9A-HJ-NP-Z]{4}(-[2-9A-HJ-NP-Z]{4}){3}$/);
    const last4 = code.slice(-4);
    await once.getByText('copy it now, it will not be shown again.', { exact: false }).waitFor();
    await once.getByRole('button', { name: 'Copy' }).waitFor();
    const [stored] = (await shop.admin.request('adminListGiftCards')).items;
    assert.deepEqual(
      [stored?.last4, stored?.initialAmount, stored?.balance, stored?.note, stored?.customerId],
      [last4, { amount: 5000, currency: 'USD' }, { amount: 5000, currency: 'USD' }, 'Raffle prize', ada.id],
    );
    const row = page
      .getByRole('table', { name: 'Gift cards, newest first' })
      .getByRole('row', { name: new RegExp(last4) });
    await row.waitFor();
    assert.deepEqual((await row.getByRole('cell').allTextContents()).slice(0, 5), [
      '$50.00',
      '$50.00',
      'USD',
      'Never',
      'active',
    ]);
    await screenshot(page, 'gift-card-issued');
    await assertAccessible(page, 'a card issued, its code shown');
    await once.getByRole('button', { name: 'I have copied it' }).click();
    await once.waitFor({ state: 'detached' });
    assert.equal((await page.content()).includes(code), false, 'the code is gone from the page');

    // Its page: the balance history; an adjustment with its reason.
    await row.getByRole('link', { name: `Ending ${last4}` }).click();
    await page.getByRole('heading', { level: 1, name: `Gift card ending ${last4}` }).waitFor();
    const history = page.getByRole('table', { name: 'Balance history, oldest first' });
    const issued = history.getByRole('row', { name: /Issued/ });
    await issued.waitFor();
    assert.deepEqual((await issued.getByRole('cell').allTextContents()).slice(1, 4), [
      'Issued',
      '+$50.00',
      '$50.00',
    ]);
    await page.getByRole('link', { name: 'ada@example.com' }).waitFor();
    const adjust = page.getByRole('form', { name: 'Adjust the balance' });
    await adjust.getByRole('radio', { name: 'Take off the balance' }).check();
    await adjust.getByLabel('Amount (USD)').fill('15');
    await adjust.getByLabel('Reason').fill('Spent at the market stall');
    await adjust.getByRole('button', { name: 'Adjust balance' }).click();
    await page.getByText('The balance is now $35.00.').waitFor();
    const adjusted = history.getByRole('row', { name: /Adjusted by staff/ });
    await adjusted.waitFor();
    assert.deepEqual((await adjusted.getByRole('cell').allTextContents()).slice(1), [
      'Adjusted by staff',
      '−$15.00',
      '$35.00',
      '—',
      '—',
      'Spent at the market stall',
    ]);
    await history.scrollIntoViewIfNeeded();
    await screenshot(page, 'gift-card');
    // More than the balance: 409, said at the amount; nothing moves.
    await adjust.getByRole('radio', { name: 'Take off the balance' }).check();
    await adjust.getByLabel('Amount (USD)').fill('100');
    await adjust.getByLabel('Reason').fill('Too much');
    await adjust.getByRole('button', { name: 'Adjust balance' }).click();
    const amount = adjust.getByLabel('Amount (USD)');
    await adjust.getByText('Take off at most $35.00: the balance never goes below zero.').waitFor();
    assert.equal(await amount.getAttribute('aria-invalid'), 'true');
    const card = await shop.admin.request('adminGetGiftCard', { path: { id: stored!.id } });
    assert.deepEqual(
      [card.balance.amount, card.ledger.map((entry) => [entry.kind, entry.amount, entry.reason])],
      [
        3500,
        [
          ['issue', 5000, null],
          ['adjust', -1500, 'Spent at the market stall'],
        ],
      ],
    );
    await assertAccessible(page, 'a card’s page with its history');

    // Its note and expiry; then disabled after a confirmation.
    const details = page.getByRole('form', { name: 'Details' });
    await details.getByLabel('Note').fill('Raffle prize, paid out at the stall');
    await details.getByLabel('Expires').fill('2099-12-31T12:00');
    await details.getByRole('button', { name: 'Save details' }).click();
    await page.getByText('The card’s details were saved.').waitFor();
    await page.getByRole('button', { name: 'Disable card' }).click();
    const dialog = page.getByRole('dialog', { name: `Disable the card ending ${last4}?` });
    await dialog.getByRole('button', { name: 'Disable card' }).click();
    await page.getByText('The card is disabled: it pays nothing.').waitFor();
    await page.getByRole('button', { name: 'Enable card' }).waitFor();
    const changed = await shop.admin.request('adminGetGiftCard', { path: { id: stored!.id } });
    assert.deepEqual(
      [changed.note, changed.expiresAt, changed.disabled, changed.status],
      ['Raffle prize, paid out at the stall', '2099-12-31T12:00:00.000Z', true, 'disabled'],
    );
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('an order a gift card paid shows the card’s part; a refund goes back to the card at once', async () => {
    const shop = await openShop(h.live);
    const hat = await shop.admin.products.create({
      title: 'Hat',
      status: 'active',
      variants: [{ label: 'One', priceAmount: 2000, onHand: 5 }],
    });
    const issued = await shop.admin.request('adminIssueGiftCard', {
      body: { initialAmount: 5000, currency: 'USD' },
    });
    const cart = await shop.storefront.carts.create({
      items: [{ variantId: hat.variants[0]!.id, quantity: 1 }],
    });
    await shop.storefront.carts.addGiftCard(cart.id, issued.code);
    const placed = await shop.storefront.checkout.create({ cartId: cart.id, email: 'ada@example.com' });
    assert.equal(placed.order.status, 'paid', 'the card paid it all: paid at checkout');
    const { context, page, problems } = await signedInPage(h, shop.shop, { height: 1200 });
    await page.goto(`/admin/orders/${placed.order.id}`);
    await page.getByRole('heading', { name: `Order #${placed.order.number}`, level: 1 }).waitFor();
    await page.getByText(`Gift card ending ${issued.last4}`).waitFor();
    await page.getByText('Charged by the provider').waitFor();

    await page.getByLabel('Amount to refund (USD)', { exact: true }).fill('5');
    await page.getByRole('button', { name: 'Refund $5.00' }).click();
    await page.getByText('$5.00 went back to the gift cards.').waitFor();
    const refunds = page.getByRole('region', { name: 'Refunds' });
    await refunds.getByText("Paid back to the order's gift cards (settled at once).").waitFor();
    await assertAccessible(page, 'an order a gift card paid, refunded to the card');
    const card = await shop.admin.request('adminGetGiftCard', { path: { id: issued.id } });
    assert.equal(card.balance.amount, 5000 - 2000 + 500);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
