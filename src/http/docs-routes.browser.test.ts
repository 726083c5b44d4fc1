/**
 * The API reference at /docs in a real browser (Debian's Chromium through playwright-core), under
 * its own Content-Security-Policy: the reference must render and load the document, with no CSP
 * violation, no page error and no request to another origin.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  newPage,
  startConsole,
  type ConsoleHarness,
} from '../../packages/console/test/browser.test-support.ts';

let h: ConsoleHarness;
before(async () => {
  h = await startConsole();
});
after(() => h.close());

describe('/docs in Chromium', () => {
  test('renders the reference under its CSP: nothing refused, nothing from elsewhere', async () => {
    const { context, page, problems } = await newPage(h);
    try {
      // Generous: the reference's script is 4 MB, and a busy CI machine parses it slowly.
      const documentRequest = page.waitForResponse((answer) => answer.url().endsWith('/openapi.json'), {
        timeout: 120_000,
      });
      const response = await page.goto('/docs/');
      assert.equal(response?.status(), 200);
      assert.match(response?.headers()['content-security-policy'] ?? '', /frame-ancestors 'none'/);
      assert.equal((await documentRequest).status(), 200);
      // The reference rendered the document: its title, and its operations in the navigation.
      await page.getByRole('heading', { name: 'Storefront API', level: 1 }).waitFor({ timeout: 60_000 });
      await page.getByText('Storefront: checkout', { exact: true }).first().waitFor({ timeout: 60_000 });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
