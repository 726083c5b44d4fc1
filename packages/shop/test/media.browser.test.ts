/**
 * The shop's pictures (decision `media-uploads`) in Chromium: a product with two uploaded images (made by sharp, sent
 * through the Admin API): the main picture's `srcset` over the API's widths up to the upload's own,
 * eager and first in line, its `width` and `height` from the API; lazy thumbnails that switch it; a
 * variant's picture shown when it is chosen; the copy the browser picked; the cumulative layout
 * shift of the page while the pictures arrive late (measured and printed); the cards' `srcset`,
 * lazy past the first row. Accessible (axe-core).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { startedForFile } from '../../client/test/server.test-support.ts';
import { assertAccessible, newPage, until } from '../../console/test/browser.test-support.ts';
import { drawPicture, openStore, startShop, uploadMedia, type UploadedMedia } from './shop.test-support.ts';

const h = startedForFile(startShop);

/** The parts of an `<img>` the test reads in the page (its types have no DOM). */
interface Img {
  complete: boolean;
  naturalWidth: number;
  currentSrc: string;
  parentElement: Img | null;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { width: number; height: number };
}

/** The `srcset` the shop gives an upload: the API's widths below its own, and the upload at its width. */
function expectedSrcSet(media: UploadedMedia): string {
  const widths = [160, 320, 640, 960, 1280, 1920].filter((w) => w < media.width);
  return [...widths.map((w) => `${media.url}?w=${w} ${w}w`), `${media.url} ${media.width}w`].join(', ');
}

/** The product page's main picture, once the browser has it: its attributes and what it chose. */
async function mainPicture(page: Page) {
  const img = page.locator('.gallery-main img');
  await until(
    () => img.evaluate((el: Img) => el.complete && el.naturalWidth > 0 && el.currentSrc !== ''),
    'the main picture to load',
  );
  return img.evaluate((el: Img) => ({
    srcset: el.getAttribute('srcset'),
    sizes: el.getAttribute('sizes'),
    width: el.getAttribute('width'),
    height: el.getAttribute('height'),
    loading: el.getAttribute('loading'),
    fetchpriority: el.getAttribute('fetchpriority'),
    alt: el.getAttribute('alt'),
    currentSrc: el.currentSrc,
    shownWidth: el.getBoundingClientRect().width,
  }));
}

/** The width of the copy an `<img>` shows (`?w=`), or null for the upload itself. */
const chosenWidth = (currentSrc: string) => {
  const match = /[?&]w=(\d+)$/.exec(currentSrc);
  return match ? Number(match[1]) : null;
};

/**
 * The cumulative layout shift of the page so far: the sum of every `layout-shift` entry not caused
 * by input (buffered: from the page's start), with what moved, for the message.
 */
function cumulativeLayoutShift(page: Page): Promise<{ cls: number; shifts: string[] }> {
  return page.evaluate<{ cls: number; shifts: string[] }>(
    `new Promise((resolve) => {
      let cls = 0;
      const shifts = [];
      const observer = new PerformanceObserver(() => undefined);
      observer.observe({ type: 'layout-shift', buffered: true });
      // The buffered entries are in the observer's buffer as soon as it observes.
      for (const entry of observer.takeRecords()) {
        if (entry.hadRecentInput) continue;
        cls += entry.value;
        const moved = entry.sources.map(({ node }) =>
          node && node.nodeType === 1 ? node.tagName.toLowerCase() + '.' + node.className : String(node && node.nodeName));
        shifts.push(entry.value.toFixed(4) + ' at ' + Math.round(entry.startTime) + ' ms: ' + moved.join(', '));
      }
      observer.disconnect();
      resolve({ cls, shifts });
    })`,
  );
}

