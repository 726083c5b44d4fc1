/**
 * Import and export in the console, in Chromium (issue 47, decisions `csv-imports` and
 * `csv-exports`): a Shopify product CSV uploaded from the Import screen, followed to completed with
 * its counts, and its products read back through the API; a check only (dry run) of a file with bad
 * rows listing them by row and column and writing nothing, and an empty file refused in an alert at
 * the form; "Export CSV" on the Products and Customers lists downloading the store's CSV (the
 * download's file name, header and rows checked); a staff member sees neither button, and the
 * Import screen says that only owners and admins may import and export.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { openShop, startedForFile, type Shop } from '../../client/test/server.test-support.ts';
import {
  assertAccessible,
  openScreen,
  screenshot,
  signedInPage,
  startConsole,
} from './browser.test-support.ts';

const h = startedForFile(startConsole);

/** Two products as Shopify exports them: one without options, one with a Color option and two variants. */
const GOOD_CSV = [
  'Handle,Title,Body (HTML),Vendor,Tags,Published,Option1 Name,Option1 Value,Variant SKU,Variant Price,Variant Inventory Qty,Variant Requires Shipping,Status',
  'canvas-tote,Canvas Tote,<p>A sturdy tote.</p>,Northwind,bags,TRUE,Title,Default Title,TOTE-1,18.00,7,TRUE,active',
  'wool-scarf,Wool Scarf,Warm and soft.,Northwind,winter,TRUE,Color,Grey,SCARF-GRY,32.50,3,TRUE,active',
  'wool-scarf,,,,,,,Navy,SCARF-NVY,34.00,4,TRUE,',
].join('\n');

/** A file whose row 3 has no price and row 4 an unknown status: the check lists both. */
const BAD_CSV = [
  'Handle,Title,Option1 Name,Option1 Value,Variant SKU,Variant Price,Variant Inventory Qty,Status',
  'good-mug,Good Mug,Title,Default Title,MUG-1,12.00,5,active',
  'no-price,No Price,Title,Default Title,NP-1,,5,active',
  'odd-status,Odd Status,Title,Default Title,OS-1,9.00,5,live',
].join('\n');

async function chooseFile(page: Page, name: string, csv: string): Promise<void> {
  await page
    .getByLabel('CSV file', { exact: true })
    .setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(csv) });
}

async function productHandles(shop: Shop): Promise<string[]> {
  const { items } = await shop.admin.request('adminListProducts', { query: { limit: 100 } });
  return items.map((product) => product.handle).sort();
}

/** The cells of a table's body rows, as text. */
async function bodyRows(page: Page, table: string): Promise<string[][]> {
  const rows = page.getByRole('table', { name: table }).locator('tbody tr');
  const out: string[][] = [];
  for (const row of await rows.all()) {
    out.push((await row.locator('th, td').allTextContents()).map((text) => text.trim()));
  }
  return out;
}

