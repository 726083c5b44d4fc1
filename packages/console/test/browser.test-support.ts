/**
 * Browser tests of the console: Debian's Chromium driven by playwright-core against the real
 * service (the repository's test harness listening on a loopback port, with its worker loops, so
 * mail is really written and read back through the dev mailbox). `.ci/run` installs chromium with
 * apt-get when it is missing; locally: `apt-get install chromium`.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startLiveApp, type LiveApp } from '../../client/test/server.test-support.ts';
import { createTestStore, type TestStore } from '../../../src/test/harness.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The flags the issue names: headless, no sandbox (root in CI), nothing reaching the network. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];

export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not at ${CHROMIUM}: install it with \`apt-get install chromium\` (.ci/run does), or set CHROMIUM_PATH.`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

export interface ConsoleHarness {
  live: LiveApp;
  browser: Browser;
  close(): Promise<void>;
}

export async function startConsole(): Promise<ConsoleHarness> {
  const live = await startLiveApp();
  const browser = await launchBrowser();
  return {
    live,
    browser,
    async close() {
      await browser.close();
      await live.close();
    },
  };
}

/** A new browser context (own storage) and page, failing the test on any page error or CSP violation. */
export async function newPage(
  h: ConsoleHarness,
  options: { width?: number; height?: number } = {},
): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await h.browser.newContext({
    baseURL: h.live.baseUrl,
    viewport: { width: options.width ?? 1280, height: options.height ?? 860 },
    locale: 'en-US',
    timezoneId: 'UTC',
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) {
      problems.push(`console: ${message.text()}`);
    }
  });
  // Nothing leaves the machine: any request to another origin fails the test.
  await context.route(/^(?!http:\/\/127\.0\.0\.1:\d+\/)/, async (route) => {
    problems.push(`external request: ${route.request().url()}`);
    await route.abort();
  });
  return { context, page, problems };
}

/** Signs in as the store's owner through the form and the dev mailbox, as a developer would. */
export async function signIn(page: Page, store: TestStore): Promise<void> {
  await page.goto('/admin/');
  await page.getByLabel('Store handle').fill(store.store.slug);
  await page.getByLabel('Email').fill(store.ownerEmail);
  await page.getByRole('button', { name: 'Email me a sign-in code' }).click();
  const useCode = page.getByRole('button', { name: /^Use code \d{6}$/ });
  await useCode.first().waitFor({ timeout: 45_000 });
  await useCode.first().click();
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** A new page (see `newPage`) signed in as the store's owner (see `signIn`). */
export async function signedInPage(
  h: ConsoleHarness,
  store: TestStore,
  options: { width?: number; height?: number } = {},
): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const opened = await newPage(h, options);
  await signIn(opened.page, store);
  return opened;
}

/** Opens a screen by its link in the console's navigation and waits for the screen's heading. */
export async function openScreen(page: Page, link: string, heading: string): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Console' })
    .getByRole('link', { name: link, exact: true })
    .click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

export async function newStore(h: ConsoleHarness, input: { currency?: string } = {}): Promise<TestStore> {
  return createTestStore(h.live.t, input);
}

/** Polls `probe` every 50 ms until it gives a value (not undefined or false); fails after 10 s. */
export async function until<T>(probe: () => Promise<T | undefined | false>, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** axe-core on the page: no serious or critical violation (WCAG 2.1 A and AA rules). */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    [],
    `${what}: accessibility violations`,
  );
}

/**
 * Saves a screenshot for the docs when SCREENSHOTS=1 (docs/screenshots/<app>-<name>.png): the
 * viewport, or with `fullPage` the whole page (the shop's footer is never in its first screen).
 */
export async function screenshot(
  page: Page,
  name: string,
  app: 'console' | 'shop' = 'console',
  { fullPage = false }: { fullPage?: boolean } = {},
): Promise<void> {
  if (process.env.SCREENSHOTS !== '1') return;
  const dir = path.resolve(import.meta.dirname, '..', '..', '..', 'docs', 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${app}-${name}.png`), fullPage });
}
