/**
 * The sandbox's hosted payment page, over HTTP as a browser drives it: the shop's checkout form
 * opens it, the shopper picks a test card, the page's own form confirms and the shopper lands back
 * on the shop's return URL; the order follows through the signed webhook.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ShopDriver, type CheckoutBody } from '../orders/orders.test-support.ts';
import { startTestApp, testConfig, waitFor, type TestApp } from '../test/harness.ts';
import { escapeHtml } from '../lib/html.ts';
import { INVALID_LINK_PAGE, renderPaymentPage, withParams } from './sandbox.hosted-page.ts';

const RETURN_URL = 'https://shop.example/checkout/return?order=abc';
const CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self' https://shop.example; frame-ancestors 'none'";

let t: TestApp;
let shop: ShopDriver;
let variantId: string;
before(async () => {
  t = await startTestApp({ config: { payments: { ...testConfig().payments, sandboxDelayMs: 150 } } });
  shop = await ShopDriver.open(t);
  variantId = await shop.variant(100, 1999);
});
after(() => t.close());

type Fields = Record<string, string>;

/** A form post, as a browser sends it. */
function post(url: string, fields: Fields | string, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: typeof fields === 'string' ? fields : new URLSearchParams(fields).toString(),
  });
}

/** What the shop's checkout form sends to open the page. */
const open = (bought: CheckoutBody, returnUrl = RETURN_URL, clientSecret = bought.payment.clientSecret) =>
  post(`/sandbox/v1/payments/${bought.payment.ref}`, { client_secret: clientSecret, return_url: returnUrl });

const unescape = (text: string) =>
  text
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');

/** The page's form as a browser reads it: where it posts and its hidden fields. */
function formOf(html: string): { action: string; hidden: Fields; methods: string[]; checked: string[] } {
  const action = /<form method="post" action="([^"]*)">/.exec(html)?.[1];
  assert.ok(action, 'the page has a POST form');
  const hidden: Fields = {};
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    hidden[name!] = unescape(value!);
  const radios = [...html.matchAll(/<input type="radio"[^>]*name="payment_method" value="([^"]+)"([^>]*)>/g)];
  return {
    action: unescape(action),
    hidden,
    methods: radios.map((match) => match[1]!),
    checked: radios.filter((match) => match[2]!.includes('checked')).map((match) => match[1]!),
  };
}

/** Submits the page's form with a test card, as the shopper's browser does. */
function pay(html: string, method: string) {
  const form = formOf(html);
  return post(form.action, { ...form.hidden, payment_method: method });
}

function assertHtml(response: { headers: Record<string, unknown> }, csp = CSP) {
  assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
  assert.equal(response.headers['content-security-policy'], csp);
  assert.equal(response.headers['x-content-type-options'], 'nosniff');
  assert.equal(response.headers['referrer-policy'], 'no-referrer');
  assert.equal(response.headers['x-frame-options'], 'DENY');
  assert.equal(response.headers['cache-control'], 'no-store');
}

const BARE_CSP = CSP.replace(' https://shop.example', '');

