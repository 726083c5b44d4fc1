/**
 * Buying in the reference shop, in Chromium: browse → product → add → cart → checkout → review →
 * the sandbox provider's hosted payment page → back to the order page, which waits until the
 * order is `paid`; a declined card, then another card; a discount code, refused and then applied.
 * What the shopper sees is checked on the page; what happened, through the APIs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible, newPage, screenshot } from '../../console/test/browser.test-support.ts';
import { openStore, seedCatalog, startShop, type ShopHarness, type ShopStore } from './shop.test-support.ts';

let h: ShopHarness;
before(async () => {
  h = await startShop();
});
after(() => h.close());

/** Adds the small mug to the cart from its page and opens the checkout. */
async function toCheckout(page: Page, productId: string, quantity = 1): Promise<void> {
  await page.goto(`/shop/products/${productId}`);
  await page.getByLabel('Quantity').selectOption(String(quantity));
  await page.getByRole('button', { name: 'Add to cart' }).click();
  await page.getByRole('link', { name: 'View cart' }).click();
  await page.getByRole('link', { name: 'Check out' }).click();
  await page.getByRole('heading', { name: 'Checkout', level: 1 }).waitFor();
}

async function fillDetails(page: Page, email: string, discountCode = ''): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Country').selectOption('DE');
  await page.getByLabel('Discount code (optional)').fill(discountCode);
  await page.getByRole('button', { name: 'Continue to payment' }).click();
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
  test('browse → product → cart → checkout → the hosted payment page → the order page waits until paid', async () => {
    const shop = await openStore(h);
    await seedCatalog(shop);
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

    await page.getByRole('heading', { name: 'Checkout', level: 1 }).waitFor();
    // The page's own check: nothing is sent without an email address.
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.getByText('Enter your email address, like name@example.com.').waitFor();
    assert.equal(await page.getByLabel('Email').getAttribute('aria-invalid'), 'true');
    await assertAccessible(page, 'checkout');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Country').selectOption('DE');
    await screenshot(page, 'checkout', 'shop');
    await page.getByRole('button', { name: 'Continue to payment' }).click();

    // Review: the order the service priced, held for a while.
    await page.getByRole('heading', { name: 'Review and pay', level: 1 }).waitFor();
    const totals = page.locator('.totals');
    assert.match((await totals.textContent()) ?? '', /Subtotal\$24\.00/);
    assert.match((await totals.textContent()) ?? '', /Total\$24\.00/);
    await page.getByRole('link', { name: 'Cart, 0 items' }).waitFor();
    // A reload replays the same checkout (same Idempotency-Key): the same order, not a second one.
    const orderNumber = (await page.getByText(/^Order #\d+ for ada@example\.com/).textContent())!.match(
      /#(\d+)/,
    )![1];
    await page.reload();
    await page.getByText(`Order #${orderNumber} for ada@example.com`, { exact: false }).waitFor();
    assert.equal((await shop.admin.orders.list()).items.length, 1, 'one order');
    await assertAccessible(page, 'review');
    await screenshot(page, 'review', 'shop');

    // The provider's page: the card never touches the shop.
    await page.getByRole('button', { name: 'Pay $24.00' }).click();
    await page.getByRole('heading', { name: /Sandbox payment/ }).waitFor();
    await page.getByRole('radio', { name: /4242/ }).waitFor();
    await assertAccessible(page, 'hosted payment page');
    await screenshot(page, 'payment', 'shop');
    await page.getByRole('button', { name: /^Pay / }).click();

    // Back in the shop: it waits for the webhook, then says paid.
    await page.waitForURL(/\/shop\/orders\/[0-9a-f-]{36}\?/);
    assert.match(page.url(), /redirect_status=succeeded/);
    await page.getByRole('heading', { name: 'Thank you!', level: 1 }).waitFor({ timeout: 20_000 });
    await page.getByText(`Order #${orderNumber} is paid.`).waitFor();
    // The storefront's order view masks the address (the page reads only that view).
    await page.getByText('A confirmation is on its way to a•••@example.com.').waitFor();
    const order = await paidOrder(shop, orderIdOf(page));
    assert.equal(order.total.amount, 2400);
    assert.equal(order.country, 'DE');
    assert.equal(order.email, 'ada@example.com');
    await assertAccessible(page, 'paid order');
    await screenshot(page, 'paid', 'shop');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a declined card: the provider says so, another card pays; a card that takes a while ends paid too', async () => {
    const shop = await openStore(h);
    const catalog = await seedCatalog(shop);
    const { context, page, problems } = await newPage(h, { width: 375, height: 800 });

    await toCheckout(page, catalog.tee.id);
    await fillDetails(page, 'bob@example.com');
    await page.getByRole('button', { name: 'Pay $30.00' }).click();
    await page.getByRole('radio', { name: /0002/ }).check();
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.getByRole('alert').getByText('Your card was declined. Try another card.').waitFor();
    await assertAccessible(page, 'declined on the hosted page');
    const pending = (await shop.admin.orders.list()).items[0]!;
    assert.equal(pending.status, 'pending', 'a decline pays nothing');
    await page.getByRole('radio', { name: /4242/ }).check();
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.getByRole('heading', { name: 'Thank you!', level: 1 }).waitFor({ timeout: 20_000 });
    await paidOrder(shop, orderIdOf(page));

    // The delayed card: back at once with `processing`; the page keeps looking until paid.
    await toCheckout(page, catalog.mug.id);
    await fillDetails(page, 'bob@example.com');
    await page.getByRole('button', { name: 'Pay $12.00' }).click();
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

    await toCheckout(page, catalog.tee.id, 2);
    await fillDetails(page, 'cy@example.com', 'NOPE');
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

    await field.fill('tenoff');
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.getByRole('heading', { name: 'Review and pay', level: 1 }).waitFor();
    const totals = (await page.locator('.totals').textContent()) ?? '';
    assert.match(totals, /Subtotal\$60\.00/);
    assert.match(totals, /Discount \(TENOFF\)−\$6\.00/);
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
    await page.goto(`/shop/products/${catalog.mug.id}?variant=${catalog.mug.large}`);
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

    await toCheckout(page, catalog.tee.id, 2);
    await fillDetails(page, 'fay@example.com');
    await page.getByRole('heading', { name: 'Review and pay', level: 1 }).waitFor();
    const number = (await page.getByText(/^Order #\d+ for fay@example\.com/).textContent())!.match(
      /#(\d+)/,
    )![1];
    await page.getByRole('button', { name: 'Pay $60.00' }).click();
    await page.getByRole('link', { name: 'Cancel and return to the shop' }).click();

    // Back in the shop: the order waits, and the cart holds its items again.
    await page.waitForURL(/redirect_status=canceled/);
    await page.getByText('The payment was not completed; nothing was charged.').waitFor();
    await page
      .getByText(`Your items are back in your cart. Order #${number} is held for you until`)
      .waitFor();
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
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.getByText(`Order #${number} for fay@example.com`, { exact: false }).waitFor();
    assert.equal((await shop.admin.orders.list()).items.length, 1, 'one order');

    // "Return to cart" from the review: the items again; one more tee is another order.
    await page.getByRole('button', { name: 'Return to cart' }).click();
    await page.getByRole('heading', { name: 'Your cart', level: 1 }).waitFor();
    await cartLink(2).waitFor();
    await page.getByRole('button', { name: 'One more Linen tee (One size)' }).click();
    await cartLink(3).waitFor();
    await page.getByRole('link', { name: 'Check out' }).click();
    await page.getByRole('button', { name: 'Continue to payment' }).click();
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
