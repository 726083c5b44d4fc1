/** The console's shell in Chromium: served at /admin with strict headers, sign-in through the dev mailbox, sign-out, expiry. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startedForFile } from '../../client/test/server.test-support.ts';
import {
  assertAccessible,
  newPage,
  newStore,
  screenshot,
  signedInPage,
  signIn,
  startConsole,
} from './browser.test-support.ts';

const h = startedForFile(startConsole);

describe('the console', () => {
  test('is served at /admin with a CSP without inline scripts, deep links answer the app, API 404s stay problems', async () => {
    const page = await fetch(`${h.live.baseUrl}/admin/orders/123`);
    assert.equal(page.status, 200);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:\/\/(?!\*)/);
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    const html = await page.text();
    assert.match(html, /<div id="root">/);
    assert.doesNotMatch(html, /<script>(?!<\/script>)|<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');

    const api = await fetch(`${h.live.baseUrl}/admin/v1/nothing-here`);
    assert.equal(api.status, 404);
    assert.equal(api.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    const asset = await fetch(`${h.live.baseUrl}/admin/assets/missing.js`);
    assert.equal(asset.status, 404);
  });

  test('sign in through the dev mailbox, see the home screen, sign out', async () => {
    const store = await newStore(h);
    const { context, page, problems } = await newPage(h);
    await page.goto('/admin/');
    await assertAccessible(page, 'sign-in');
    await screenshot(page, 'sign-in');
    await signIn(page, store);
    // The slug shows until the store's settings arrive, then its name.
    await page.locator('.store-name', { hasText: store.store.name }).waitFor();
    assert.equal(await page.locator('.store-name').textContent(), store.store.name);
    await assertAccessible(page, 'home');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You signed out.').waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('an expired session returns to sign-in with a message', async () => {
    const store = await newStore(h);
    const { context, page, problems } = await signedInPage(h, store);
    // The session ends on the server (as expiry would): the next call is a 401.
    await page.evaluate(() => {
      const raw = localStorage.getItem('storefront.console.session')!;
      localStorage.setItem(
        'storefront.console.session',
        JSON.stringify({ ...JSON.parse(raw), token: 'st_expired' }),
      );
    });
    await page.reload();
    await page.getByText('Your session has expired. Sign in again to continue.').waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('is usable at 375 px: the menu opens and navigates', async () => {
    const store = await newStore(h);
    const { context, page } = await signedInPage(h, store, { width: 375, height: 740 });
    const menu = page.getByRole('button', { name: 'Menu' });
    await menu.click();
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Orders' }).click();
    await page.getByRole('heading', { level: 1, name: 'Orders' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/admin/orders');
    // The menu closes after navigating (on React's next render).
    await page.locator('.menu-toggle[aria-expanded="false"]').waitFor();
    await context.close();
  });
});