describe('opening the page', () => {
  test('it shows the amount, the three test cards (Visa 4242 chosen), Pay, Cancel, and locks the page down', async () => {
    const bought = await shop.buy(variantId);
    const response = await open(bought);
    assert.equal(response.statusCode, 200, response.body);
    assertHtml(response);
    const html = response.body;
    assert.match(html, /<h1>Sandbox payment<\/h1>/);
    assert.match(html, /No real card is charged/);
    assert.match(html, /Amount due <strong>\$19\.99<\/strong>/);
    assert.match(html, /<button type="submit">Pay \$19\.99<\/button>/);
    assert.match(html, /<fieldset>\n<legend>Choose a test card<\/legend>/);
    for (const label of [
      'Visa •••• 4242 — succeeds',
      'Visa •••• 0002 — declined',
      'Visa •••• 3220 — succeeds after a delay',
    ]) {
      assert.ok(html.includes(`>${label}</label>`), label);
    }
    const form = formOf(html);
    assert.equal(form.action, `/sandbox/v1/payments/${bought.payment.ref}/hosted-confirm`);
    assert.deepEqual(form.hidden, { client_secret: bought.payment.clientSecret, return_url: RETURN_URL });
    assert.deepEqual(form.methods, ['pm_card_visa', 'pm_card_declined', 'pm_card_delayed']);
    assert.deepEqual(form.checked, ['pm_card_visa']);
    assert.ok(
      html.includes(
        `<a href="https://shop.example/checkout/return?order=abc&amp;payment_intent=${bought.payment.ref}&amp;redirect_status=canceled">Cancel and return to the shop</a>`,
      ),
      'the cancel link keeps the shop’s query and adds the outcome',
    );
    assert.match(html, /<link rel="stylesheet" href="\/sandbox\/v1\/hosted\.css">/);
    // Its own icon, so the browser does not ask this server for /favicon.ico (a 404).
    assert.match(html, /<link rel="icon" href="\/sandbox\/v1\/favicon\.svg" type="image\/svg\+xml">/);
    assert.doesNotMatch(html, /<script|<style|\sstyle=|\son[a-z]+=|https?:\/\/(?!shop\.example)/i);
  });

  test('a wrong client secret, an unknown ref and a malformed ref all get the same 404 page, with no detail', async () => {
    const bought = await shop.buy(variantId);
    const wrongSecret = await open(bought, RETURN_URL, `${bought.payment.clientSecret}x`);
    const unknownRef = await post('/sandbox/v1/payments/pi_sbx_nope', {
      client_secret: bought.payment.clientSecret,
      return_url: RETURN_URL,
    });
    const malformedRef = await post('/sandbox/v1/payments/not-a-ref', {
      client_secret: bought.payment.clientSecret,
      return_url: RETURN_URL,
    });
    for (const response of [wrongSecret, unknownRef, malformedRef]) {
      assert.equal(response.statusCode, 404, response.body);
      assertHtml(response, BARE_CSP);
      assert.match(response.body, /This payment link is invalid/);
      assert.doesNotMatch(response.body, /secret|\bref\b|pi_sbx|<form/i);
      assert.equal(response.body, wrongSecret.body);
    }
  });

  test('a return_url that is not an absolute http(s) URL or a path starting with one / is 400', async () => {
    const bought = await shop.buy(variantId);
    for (const returnUrl of [
      'javascript:alert(1)',
      'data:text/html,hi',
      'ftp://shop.example/back',
      '//evil.example/back',
      '/\\evil.example/back',
      '/\t/evil.example',
      ' https://shop.example/back',
      'https://user:pw@shop.example/back',
      'shop.example/back',
      'https://',
      `https://shop.example/${'x'.repeat(2100)}`,
    ]) {
      const response = await open(bought, returnUrl);
      assert.equal(response.statusCode, 400, `${returnUrl}: ${response.body}`);
      assertHtml(response, BARE_CSP);
      assert.match(response.body, /This payment request is not valid/);
      assert.doesNotMatch(response.body, /<form/);
    }
  });

  test('GET answers 405 with a page that says to open it from the checkout', async () => {
    const bought = await shop.buy(variantId);
    const response = await t.app.inject({ method: 'GET', url: `/sandbox/v1/payments/${bought.payment.ref}` });
    assert.equal(response.statusCode, 405);
    assert.equal(response.headers.allow, 'POST');
    assertHtml(response, BARE_CSP);
    assert.match(response.body, /Open this page from the shop’s checkout/);
  });

  test('a payment that already succeeded opens a 409 page that links back with its status', async () => {
    const bought = await shop.buy(variantId);
    await shop.confirm(bought);
    const response = await open(bought);
    assert.equal(response.statusCode, 409, response.body);
    assertHtml(response);
    assert.match(response.body, /This payment has already been made/);
    assert.ok(
      response.body.includes(
        `href="https://shop.example/checkout/return?order=abc&amp;payment_intent=${bought.payment.ref}&amp;redirect_status=succeeded"`,
      ),
    );
    assert.doesNotMatch(response.body, /<form/);
  });
});

