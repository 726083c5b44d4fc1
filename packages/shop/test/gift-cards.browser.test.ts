/**
 * Gift cards in the reference shop, in Chromium (decision `shop-gift-cards`): a card that pays part
 * at the review and the sandbox's hosted page the rest; an unknown code said at the field and read
 * out, and too many guesses; removing cards; cards that pay it all, confirmed without the payment
 * page; buying a gift card product, which ships nothing, asks for no address and mails its code.
 * Cards and products are made through the Admin API; what the shopper sees is checked on the page,
 * what happened through the APIs, axe-core on each view.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { startedForFile } from '../../client/test/server.test-support.ts';
import { assertAccessible, newPage, screenshot } from '../../console/test/browser.test-support.ts';
import { toWindowStart } from '../../../src/ratelimit/ratelimit.test-support.ts';
import { readMailDir, addressesOf } from '../../../src/test/harness.ts';
import {
  focusOn,
  openStore,
  seedCatalog,
  seedZone,
  startShop,
  toCheckout,
  type ShopStore,
} from './shop.test-support.ts';

const h = startedForFile(startShop);

/** A card issued by staff: its code (shown once) and last 4 characters. */
async function issueCard(
  { admin }: ShopStore,
  amount: number,
): Promise<{ id: string; code: string; last4: string }> {
  const card = await admin.request('adminIssueGiftCard', {
    body: { initialAmount: amount, currency: 'USD' },
  });
  return { id: card.id, code: card.code, last4: card.last4 };
}

const balanceOf = async ({ admin }: ShopStore, id: string) =>
  (await admin.request('adminGetGiftCard', { path: { id } })).balance.amount;

/** A store with the catalog and $5.00 post across the US: a tee costs $35.00 delivered. */
async function seedStore(): Promise<ShopStore & { tee: string }> {
  const shop = await openStore(h);
  const catalog = await seedCatalog(shop);
  await seedZone(shop, { name: 'US', areas: [{ country: 'US' }] }, [
    { name: 'Post', kind: 'flat', amount: 500 },
  ]);
  return { ...shop, tee: catalog.tee.handle };
}

/** A text, its white space made single. */
const words = async (locator: Locator) => ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();

/** The rows of a `dl.totals`, each its term and amount run together ("Subtotal$30.00"). */
const rows = async (totals: Locator) => Promise.all((await totals.locator(':scope > div').all()).map(words));

/** One tee to the review: contact and a Boston address, the one method. */
async function teeToReview(page: Page, handle: string, email: string): Promise<void> {
  await toCheckout(page, handle);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Country or region').selectOption('US');
  await page.getByLabel('Full name', { exact: true }).fill('Pat Doe');
  await page.getByLabel('Address', { exact: true }).fill('1 Main St');
  await page.getByLabel('City', { exact: true }).fill('Boston');
  await page.getByLabel('State', { exact: true }).selectOption('US-MA');
  await page.getByLabel('ZIP code', { exact: true }).fill('02110');
  await page.getByRole('button', { name: 'Continue to shipping' }).click();
  await page.getByRole('button', { name: 'Continue to review' }).click();
  await page.getByRole('heading', { name: 'Review and pay', level: 2 }).waitFor();
}

/** The review step's gift card field: type a code and apply it. */
async function applyCard(page: Page, code: string): Promise<void> {
  await page.getByLabel('Gift card', { exact: true }).fill(code);
  await page.getByRole('button', { name: 'Apply gift card' }).click();
}

const status = (page: Page, text: string) => page.getByRole('status').getByText(text, { exact: true });

/** The order the shopper is on (from the order page's address). */
function orderIdOf(page: Page): string {
  const id = /\/shop\/orders\/([0-9a-f-]{36})/.exec(page.url())?.[1];
  assert.ok(id, `an order page: ${page.url()}`);
  return id;
}

const REVIEW_TOTALS = ['Subtotal$30.00', 'Shipping$5.00', 'Tax$0.00', 'Total$35.00'];

