/**
 * Buying in the reference shop, in Chromium: browse → product → add → cart → checkout in three
 * steps (contact and address, shipping method, review) → the sandbox provider's hosted payment
 * page → back to the order page, which waits until the order is `paid`; a shopper in Germany at
 * desktop width and one in the US at 375 px; a declined card, then another card; a discount code,
 * refused and then applied.
 * What the shopper sees is checked on the page; what happened, through the APIs.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { startedForFile } from '../../client/test/server.test-support.ts';
import { assertAccessible, newPage, screenshot } from '../../console/test/browser.test-support.ts';
import {
  openStore,
  seedCatalog,
  seedZone,
  startShop,
  toCheckout,
  type ShopStore,
} from './shop.test-support.ts';

const h = startedForFile(startShop);

interface TestAddress {
  country: string;
  name: string;
  line1: string;
  city: string;
  region?: string;
  postalCode: string;
}

const BERLIN: TestAddress = {
  country: 'DE',
  name: 'Max Muster',
  line1: 'Unter den Linden 1',
  city: 'Berlin',
  postalCode: '10117',
};
const CUPERTINO: TestAddress = {
  country: 'US',
  name: 'Grace Hopper',
  line1: '1 Infinite Loop',
  city: 'Cupertino',
  region: 'US-CA',
  postalCode: '95014',
};

/** The address form, by the labels its country gives it (State and ZIP code in the US). */
async function fillAddress(page: Page, address: TestAddress): Promise<void> {
  await page.getByLabel('Country or region').selectOption(address.country);
  await page.getByLabel('Full name', { exact: true }).fill(address.name);
  await page.getByLabel('Address', { exact: true }).fill(address.line1);
  await page.getByLabel('City', { exact: true }).fill(address.city);
  if (address.region) await page.getByLabel('State', { exact: true }).selectOption(address.region);
  await page
    .getByLabel(address.country === 'US' ? 'ZIP code' : 'Postal code', { exact: true })
    .fill(address.postalCode);
}

/** Step 1: contact and address; the next step (shipping, or the review when nothing needs a method) follows. */
async function fillDetails(page: Page, email: string, address = BERLIN): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await fillAddress(page, address);
  await page.getByRole('button', { name: 'Continue to shipping' }).click();
}

const reviewStep = (page: Page) => page.getByRole('heading', { name: 'Review and pay', level: 2 }).waitFor();

/** The review step's discount code. */
async function applyCode(page: Page, code: string): Promise<void> {
  await page.getByLabel('Discount code (optional)').fill(code);
  await page.getByRole('button', { name: 'Apply', exact: true }).click();
}

/** The order the shopper is on (from the order page's address). */
function orderIdOf(page: Page): string {
  const id = /\/shop\/orders\/([0-9a-f-]{36})/.exec(page.url())?.[1];
  assert.ok(id, `an order page: ${page.url()}`);
  return id;
}

async function paidOrder(shop: ShopStore, id: string) {
  const order = await shop.admin.orders.get(id);
  assert.equal(order.status, 'paid');
  return order;
}