describe('paying', () => {
  test('Visa 4242: 303 to return_url with payment_intent and redirect_status=succeeded; the order is paid', async () => {
    const bought = await shop.buy(variantId);
    const page = await open(bought);
    const response = await pay(page.body, 'pm_card_visa');
    assert.equal(response.statusCode, 303, response.body);
    assert.equal(
      response.headers.location,
      `https://shop.example/checkout/return?order=abc&payment_intent=${bought.payment.ref}&redirect_status=succeeded`,
    );
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.equal(response.headers['referrer-policy'], 'no-referrer');
    await shop.waitForStatus(bought.order.id, 'paid');

    // Paying again with the same card (a second click, the Back button, a retry after a lost
    // answer) is the same answer and pays nothing twice; another card is 409, back to the shop.
    const again = await pay(page.body, 'pm_card_visa');
    assert.equal(again.statusCode, 303, again.body);
    assert.equal(again.headers.location, response.headers.location);
    const other = await pay(page.body, 'pm_card_delayed');
    assert.equal(other.statusCode, 409, other.body);
    assert.match(other.body, /can no longer be confirmed/);
    assert.match(other.body, /redirect_status=succeeded/);
    const paid = await t.db.kysely
      .selectFrom('events')
      .select('id')
      .where('type', '=', 'order.paid')
      .where('resource_key', '=', `order:${bought.order.id}`)
      .execute();
    assert.equal(paid.length, 1, 'one order.paid');

    // The client secret went in bodies only; the request logs carry URLs.
    assert.ok(t.logs.some((line) => JSON.stringify(line).includes(bought.payment.ref)));
    assert.ok(!JSON.stringify(t.logs).includes(bought.payment.clientSecret), 'no client secret in the logs');
  });

  test('a path as return_url: the redirect stays on this server, keeping its query and fragment', async () => {
    const bought = await shop.buy(variantId);
    const page = await open(bought, '/shop/return?step=pay&x=a%20b#top');
    assert.equal(page.statusCode, 200, page.body);
    assertHtml(page, BARE_CSP);
    const response = await pay(page.body, 'pm_card_visa');
    assert.equal(response.statusCode, 303, response.body);
    assert.equal(
      response.headers.location,
      `/shop/return?step=pay&x=a%20b&payment_intent=${bought.payment.ref}&redirect_status=succeeded#top`,
    );
    await shop.waitForStatus(bought.order.id, 'paid');
  });

  test('declined: 402, the page again with an alert and the cards; the order stays pending; Visa then pays it', async () => {
    const bought = await shop.buy(variantId);
    const page = await open(bought);
    const declined = await pay(page.body, 'pm_card_declined');
    assert.equal(declined.statusCode, 402, declined.body);
    assertHtml(declined);
    assert.match(
      declined.body,
      /<p class="alert" role="alert">Your card was declined\. Try another card\.<\/p>/,
    );
    assert.match(declined.body, /<title>Card declined: /);
    const form = formOf(declined.body);
    assert.deepEqual(form.methods, ['pm_card_visa', 'pm_card_declined', 'pm_card_delayed']);
    assert.deepEqual(form.checked, ['pm_card_declined'], 'the card that was tried stays chosen');
    assert.deepEqual(form.hidden, { client_secret: bought.payment.clientSecret, return_url: RETURN_URL });
    await waitFor(async () => (await shop.order(bought.order.id)).payment.status === 'failed');
    assert.equal((await shop.order(bought.order.id)).status, 'pending');

    const paid = await pay(declined.body, 'pm_card_visa');
    assert.equal(paid.statusCode, 303, paid.body);
    assert.match(String(paid.headers.location), /&redirect_status=succeeded$/);
    await shop.waitForStatus(bought.order.id, 'paid');
  });

  test('Visa 3220 (delayed): 303 with redirect_status=processing, then the order is paid', async () => {
    const bought = await shop.buy(variantId);
    const response = await pay((await open(bought)).body, 'pm_card_delayed');
    assert.equal(response.statusCode, 303, response.body);
    assert.equal(
      response.headers.location,
      `https://shop.example/checkout/return?order=abc&payment_intent=${bought.payment.ref}&redirect_status=processing`,
    );
    await waitFor(async () => (await shop.order(bought.order.id)).payment.status === 'processing');
    await shop.waitForStatus(bought.order.id, 'paid');
  });

  test('an unknown payment_method is 400 and confirms nothing', async () => {
    const bought = await shop.buy(variantId);
    const form = formOf((await open(bought)).body);
    for (const method of ['pm_card_amex', '']) {
      const response = await post(form.action, { ...form.hidden, payment_method: method });
      assert.equal(response.statusCode, 400, response.body);
      assertHtml(response, BARE_CSP);
      assert.match(response.body, /The form field payment_method is missing or not valid/);
    }
    const missing = await post(form.action, form.hidden);
    assert.equal(missing.statusCode, 400);
    assert.match(missing.body, /payment_method/);
    const order = await shop.order(bought.order.id);
    assert.deepEqual([order.status, order.payment.status], ['pending', 'pending']);
  });

  test('a wrong client secret on confirm is the same 404 page and confirms nothing', async () => {
    const bought = await shop.buy(variantId);
    const response = await post(`/sandbox/v1/payments/${bought.payment.ref}/hosted-confirm`, {
      client_secret: 'pi_sbx_x_secret_y',
      return_url: RETURN_URL,
      payment_method: 'pm_card_visa',
    });
    assert.equal(response.statusCode, 404, response.body);
    assert.match(response.body, /This payment link is invalid/);
    assert.equal((await shop.order(bought.order.id)).payment.status, 'pending');
  });
});

