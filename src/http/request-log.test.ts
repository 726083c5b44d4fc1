/**
 * Personal data never reaches the log through a request's URL (decision `request-log-lines`): the
 * console's customer and order searches (`?q=<email or name>`), a shopper's sign-in, 404s, 405s,
 * validation and framework refusals are logged by route pattern and path with the query values
 * redacted. The whole captured log is searched for the emails and names afterwards.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ShopDriver } from '../orders/orders.test-support.ts';
import { startTestApp, waitForMail, type TestApp } from '../test/harness.ts';
import { REDACTED, redactedUrl } from './request-log.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp({ workers: true });
});
after(() => t.close());

const EMAIL = 'vicky.victim@example.com';
const NAME = 'Vicky Quasimodo';
/** Every form the secrets may take in a URL or a line. */
const SECRETS = [EMAIL, encodeURIComponent(EMAIL), 'vicky.victim', 'Quasimodo', encodeURIComponent(NAME)];

describe('request URLs in the log', () => {
  test('redactedUrl keeps the path and the parameter names, never a value or an email in a segment', () => {
    assert.equal(redactedUrl('/admin/v1/customers'), '/admin/v1/customers');
    assert.equal(
      redactedUrl('/admin/v1/customers?q=vicky%40example.com&limit=5&flag'),
      `/admin/v1/customers?q=${REDACTED}&limit=${REDACTED}&flag=${REDACTED}`,
    );
    assert.equal(redactedUrl('/x/vicky@example.com/y?'), `/x/${REDACTED}/y`);
    assert.equal(redactedUrl('/x/vicky%40example.com'), `/x/${REDACTED}`);
    assert.equal(redactedUrl('/x?vicky%40example.com'), `/x?${REDACTED}`);
  });

  test('searches, checkout, sign-in, 404s and refusals write no email or name to the log', async () => {
    const driver = await ShopDriver.open(t);
    const variantId = await driver.variant(5);
    const placed = await driver.checkout({
      cartId: await driver.cart([{ variantId, quantity: 1 }]),
      email: EMAIL,
    });
    assert.equal(placed.statusCode, 201, placed.body);

    const q = (text: string) => encodeURIComponent(text);
    const answers = [
      await driver.admin('GET', `/customers?q=${q(EMAIL)}`),
      await driver.admin('GET', `/customers?q=${q(NAME)}&limit=5`),
      await driver.admin('GET', `/orders?q=${q(EMAIL)}`),
      await driver.admin('GET', `/orders?q=${q(NAME)}`),
      // A refusal by the schema, with the value in the query.
      await driver.admin('GET', `/customers?q=${q(EMAIL)}&limit=lots`),
      // 404 and 405, with the email in the path and the query.
      await driver.admin('GET', `/customers/by-email/${EMAIL}?email=${q(EMAIL)}`),
      await driver.admin('PUT', `/customers?q=${q(EMAIL)}`),
      // The router's own refusal (bad percent-encoding) before any route.
      await t.app.inject({ url: `/storefront/v1/products/%E0%A4%A?q=${q(EMAIL)}` }),
      await driver.storefront('POST', '/customers/sign-in', { email: EMAIL }),
    ];
    assert.deepEqual(
      answers.map((answer) => answer.statusCode),
      [200, 200, 200, 200, 400, 404, 405, 400, 202],
    );
    assert.equal(answers[0]!.json<{ items: unknown[] }>().items.length, 1, 'the search finds the customer');
    await waitForMail(t, EMAIL);

    const log = JSON.stringify(t.logs);
    for (const secret of SECRETS) assert.ok(!log.includes(secret), `"${secret}" is not in the log`);
    // What is logged instead: the route and the path, the parameter names kept.
    const incoming = t.logs.filter((line) => line.msg === 'incoming request').map((line) => line.req);
    assert.ok(
      incoming.some(
        (req) =>
          JSON.stringify(req) ===
          JSON.stringify({
            ...(req as object),
            method: 'GET',
            route: '/admin/v1/customers',
            url: `/admin/v1/customers?q=${REDACTED}&limit=${REDACTED}`,
          }),
      ),
      JSON.stringify(incoming),
    );
    assert.ok(
      incoming.some(
        (req) =>
          (req as { url: string }).url === `/admin/v1/customers/by-email/${REDACTED}?email=${REDACTED}`,
      ),
    );
  });
});
