/**
 * Shipping in Chromium: a zone for the US and a weight method with two tiers made in the console,
 * listed in words; the method changed to a flat rate and turned off; the zone narrowed to two
 * states; a zone that overlaps another refused with the server's sentence; deletes; a country's
 * default method shown as such; Japan's prefectures by their Latin names with their own beside them; the store setting that requires an address at checkout. What the
 * page shows and what the server stored are both checked.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AdminClient } from '@storefront/client';
import { openShop, startedForFile } from '../../client/test/server.test-support.ts';
import {
  assertAccessible,
  openScreen,
  screenshot,
  signedInPage,
  startConsole,
} from './browser.test-support.ts';

const h = startedForFile(startConsole);

async function zonesOf(admin: AdminClient) {
  return (await admin.request('adminListShippingZones', { query: { limit: 100 } })).items;
}

describe('shipping in the console', () => {
  test('a US zone and a weight method with two tiers, listed, edited; a conflict says why; deletes', async () => {
    const shop = await openShop(h.live);
    // Germany's flat shipping from the tax rates: the country's default method, in a zone of its own.
    await shop.admin.request('adminSetTaxRate', {
      path: { country: 'DE' },
      body: { taxRateBps: 1900, shippingAmount: 490 },
    });
    const { context, page, problems } = await signedInPage(h, shop.shop);
    await openScreen(page, 'Shipping', 'Shipping');
    const germany = page.getByRole('region', { name: 'Germany', exact: true });
    await germany
      .getByRole('row', { name: /Standard shipping/ })
      .getByText('Default for Germany', { exact: true })
      .waitFor();

    // A new zone: what is missing is said at its field before anything is sent.
    await page.getByRole('button', { name: 'Add zone' }).click();
    const newZone = page.getByRole('region', { name: 'New zone', exact: true });
    await newZone.getByRole('button', { name: 'Create zone' }).click();
    await newZone.getByText('Enter a name, like “Domestic”.').waitFor();
    await newZone.getByText('Choose a country or the rest of the world.').waitFor();
    assert.equal(await newZone.getByLabel('Zone name').getAttribute('aria-invalid'), 'true');
    await newZone.getByLabel('Zone name').fill('Domestic');
    await newZone.getByRole('group', { name: 'Area 1' }).getByLabel('Country').selectOption('US');
    await newZone.getByRole('button', { name: 'Create zone' }).click();
    await page.getByText('The zone “Domestic” was created.').waitFor();
    const domestic = page.getByRole('region', { name: 'Domestic', exact: true });
    await domestic.getByRole('list', { name: 'Places in Domestic' }).getByText('United States').waitFor();
    await domestic.getByText('No methods yet').waitFor();

    // A weight method: only the tiers are asked, no price of its own; tiers must go up.
    await domestic.getByRole('button', { name: 'Add method to Domestic' }).click();
    const newMethod = domestic.getByRole('region', { name: 'New method for “Domestic”' });
    await newMethod.getByLabel('Method name').fill('Ground');
    await newMethod.getByLabel('Kind').selectOption('weight');
    assert.equal(await newMethod.getByLabel('Free from (USD)').count(), 0);
    assert.equal(await newMethod.getByLabel('Price (USD)').count(), 1, "the first tier's price only");
    const tier1 = newMethod.getByRole('group', { name: 'Tier 1' });
    await tier1.getByLabel('Up to (g)').fill('500');
    await tier1.getByLabel('Price (USD)').fill('5');
    await newMethod.getByRole('button', { name: 'Add tier' }).click();
    const tier2 = newMethod.getByRole('group', { name: 'Tier 2' });
    await tier2.getByLabel('Up to (g)').fill('400');
    await tier2.getByLabel('Price (USD)').fill('9.50');
    await newMethod.getByLabel('Delivery from (days, optional)').fill('3');
    await newMethod.getByLabel('Delivery to (days, optional)').fill('7');
    await newMethod.getByRole('button', { name: 'Add method' }).click();
    await tier2.getByText('Each tier goes up to more grams than the one before.').waitFor();
    assert.equal(await tier2.getByLabel('Up to (g)').getAttribute('aria-invalid'), 'true');
    await tier2.getByLabel('Up to (g)').fill('2000');
    await assertAccessible(page, 'shipping method form');
    await newMethod.getByRole('button', { name: 'Add method' }).click();
    await page.getByText('The method “Ground” was added.').waitFor();

    const ground = domestic.getByRole('row', { name: /Ground/ });
    assert.deepEqual((await ground.getByRole('cell').allTextContents()).slice(0, 4), [
      'By weight',
      'up to 500 g: $5.00up to 2,000 g: $9.50',
      '3–7 business days',
      'active',
    ]);
    let zones = await zonesOf(shop.admin);
    let stored = zones.find((zone) => zone.name === 'Domestic')!;
    assert.deepEqual(stored.areas, [{ country: 'US', regions: [], postalCodePrefixes: [] }]);
    assert.deepEqual(
      stored.methods.map((m) => [
        m.name,
        m.kind,
        m.amount,
        m.weightTiers,
        m.minDeliveryDays,
        m.maxDeliveryDays,
      ]),
      [
        [
          'Ground',
          'weight',
          null,
          [
            { upToGrams: 500, amount: 500 },
            { upToGrams: 2000, amount: 950 },
          ],
          3,
          7,
        ],
      ],
    );
    await assertAccessible(page, 'shipping');
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'shipping');

    // The method becomes a flat rate, turned off: the tiers go, the price is its own.
    await domestic.getByRole('button', { name: 'Edit Ground' }).click();
    const editMethod = domestic.getByRole('region', { name: 'Change the method “Ground”' });
    assert.equal(
      await editMethod.getByRole('group', { name: 'Tier 2' }).getByLabel('Up to (g)').inputValue(),
      '2000',
    );
    await editMethod.getByLabel('Kind').selectOption('flat');
    assert.equal(await editMethod.getByRole('group', { name: 'Tier 1' }).count(), 0);
    await editMethod.getByLabel('Price (USD)').fill('8');
    await editMethod.getByLabel('Active: offered at checkout').uncheck();
    await editMethod.getByRole('button', { name: 'Save method' }).click();
    await page.getByText('The method “Ground” was saved.').waitFor();
    assert.deepEqual((await ground.getByRole('cell').allTextContents()).slice(0, 4), [
      'Flat rate',
      '$8.00',
      '3–7 business days',
      'inactive',
    ]);
    zones = await zonesOf(shop.admin);
    stored = zones.find((zone) => zone.name === 'Domestic')!;
    assert.deepEqual(
      stored.methods.map((m) => [m.kind, m.amount, m.weightTiers, m.active]),
      [['flat', 800, null, false]],
    );

    // The zone narrowed to two states, picked from the country's list.
    await domestic.getByRole('button', { name: 'Edit the zone Domestic' }).click();
    const editZone = domestic.getByRole('region', { name: 'Change the zone “Domestic”' });
    await editZone.getByLabel('Covers').selectOption('regions');
    await editZone.getByLabel('States').selectOption(['US-CA', 'US-OR']);
    await editZone.getByText('Chosen: California, Oregon.').waitFor();
    await editZone.getByRole('button', { name: 'Save zone' }).click();
    await page.getByText('The zone “Domestic” was saved.').waitFor();
    await domestic.getByText('United States: California, Oregon').waitFor();

    // Another zone with California: the server's 409 says which zone has it.
    await page.getByRole('button', { name: 'Add zone' }).click();
    await newZone.getByLabel('Zone name').fill('West');
    const area = newZone.getByRole('group', { name: 'Area 1' });
    await area.getByLabel('Country').selectOption('US');
    await area.getByLabel('Covers').selectOption('regions');
    await area.getByLabel('States').selectOption(['US-CA']);
    await newZone.getByRole('button', { name: 'Create zone' }).click();
    const conflict = newZone.getByRole('alert');
    await conflict
      .getByText('This zone overlaps another: US-CA is in the zone "Domestic" already.')
      .waitFor();
    assert.equal((await zonesOf(shop.admin)).length, 2, 'nothing created');
    await assertAccessible(page, 'shipping zone conflict');
    // By ZIP code prefixes instead, it is its own place.
    await area.getByLabel('Covers').selectOption('postal');
    await area.getByLabel('ZIP code prefixes').fill('900, 901');
    await newZone.getByRole('button', { name: 'Create zone' }).click();
    await page.getByText('The zone “West” was created.').waitFor();
    await page
      .getByRole('region', { name: 'West', exact: true })
      .getByText('United States: ZIP codes starting 900, 901')
      .waitFor();

    // Deletes ask first.
    await domestic.getByRole('button', { name: 'Delete Ground' }).click();
    await page
      .getByRole('dialog', { name: 'Delete the method “Ground”?' })
      .getByRole('button', { name: 'Delete method' })
      .click();
    await page.getByText('The method “Ground” was deleted.').waitFor();
    await page.getByRole('button', { name: 'Delete the zone West' }).click();
    await page
      .getByRole('dialog', { name: 'Delete the zone “West”?' })
      .getByRole('button', { name: 'Delete zone' })
      .click();
    await page.getByText('The zone “West” and its methods were deleted.').waitFor();
    zones = await zonesOf(shop.admin);
    assert.deepEqual(
      zones.map((zone) => [zone.name, zone.methods.length]),
      [
        ['Germany', 1],
        ['Domestic', 0],
      ],
    );

    // Usable at 375 px: nothing wider than the screen.
    await page.setViewportSize({ width: 375, height: 740 });
    assert.ok(
      await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth'),
      'no horizontal scrolling at 375 px',
    );
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a zone for some of Japan’s prefectures: listed by their Latin names with their own beside them, stored as ISO 3166-2 codes', async () => {
    const shop = await openShop(h.live);
    const { context, page, problems } = await signedInPage(h, shop.shop);
    await openScreen(page, 'Shipping', 'Shipping');
    await page.getByRole('button', { name: 'Add zone' }).click();
    const newZone = page.getByRole('region', { name: 'New zone', exact: true });
    await newZone.getByLabel('Zone name').fill('Kanto');
    const area = newZone.getByRole('group', { name: 'Area 1' });
    await area.getByLabel('Country').selectOption('JP');
    await area.getByLabel('Covers').selectOption('regions');
    const prefectures = area.getByLabel('Prefectures');
    const labels = await prefectures.locator('option').allTextContents();
    assert.equal(labels.length, 47);
    assert.deepEqual(labels.slice(0, 2), ['Aichi (愛知県)', 'Akita (秋田県)'], 'alphabetical by Latin name');
    await prefectures.selectOption([{ label: 'Tokyo (東京都)' }, { label: 'Kanagawa (神奈川県)' }]);
    await area.getByText('Chosen: Kanagawa (神奈川県), Tokyo (東京都).').waitFor();
    await assertAccessible(page, 'a zone’s prefectures');
    await newZone.getByRole('button', { name: 'Create zone' }).click();
    await page.getByText('The zone “Kanto” was created.').waitFor();
    await page
      .getByRole('region', { name: 'Kanto', exact: true })
      .getByText('Japan: Kanagawa (神奈川県), Tokyo (東京都)')
      .waitFor();
    const [zone] = await zonesOf(shop.admin);
    assert.deepEqual(zone?.areas, [{ country: 'JP', regions: ['JP-14', 'JP-13'], postalCodePrefixes: [] }]);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('the settings turn on "require a shipping address and method at checkout"', async () => {
    const shop = await openShop(h.live);
    const { context, page, problems } = await signedInPage(h, shop.shop);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    const required = page.getByLabel('Require a shipping address and method at checkout');
    assert.equal(await required.isChecked(), false);
    await required.check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    assert.equal((await shop.admin.request('adminGetSettings')).requireShippingAddress, true);
    await assertAccessible(page, 'settings');
    await required.uncheck();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    assert.equal((await shop.admin.request('adminGetSettings')).requireShippingAddress, false);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