describe('hostile input', () => {
  test('a return_url built to break out of the markup is escaped (or refused), never markup', async () => {
    const bought = await shop.buy(variantId);
    for (const returnUrl of [
      'https://shop.example/back?q="><script>alert(1)</script>&n=1',
      '/shop/it\'s"><img src=x onerror=alert(1)>',
      'https://shop.example/#"><script>alert(1)</script>',
    ]) {
      const response = await open(bought, returnUrl);
      assert.ok([200, 400].includes(response.statusCode), `${returnUrl}: ${response.statusCode}`);
      assert.doesNotMatch(response.body, /<script|<img|onerror=/i, returnUrl);
    }
    // Characters the URL keeps as they are are escaped in the page.
    const page = await open(bought, "/shop/it's?a=1&b=2");
    assert.equal(page.statusCode, 200, page.body);
    assert.ok(page.body.includes(`value="/shop/it&#39;s?a=1&amp;b=2"`), 'the hidden return_url is escaped');
    assert.deepEqual(formOf(page.body).hidden.return_url, "/shop/it's?a=1&b=2");
  });

  test('U+0000 in any form field, or in the path, is 400', async () => {
    const bought = await shop.buy(variantId);
    const base = `/sandbox/v1/payments/${bought.payment.ref}`;
    const secret = encodeURIComponent(bought.payment.clientSecret);
    for (const [url, body] of [
      [base, `client_secret=${secret}%00&return_url=%2Fshop`],
      [base, `client_secret=${secret}&return_url=%2Fshop%00`],
      [`${base}/hosted-confirm`, `client_secret=${secret}&return_url=%2Fshop&payment_method=pm_card_visa%00`],
      [
        `${base}/hosted-confirm`,
        `client_secret=${secret}&return_url=%2Fshop&payment_method=pm_card_visa&x%00=1`,
      ],
      [`/sandbox/v1/payments/pi_sbx_a%00b`, `client_secret=${secret}&return_url=%2Fshop`],
    ] as const) {
      const response = await post(url, body);
      assert.equal(response.statusCode, 400, `${url} ${body}: ${response.body}`);
      assert.match(String(response.headers['content-type']), /^text\/html/);
      assert.match(response.body, /NUL character/);
    }
    assert.equal((await shop.order(bought.order.id)).payment.status, 'pending');
  });

  test('only small form bodies: JSON is 415, over 8 KiB is 413, a field sent twice is 400 (all HTML)', async () => {
    const bought = await shop.buy(variantId);
    const url = `/sandbox/v1/payments/${bought.payment.ref}`;
    const json = await t.app.inject({
      method: 'POST',
      url,
      payload: { client_secret: bought.payment.clientSecret, return_url: RETURN_URL },
    });
    assert.equal(json.statusCode, 415, json.body);
    assert.match(json.body, /application\/x-www-form-urlencoded/);
    const large = await post(url, {
      client_secret: bought.payment.clientSecret,
      return_url: RETURN_URL,
      padding: 'x'.repeat(9000),
    });
    assert.equal(large.statusCode, 413, large.body);
    const twice = await post(
      url,
      `client_secret=${encodeURIComponent(bought.payment.clientSecret)}&return_url=%2Fa&return_url=%2Fb`,
    );
    assert.equal(twice.statusCode, 400, twice.body);
    assert.match(twice.body, /sent more than once/);
    for (const response of [json, large, twice]) {
      assertHtml(response, BARE_CSP);
    }
  });
});

