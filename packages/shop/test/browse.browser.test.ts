/**
 * The reference shop in Chromium, before payment: the home region and menus, a collection a page
 * at a time, a product's pictures, variants and prices, content rendered as text, deep links,
 * product URLs by handle (an old id link and an earlier handle end at the current handle), the
 * cart's quantities, and two tabs editing one cart (the second tab's stale write is refused with 412,
 * reloaded, and the shopper told). Accessible on every page, at desktop and phone widths.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startedForFile } from '../../client/test/server.test-support.ts';
import { assertAccessible, newPage, screenshot, until } from '../../console/test/browser.test-support.ts';
import {
  drawPicture,
  firstContentfulPaint,
  openStore,
  seedCatalog,
  startShop,
  uploadMedia,
} from './shop.test-support.ts';

const h = startedForFile(startShop);

describe('the reference shop: browsing and the cart', () => {
  test('home, a collection with load more, a product with variants, content as text, deep links', async () => {
    const shop = await openStore(h);
    const catalog = await seedCatalog(shop);
    const { context, page, problems } = await newPage(h);

    await page.goto('/shop/');
    const heading = page.getByRole('heading', { name: 'Made by hand', level: 1 });
    await heading.waitFor();
    const fcp = await firstContentfulPaint(page);
    process.stdout.write(`# shop home: first contentful paint ${Math.round(fcp)} ms\n`);
    assert.ok(fcp > 0);
    // Block text is text: the markup in it is shown, never parsed.
    await page.getByText('Small batches, <i>no</i> shortcuts.').waitFor();
    assert.equal(await page.locator('.sf-region i').count(), 0);
    assert.equal(
      await page.getByRole('link', { name: 'Shop all' }).first().getAttribute('href'),
      '/shop/collections/shop-all',
    );
    const main = page.getByRole('navigation', { name: 'Main' });
    await main.getByRole('link', { name: 'About us' }).waitFor();
    await page.getByRole('navigation', { name: 'Footer' }).getByRole('link', { name: 'About' }).waitFor();
    await page.getByRole('heading', { name: 'Latest products' }).waitFor();
    assert.equal(await page.locator('.product-grid li').count(), 8, 'the newest eight');
    await assertAccessible(page, 'home');
    await screenshot(page, 'home', 'shop');

    // A collection, twelve at a time.
    await main.getByRole('link', { name: 'Shop all' }).click();
    await page.getByRole('heading', { name: 'Shop all', level: 1 }).waitFor();
    assert.match(page.url(), /\/shop\/collections\/shop-all$/);
    await page.getByText('Showing 12 products').waitFor();
    // Cards link to the product's handle.
    assert.equal(
      await page.getByRole('link', { name: /Linen tee/ }).getAttribute('href'),
      `/shop/products/${catalog.tee.handle}`,
    );
    await assertAccessible(page, 'collection');
    await screenshot(page, 'collection', 'shop');
    await page.getByRole('button', { name: 'Load more' }).click();
    await page.getByText('Showing 14 products').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Load more' }).count(), 0, 'the last page');

    // The mug gets two pictures (decision `media-uploads`; \`images\` is the API's, in the client's types once regenerated).
    const front = await uploadMedia(h, shop, await drawPicture(1200, 900, 215));
    const side = await uploadMedia(h, shop, await drawPicture(1200, 900, 185));
    await shop.admin.products.update(catalog.mug.id, {
      images: [
        { mediaId: front.id, alt: 'The blue mug from the front' },
        { mediaId: side.id, alt: 'The blue mug from the side' },
      ],
    });

    // The product: its pictures, variants, the sale price against compare-at, availability.
    await page.getByRole('link', { name: /Blue mug/ }).click();
    await page.getByRole('heading', { name: 'Blue mug', level: 1 }).waitFor();
    await page.getByRole('img', { name: 'The blue mug from the front' }).waitFor();
    await page.getByRole('button', { name: 'Image 2 of 2: The blue mug from the side' }).waitFor();
    assert.match(page.url(), /\/shop\/products\/blue-mug$/);
    const price = page.locator('.product-price');
    assert.match((await price.textContent()) ?? '', /Sale price \$12\.00Regular price \$15\.00/);
    await page.getByText('In stock').waitFor();
    await page.getByText('Dishwasher safe.').waitFor();
    await page.getByRole('radio', { name: 'Large' }).check();
    await page.getByText('Only 2 left').waitFor();
    assert.match((await price.textContent()) ?? '', /^\$16\.00$/);
    assert.match(page.url(), new RegExp(`/shop/products/blue-mug\\?variant=${catalog.mug.large}$`));
    assert.equal(await page.getByLabel('Quantity').locator('option').count(), 2, 'no more than are left');
    await assertAccessible(page, 'product');
    await page.getByRole('radio', { name: 'Small' }).check();
    await until(
      () =>
        page
          .locator('.gallery-main img')
          .evaluate(
            (img: { complete: boolean; naturalWidth: number }) => img.complete && img.naturalWidth > 0,
          ),
      'the mug’s picture',
    );
    await screenshot(page, 'product', 'shop');

    // A content page: its body as paragraphs of text.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'About us' }).click();
    await page.getByRole('heading', { name: 'About us', level: 1 }).waitFor();
    await page.getByText('And socks, <b>lots</b> of socks.').waitFor();
    assert.equal(await page.locator('.content-page p').count(), 2);
    assert.equal(await page.locator('.content-page b').count(), 0);

    // Deep links load directly; an unknown one says so; back and forward work.
    await page.goto(`/shop/products/${catalog.tee.handle}`);
    await page.getByRole('heading', { name: 'Linen tee', level: 1 }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { name: 'About us', level: 1 }).waitFor();
    await page.goto('/shop/products/00000000-0000-4000-8000-000000000000');
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    await page.goto('/shop/products/no-such-thing');
    await page.getByText('This product does not exist').waitFor();
    await page.goto('/shop/collections/no-such-thing');
    await page.getByText('This collection does not exist').waitFor();
    await page.goto('/shop/somewhere/else');
    await page.getByRole('heading', { name: 'Not found' }).waitFor();

    assert.deepEqual(problems, []);
    await context.close();
  });

  test('cart: add, change, remove; two tabs on one cart: a stale change is refused (412), reloaded and explained', async () => {
    const shop = await openStore(h);
    const catalog = await seedCatalog(shop);
    const { context, page: first, problems } = await newPage(h, { width: 375, height: 800 });

    await first.goto(`/shop/products/${catalog.mug.handle}`);
    await first.getByLabel('Quantity').selectOption('2');
    await first.getByRole('button', { name: 'Add to cart' }).click();
    await first.getByText('Added 2 × Blue mug (Small) to your cart.').waitFor();
    await first.getByRole('link', { name: 'Cart, 2 items' }).waitFor();
    await first.goto(`/shop/products/${catalog.tee.handle}`);
    await first.getByRole('button', { name: 'Add to cart' }).click();
    await first.getByRole('link', { name: 'Cart, 3 items' }).waitFor();

    await first.getByRole('link', { name: 'View cart' }).click();
    await first.getByRole('heading', { name: 'Your cart', level: 1 }).waitFor();
    const mugQuantity = (page: typeof first) =>
      page.getByRole('status', { name: 'Quantity of Blue mug (Small)' });
    assert.equal(await mugQuantity(first).textContent(), '2');
    await first.getByText('$54.00').first().waitFor();
    await assertAccessible(first, 'cart at 375 px');
    await screenshot(first, 'cart', 'shop');

    // A second tab of the same shopper: the same cart.
    const second = await context.newPage();
    await second.goto('/shop/cart');
    await second.getByRole('heading', { name: 'Your cart', level: 1 }).waitFor();
    assert.equal(await mugQuantity(second).textContent(), '2');

    // The first tab adds a mug; the second, still showing two, adds one too: refused, not overwritten.
    await first.getByRole('button', { name: 'One more Blue mug (Small)' }).click();
    await first.getByRole('link', { name: 'Cart, 4 items' }).waitFor();
    assert.equal(await mugQuantity(first).textContent(), '3');
    await second.getByRole('button', { name: 'One more Blue mug (Small)' }).click();
    await second
      .getByRole('alert')
      .getByText('This cart was changed in another tab or window. It now shows what it holds.')
      .waitFor();
    assert.equal(await mugQuantity(second).textContent(), '3', 'the other tab’s change, reloaded');
    const cartId = await second.evaluate<string | null>('localStorage.getItem("storefront.cart")');
    assert.ok(cartId);
    const stored = await shop.storefront.carts.get(cartId);
    assert.deepEqual(
      stored.items.map((line) => [line.variantLabel, line.quantity]),
      [
        ['Small', 3],
        ['One size', 1],
      ],
    );
    // Now it knows the cart: the same click works.
    await second.getByRole('button', { name: 'One more Blue mug (Small)' }).click();
    // (A locator, not waitForFunction: the shop's CSP allows no eval, which a string predicate needs.)
    await mugQuantity(second).filter({ hasText: /^4$/ }).waitFor();

    // Remove and one less.
    await second.getByRole('button', { name: 'Remove Linen tee (One size)' }).click();
    await second.getByRole('button', { name: 'Remove Linen tee (One size)' }).waitFor({ state: 'detached' });
    await second.getByRole('button', { name: 'One less Blue mug (Small)' }).click();
    await second.getByRole('link', { name: 'Cart, 3 items' }).waitFor();
    assert.deepEqual(
      (await shop.storefront.carts.get(cartId)).items.map((line) => [line.variantLabel, line.quantity]),
      [['Small', 3]],
    );
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('product URLs by handle: a handle link, an old id link and an earlier handle end at the current handle; a card on sale; the SEO title and description', async () => {
    const shop = await openStore(h);
    const catalog = await seedCatalog(shop);
    // The merchant renames the mug's handle (blue-mug stays an earlier handle) and sets its SEO.
    const seo = {
      title: 'Blue stoneware mug, glazed by hand',
      description: 'A 350 ml stoneware mug, glazed by hand in small batches.',
    };
    const renamed = await shop.admin.products.update(catalog.mug.id, { handle: 'stoneware-mug', seo });
    assert.equal(renamed.handle, 'stoneware-mug');
    const { context, page, problems } = await newPage(h);

    // Cards: the handle's URL; the mug's card is on sale (its small size, $12.00 from $15.00).
    await page.goto('/shop/collections/shop-all');
    const shopDescription = await page.locator('meta[name="description"]').getAttribute('content');
    const mugCard = page.getByRole('link', { name: /Blue mug/ });
    await mugCard.waitFor();
    assert.equal(await mugCard.getAttribute('href'), '/shop/products/stoneware-mug');
    assert.equal(await mugCard.locator('s.price-was').textContent(), 'Regular price $15.00');
    assert.match(
      (await mugCard.locator('.product-card-price').textContent()) ?? '',
      /^Sale price \$12\.00Regular price \$15\.00$/,
    );
    const teeCard = page.getByRole('link', { name: /Linen tee/ });
    assert.equal(await teeCard.locator('s').count(), 0, 'a card not on sale shows its price alone');
    assert.equal(await teeCard.locator('.product-card-price').textContent(), '$30.00');
    await assertAccessible(page, 'collection with a card on sale');

    // Opened from its card: the document's title and description are the product's SEO.
    await mugCard.click();
    await page.getByRole('heading', { name: 'Blue mug', level: 1 }).waitFor();
    assert.match(page.url(), /\/shop\/products\/stoneware-mug$/);
    assert.equal(await page.title(), seo.title);
    assert.equal(await page.locator('meta[name="description"]').getAttribute('content'), seo.description);
    await assertAccessible(page, 'product by handle');

    // A product without SEO: its title, and no description of the shop's own standing in for it.
    await page.goto(`/shop/products/${catalog.tee.handle}`);
    await page.getByRole('heading', { name: 'Linen tee', level: 1 }).waitFor();
    assert.equal(await page.title(), 'Linen tee');
    assert.equal(await page.locator('meta[name="description"]').count(), 0);
    // Leaving the product page puts the shop's description back.
    await page.getByRole('link', { name: 'Shop all' }).first().click();
    await page.getByRole('heading', { name: 'Shop all', level: 1 }).waitFor();
    assert.equal(await page.locator('meta[name="description"]').getAttribute('content'), shopDescription);

    // The handle's URL opened directly.
    await page.goto('/shop/products/stoneware-mug');
    await page.getByRole('heading', { name: 'Blue mug', level: 1 }).waitFor();
    assert.equal(await page.title(), seo.title);

    // An old link by id ends at the handle's URL, the chosen option kept.
    await page.goto(`/shop/products/${catalog.mug.id}?variant=${catalog.mug.large}`);
    await page.waitForURL(new RegExp(`/shop/products/stoneware-mug\\?variant=${catalog.mug.large}$`));
    await page.getByRole('heading', { name: 'Blue mug', level: 1 }).waitFor();
    assert.equal(await page.getByRole('radio', { name: 'Large' }).isChecked(), true);
    await page.getByText('Only 2 left').waitFor();

    // An earlier handle ends at the current one (the API's 301); back does not return to it.
    await page.goto('/shop/');
    await page.getByRole('heading', { name: 'Latest products' }).waitFor();
    await page.goto('/shop/products/blue-mug');
    await page.waitForURL(/\/shop\/products\/stoneware-mug$/);
    await page.getByRole('heading', { name: 'Blue mug', level: 1 }).waitFor();
    assert.equal(await page.title(), seo.title);
    await page.goBack();
    await page.getByRole('heading', { name: 'Latest products' }).waitFor();

    // A cart line (lines name the product by id) opens the product at its handle's URL.
    await page.goto('/shop/products/stoneware-mug');
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.getByRole('link', { name: 'View cart' }).click();
    await page.getByRole('heading', { name: 'Your cart', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Blue mug' }).click();
    await page.waitForURL(new RegExp(`/shop/products/stoneware-mug\\?variant=${catalog.mug.small}$`));
    await page.getByRole('heading', { name: 'Blue mug', level: 1 }).waitFor();

    // A handle no product has had.
    await page.goto('/shop/products/green-mug');
    await page.getByText('This product does not exist').waitFor();
    await assertAccessible(page, 'unknown product');

    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a product with options: a control per option, an unavailable combination, a sold-out one, a deep link', async () => {
    const shop = await openStore(h);
    const created = await shop.admin.products.create({
      title: 'Canvas jacket',
      status: 'active',
      options: [
        { name: 'Size', values: ['S', 'M', 'L'] },
        { name: 'Colour', values: ['Blue', 'Red'] },
      ],
      variants: [
        { options: { Size: 'S', Colour: 'Blue' }, priceAmount: 2500, onHand: 3 },
        { options: { Size: 'S', Colour: 'Red' }, priceAmount: 2600, onHand: 8 },
        { options: { Size: 'M', Colour: 'Blue' }, priceAmount: 2700, onHand: 0 },
        { options: { Size: 'M', Colour: 'Red' }, priceAmount: 2800, onHand: 9 },
        { options: { Size: 'L', Colour: 'Blue' }, priceAmount: 3000, onHand: 4 },
        // No L in Red.
      ],
    });
    const id = (size: string, colour: string) => {
      const found = created.variants.find((v) => v.options.Size === size && v.options.Colour === colour);
      assert.ok(found, `${size} / ${colour}`);
      return found.id;
    };
    const { context, page, problems } = await newPage(h);
    const url = (variantId: string) => new RegExp(`/shop/products/${created.handle}\\?variant=${variantId}$`);
    const size = page.getByRole('group', { name: /^Size: / });
    const colour = page.getByRole('group', { name: /^Colour: / });
    const price = page.locator('.product-price');
    const availability = page.locator('.availability');

    await page.goto(`/shop/products/${created.handle}`);
    await page.getByRole('heading', { name: 'Canvas jacket', level: 1 }).waitFor();
    // One control per option, the legend naming the chosen value; no single variant picker.
    await page.getByRole('group', { name: 'Size: S' }).waitFor();
    await page.getByRole('group', { name: 'Colour: Blue' }).waitFor();
    assert.equal(await page.getByRole('group', { name: 'Option' }).count(), 0);
    assert.equal(await size.getByRole('radio', { name: /^S$/ }).isChecked(), true);
    assert.equal(await colour.getByRole('radio', { name: /^Blue$/ }).isChecked(), true);
    assert.equal(await price.textContent(), '$25.00');
    assert.equal(await availability.textContent(), 'Only 3 left');
    await assertAccessible(page, 'product with options');

    // Red: the price, availability and address follow; L has no Red variant.
    await colour.getByRole('radio', { name: /^Red$/ }).check();
    await page.waitForURL(url(id('S', 'Red')));
    await page.getByRole('group', { name: 'Colour: Red' }).waitFor();
    assert.equal(await price.textContent(), '$26.00');
    assert.equal(await availability.textContent(), 'In stock');
    await size.getByRole('radio', { name: 'L (unavailable)' }).waitFor();
    await size.getByRole('radio', { name: /^M$/ }).waitFor();

    // M in Red, then Blue: M in Blue is sold out, still chosen, and cannot be added.
    await size.getByRole('radio', { name: /^M$/ }).check();
    await page.waitForURL(url(id('M', 'Red')));
    assert.equal(await price.textContent(), '$28.00');
    const soldOutBlue = colour.getByRole('radio', { name: 'Blue (sold out)' });
    await soldOutBlue.waitFor();
    await soldOutBlue.check();
    await page.waitForURL(url(id('M', 'Blue')));
    await page.getByRole('group', { name: 'Size: M' }).waitFor();
    await page.getByRole('group', { name: 'Colour: Blue' }).waitFor();
    assert.equal(await availability.textContent(), 'Sold out');
    assert.equal(await price.textContent(), '$27.00');
    assert.equal(await page.getByRole('button', { name: 'Sold out' }).isDisabled(), true);
    await assertAccessible(page, 'product with options, sold out');

    // A direct link to L in Blue chooses both values; Red has no L.
    await page.goto(`/shop/products/${created.handle}?variant=${id('L', 'Blue')}`);
    await page.getByRole('group', { name: 'Size: L' }).waitFor();
    await page.getByRole('group', { name: 'Colour: Blue' }).waitFor();
    assert.equal(await size.getByRole('radio', { name: /^L$/ }).isChecked(), true);
    assert.equal(await colour.getByRole('radio', { name: /^Blue$/ }).isChecked(), true);
    assert.equal(await price.textContent(), '$30.00');
    assert.equal(await availability.textContent(), 'Only 4 left');
    await assertAccessible(page, 'product with options by a direct link');

    // An unavailable value still leads to a variant that has it.
    await colour.getByRole('radio', { name: 'Red (unavailable)' }).check();
    await page.waitForURL(url(id('S', 'Red')));
    await page.getByRole('group', { name: 'Size: S' }).waitFor();
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.getByText('Added 1 × Canvas jacket (S / Red) to your cart.').waitFor();

    assert.deepEqual(problems, []);
    await context.close();
  });

  test('without a publishable key the shop says how to set one', async () => {
    h.useKey(null);
    const { context, page, problems } = await newPage(h);
    await page.goto('/shop/');
    await page.getByRole('heading', { name: 'This shop has no publishable key' }).waitFor();
    await page.getByText('SHOP_PUBLISHABLE_KEY').first().waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });
});
