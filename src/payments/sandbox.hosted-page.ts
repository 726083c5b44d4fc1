import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { contentSecurityPolicy, pageSecurityHeaders } from '../http/security-headers.ts';
import { escapeHtml } from '../lib/html.ts';
import { formatMoney } from '../lib/money.ts';
import type { IntentStatus } from './provider.ts';
import type { PaymentMethod, SandboxIntent } from './sandbox.provider.ts';

/**
 * The sandbox provider's hosted payment page (HTML, no JavaScript): what a provider's hosted fields
 * are to a real shop. The shop posts the shopper here with the client secret in a form body; the
 * shopper picks a test card; the page confirms the intent and sends the shopper back to the shop's
 * return URL with `payment_intent` and `redirect_status` (Stripe's names). Rendering only: the
 * routes are in payments.routes.ts.
 */

export const HOSTED_PAGE_PATH = '/sandbox/v1/payments';
export const HOSTED_CSS_PATH = '/sandbox/v1/hosted.css';
export const HOSTED_ICON_PATH = '/sandbox/v1/favicon.svg';

/** A file the pages load from this server: its body, type, and validator. */
export interface HostedAsset {
  path: string;
  body: string;
  contentType: string;
  etag: string;
}

/** How long browsers may keep a hosted asset. */
export const HOSTED_ASSET_CACHE_CONTROL = 'public, max-age=3600';

function hostedAsset(path: string, file: string, contentType: string): HostedAsset {
  const body = fs.readFileSync(new URL(file, import.meta.url), 'utf8');
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { path, body, contentType, etag };
}

/**
 * The stylesheet and the icon (files beside this one). The page names its icon, so browsers do not
 * ask for `/favicon.ico`, which is the shop's (or nobody's) and would be a 404 here.
 */
export const HOSTED_ASSETS: readonly HostedAsset[] = [
  hostedAsset(HOSTED_CSS_PATH, './sandbox.hosted-page.css', 'text/css; charset=utf-8'),
  hostedAsset(HOSTED_ICON_PATH, './sandbox.hosted-page.svg', 'image/svg+xml'),
];

/** The test cards, in the order the page lists them; the first is chosen by default. */
export const TEST_CARDS: readonly { method: PaymentMethod; label: string }[] = [
  { method: 'pm_card_visa', label: 'Visa •••• 4242 — succeeds' },
  { method: 'pm_card_declined', label: 'Visa •••• 0002 — declined' },
  { method: 'pm_card_delayed', label: 'Visa •••• 3220 — succeeds after a delay' },
];

/** Where the shopper goes back to: `href` as it will be used, `origin` when it is another site. */
export interface ReturnUrl {
  href: string;
  /** The origin of an absolute URL (for the page's form-action); null for a path on this server. */
  origin: string | null;
}

const MAX_RETURN_URL = 2048;
const RELATIVE_BASE = 'http://relative.invalid';

/**
 * Reads a return URL: an absolute http(s) URL without credentials, or a path starting with exactly
 * one `/`. Whitespace, control characters and backslashes are refused outright (browsers drop or
 * rewrite them, which turns `/\t/evil.example` or `/\evil.example` into another site). Returns the
 * normalised URL, or null when it is none of these.
 */
export function parseReturnUrl(raw: string): ReturnUrl | null {
  // eslint-disable-next-line no-control-regex
  if (raw.length === 0 || raw.length > MAX_RETURN_URL || /[\u0000-\u0020\u007f\\]/.test(raw)) return null;
  if (raw.startsWith('/')) {
    if (raw.startsWith('//')) return null;
    const url = new URL(raw, RELATIVE_BASE);
    if (url.origin !== RELATIVE_BASE) return null;
    return { href: `${url.pathname}${url.search}${url.hash}`, origin: null };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username !== '' || url.password !== '' || url.hostname === '') return null;
  return { href: url.href, origin: url.origin };
}

/**
 * `href` with `params` added to its query. The existing parameters are kept byte for byte (only
 * earlier values of the names added are dropped), and so is the fragment.
 */
export function withParams(href: string, params: Record<string, string>): string {
  const hashAt = href.indexOf('#');
  const fragment = hashAt === -1 ? '' : href.slice(hashAt);
  const beforeFragment = hashAt === -1 ? href : href.slice(0, hashAt);
  const queryAt = beforeFragment.indexOf('?');
  const path = queryAt === -1 ? beforeFragment : beforeFragment.slice(0, queryAt);
  const query = queryAt === -1 ? '' : beforeFragment.slice(queryAt + 1);
  const added = new Set(Object.keys(params));
  const kept = query
    .split('&')
    .filter((pair) => pair !== '' && !added.has(new URLSearchParams(pair).keys().next().value ?? ''));
  return `${path}?${[...kept, new URLSearchParams(params).toString()].join('&')}${fragment}`;
}

/** What `redirect_status` a return to the shop carries (Stripe's values, plus `canceled`). */
export type RedirectStatus = 'succeeded' | 'processing' | 'canceled';

/** The return URL of a payment with its outcome appended. */
export function returnLink(returnUrl: ReturnUrl, ref: string, status: RedirectStatus): string {
  return withParams(returnUrl.href, { payment_intent: ref, redirect_status: status });
}

