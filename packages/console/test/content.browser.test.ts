/**
 * The content screens in Chromium: the region builder (nested columns by mouse drag and by
 * keyboard, problems of the shared rules and of the server at their block and field, save,
 * publish after the change list, the storefront serving the tree), menus and pages.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { openShop, startedForFile } from '../../client/test/server.test-support.ts';
import type { TestStore } from '../../../src/test/harness.ts';
import { assertAccessible, screenshot, signedInPage, startConsole } from './browser.test-support.ts';

const h = startedForFile(startConsole);

/** What the storefront serves, with the store's publishable key. */
async function storefront(store: TestStore, path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${h.live.baseUrl}/storefront/v1${path}`, {
    headers: { 'X-Publishable-Key': store.publishableKey },
  });
  return { status: response.status, body: await response.json() };
}

/** The error message shown for a form control (its aria-describedby element with class field-error). */
async function errorOf(control: Locator): Promise<string> {
  const ids = ((await control.getAttribute('aria-describedby')) ?? '').split(' ').filter(Boolean);
  const texts: string[] = [];
  for (const id of ids) {
    const element = control.page().locator(`[id="${id}"]`);
    if ((await element.getAttribute('class'))?.includes('field-error'))
      texts.push((await element.textContent()) ?? '');
  }
  return texts.join(' ');
}

/** The builder's tree as the DOM shows it: ids, with a columns block's children nested. */
async function shownTree(page: Page): Promise<unknown[]> {
  const rows = await page.locator('li.block-node').all();
  const nodes: { id: string; parent: string | null }[] = [];
  for (const row of rows) {
    nodes.push({
      id: (await row.getAttribute('data-block-id')) ?? '',
      parent: await row.getAttribute('data-parent-id'),
    });
  }
  const build = (parent: string | null): unknown[] =>
    nodes
      .filter((n) => n.parent === parent)
      .map((n) =>
        nodes.some((c) => c.parent === n.id) || n.id.startsWith('columns') ? { [n.id]: build(n.id) } : n.id,
      );
  return build(null);
}

/** The same shape from a block tree of the API. */
function shape(blocks: readonly { id: string; type: string; children?: unknown }[]): unknown[] {
  return blocks.map((b) =>
    b.type === 'columns' ? { [b.id]: shape((b.children ?? []) as typeof blocks) } : b.id,
  );
}

/** Drags with the mouse from a handle to a point of the target, in small steps as a hand would. */
async function drag(page: Page, handle: Locator, target: Locator, at: { x?: number; y?: number } = {}) {
  const from = await handle.boundingBox();
  const to = await target.boundingBox();
  assert.ok(from && to, 'handle and target are on screen');
  const start = { x: from.x + from.width / 2, y: from.y + from.height / 2 };
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  await page.mouse.move(start.x + 6, start.y + 6, { steps: 3 });
  await page.mouse.move(to.x + (at.x ?? to.width / 2), to.y + (at.y ?? to.height / 2), { steps: 25 });
}

/**
 * Presses an arrow key during a keyboard drag and waits for the announcement of the new place.
 * dnd-kit starts listening for arrow keys a moment after the pick-up (a timer): a key pressed
 * before that changes nothing (the pick-up message stays), and only then is it pressed again.
 */
async function moveByKey(page: Page, key: string, announced: string) {
  const live = page.locator('[id^="DndLiveRegion"]');
  const before = await live.textContent();
  for (let attempt = 0; attempt < 5; attempt++) {
    await page.keyboard.press(key);
    try {
      await page.getByText(announced).waitFor({ timeout: 2000 });
      return;
    } catch {
      assert.equal(
        await live.textContent(),
        before,
        `after ${key} the announcement is neither new nor the expected one`,
      );
    }
  }
  assert.fail(`${key} never announced: ${announced}`);
}

async function addBlock(page: Page, type: string, where = 'The top level') {
  await page.getByLabel('Add to').selectOption({ label: where });
  await page.getByRole('button', { name: `Add ${type}`, exact: true }).click();
}

describe('the region builder', () => {
  test('builds nested columns by drag and by keyboard, shows rule and server problems at their block, saves, publishes after the change list; the storefront serves it', async () => {
    const { shop: store, admin } = await openShop(h.live);
    // Tall enough that the tree is away from the window's edges, where dragging scrolls the page.
    const { context, page, problems } = await signedInPage(h, store, { height: 1300 });

    // Regions: empty, then a new region opens in the builder.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Regions' }).click();
    await page.getByText('No regions yet.').waitFor();
    await page.getByLabel('Region key').fill('Home Hero');
    await page.getByRole('button', { name: 'Create region' }).click();
    assert.match(
      await errorOf(page.getByLabel('Region key')),
      /lower-case letters, digits and hyphens/,
      'the key format is checked before anything is sent',
    );
    await page.getByLabel('Region key').fill('home-hero');
    await page.getByRole('button', { name: 'Create region' }).click();
    await page.getByRole('heading', { name: 'Region “home-hero”', level: 1 }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/admin/content/regions/home-hero');

    // The palette: a heading, two columns blocks, a text and a button, all at the top level.
    await addBlock(page, 'Heading');
    await page.getByLabel('Heading text').fill('Summer sale');
    await page.getByLabel('Level').selectOption('1');
    await addBlock(page, 'Columns');
    await addBlock(page, 'Text');
    await page.getByLabel('Text', { exact: true }).fill('Linen shirts, cut by hand.');
    await addBlock(page, 'Columns');
    await addBlock(page, 'Button');
    assert.deepEqual(await shownTree(page), [
      'heading-1',
      { 'columns-1': [] },
      'text-1',
      { 'columns-2': [] },
      'button-1',
    ]);
    // The preview is the shop's renderer: the heading is an h1 with the shop's classes.
    assert.equal(await page.locator('.region-preview h1.sf-heading').textContent(), 'Summer sale');

    // Mouse: drag the text by its handle into the first columns block.
    await drag(
      page,
      page.getByRole('button', { name: 'Drag Text “Linen shirts, cut by hand.”' }),
      page.locator('li[data-block-id="columns-1"] > ol'),
    );
    await page.locator('li[data-block-id="columns-1"] > ol.over').waitFor();
    await page.mouse.up();
    await page.locator('li[data-block-id="columns-1"] li[data-block-id="text-1"]').waitFor();

    // Keyboard: pick up the second columns block, move it up into the first one, drop it: nested columns.
    await page.getByRole('button', { name: 'Drag Columns “columns-2”' }).focus();
    await page.keyboard.press('Space');
    await page.getByText('Picked up Columns “columns-2”, position 3 of 4 in the top level.').waitFor();
    await moveByKey(page, 'ArrowUp', 'Columns “columns-2” will move to Columns “columns-1”, position 1.');
    await page.keyboard.press('Space');
    await page.getByText('Dropped Columns “columns-2”: moved to Columns “columns-1”, position 1.').waitFor();
    await page.locator('li[data-block-id="columns-1"] li[data-block-id="columns-2"]').waitFor();
    // Focus comes back to the moved handle once the tree has re-rendered: give it that frame.
    await page
      .waitForFunction(
        'document.activeElement?.getAttribute("aria-label") === "Drag Columns “columns-2”"',
        null,
        {
          timeout: 5000,
        },
      )
      .catch(() => undefined);
    assert.equal(
      await page.evaluate('document.activeElement?.getAttribute("aria-label")'),
      'Drag Columns “columns-2”',
      'focus stays on the handle after a keyboard drop',
    );

    // The buttons do the same without dragging: the button goes into the nested columns block.
    await page.getByRole('button', { name: /^Button Shop now/ }).click();
    await page.getByLabel('Move into').selectOption({ label: 'Columns “columns-2”' });
    await page.getByRole('button', { name: 'Move into columns' }).click();
    assert.deepEqual(await shownTree(page), [
      'heading-1',
      { 'columns-1': [{ 'columns-2': ['button-1'] }, 'text-1'] },
    ]);

    // A rule of the shared package, at its block and field: no javascript: link. Saving is refused.
    const link = page.getByLabel('Link');
    await link.fill('javascript:alert(1)');
    assert.equal(await errorOf(link), 'must not be a javascript: URL');
    assert.equal(await link.getAttribute('aria-invalid'), 'true');
    await page.locator('li[data-block-id="button-1"] .block-problems').getByText('1 problem').waitFor();
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Fix the problem below before saving.').waitFor();
    await page.getByRole('heading', { name: '1 problem to fix before saving' }).waitFor();
    assert.deepEqual(
      (await admin.request('adminGetRegion', { path: { key: 'home-hero' } })).draft.blocks,
      [],
    );
    await assertAccessible(page, 'builder with a problem');
    await link.fill('/collections/sale');
    assert.equal(await errorOf(link), '');

    // A problem only the server finds (text PostgreSQL cannot store, here a pasted NUL character):
    // its 400 names /blocks/1/children/1/settings/text, shown at that block and field.
    await page.getByRole('button', { name: /^Text Linen shirts/ }).click();
    const text = page.getByLabel('Text', { exact: true });
    await text.fill('Linen\u0000shirts, cut by hand.');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('(refused by the server)').waitFor();
    assert.match(await errorOf(text), /contains a character that can’t be saved/);
    await page.locator('li[data-block-id="text-1"] .block-problems').getByText('1 problem').waitFor();
    assert.match(
      (await page.locator('.problems').textContent()) ?? '',
      /Text “Linen.?shirts, cut by hand\.” · Text contains a character that can’t be saved/,
    );
    // Fixing the field clears the server's message there; the save goes through.
    await text.fill('Linen shirts, cut by hand.');
    assert.equal(await errorOf(text), '');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page
      .getByText('Draft saved. Your shop keeps showing the published version until you publish.')
      .waitFor();
    const draft = await admin.request('adminGetRegion', { path: { key: 'home-hero' } });
    assert.deepEqual(shape(draft.draft.blocks), await shownTree(page));
    assert.equal(draft.published, null);
    assert.equal((await storefront(store, '/regions/home-hero')).status, 404, 'a draft is not served');

    await screenshot(page, 'builder');
    await assertAccessible(page, 'builder');

    // Publish: the change list first (never published, so every block is added), then confirm.
    await page.getByRole('button', { name: 'Review and publish…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Publish “home-hero”?' });
    await dialog.getByText('5 changes: 5 added.').waitFor();
    await dialog.getByText('Button “Shop now” in Columns “columns-2”, position 1').waitFor();
    await dialog.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByText(/^Published .*Your shop shows this version now\.$/).waitFor();
    const served = await storefront(store, '/regions/home-hero');
    assert.equal(served.status, 200);
    const region = served.body as { key: string; blocks: { id: string; type: string; settings: unknown }[] };
    assert.equal(region.key, 'home-hero');
    assert.deepEqual(shape(region.blocks), [
      'heading-1',
      { 'columns-1': [{ 'columns-2': ['button-1'] }, 'text-1'] },
    ]);
    assert.deepEqual(region.blocks[0], {
      id: 'heading-1',
      type: 'heading',
      settings: { text: 'Summer sale', level: 1 },
    });

    // A second round: edit, move out, remove; the change list names each; save and publish at once.
    await page.getByRole('button', { name: /^Heading Summer sale/ }).click();
    await page.getByLabel('Heading text').fill('Autumn sale');
    await page.getByRole('button', { name: /^Button Shop now/ }).click();
    await page.getByRole('button', { name: 'Move out of Columns “columns-2”' }).click();
    await page.getByRole('button', { name: /^Text Linen shirts/ }).click();
    await page.getByRole('button', { name: 'Remove text block' }).click();

    // Unsaved changes: leaving through the navigation asks first.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Menus' }).click();
    const leave = page.getByRole('dialog', { name: 'Leave without saving?' });
    await leave.getByRole('button', { name: 'Stay on this page' }).click();
    assert.equal(new URL(page.url()).pathname, '/admin/content/regions/home-hero');

    await page.getByRole('button', { name: 'Review and publish…' }).click();
    await dialog.getByText('3 changes: 1 changed, 1 moved, 1 removed.').waitFor();
    await dialog.getByText('Heading “Autumn sale”: Heading text “Summer sale” → “Autumn sale”').waitFor();
    await dialog
      .getByText('Button “Shop now” from Columns “columns-2”, position 1 to Columns “columns-1”, position 2')
      .waitFor();
    await dialog
      .getByText('Text “Linen shirts, cut by hand.” from Columns “columns-1”, position 2')
      .waitFor();
    await dialog.getByRole('button', { name: 'Save and publish' }).click();
    await page.getByText(/^Published .*Your shop shows this version now\.$/).waitFor();
    const republished = (await storefront(store, '/regions/home-hero')).body as { blocks: never[] };
    assert.deepEqual(shape(republished.blocks), [
      'heading-1',
      { 'columns-1': [{ 'columns-2': [] }, 'button-1'] },
    ]);

    // The list shows the state; deleting asks first.
    await page.getByRole('link', { name: 'All regions' }).click();
    const row = page.getByRole('row', { name: /home-hero/ });
    await row.getByText('Published', { exact: true }).waitFor();
    await screenshot(page, 'regions');
    await assertAccessible(page, 'regions');
    await row.getByRole('button', { name: 'Delete home-hero' }).click();
    await page
      .getByRole('dialog', { name: 'Delete the region “home-hero”?' })
      .getByRole('button', { name: 'Delete region' })
      .click();
    await page.getByText('Region “home-hero” deleted.').waitFor();
    assert.equal((await storefront(store, '/regions/home-hero')).status, 404);

    assert.deepEqual(problems, []);
    await context.close();
  });
});

describe('the region builder and text the server cannot store', () => {
  test('half an emoji: said in a merchant’s words at the field, and no banner is left once the text is fixed', async () => {
    const { shop: store, admin } = await openShop(h.live);
    await admin.request('adminSaveRegionDraft', {
      path: { key: 'promo' },
      body: { blocks: [{ id: 'note', type: 'text', settings: { text: 'Summer sale' } }] },
    });
    const { context, page, problems } = await signedInPage(h, store);
    await page.goto('/admin/content/regions/promo');
    await page.getByRole('button', { name: /^Text Summer sale/ }).click();
    const text = page.getByLabel('Text', { exact: true });

    // A lone high surrogate (the first half of 🌞), as a broken paste or a cut emoji leaves it:
    // typed into the field the way React sees typing (the native setter, then an input event).
    await text.focus();
    await page.evaluate(`(() => {
      const field = document.activeElement;
      const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(field), 'value').set;
      setter.call(field, 'Summer sale ' + String.fromCharCode(0xd83c));
      field.dispatchEvent(new Event('input', { bubbles: true }));
    })()`);
    assert.equal(await text.inputValue(), 'Summer sale \ud83c');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('(refused by the server)').waitFor();
    const advice =
      'contains a character that can’t be saved (an incomplete emoji or symbol, or an invisible control character): retype it and save again';
    assert.equal(await errorOf(text), advice);
    const panel = (await page.locator('.problems').textContent()) ?? '';
    assert.match(panel, /The server refused the draft: The text contains a character that can’t be saved/);
    const shown = (await page.locator('main').textContent()) ?? '';
    assert.doesNotMatch(shown, /surrogate|UTF-16|NUL character/, 'no words for programmers');
    await assertAccessible(page, 'builder with text the server refused');

    // Retyped: the field's message, the problems panel and any banner about the refusal all go
    // before the next save, and that save goes through.
    await text.fill('Summer sale 🌞');
    assert.equal(await errorOf(text), '');
    assert.equal(await page.locator('.problems').count(), 0, 'the problems panel is gone');
    assert.equal(await page.locator('main .banner.error').count(), 0, 'no error banner is left');
    assert.equal(await page.getByRole('alert').count(), 0, 'nothing alerts any more');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page
      .getByText('Draft saved. Your shop keeps showing the published version until you publish.')
      .waitFor();
    const saved = await admin.request('adminGetRegion', { path: { key: 'promo' } });
    assert.deepEqual(saved.draft.blocks, [
      { id: 'note', type: 'text', settings: { text: 'Summer sale 🌞' } },
    ]);
    assert.deepEqual(problems, []);
    await context.close();
  });
});

describe('the region builder on a phone', () => {
  test('fits a 375 px screen and moves blocks with its buttons; closing the tab with unsaved changes asks first', async () => {
    const { shop: store, admin } = await openShop(h.live);
    await admin.request('adminSaveRegionDraft', {
      path: { key: 'footer-note' },
      body: {
        blocks: [
          { id: 'title', type: 'heading', settings: { text: 'Visit our workshop in Porto', level: 2 } },
          {
            id: 'row',
            type: 'columns',
            settings: { columns: 2 },
            children: [
              { id: 'hours', type: 'text', settings: { text: 'Open Monday to Saturday, 10:00 to 18:00.' } },
              {
                id: 'map',
                type: 'button',
                settings: { text: 'Find us', href: 'https://maps.example/porto' },
              },
            ],
          },
        ],
      },
    });
    const { context, page, problems } = await signedInPage(h, store, { width: 375, height: 740 });
    await page.goto('/admin/content/regions/footer-note');
    await page.getByRole('heading', { name: 'Region “footer-note”', level: 1 }).waitFor();
    await page.getByRole('button', { name: /^Button Find us/ }).click();
    await page.getByRole('button', { name: 'Move up' }).click();
    await page.getByText('Moved Button “Find us” to position 1 of 2 in Columns “row”.').waitFor();
    assert.deepEqual(await shownTree(page), ['title', { row: ['map', 'hours'] }]);
    await page.getByRole('button', { name: 'Move out of Columns “row”' }).click();
    assert.deepEqual(await shownTree(page), ['title', { row: ['hours'] }, 'map']);
    assert.equal(
      await page.evaluate('document.documentElement.scrollWidth'),
      375,
      'nothing wider than the screen',
    );
    await assertAccessible(page, 'builder at 375 px');

    const asked = new Promise<string>((resolve) => {
      page.once('dialog', (dialog) => {
        resolve(dialog.type());
        void dialog.accept();
      });
    });
    await page.close({ runBeforeUnload: true });
    assert.equal(await asked, 'beforeunload');
    assert.deepEqual(problems, []);
    await context.close();
  });
});

describe('menus', () => {
  test('create a menu, edit its items with the URL rules at their fields, reorder, save; the storefront serves it; delete', async () => {
    const { shop: store, admin } = await openShop(h.live);
    const { context, page, problems } = await signedInPage(h, store);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Menus' }).click();
    await page.getByText('No menus yet.').waitFor();
    await page.getByLabel('Menu handle').fill('main');
    await page.getByRole('button', { name: 'Create menu' }).click();
    await page.getByRole('heading', { name: 'Menu “main”', level: 1 }).waitFor();
    await page.getByText('This menu has no items yet.').waitFor();

    const item = (n: number) => page.getByRole('group', { name: `Item ${n}` });
    await page.getByRole('button', { name: 'Add item' }).click();
    assert.equal(
      await page.evaluate(
        'document.activeElement?.closest("fieldset")?.querySelector("legend")?.textContent',
      ),
      'Item 1',
      'a new item gets the focus',
    );
    await item(1).getByLabel('Label').fill('Home');
    await item(1).getByLabel('URL').fill('/');
    await page.getByRole('button', { name: 'Add item' }).click();
    await item(2).getByLabel('Label').fill('Blog');
    await item(2).getByLabel('URL').fill('javascript:alert(1)');
    await item(2).getByLabel('Label').focus();
    assert.equal(await errorOf(item(2).getByLabel('URL')), 'The URL must not be a javascript: URL.');
    await page.getByRole('button', { name: 'Add item' }).click();
    await item(3).getByLabel('Label').fill('Sale');
    await item(3).getByLabel('URL').fill('collections/sale');
    await page.getByRole('button', { name: 'Save menu' }).click();
    assert.equal(
      await errorOf(item(3).getByLabel('URL')),
      'The URL must be an http(s) URL or a path starting with /.',
    );
    assert.equal((await admin.request('adminGetMenu', { path: { handle: 'main' } })).items.length, 0);

    await item(2).getByLabel('URL').fill('https://blog.example/');
    await item(3).getByLabel('URL').fill('/collections/sale');
    assert.equal(await errorOf(item(3).getByLabel('URL')), '');
    // Sale moves up to second place; the focus stays on its button.
    await item(3).getByRole('button', { name: 'Move up' }).click();
    assert.equal(await item(2).getByLabel('Label').inputValue(), 'Sale');
    assert.equal(
      await page.evaluate(
        'document.activeElement?.closest("fieldset")?.querySelector("legend")?.textContent',
      ),
      'Item 2',
    );
    await page.getByRole('button', { name: 'Save menu' }).click();
    await page.getByText('Menu saved. Your shop shows it now.').waitFor();
    await page.getByText('Unsaved changes').waitFor({ state: 'detached' });

    const served = await storefront(store, '/menus/main');
    assert.equal(served.status, 200);
    assert.deepEqual(served.body, {
      handle: 'main',
      items: [
        { label: 'Home', url: '/' },
        { label: 'Sale', url: '/collections/sale' },
        { label: 'Blog', url: 'https://blog.example/' },
      ],
    });
    await screenshot(page, 'menus');
    await assertAccessible(page, 'menu editor');

    await page.getByRole('link', { name: 'All menus' }).click();
    const row = page.getByRole('row', { name: /main/ });
    await row.getByText('Home, Sale, Blog').waitFor();
    await assertAccessible(page, 'menus');
    await row.getByRole('button', { name: 'Delete main' }).click();
    await page
      .getByRole('dialog', { name: 'Delete the menu “main”?' })
      .getByRole('button', { name: 'Delete menu' })
      .click();
    await page.getByText('Menu “main” deleted.').waitFor();
    assert.equal((await storefront(store, '/menus/main')).status, 404);
    assert.deepEqual(problems, []);
    await context.close();
  });
});

describe('pages', () => {
  test('create a page, edit its title and plain-text body with the paragraph preview, save; the storefront serves it; delete', async () => {
    const { shop: store } = await openShop(h.live);
    const { context, page, problems } = await signedInPage(h, store);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Pages' }).click();
    await page.getByText('No pages yet.').waitFor();
    await page.getByLabel('Title').fill('About us');
    assert.equal(await page.getByLabel('Slug').inputValue(), 'about-us', 'the slug follows the title');
    await page.getByRole('button', { name: 'Create page' }).click();
    await page.getByRole('heading', { name: 'About us', level: 1 }).waitFor();

    await page.getByLabel('Title').fill('About our shop');
    await page
      .getByLabel('Body')
      .fill('We make linen shirts.\n\nEvery shirt is cut <b>by hand</b>.\nIn Porto.\n\n\n');
    const preview = page.getByRole('region', { name: 'Preview' });
    assert.equal(await preview.locator('.preview-title').textContent(), 'About our shop');
    assert.deepEqual(await preview.locator('p:not(.preview-title)').allTextContents(), [
      'We make linen shirts.',
      'Every shirt is cut <b>by hand</b>.\nIn Porto.',
    ]);
    assert.equal(await preview.locator('b').count(), 0, 'the body is text, never markup');

    // The title is required: the message is at the field and nothing is sent.
    await page.getByLabel('Title').fill('  ');
    await page.getByRole('button', { name: 'Save page' }).click();
    assert.equal(await errorOf(page.getByLabel('Title')), 'Enter a title.');
    await page.getByLabel('Title').fill('About our shop');
    await page.getByRole('button', { name: 'Save page' }).click();
    await page.getByText('Page saved. Your shop shows it now.').waitFor();

    const served = await storefront(store, '/pages/about-us');
    assert.equal(served.status, 200);
    const body = served.body as { slug: string; title: string; body: string };
    assert.deepEqual(
      [body.slug, body.title, body.body],
      [
        'about-us',
        'About our shop',
        'We make linen shirts.\n\nEvery shirt is cut <b>by hand</b>.\nIn Porto.\n\n\n',
      ],
    );
    await screenshot(page, 'pages');
    await assertAccessible(page, 'page editor');

    // Unsaved changes: leaving asks, and "leave" drops them.
    await page.getByLabel('Body').fill('Not saved.');
    await page.getByRole('link', { name: 'All pages' }).click();
    await page
      .getByRole('dialog', { name: 'Leave without saving?' })
      .getByRole('button', { name: 'Leave and discard' })
      .click();
    await page.getByRole('link', { name: 'About our shop' }).waitFor();
    assert.match(
      ((await storefront(store, '/pages/about-us')).body as { body: string }).body,
      /^We make linen/,
    );
    await assertAccessible(page, 'pages');
    await page.getByRole('button', { name: 'Delete About our shop' }).click();
    await page
      .getByRole('dialog', { name: 'Delete the page “About our shop”?' })
      .getByRole('button', { name: 'Delete page' })
      .click();
    await page.getByText('Page “about-us” deleted.').waitFor();
    assert.equal((await storefront(store, '/pages/about-us')).status, 404);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