describe('import and export in the console', () => {
  test('a Shopify product CSV is uploaded, followed to completed, and its products are in the store', async () => {
    const shop = await openShop(h.live);
    const { context, page, problems } = await signedInPage(h, shop.shop, { height: 1000 });

    // The Products list links to the Import screen with products chosen.
    await openScreen(page, 'Products', 'Products');
    await page.getByRole('button', { name: 'Export CSV' }).waitFor();
    await page.getByRole('main').getByRole('link', { name: 'Import', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Import' }).waitFor();
    assert.match(page.url(), /\/admin\/imports\?kind=products$/);
    await page.getByRole('radio', { name: 'Products: Shopify product CSV' }).waitFor();
    assert.equal(await page.getByRole('radio', { name: 'Products: Shopify product CSV' }).isChecked(), true);
    await page.getByText('No imports yet.').waitFor();

    // Upload without a file: said at the field, nothing sent.
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByText('Choose the CSV file to import.').waitFor();
    assert.equal(await page.getByLabel('CSV file', { exact: true }).getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('CSV file', { exact: true }).getAttribute('accept'), '.csv,text/csv');
    await assertAccessible(page, 'the import form');

    await chooseFile(page, 'products_export.csv', GOOD_CSV);
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByRole('heading', { level: 1, name: 'Import of products_export.csv' }).waitFor();
    await page.getByText('The import is complete.').waitFor({ timeout: 20_000 });
    const progress = page.getByRole('progressbar', { name: 'Rows written' });
    assert.equal(await progress.getAttribute('max'), '3');
    assert.equal(await progress.getAttribute('value'), '3');
    await page.getByRole('status').filter({ hasText: 'Checked 3 rows. Written 3 of 3.' }).waitFor();
    const summary = page.locator('.import-summary');
    assert.deepEqual(await summary.locator('dt').allTextContents(), ['Created', 'Updated', 'Unchanged']);
    assert.deepEqual(await summary.locator('dd').allTextContents(), ['2', '0', '0']);
    await page.getByText('Columns not read (this kind has no use for them): Vendor.').waitFor();
    assert.equal(await page.getByRole('table', { name: 'Rows with problems' }).count(), 0);
    await assertAccessible(page, 'a completed import');

    // What the API now has: both products, with their variants, prices and stock.
    assert.deepEqual(await productHandles(shop), ['canvas-tote', 'wool-scarf']);
    const { items } = await shop.admin.request('adminListProducts', { query: { limit: 100 } });
    const scarf = items.find((product) => product.handle === 'wool-scarf');
    assert.ok(scarf);
    assert.equal(scarf.title, 'Wool Scarf');
    assert.deepEqual(scarf.variants.map((v) => [v.sku, v.priceAmount, v.onHand]).sort(), [
      ['SCARF-GRY', 3250, 3],
      ['SCARF-NVY', 3400, 4],
    ]);

    // The recent imports list it; its row opens it again.
    await page.getByRole('link', { name: 'All imports' }).click();
    await page.getByRole('heading', { level: 1, name: 'Import' }).waitFor();
    const row = page
      .getByRole('table', { name: 'Imports, newest first' })
      .getByRole('row', { name: /products_export\.csv/ });
    await row.waitFor();
    assert.deepEqual((await row.locator('th, td').allTextContents()).slice(0, 4), [
      'products_export.csv',
      'Products',
      'completed',
      '3',
    ]);
    await chooseFile(page, 'products_export.csv', GOOD_CSV);
    await page.getByRole('checkbox', { name: 'Check only (dry run)' }).check();
    await screenshot(page, 'imports');
    await assertAccessible(page, 'the Import screen with an import listed');
    await row.getByRole('link', { name: 'products_export.csv' }).click();
    await page.getByRole('heading', { level: 1, name: 'Import of products_export.csv' }).waitFor();
    await page.getByText('The import is complete.').waitFor();

    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a check only of a file with bad rows lists them and writes nothing; an empty file is refused', async () => {
    const shop = await openShop(h.live);
    const { context, page, problems } = await signedInPage(h, shop.shop);

    await openScreen(page, 'Import', 'Import');
    // An empty file: the API's problem (400) in an alert at the form, and the form kept.
    await chooseFile(page, 'empty.csv', '');
    await page.getByRole('button', { name: 'Upload' }).click();
    const alert = page.getByRole('form', { name: 'Upload a CSV file' }).getByRole('alert');
    await alert.getByText('The import form is invalid.').waitFor();
    await page.getByRole('heading', { level: 1, name: 'Import' }).waitFor();

    await chooseFile(page, 'bad.csv', BAD_CSV);
    await page.getByRole('checkbox', { name: 'Check only (dry run)' }).check();
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByRole('heading', { level: 1, name: 'Import of bad.csv' }).waitFor();
    await page.getByRole('table', { name: 'Rows with problems' }).waitFor({ timeout: 20_000 });
    await page
      .getByText('2 rows have problems (listed below). This was a check only: nothing was written.')
      .waitFor();
    assert.deepEqual(await bodyRows(page, 'Rows with problems'), [
      ['3', 'Variant Price', 'is required for every variant'],
      ['4', 'Status', 'must be active, draft or archived'],
    ]);
    assert.equal(
      await page.locator('.import-facts dd').nth(1).textContent(),
      'Check only (nothing is written)',
    );
    assert.equal(await page.locator('.import-summary').count(), 0, 'no result counts for a check');
    await assertAccessible(page, 'a check with bad rows');
    assert.deepEqual(await productHandles(shop), [], 'nothing was written');

    // The same file imported for real: failed, nothing written, the same rows listed.
    await page.getByRole('link', { name: 'Import another file' }).click();
    await page.getByRole('heading', { level: 1, name: 'Import' }).waitFor();
    await chooseFile(page, 'bad.csv', BAD_CSV);
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByRole('heading', { level: 1, name: 'Import of bad.csv' }).waitFor();
    const failed = page.getByRole('alert').filter({ hasText: 'Nothing was written.' });
    await failed.waitFor({ timeout: 20_000 });
    assert.equal(
      (await failed.textContent())?.trim(),
      '2 rows have problems (listed below).Nothing was written. Fix the file and upload it again.',
    );
    assert.equal((await bodyRows(page, 'Rows with problems')).length, 2);
    assert.deepEqual(await productHandles(shop), [], 'a failed import writes nothing');

    assert.deepEqual(problems, []);
    await context.close();
  });

  test('Export CSV downloads the products and the customers as the API writes them', async () => {
    const shop = await openShop(h.live);
    await shop.admin.products.create({
      title: 'Enamel Mug',
      handle: 'enamel-mug',
      status: 'active',
      variants: [{ label: 'One', sku: 'MUG-9', priceAmount: 1250, onHand: 6 }],
    });
    const { context, page, problems } = await signedInPage(h, shop.shop);

    await openScreen(page, 'Products', 'Products');
    await page.getByRole('link', { name: 'Enamel Mug' }).waitFor();
    const exportButton = page.getByRole('button', { name: 'Export CSV' });
    const [download] = await Promise.all([page.waitForEvent('download'), exportButton.click()]);
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(download.suggestedFilename(), `products-${today}.csv`);
    const file = await download.path();
    const lines = fs.readFileSync(file, 'utf8').trim().split(/\r?\n/);
    const header = lines[0]!.split(',');
    assert.deepEqual(header.slice(0, 3), ['Handle', 'Title', 'Body (HTML)']);
    assert.equal(lines.length, 2, 'the header and one row per variant');
    const row = lines[1]!.split(',');
    const cell = (name: string) => row[header.indexOf(name)];
    assert.deepEqual(
      [
        cell('Handle'),
        cell('Title'),
        cell('Variant SKU'),
        cell('Variant Price'),
        cell('Variant Inventory Qty'),
      ],
      ['enamel-mug', 'Enamel Mug', 'MUG-9', '12.50', '6'],
    );
    await page
      .getByRole('status')
      .filter({ hasText: `Downloaded products-${today}.csv.` })
      .waitFor();
    assert.equal(await exportButton.isEnabled(), true);

    // Customers: Shopify's customer CSV (no customers yet: the header alone).
    await openScreen(page, 'Customers', 'Customers');
    const [customers] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    assert.equal(customers.suggestedFilename(), `customers-${today}.csv`);
    const customerLines = fs
      .readFileSync(await customers.path(), 'utf8')
      .trim()
      .split(/\r?\n/);
    assert.deepEqual(customerLines[0]!.split(',').slice(0, 3), ['First Name', 'Last Name', 'Email']);
    assert.equal(customerLines.length, 1);
    await page.getByRole('main').getByRole('link', { name: 'Import', exact: true }).waitFor();

    // Orders: the button is there too.
    await openScreen(page, 'Orders', 'Orders');
    await page.getByRole('button', { name: 'Export CSV' }).waitFor();
    await assertAccessible(page, 'the orders list with Export CSV');

    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a staff member sees no Import or Export CSV, and the Import screen says who may use it', async () => {
    const shop = await openShop(h.live);
    await shop.admin.products.create({
      title: 'Tea Towel',
      status: 'active',
      variants: [{ label: 'One', priceAmount: 900, onHand: 3 }],
    });
    const clerk = 'clerk@example.com';
    await shop.admin.request('adminAddStaffMember', { body: { email: clerk, role: 'staff' } });
    const { context, page, problems } = await signedInPage(h, { ...shop.shop, ownerEmail: clerk });

    // The Import screen says who may use it (once the member's role has been read)…
    await openScreen(page, 'Import', 'Import');
    await page
      .getByText('Only owners and admins can import and export. Your role is staff.', { exact: false })
      .waitFor();
    assert.equal(await page.getByLabel('CSV file', { exact: true }).count(), 0);
    assert.equal(await page.getByRole('table', { name: 'Imports, newest first' }).count(), 0);
    // …and the lists, with that role known, show neither button.
    for (const [link, item] of [
      ['Products', 'Tea Towel'],
      ['Customers', null],
      ['Orders', null],
    ] as const) {
      await openScreen(page, link, link);
      if (item) await page.getByRole('link', { name: item }).waitFor();
      await page.getByRole('main').getByRole('search').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Export CSV' }).count(), 0, link);
      assert.equal(
        await page.getByRole('main').getByRole('link', { name: 'Import', exact: true }).count(),
        0,
        link,
      );
    }

    assert.deepEqual(problems, []);
    await context.close();
  });
});