describe('the reference shop: pictures', () => {
  test('a gallery: srcset, eager then lazy, reserved size, thumbnails, a variant’s picture; no layout shift while pictures arrive late; cards', async () => {
    const shop = await openStore(h);
    const front = await uploadMedia(h, shop, await drawPicture(1200, 800, 25));
    const back = await uploadMedia(h, shop, await drawPicture(900, 1200, 210));
    assert.deepEqual([front.width, front.height, back.width, back.height], [1200, 800, 900, 1200]);

    // Seven products showing the front picture, then the jacket with both (the newest, first on the home).
    for (let i = 1; i <= 7; i++) {
      await shop.admin.products.create({
        title: `Print no. ${i}`,
        status: 'active',
        images: [{ mediaId: front.id }],
        variants: [{ label: 'One size', priceAmount: 1000 + i, onHand: 5 }],
      });
    }
    const jacket = (await shop.admin.products.create({
      title: 'Canvas jacket',
      status: 'active',
      options: [{ name: 'Colour', values: ['Orange', 'Blue', 'Natural'] }],
      images: [{ mediaId: front.id, alt: 'The orange jacket from the front' }, { mediaId: back.id }],
      variants: [
        { options: { Colour: 'Orange' }, priceAmount: 9000, onHand: 3, imageId: front.id },
        { options: { Colour: 'Blue' }, priceAmount: 9000, onHand: 3, imageId: back.id },
        { options: { Colour: 'Natural' }, priceAmount: 8500, onHand: 3 },
      ],
    })) as Awaited<ReturnType<typeof shop.admin.products.create>> & {
      images: { id: string; alt: string | null }[];
      variants: { id: string; options: Record<string, string>; imageId: string | null }[];
    };
    assert.deepEqual(
      jacket.images.map((image) => [image.id, image.alt]),
      [
        [front.id, 'The orange jacket from the front'],
        [back.id, null],
      ],
    );
    const variantOf = (colour: string) => jacket.variants.find((v) => v.options.Colour === colour)!.id;

    // Pictures that arrive late (every /media answer held until the page without them is drawn)
    // take the space kept for them: beside the details on a wide screen, above them on a phone.
    for (const viewport of [
      { width: 375, height: 800 },
      { width: 1280, height: 860 },
    ]) {
      const { context, page, problems } = await newPage(h, viewport);
      const held: string[] = [];
      let release!: () => void;
      const drawn = new Promise<void>((resolve) => (release = resolve));
      await page.route(/\/media\//, async (route) => {
        held.push(route.request().url());
        await drawn;
        await route.continue();
      });
      await page.goto(`/shop/products/${jacket.handle}`);
      await page.getByRole('heading', { name: 'Canvas jacket', level: 1 }).waitFor();
      await page.evaluate(
        'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))',
      );
      release();
      await mainPicture(page);
      await until(
        () =>
          page
            .locator('.gallery-thumb img')
            .evaluateAll((els: Img[]) => els.every((el) => el.complete && el.naturalWidth > 0)),
        'the thumbnails to load',
      );
      assert.ok(held.length >= 3, `the pictures went through the delay: ${held.join(' ')}`);
      const { cls, shifts } = await cumulativeLayoutShift(page);
      console.log(
        `# shop product page at ${viewport.width} px: cumulative layout shift ${cls.toFixed(4)} (pictures held until the page was drawn)${shifts.length > 0 ? `; ${shifts.join('; ')}` : ''}`,
      );
      assert.ok(cls < 0.01, `CLS ${cls} at ${viewport.width} px: ${shifts.join('; ')}`);
      assert.deepEqual(problems, []);
      await context.close();
    }

    const { context, page, problems } = await newPage(h);
    await page.goto(`/shop/products/${jacket.handle}`);
    await page.getByRole('heading', { name: 'Canvas jacket', level: 1 }).waitFor();
    const main = await mainPicture(page);
    const thumbs = page.locator('.gallery-thumb img');
    await until(
      () => thumbs.evaluateAll((els: Img[]) => els.every((el) => el.complete && el.naturalWidth > 0)),
      'the thumbnails to load',
    );

    // The main picture: every width up to the upload's, and the upload; its size; first in line.
    assert.equal(main.srcset, expectedSrcSet(front));
    assert.equal(
      main.srcset,
      `${front.url}?w=160 160w, ${front.url}?w=320 320w, ${front.url}?w=640 640w, ${front.url}?w=960 960w, ${front.url} 1200w`,
    );
    assert.equal(
      main.sizes,
      '(min-width: 72rem) 34rem, (min-width: 48rem) calc(50vw - 2rem), calc(100vw - 2rem)',
    );
    assert.deepEqual([main.width, main.height], ['1200', '800']);
    assert.equal(main.loading, 'eager');
    assert.equal(main.fetchpriority, 'high');
    assert.equal(main.alt, 'The orange jacket from the front');
    // At 1280 px the column is 34rem (544 px): the browser took the 640 px copy, not the upload.
    assert.equal(Math.round(main.shownWidth), 544);
    assert.match(main.currentSrc, /\?w=\d+$/);
    assert.equal(chosenWidth(main.currentSrc), 640, main.currentSrc);

    // Thumbnails: buttons named by position (and alt text), lazy, the 160 px copy.
    const first = page.getByRole('button', { name: 'Image 1 of 2: The orange jacket from the front' });
    const second = page.getByRole('button', { name: 'Image 2 of 2', exact: true });
    assert.equal(await first.getAttribute('aria-pressed'), 'true');
    assert.equal(await second.getAttribute('aria-pressed'), 'false');
    const thumbAttributes = await thumbs.evaluateAll((els: Img[]) =>
      els.map((el) => ({
        loading: el.getAttribute('loading'),
        decoding: el.getAttribute('decoding'),
        width: el.getAttribute('width'),
        height: el.getAttribute('height'),
        srcset: el.getAttribute('srcset'),
        currentSrc: el.currentSrc,
      })),
    );
    assert.deepEqual(
      thumbAttributes.map(({ loading, decoding, width, height, srcset }) => ({
        loading,
        decoding,
        width,
        height,
        srcset,
      })),
      [
        { loading: 'lazy', decoding: 'async', width: '1200', height: '800', srcset: expectedSrcSet(front) },
        { loading: 'lazy', decoding: 'async', width: '900', height: '1200', srcset: expectedSrcSet(back) },
      ],
    );
    for (const { currentSrc } of thumbAttributes) assert.equal(chosenWidth(currentSrc), 160, currentSrc);
    await assertAccessible(page, 'product with pictures');

    // The second thumbnail shows the back: its own size, its srcset (up to its 900 px), the product's title as alt.
    await second.click();
    assert.equal(await second.getAttribute('aria-pressed'), 'true');
    let shown = await mainPicture(page);
    assert.equal(shown.srcset, expectedSrcSet(back));
    assert.equal(
      shown.srcset,
      `${back.url}?w=160 160w, ${back.url}?w=320 320w, ${back.url}?w=640 640w, ${back.url} 900w`,
    );
    assert.deepEqual([shown.width, shown.height], ['900', '1200']);
    assert.equal(shown.alt, 'Canvas jacket');
    assert.ok(shown.currentSrc.startsWith(`${h.live.baseUrl}${back.url}`), shown.currentSrc);
    await first.click();
    shown = await mainPicture(page);
    assert.ok(shown.currentSrc.startsWith(`${h.live.baseUrl}${front.url}`), shown.currentSrc);

    // Choosing Blue shows its picture; Natural has none of its own and keeps what is shown.
    const colour = page.getByRole('group', { name: /^Colour: / });
    await colour.getByRole('radio', { name: 'Blue' }).check();
    await page.waitForURL(new RegExp(`\\?variant=${variantOf('Blue')}$`));
    await until(async () => (await second.getAttribute('aria-pressed')) === 'true', 'the blue picture');
    shown = await mainPicture(page);
    assert.ok(shown.currentSrc.startsWith(`${h.live.baseUrl}${back.url}`), shown.currentSrc);
    await colour.getByRole('radio', { name: 'Natural' }).check();
    await page.waitForURL(new RegExp(`\\?variant=${variantOf('Natural')}$`));
    assert.equal(await second.getAttribute('aria-pressed'), 'true');
    await colour.getByRole('radio', { name: 'Orange' }).check();
    await page.waitForURL(new RegExp(`\\?variant=${variantOf('Orange')}$`));
    await until(async () => (await first.getAttribute('aria-pressed')) === 'true', 'the orange picture');

    // A deep link to Blue opens on its picture, fetched first.
    await page.goto(`/shop/products/${jacket.handle}?variant=${variantOf('Blue')}`);
    shown = await mainPicture(page);
    assert.equal(shown.srcset, expectedSrcSet(back));
    assert.equal(shown.fetchpriority, 'high');
    assert.equal(await second.getAttribute('aria-pressed'), 'true');

    // Cards: the API's widths with the grid's sizes; the first row at once, the rest lazy.
    await page.goto('/shop/');
    await page.getByRole('heading', { name: 'Latest products' }).waitFor();
    const cards = page.locator('.product-grid .product-image img');
    await until(async () => (await cards.count()) === 8 || undefined, 'eight cards with pictures');
    const cardAttributes = await cards.evaluateAll((els: Img[]) =>
      els.map((el) => ({
        loading: el.getAttribute('loading'),
        srcset: el.getAttribute('srcset'),
        sizes: el.getAttribute('sizes'),
        box: {
          width: el.parentElement!.getBoundingClientRect().width,
          height: el.parentElement!.getBoundingClientRect().height,
        },
      })),
    );
    assert.deepEqual(
      cardAttributes.map((card) => card.loading),
      ['eager', 'eager', 'eager', 'eager', 'eager', 'eager', 'lazy', 'lazy'],
    );
    for (const card of cardAttributes) {
      assert.equal(card.sizes, '(min-width: 24.25rem) 16.5rem, calc(100vw - 2rem)');
      assert.match(card.srcset ?? '', /^\/media\/[^?]+\?w=160 160w, .+\?w=1280 1280w$/);
      // A square box, kept before the picture arrives.
      assert.equal(Math.round(card.box.width), Math.round(card.box.height));
    }
    const firstCard = cards.first();
    await until(
      () => firstCard.evaluate((el: Img) => el.complete && el.naturalWidth > 0),
      'the first card’s picture',
    );
    assert.equal(chosenWidth(await firstCard.evaluate((el: Img) => el.currentSrc)), 320);
    await assertAccessible(page, 'home with pictures');

    assert.deepEqual(problems, []);
    await context.close();
  });
});