/** The headers of every HTML answer: nothing runs, nothing loads from elsewhere, nothing is kept. */
export function pageHeaders(returnUrl: ReturnUrl | null): Record<string, string> {
  const csp = contentSecurityPolicy({
    'default-src': ["'none'"],
    'style-src': ["'self'"],
    'img-src': ["'self'"],
    // The form posts here, and the answer redirects to the shop (form-action covers the redirect).
    'form-action': ["'self'", ...(returnUrl?.origin ? [returnUrl.origin] : [])],
  });
  return {
    'content-type': 'text/html; charset=utf-8',
    ...pageSecurityHeaders(csp),
    'cache-control': 'no-store',
  };
}

/** An HTML document in the hosted pages' style (its stylesheet and icon); the pay link's page uses it too. */
export function hostedDocument(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${HOSTED_CSS_PATH}">
<link rel="icon" href="${HOSTED_ICON_PATH}" type="image/svg+xml">
</head>
<body>
<main class="panel">
${body}
</main>
</body>
</html>
`;
}

function layout(title: string, body: string): string {
  return hostedDocument(
    title,
    `<header class="masthead">
<p class="badge">Test mode</p>
<h1>Sandbox payment</h1>
<p class="note">This page belongs to the sandbox payment provider. No real card is charged and no money moves.</p>
</header>
${body}`,
  );
}

export interface PaymentPage {
  intent: SandboxIntent;
  clientSecret: string;
  returnUrl: ReturnUrl;
  /** The card to show as chosen (the default: the first test card). */
  method?: PaymentMethod;
  /** The last attempt was declined: say so, and let the shopper choose again. */
  declined?: boolean;
}

/** The payment form: amount, the three test cards, Pay, and a way back to the shop. */
export function renderPaymentPage(page: PaymentPage): string {
  const { intent, returnUrl } = page;
  const amount = formatMoney({ amount: intent.amount, currency: intent.currency });
  const chosen = page.method ?? TEST_CARDS[0]!.method;
  const cards = TEST_CARDS.map(
    ({ method, label }) =>
      `<div class="choice"><input type="radio" id="${method}" name="payment_method" value="${method}"${method === chosen ? ' checked' : ''}><label for="${method}">${escapeHtml(label)}</label></div>`,
  ).join('\n');
  const alert = page.declined
    ? '<p class="alert" role="alert">Your card was declined. Try another card.</p>\n'
    : '';
  const action = `${HOSTED_PAGE_PATH}/${encodeURIComponent(intent.ref)}/hosted-confirm`;
  return layout(
    `${page.declined ? 'Card declined: ' : ''}Pay ${amount} (sandbox)`,
    `<p class="amount">Amount due <strong>${escapeHtml(amount)}</strong></p>
${alert}<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="client_secret" value="${escapeHtml(page.clientSecret)}">
<input type="hidden" name="return_url" value="${escapeHtml(returnUrl.href)}">
<fieldset>
<legend>Choose a test card</legend>
${cards}
</fieldset>
<button type="submit">Pay ${escapeHtml(amount)}</button>
</form>
<p class="back"><a href="${escapeHtml(returnLink(returnUrl, intent.ref, 'canceled'))}">Cancel and return to the shop</a></p>`,
  );
}

/** A page that only says something, with an optional link. */
export function renderMessagePage(message: {
  title: string;
  text: string;
  link?: { href: string; label: string };
}): string {
  const link = message.link
    ? `\n<p class="back"><a href="${escapeHtml(message.link.href)}">${escapeHtml(message.link.label)}</a></p>`
    : '';
  return layout(
    `${message.title} (sandbox payment)`,
    `<h2>${escapeHtml(message.title)}</h2>\n<p>${escapeHtml(message.text)}</p>${link}`,
  );
}

const NOT_CONFIRMABLE: Partial<Record<IntentStatus, string>> = {
  succeeded: 'This payment has already been made.',
  processing: 'This payment is already being processed.',
  canceled: 'This payment was canceled (the order may have expired).',
};

/** The redirect status of an intent that can no longer be confirmed. */
export function redirectStatusOf(status: IntentStatus | undefined): RedirectStatus {
  return status === 'succeeded' || status === 'processing' ? status : 'canceled';
}

/** 409: the intent is paid, being paid or canceled; back to the shop, which tells the shopper more. */
export function renderNotConfirmable(
  ref: string,
  status: IntentStatus | undefined,
  returnUrl: ReturnUrl,
): string {
  return renderMessagePage({
    title: 'This payment can no longer be confirmed',
    text: (status && NOT_CONFIRMABLE[status]) ?? 'This payment changed while it was being confirmed.',
    link: { href: returnLink(returnUrl, ref, redirectStatusOf(status)), label: 'Return to the shop' },
  });
}

/** 404: whatever was wrong (the ref, the client secret), the page says only this. */
export const INVALID_LINK_PAGE = renderMessagePage({
  title: 'This payment link is invalid',
  text: 'Go back to the shop and start the payment again from its checkout.',
});

/** GET: the page is opened by the shop's checkout form (a POST), never by address. */
export const OPEN_FROM_CHECKOUT_PAGE = renderMessagePage({
  title: 'Open this page from the shop’s checkout',
  text: 'The sandbox payment page is opened by the shop’s checkout, which sends the payment’s details along. Go back to the shop and pay from its checkout.',
});