describe('gift cards in the reference shop', () => {
  test('a card pays $15.00 of $35.00 at the review, the hosted page the $20.00 left; the order shows both', async () => {
    const shop = await seedStore();
    const card = await issueCard(shop, 1500);
    const { context, page, problems } = await newPage(h);

    await teeToReview(page, shop.tee, 'gift@example.com');
    const totals = page.locator('.checkout-form .totals');
    assert.deepEqual(await rows(totals), REVIEW_TOTALS);
    // As printed on a card, read in any case, with spaces for dashes.
    await applyCard(page, card.code.toLowerCase().replaceAll('-', ' '));
    await status(page, `Gift card ending ${card.last4} applied.`).waitFor();
    const held = page.getByRole('list', { name: 'Your gift cards' }).getByRole('listitem');
    assert.deepEqual(await Promise.all((await held.all()).map(words)), [
      `Gift card ending ${card.last4}−$15.00Remove gift card ending ${card.last4}Balance $15.00`,
    ]);
    assert.equal(
      await page.getByLabel('Gift card', { exact: true }).inputValue(),
      '',
      'the field is emptied',
    );
    assert.deepEqual(await rows(totals), [
      ...REVIEW_TOTALS,
      `Gift card ending ${card.last4}−$15.00`,
      'Amount due$20.00',
    ]);
    await assertAccessible(page, 'review with a gift card');
    await page.setViewportSize({ width: 1280, height: 1180 });
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'gift-card', 'shop');
    await page.setViewportSize({ width: 1280, height: 860 });

    // The provider is asked for the rest only.
    await page.getByRole('button', { name: 'Pay $20.00' }).click();
    await page.getByRole('heading', { name: /Sandbox payment/ }).waitFor();
    await page.getByRole('button', { name: 'Pay $20.00' }).click();
    await page.getByRole('heading', { name: 'Thank you!', level: 1 }).waitFor({ timeout: 20_000 });
    const orderTotals = page.locator('.totals');
    await orderTotals.getByText('Amount charged').waitFor();
    assert.deepEqual(await rows(orderTotals), [
      ...REVIEW_TOTALS,
      `Gift card ending ${card.last4}−$15.00`,
      'Amount charged$20.00',
    ]);
    await assertAccessible(page, 'paid order with a gift card');
    const order = await shop.admin.orders.get(orderIdOf(page));
    assert.deepEqual(
      [order.status, order.total.amount, order.amountDue.amount, order.giftCards.map((c) => c.amount.amount)],
      ['paid', 3500, 2000, [1500]],
    );
    assert.equal(await balanceOf(shop, card.id), 0, 'the card is spent');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('an unknown code is said at the field and read out, the focus kept there; past the guesses, the wait is said', async () => {
    const shop = await seedStore();
    const { context, page, problems } = await newPage(h);

    await teeToReview(page, shop.tee, 'guess@example.com');
    // The guesses below spend one window's budget: they start with a window.
    toWindowStart(h.live.t);
    await applyCard(page, 'AAAA-BBBB-CCCC-DDDD');
    const problem = page.locator('#checkout-gift-card-problem');
    await problem.waitFor();
    const unknown = 'No gift card of this store has that code.';
    assert.equal(await problem.textContent(), unknown);
    const field = page.getByLabel('Gift card', { exact: true });
    assert.equal(await field.getAttribute('aria-invalid'), 'true');
    assert.equal(await field.getAttribute('aria-describedby'), 'checkout-gift-card-problem');
    await status(page, unknown).waitFor();
    await focusOn(page, 'document.activeElement?.id', 'checkout-gift-card', 'a refused card');
    assert.deepEqual(await rows(page.locator('.checkout-form .totals')), REVIEW_TOTALS);
    await page.getByRole('button', { name: 'Pay $35.00' }).waitFor();
    await assertAccessible(page, 'an unknown gift card');

    // Typing again takes the complaint away.
    await field.fill('A');
    assert.equal(await field.getAttribute('aria-invalid'), null);

    // This client's other guesses at this store (10 a window, one spent above), spent elsewhere.
    const other = await shop.storefront.carts.create({ items: [] });
    for (let guess = 0; guess < 9; guess++) {
      await assert.rejects(shop.storefront.carts.addGiftCard(other.id, 'ZZZZ-ZZZZ-ZZZZ-ZZZZ'), {
        title: 'gift_card_invalid',
      });
    }
    await applyCard(page, 'AAAA-BBBB-CCCC-EEEE');
    await problem.getByText(/^Too many gift card codes from this address; retry in \d+ s\.$/).waitFor();
    await page
      .getByRole('status')
      .getByText(/^Too many gift card codes/)
      .waitFor();
    await focusOn(page, 'document.activeElement?.id', 'checkout-gift-card', 'too many guesses');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('at 375 px: two cards pay it all ("Place order"); removing them gives the total back, the focus back to the field', async () => {
    const shop = await seedStore();
    const small = await issueCard(shop, 1000);
    const large = await issueCard(shop, 10_000);
    const { context, page, problems } = await newPage(h, { width: 375, height: 800 });

    await teeToReview(page, shop.tee, 'remove@example.com');
    await applyCard(page, small.code);
    await status(page, `Gift card ending ${small.last4} applied.`).waitFor();
    await applyCard(page, large.code);
    await status(page, `Gift card ending ${large.last4} applied.`).waitFor();
    const totals = page.locator('.checkout-form .totals');
    assert.deepEqual(await rows(totals), [
      ...REVIEW_TOTALS,
      `Gift card ending ${small.last4}−$10.00`,
      `Gift card ending ${large.last4}−$25.00`,
      'Amount due$0.00',
    ]);
    await page.getByRole('button', { name: 'Place order' }).waitFor();
    await page.getByText('Your gift cards pay the whole order: nothing more is charged.').waitFor();
    await assertAccessible(page, 'two cards pay it all, at 375 px');

    await page.getByRole('button', { name: `Remove gift card ending ${large.last4}` }).click();
    await status(page, `Gift card ending ${large.last4} removed.`).waitFor();
    await focusOn(page, 'document.activeElement?.id', 'checkout-gift-card', 'a card removed');
    assert.deepEqual(await rows(totals), [
      ...REVIEW_TOTALS,
      `Gift card ending ${small.last4}−$10.00`,
      'Amount due$25.00',
    ]);
    await page.getByRole('button', { name: 'Pay $25.00' }).waitFor();

    await page.getByRole('button', { name: `Remove gift card ending ${small.last4}` }).click();
    await status(page, `Gift card ending ${small.last4} removed.`).waitFor();
    assert.equal(await page.getByRole('list', { name: 'Your gift cards' }).count(), 0);
    assert.deepEqual(await rows(totals), REVIEW_TOTALS);
    await page.getByRole('button', { name: 'Pay $35.00' }).waitFor();
    const cart = await shop.storefront.carts.get(
      (await page.evaluate<string | null>("localStorage.getItem('storefront.cart')"))!,
    );
    assert.deepEqual(cart.giftCards, [], 'the cart holds no card');
    assert.deepEqual([await balanceOf(shop, small.id), await balanceOf(shop, large.id)], [1000, 10_000]);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a card that pays everything: "Place order" confirms the order, paid, without the payment page', async () => {
    const shop = await seedStore();
    const card = await issueCard(shop, 5000);
    const { context, page, problems } = await newPage(h);
    const sandbox: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/sandbox/')) sandbox.push(request.url());
    });

    await teeToReview(page, shop.tee, 'all@example.com');
    await applyCard(page, card.code);
    await status(page, `Gift card ending ${card.last4} applied.`).waitFor();
    await page.getByRole('button', { name: 'Place order' }).click();
    await page.getByRole('heading', { name: 'Thank you!', level: 1 }).waitFor();
    await page.getByText(/^Order #\d+ is paid\./).waitFor();
    await page.getByRole('link', { name: 'Cart, 0 items' }).waitFor();
    assert.doesNotMatch(page.url(), /redirect_status/);
    assert.deepEqual(sandbox, [], 'no payment page');
    assert.deepEqual(await rows(page.locator('.totals')), [
      ...REVIEW_TOTALS,
      `Gift card ending ${card.last4}−$35.00`,
      'Amount charged$0.00',
    ]);
    await assertAccessible(page, 'an order the gift card paid');
    const order = await shop.admin.orders.get(orderIdOf(page));
    assert.deepEqual([order.status, order.amountDue.amount], ['paid', 0]);
    assert.equal(await balanceOf(shop, card.id), 1500);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a gift card product: "delivered by email", a checkout without an address, the hosted page, the card issued and its code mailed', async () => {
    const shop = await seedStore();
    const product = await shop.admin.products.create({
      title: 'Gift card',
      status: 'active',
      giftCard: true,
      variants: [
        { label: '$25', priceAmount: 2500, onHand: 1000 },
        { label: '$50', priceAmount: 5000, onHand: 1000 },
      ],
    });
    const { context, page, problems } = await newPage(h);

    await page.goto(`/shop/products/${product.handle}`);
    await page.getByText('Delivered by email — no shipping', { exact: false }).waitFor();
    await assertAccessible(page, 'a gift card product');
    await page.getByRole('radio', { name: '$50' }).check();
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.getByRole('link', { name: 'View cart' }).click();
    await page.getByRole('link', { name: 'Check out' }).click();

    // The contact alone: nothing is shipped.
    await page.getByRole('heading', { name: 'Contact', level: 2 }).waitFor();
    await page
      .getByRole('list', { name: 'Checkout steps' })
      .getByText('1. Contact', { exact: true })
      .waitFor();
    assert.equal(await page.getByLabel('Full name', { exact: true }).count(), 0, 'no address');
    await page
      .getByText('Gift cards are delivered by email — no shipping, so no address is needed.')
      .waitFor();
    await assertAccessible(page, 'checkout of gift cards only');
    await page.getByLabel('Email').fill('buyer@example.com');
    await page.getByRole('button', { name: 'Continue to review' }).click();
    await page.getByRole('heading', { name: 'Review and pay', level: 2 }).waitFor();
    assert.equal(await page.getByText('Ship to').count(), 0);
    assert.equal(await page.getByLabel('Gift card', { exact: true }).count(), 0, 'a card never buys a card');
    await assertAccessible(page, 'review of gift cards only');

    await page.getByRole('button', { name: 'Pay $50.00' }).click();
    await page.getByRole('heading', { name: /Sandbox payment/ }).waitFor();
    await page.getByRole('button', { name: 'Pay $50.00' }).click();
    await page.getByRole('heading', { name: 'Thank you!', level: 1 }).waitFor({ timeout: 20_000 });
    await page.getByText(/^Your gift card codes are emailed to .+\. Nothing is shipped\.$/).waitFor();
    await assertAccessible(page, 'a paid order of gift cards');

    const order = await shop.admin.orders.get(orderIdOf(page));
    assert.deepEqual([order.status, order.shippingAddress, order.total.amount], ['paid', null, 5000]);
    const issued = await shop.admin.request('adminListGiftCards', { query: { orderId: order.id } });
    assert.deepEqual(
      issued.items.map((card) => card.initialAmount.amount),
      [5000],
    );
    const { emailTransport } = h.live.t.config;
    if (emailTransport.kind !== 'file') throw new Error('the test app mails to files');
    const deadline = Date.now() + 10_000;
    let mailed = false;
    while (!mailed && Date.now() < deadline) {
      const mails = await readMailDir(emailTransport.dir);
      mailed = mails.some(
        (mail) =>
          addressesOf(mail).includes('buyer@example.com') &&
          mail.headers.get('x-storefront-mail-kind') === 'gift_card_codes' &&
          (mail.text ?? '').includes(issued.items[0]!.last4),
      );
      if (!mailed) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(mailed, 'the code is mailed to the buyer');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
