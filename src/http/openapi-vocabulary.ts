/**
 * The OpenAPI document's fixed vocabulary: what the API says of itself, its shared response
 * headers, its tags in reading order and its security schemes. openapi.ts refines the document
 * with them.
 */

type Json = Record<string, unknown>;

const DOCS_URL = 'https://github.com/storefront/storefront/tree/main/docs';
const API_DESCRIPTION = [
  'The **Storefront API** (`/storefront/v1`, a publishable key) serves a shop: catalog, content, carts and checkout. The **Admin API** (`/admin/v1`, a staff session) runs the store. Every change is also a signed webhook (see *Webhooks*).',
  '',
  'Conventions: money is integer minor units with a currency; lists are cursor pages (`limit`, `cursor`, `nextCursor`); errors are `application/problem+json` with a stable `title`; checkout needs an `Idempotency-Key`. Guides: api-conventions, checkout, catalog, webhooks, sdk (in `docs/`).',
].join('\n');

/** The document's `info` and `externalDocs`. */
export const API_INFO = {
  info: {
    title: 'Storefront API',
    version: '1.0.0',
    summary: 'Catalog, content, carts and checkout for shops; the Admin API for their staff.',
    description: API_DESCRIPTION,
  },
  externalDocs: { description: 'Guides (docs/ in the repository)', url: DOCS_URL },
};

export const HEADERS = {
  'X-Request-Id': {
    description:
      'The request id (yours from X-Request-Id if it was valid, else a new UUID); quote it in support requests.',
    schema: { type: 'string' },
  },
  'RateLimit-Limit': {
    description: "Requests allowed in the current window for this key's tier.",
    schema: { type: 'integer' },
  },
  'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
  ETag: {
    description:
      'Strong validator of this representation: send it as If-None-Match (reads) or If-Match (cart writes).',
    schema: { type: 'string' },
  },
  'Cache-Control': {
    description:
      'Catalog and content: `public, max-age=30, stale-while-revalidate=300`; carts and orders: `no-store`.',
    schema: { type: 'string' },
  },
  Location: {
    description: 'The URL of the created resource (201), or where to go next (303).',
    schema: { type: 'string' },
  },
  'Idempotent-Replayed': {
    description:
      '`true` when this answer is the stored answer to an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
} as const;

export type HeaderName = keyof typeof HEADERS;

export const headerRef = (name: HeaderName): Json => ({ $ref: `#/components/headers/${name}` });

/** Tags in reading order: the storefront first, then the admin, then operations. */
export const TAGS: readonly { name: string; description: string }[] = [
  { name: 'Storefront', description: 'The store itself: name, currency.' },
  {
    name: 'Storefront: catalog',
    description: 'Active products, variants and collections. Cacheable for 30 s (ETag, If-None-Match).',
  },
  { name: 'Storefront: content', description: 'Menus, pages and published regions (block trees).' },
  {
    name: 'Storefront: carts',
    description: 'Server-side carts: create, read with current prices, replace all lines (If-Match).',
  },
  {
    name: 'Storefront: checkout',
    description:
      'Turn a cart into a pending order and a payment intent (Idempotency-Key), then poll the order.',
  },
  { name: 'Admin: authentication', description: 'Staff sign-in by emailed code; session tokens.' },
  { name: 'Admin: staff', description: 'Staff members and their roles.' },
  { name: 'Admin: settings', description: 'Store name, currency, reply-to address.' },
  {
    name: 'Admin: imports and exports',
    description: 'CSV in and out: Shopify’s product and customer files, inventory counts, orders.',
  },
  { name: 'Admin: storefront keys', description: 'Publishable keys, their allowed origins and rate limits.' },
  { name: 'Admin: catalog', description: 'Products, variants (price, stock), collections.' },
  { name: 'Admin: media', description: 'Uploaded images (JPEG, PNG, WebP, AVIF, GIF) for products.' },
  { name: 'Admin: content', description: 'Menus, pages, regions (draft and publish).' },
  { name: 'Admin: themes', description: 'Themes and their publishing.' },
  { name: 'Admin: apps', description: 'Installed apps.' },
  {
    name: 'Admin: overview',
    description: "The console's home: today's orders and revenue, and what needs attention.",
  },
  { name: 'Admin: orders', description: 'Orders, payments and refunds.' },
  {
    name: 'Admin: discounts, tax and shipping',
    description: 'Discount codes; tax and flat shipping by country.',
  },
  {
    name: 'Admin: promotions',
    description: 'Code and automatic promotions: conditions, actions, combination rules, dates and limits.',
  },
  { name: 'Admin: webhooks', description: 'Endpoints, signing secrets, deliveries, retries and replays.' },
  { name: 'Admin: email sender', description: 'The sending domain, its DNS records and the sender state.' },
  {
    name: 'Media',
    description: 'Uploaded images at immutable URLs, resized to a fixed set of widths in WebP or AVIF.',
  },
  { name: 'Payments', description: 'Signed webhooks from the payment provider.' },
  {
    name: 'Sandbox provider',
    description: 'The built-in test payment provider (PAYMENT_PROVIDER=sandbox only).',
  },
  { name: 'Operations', description: 'Liveness and readiness probes.' },
  {
    name: 'Webhooks',
    description:
      'Signed POSTs to your endpoints, one per event (docs/webhooks.md: verifying, retries, replay).',
  },
];

export const SECURITY_SCHEMES = {
  publishableKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Publishable-Key',
    description: 'A publishable key (`pk_…`); safe in browser code.',
  },
  publishableKeyBearer: {
    type: 'http',
    scheme: 'bearer',
    description: 'The same publishable key as `Authorization: Bearer pk_…`.',
  },
  staffSession: {
    type: 'http',
    scheme: 'bearer',
    description: 'A staff session token (`st_…`) from POST /admin/v1/auth/verify.',
  },
  customerToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      'A signed-in customer (`ct_…`, from POST /storefront/v1/customers/verify) as `Authorization: Bearer ct_…`, with the publishable key in `X-Publishable-Key`.',
  },
} as const;