describe('buying in the reference shop', () => {
  test('browse → product → cart → address in Germany → a shipping method → review → the hosted payment page → the order page waits until paid', async () => {
    const shop = await openStore(h);
    await seedCatalog(shop);
    await seedZone(shop, { name: 'Europe', areas: [{ country: 'DE' }, { country: 'FR' }] }, [
      { name: 'Standard', kind: 'flat', amount: 495, minDeliveryDays: 3, maxDeliveryDays: 5 },
      { name: 'Express', kind: 'flat', amount: 990, minDeliveryDays: 1, maxDeliveryDays: 2 },
    ]);
    const { context, page, problems } = await newPage(h);

    await page.goto('/shop/');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Shop all' }).click();
    await page.getByRole('link', { name: /Blue mug/ }).click();
    await page.getByRole('heading', { name: 'Blue mug', level: 1 }).waitFor();
    await page.getByLabel('Quantity').selectOption('2');
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.getByRole('link', { name: 'Cart, 2 items' }).waitFor();
    await page.getByRole('link', { name: 'View cart' }).click();
    await page.getByText('$24.00').first().waitFor();
    await page.getByRole('link', { name: 'Check out' }).click();

    // Step 1. The page's own check, by the rules the service checks with: nothing is sent yet.
    await page.getByRole('heading', { name: 'Checkout', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Continue to shipping' }).click();
    await page.getByText('Enter your email address, like name@example.com.').waitFor();
    assert.equal(await page.getByLabel('Email').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Full name', { exact: true }).getAttribute('aria-invalid'), 'true');
    await page.getByText('Full name is required.').waitFor();
    await assertAccessible(page, 'checkout');
    await page.getByLabel('Email').fill('ada@example.com');
    await fillAddress(page, BERLIN);
    // A German address has no state, and its postal code is "Postal code", with the browser's autofill tokens.
    assert.equal(await page.getByLabel('State', { exact: true }).count(), 0);
    assert.equal(
      await page.getByLabel('Postal code', { exact: true }).getAttribute('autocomplete'),
      'postal-code',
    );
    assert.equal(
      await page.getByLabel('Full name', { exact: true }).getAttribute('aria-invalid'),
      null,
      'a corrected field loses its complaint',
    );
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'checkout', 'shop');
    await page.getByRole('button', { name: 'Continue to shipping' }).click();

    // Step 2: the zone's methods with prices and delivery estimates, cheapest first.
    await page.getByRole('heading', { name: 'Shipping', level: 2 }).waitFor();
    const options = page.getByRole('radio');
    assert.deepEqual(
      (await page.locator('.shipping-option').allTextContents()).map((text) =>
        text.replace(/\s+/g, ' ').trim(),
      ),
      ['Standard · 3–5 business days$4.95', 'Express · 1–2 business days$9.90'],
    );
    assert.equal(await options.first().isChecked(), true, 'the cheapest is chosen first');
    await assertAccessible(page, 'shipping step');
    await page.getByRole('radio', { name: /Express/ }).check();
    await screenshot(page, 'checkout-shipping', 'shop');
    await page.getByRole('button', { name: 'Continue to review' }).click();

    // Step 3: the totals the service will charge (the cart's preview), before paying.
    await reviewStep(page);
    const totals = (await page.locator('.totals').textContent()) ?? '';
    assert.match(totals, /Subtotal\$24\.00/);
    assert.match(totals, /Shipping\$9\.90/);
    assert.match(totals, /Total\$33\.90/);
    await page.getByText('10117 Berlin').waitFor();
    await page.getByText('Express · 1–2 business days').waitFor();
    await assertAccessible(page, 'review');
    await screenshot(page, 'review', 'shop');

    // The provider's page: the card never touches the shop.
    await page.getByRole('button', { name: 'Pay $33.90' }).click();
    await page.getByRole('heading', { name: /Sandbox payment/ }).waitFor();
    await page.getByRole('radio', { name: /4242/ }).waitFor();
    await assertAccessible(page, 'hosted payment page');
    await screenshot(page, 'payment', 'shop');
    await page.getByRole('button', { name: /^Pay / }).click();

    // Back in the shop: it waits for the webhook, then says paid.
    await page.waitForURL(/\/shop\/orders\/[0-9a-f-]{36}\?/);
    assert.match(page.url(), /redirect_status=succeeded/);
    await page.getByRole('heading', { name: 'Thank you!', level: 1 }).waitFor({ timeout: 20_000 });
    await page.getByText(/^Order #\d+ is paid\./).waitFor();
    await page.getByRole('link', { name: 'Cart, 0 items' }).waitFor();
    // The storefront's order view masks the address (the page reads only that view).
    await page.getByText('A confirmation is on its way to a•••@example.com.').waitFor();
    await page.getByText('Max M.').waitFor();
    await page.getByText('10117 Berlin').waitFor();
    assert.equal(await page.getByText('Unter den Linden').count(), 0, 'the street is not on the page');
    const order = await paidOrder(shop, orderIdOf(page));
    assert.deepEqual(
      [order.total.amount, order.shipping.amount, order.country, order.email, order.shippingMethod?.name],
      [3390, 990, 'DE', 'ada@example.com', 'Express'],
    );
    assert.equal(order.shippingAddress?.line1, 'Unter den Linden 1');
    assert.equal((await shop.admin.orders.list()).items.length, 1, 'one order');
    await assertAccessible(page, 'paid order');
    await screenshot(page, 'paid', 'shop');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a shopper in the US at 375 px: state and ZIP, a weight-based method, tax by state; a declined card, then another; a card that takes a while ends paid too', async () => {
    const shop = await openStore(h);
    const catalog = await seedCatalog(shop);
    await seedZone(shop, { name: 'Domestic', areas: [{ country: 'US' }] }, [
      {
        name: 'Economy',
        kind: 'weight',
        weightTiers: [
          { upToGrams: 1000, amount: 400 },
          { upToGrams: 5000, amount: 900 },
        ],
        minDeliveryDays: 5,
        maxDeliveryDays: 8,
      },
      { name: 'Express', kind: 'flat', amount: 1500, minDeliveryDays: 1, maxDeliveryDays: 2 },
    ]);
    await shop.admin.request('adminSetTaxRate', { path: { country: 'US' }, body: { taxRateBps: 500 } });
    await shop.admin.request('adminSetTaxRate', { path: { country: 'US-CA' }, body: { taxRateBps: 725 } });
    const { context, page, problems } = await newPage(h, { width: 375, height: 800 });

    await toCheckout(page, catalog.tee.handle);
    await page.getByLabel('Email').fill('bob@example.com');
    await fillAddress(page, { ...CUPERTINO, postalCode: '10118' });
    await page.getByRole('button', { name: 'Continue to shipping' }).click();
    // A New York ZIP code for California: refused at its field, by the same rules the service uses.
    const zip = page.getByLabel('ZIP code', { exact: true });
    await page.locator('#ship-postalCode-problem').waitFor();
    assert.equal(await zip.getAttribute('aria-invalid'), 'true');
    await assertAccessible(page, 'a ZIP code of another state');
    await zip.fill('95014');
    await page.getByRole('button', { name: 'Continue to shipping' }).click();
    await page.getByRole('heading', { name: 'Shipping', level: 2 }).waitFor();
    assert.equal(await page.getByRole('radio', { name: /Economy/ }).isChecked(), true);
    await page.getByRole('button', { name: 'Continue to review' }).click();
    await reviewStep(page);
    // $30.00 + Economy $4.00 + California's 7.25 % of $30.00 ($2.18).
    const totals = (await page.locator('.totals').textContent()) ?? '';
    assert.match(totals, /Shipping\$4\.00/);
    assert.match(totals, /Tax\$2\.18/);
    assert.match(totals, /Total\$36\.18/);
    await assertAccessible(page, 'review at 375 px');
    await page.getByRole('button', { name: 'Pay $36.18' }).click();
    await page.getByRole('radio', { name: /0002/ }).check();
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.getByRole('alert').getByText('Your card was declined. Try another card.').waitFor();
    await assertAccessible(page, 'declined on the hosted page');
    const pending = (await shop.admin.orders.list()).items[0]!;
    assert.equal(pending.status, 'pending', 'a decline pays nothing');
    await page.getByRole('radio', { name: /4242/ }).check();
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.getByRole('heading', { name: 'Thank you!', level: 1 }).waitFor({ timeout: 20_000 });
    const paid = await paidOrder(shop, orderIdOf(page));
    assert.deepEqual(
      [paid.total.amount, paid.tax.amount, paid.shippingMethod?.name, paid.shippingAddress?.region],
      [3618, 218, 'Economy', 'US-CA'],
    );

    // The delayed card, on the next purchase: the details are kept on this browser.
    await toCheckout(page, catalog.mug.handle);
    assert.equal(await page.getByLabel('Email').inputValue(), 'bob@example.com');
    assert.equal(await page.getByLabel('ZIP code', { exact: true }).inputValue(), '95014');
    await page.getByRole('button', { name: 'Continue to shipping' }).click();
    await page.getByRole('button', { name: 'Continue to review' }).click();
    await reviewStep(page);
    // $12.00 + $4.00 + 7.25 % of $12.00 ($0.87).
    await page.getByRole('button', { name: 'Pay $16.87' }).click();
    await page.getByRole('radio', { name: /3220/ }).check();
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.waitForURL(/redirect_status=processing/);
    await page.getByRole('heading', { name: 'Thank you!', level: 1 }).waitFor({ timeout: 30_000 });
    await paidOrder(shop, orderIdOf(page));
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a discount code: an unknown one is refused at its field; a real one shows in the totals; leaving the payment page and paying later', async () => {
    const shop = await openStore(h);
    const catalog = await seedCatalog(shop);
    await shop.admin.request('adminCreateDiscount', { body: { code: 'TENOFF', kind: 'percent', value: 10 } });
    const { context, page, problems } = await newPage(h);

    await toCheckout(page, catalog.tee.handle, 2);
    await fillDetails(page, 'cy@example.com');
    // Nothing here needs a shipping method (the store has no zones): straight to the review.
    await reviewStep(page);
    await applyCode(page, 'NOPE');
    const field = page.getByLabel('Discount code (optional)');
    await page.locator('#checkout-discount-problem').waitFor();
    assert.equal(await field.getAttribute('aria-invalid'), 'true');
    assert.equal(
      await page.evaluate<string | null>('document.activeElement?.id ?? null'),
      'checkout-discount',
      'focus goes to the code',
    );
    await assertAccessible(page, 'checkout with a refused code');
    assert.equal((await shop.admin.orders.list()).items.length, 0, 'no order for a refused code');

    await applyCode(page, 'tenoff');
    await page.getByText('Code TENOFF applied.').waitFor();
    const totals = (await page.locator('.totals').textContent()) ?? '';
    assert.match(totals, /Subtotal\$60\.00/);
    // The code's promotion by its name (a code made through the old discounts API is named by its code).
    assert.match(totals, /TENOFF−\$6\.00/);
    assert.match(totals, /Total\$54\.00/);
    await page.getByRole('button', { name: 'Pay $54.00' }).click();

    // The shopper walks away from the payment page: the order waits, and "Pay now" reopens the
    // same payment (the checkout replayed with its Idempotency-Key: no second order).
    await page.getByRole('link', { name: 'Cancel and return to the shop' }).click();
    await page.waitForURL(/redirect_status=canceled/);
    await page.getByText('The payment was not completed; nothing was charged.').waitFor();
    await page.getByRole('button', { name: 'Pay now' }).click();
    await page.getByRole('button', { name: 'Pay $54.00' }).click();
    await page.getByRole('heading', { name: 'Thank you!', level: 1 }).waitFor({ timeout: 20_000 });
    assert.equal((await shop.admin.orders.list()).items.length, 1, 'one order');
    const order = await paidOrder(shop, orderIdOf(page));
    assert.equal(order.discount.amount, 600);
    assert.equal(order.total.amount, 5400);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('what is left: the picker counts the cart, a stale page is told so, and checkout names the item short of stock', async () => {
    const shop = await openStore(h);
    const catalog = await seedCatalog(shop);
    const { context, page, problems } = await newPage(h);

    // The large mug: 2 left. Both go in the cart; then the page says so and adds no more.
    await page.goto(`/shop/products/${catalog.mug.handle}?variant=${catalog.mug.large}`);
    await page.getByText('Only 2 left', { exact: true }).waitFor();
    const quantity = page.getByLabel('Quantity');
    assert.deepEqual(await quantity.locator('option').allTextContents(), ['1', '2']);
    await quantity.selectOption('2');
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.getByText('Added 2 × Blue mug (Large) to your cart.').waitFor();
    await page.getByText('Only 2 left; you have 2 in your cart.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Add to cart' }).isDisabled(), true);
    assert.equal(await quantity.isDisabled(), true);
    await assertAccessible(page, 'product with all that is left in the cart');

    // The small mug (10 left): the picker offers what the cart does not hold yet...
    await page.getByRole('radio', { name: 'Small' }).check();
    assert.equal(await quantity.locator('option').count(), 10);
    // ...but another device puts 8 in this cart meanwhile: adding 5 more is refused, not sent.
    const cartId = await page.evaluate<string | null>('localStorage.getItem("storefront.cart")');
    assert.ok(cartId);
    await shop.storefront.carts.replace(cartId, {
      items: [
        { variantId: catalog.mug.large, quantity: 2 },
        { variantId: catalog.mug.small, quantity: 8 },
      ],
    });
    await quantity.selectOption('5');
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.getByRole('alert').getByText('Only 10 left; you have 8 in your cart.').waitFor();
    await page.getByText('You have 8 in your cart.', { exact: true }).waitFor();
    assert.equal(await quantity.locator('option').count(), 2, 'the rest: 2');
    assert.deepEqual(
      (await shop.storefront.carts.get(cartId)).items.map((line) => [line.variantLabel, line.quantity]),
      [
        ['Large', 2],
        ['Small', 8],
      ],
      'nothing was added',
    );

    // Someone else checks out one large mug: 1 left. The checkout says which item, and what is left.
    const other = await shop.storefront.carts.create({
      items: [{ variantId: catalog.mug.large, quantity: 1 }],
    });
    await shop.storefront.checkout.create({ cartId: other.id, email: 'eve@example.com' });
    await page.goto('/shop/checkout');
    await fillDetails(page, 'dan@example.com');
    await reviewStep(page);
    await page.getByRole('button', { name: 'Pay $128.00' }).click();
    const refusal = page.getByRole('alert');
    await refusal.getByText('Blue mug (Large): only 1 left, you have 2 in your cart.').waitFor();
    assert.doesNotMatch(
      (await refusal.textContent()) ?? '',
      /Blue mug \(Small\)/,
      'only the line short of stock',
    );
    await refusal.getByRole('link', { name: 'Review your cart' }).waitFor();
    await assertAccessible(page, 'checkout refused for stock');
    assert.equal((await shop.admin.orders.list()).items.length, 1, 'no order for dan');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('leaving the payment page puts the items back in the cart; unchanged, it resumes the same order; changed, a new one', async () => {
    const shop = await openStore(h);
    const catalog = await seedCatalog(shop);
    const { context, page, problems } = await newPage(h);
    const cartLink = (count: number) => page.getByRole('link', { name: `Cart, ${count} items` });

    await toCheckout(page, catalog.tee.handle, 2);
    await fillDetails(page, 'fay@example.com');
    await reviewStep(page);
    await page.getByRole('button', { name: 'Pay $60.00' }).click();
    await page.getByRole('link', { name: 'Cancel and return to the shop' }).click();

    // Back in the shop: the order waits, and the cart holds its items again.
    await page.waitForURL(/redirect_status=canceled/);
    await page.getByText('The payment was not completed; nothing was charged.').waitFor();
    const held = page.getByText(/^Your items are back in your cart\. Order #\d+ is held for you until/);
    const number = (await held.textContent())!.match(/#(\d+)/)![1];
    await cartLink(2).waitFor();
    await page.getByRole('button', { name: 'Pay now' }).waitFor();
    await assertAccessible(page, 'order after leaving the payment page');
    await page.getByRole('link', { name: 'View your cart' }).click();
    await page.getByRole('heading', { name: 'Your cart', level: 1 }).waitFor();
    assert.equal(
      await page.getByRole('status', { name: 'Quantity of Linen tee (One size)' }).textContent(),
      '2',
    );

    // Checked out unchanged, with the same details (kept in the form): the same order, not a second.
    await page.getByRole('link', { name: 'Check out' }).click();
    await page.getByRole('heading', { name: 'Checkout', level: 1 }).waitFor();
    assert.equal(await page.getByLabel('Email').inputValue(), 'fay@example.com');
    await page.getByRole('button', { name: 'Continue to shipping' }).click();
    await reviewStep(page);
    await page.getByRole('button', { name: 'Pay $60.00' }).click();
    await page.getByRole('heading', { name: /Sandbox payment/ }).waitFor();
    assert.equal((await shop.admin.orders.list()).items.length, 1, 'one order');
    await page.getByRole('link', { name: 'Cancel and return to the shop' }).click();
    await page.waitForURL(/redirect_status=canceled/);

    // One more tee is another order.
    await page.getByRole('link', { name: 'View your cart' }).click();
    await page.getByRole('heading', { name: 'Your cart', level: 1 }).waitFor();
    await cartLink(2).waitFor();
    await page.getByRole('button', { name: 'One more Linen tee (One size)' }).click();
    await cartLink(3).waitFor();
    await page.getByRole('link', { name: 'Check out' }).click();
    await page.getByRole('button', { name: 'Continue to shipping' }).click();
    await reviewStep(page);
    await page.getByRole('button', { name: 'Pay $90.00' }).click();
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.getByRole('heading', { name: 'Thank you!', level: 1 }).waitFor({ timeout: 20_000 });
    await cartLink(0).waitFor();
    const orders = (await shop.admin.orders.list()).items;
    assert.deepEqual(
      orders.map((order) => [order.number, order.status, order.total.amount]).sort(),
      [
        [Number(number), 'pending', 6000],
        [Number(number) + 1, 'paid', 9000],
      ],
      'the first order waits to expire; the changed cart was paid',
    );
    assert.deepEqual(problems, []);
    await context.close();
  });
});