describe('the stylesheet and the icon', () => {
  /** The asset answers 200 with its type, cacheable with an ETag (304 when unchanged), nosniff. */
  async function served(url: string, contentType: string): Promise<string> {
    const response = await t.app.inject({ method: 'GET', url });
    assert.equal(response.statusCode, 200, url);
    assert.equal(response.headers['content-type'], contentType);
    assert.equal(response.headers['cache-control'], 'public, max-age=3600');
    assert.equal(response.headers['x-content-type-options'], 'nosniff');
    const etag = String(response.headers.etag);
    const again = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': etag } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    return response.body;
  }

  test('the stylesheet is text/css, cacheable, and loads nothing from elsewhere', async () => {
    const css = await served('/sandbox/v1/hosted.css', 'text/css; charset=utf-8');
    assert.match(css, /:focus-visible/);
    assert.doesNotMatch(css, /@import|url\(/, 'nothing loaded from elsewhere');
  });

  test('the icon every page names is an SVG served here (no /favicon.ico 404), referring to nothing else', async () => {
    const icon = /<link rel="icon" href="([^"]+)" type="image\/svg\+xml">/.exec(INVALID_LINK_PAGE)?.[1];
    assert.equal(icon, '/sandbox/v1/favicon.svg', 'message pages name it too');
    const svg = await served(icon, 'image/svg+xml');
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>/);
    assert.doesNotMatch(svg, /href|url\(|<script|<foreignObject/i, 'nothing loaded, nothing run');
  });
});

describe('rendering', () => {
  test("amounts use the currency's own fraction digits, exactly", () => {
    const page = (amount: number, currency: string) =>
      renderPaymentPage({
        intent: { ref: 'pi_sbx_1', amount, currency, status: 'pending' },
        clientSecret: 's',
        returnUrl: { href: '/r', origin: null },
      });
    assert.match(page(500, 'JPY'), /Pay ¥500</);
    assert.match(page(1234567, 'KWD'), /Pay KWD\u00a01,234\.567</);
    assert.match(page(9_007_199_254_740_991, 'USD'), /Pay \$90,071,992,547,409\.91</);
  });

  test('escapeHtml and withParams', () => {
    assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    assert.equal(withParams('/r', { a: '1' }), '/r?a=1');
    assert.equal(withParams('/r?', { a: '1' }), '/r?a=1');
    assert.equal(
      withParams('https://s.example/r?x=a+b&redirect_status=old&y=%2F#f', { redirect_status: 'new' }),
      'https://s.example/r?x=a+b&y=%2F&redirect_status=new#f',
    );
  });
});

test('without the sandbox provider the page does not exist', async () => {
  const stripe = await startTestApp({
    db: t.db,
    config: {
      payments: {
        ...testConfig().payments,
        provider: 'stripe',
        stripeSecretKey: 'sk_test_hosted',
        stripeWebhookSecret: 'whsec_hosted',
      },
    },
  });
  try {
    for (const [method, url] of [
      ['POST', '/sandbox/v1/payments/pi_sbx_abc'],
      ['POST', '/sandbox/v1/payments/pi_sbx_abc/hosted-confirm'],
      ['GET', '/sandbox/v1/hosted.css'],
      ['GET', '/sandbox/v1/favicon.svg'],
    ] as const) {
      const response = await stripe.app.inject({
        method,
        url,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: method === 'POST' ? 'client_secret=x&return_url=%2F' : undefined,
      });
      assert.equal(response.statusCode, 404, `${method} ${url}`);
    }
  } finally {
    await stripe.close();
  }
});
