/**
 * The architecture of src/ as rules (STYLE.md, "Parts and arrows"; docs/architecture.md draws
 * them). `scripts/check-architecture.ts` enforces them in `npm run check`.
 *
 * A part is a folder under src/ (`src/orders/`) or a file directly in it (`src/app.ts`). Each part
 * sits in one layer, and an import may only point to a lower layer, or within its layer along an
 * arrow drawn in docs/architecture.md (`orders --> catalog`).
 */
import type { IForbiddenRuleType } from 'dependency-cruiser';

export type Layer = 'lib' | 'db' | 'infrastructure' | 'features' | 'composition';

/** Lower layers first: a part may import from the layers before its own. */
export const LAYER_ORDER: readonly Layer[] = ['lib', 'db', 'infrastructure', 'features', 'composition'];

/** Every part of src/ and its layer; a new folder must be added here (the check says so). */
export const LAYERS: Record<string, Layer> = {
  lib: 'lib',
  db: 'db',
  http: 'infrastructure',
  events: 'infrastructure',
  workers: 'infrastructure',
  mail: 'infrastructure',
  ratelimit: 'infrastructure',
  idempotency: 'infrastructure',
  web: 'infrastructure',
  // OpenTelemetry traces (decision `tracing-off-costs-nothing`): the span seam every part may call; the SDK itself loads on demand.
  telemetry: 'infrastructure',
  stores: 'features',
  credentials: 'features',
  keys: 'features',
  // Passwordless codes and sessions, once; staff and customers use it on their own tables.
  'sign-in': 'features',
  staff: 'features',
  onboarding: 'features',
  catalog: 'features',
  content: 'features',
  carts: 'features',
  orders: 'features',
  pricing: 'features',
  checkout: 'features',
  shipping: 'features',
  payments: 'features',
  themes: 'features',
  apps: 'features',
  webhooks: 'features',
  email: 'features',
  media: 'features',
  customers: 'features',
  // Decision `markets`: the countries a store sells to in each currency; the catalog prices in them.
  markets: 'features',
  // Decisions `promotions-resource` and `promotion-engine`: promotions (discount codes are code promotions) and the pure engine that picks a cart's.
  promotions: 'features',
  // Decision `gift-card-ledger`: gift cards, their codes and the ledger the checkout holds and spends on.
  'gift-cards': 'features',
  // Decision `csv-imports`: CSV files in (jobs a worker runs through the catalog's and customers' services) and out.
  imports: 'features',
  // Decision `draft-orders`: orders staff put together, priced by checkout's quote, invoiced or completed.
  'draft-orders': 'features',
  // The composition: builds everything and wires dependencies; nothing below imports it.
  'app.ts': 'composition',
  'server.ts': 'composition',
  'main.ts': 'composition',
  'runtime.ts': 'composition',
  'loops.ts': 'composition',
  'retention.loop.ts': 'composition',
  'statistics.loop.ts': 'composition',
  'webhook-events.ts': 'composition',
  'config.ts': 'composition',
  secrets: 'composition',
  seed: 'composition',
  // `storefront export` and `import`: copies every table's rows by the catalog (decision `archive-tables`).
  archive: 'composition',
  // The console's home: reads orders, catalog, webhooks and email through their services.
  overview: 'composition',
  // What an operator watches (decision `metrics-off-until-readable`): metrics over every part's counts and queues.
  observability: 'composition',
  // What in a configuration is unsafe to expose (decision `production-mode`).
  'doctor.ts': 'composition',
};

/** Within these layers, every arrow between two parts must be drawn in docs/architecture.md. */
export const DRAWN_LAYERS: readonly Layer[] = ['infrastructure', 'features'];

/**
 * Tables another part may name in SQL besides their owner, and why. Each is a deliberate seam,
 * drawn in docs/architecture.md.
 */
export const SHARED_TABLES: Record<string, { with: string[]; why: string }> = {
  events: {
    with: ['webhooks'],
    why: 'the outbox (events/ writes it in the caller transaction) is drained by its one consumer, the webhook relay, which claims, fans out, marks dispatched and purges its rows (decision `webhook-delivery`)',
  },
};

/** Test code is not part of the architecture (a test may reach into any part it tests). */
export const NOT_ARCHITECTURE = String.raw`(\.test\.ts|test-support\.ts|\.test-dns\.ts)$|^src/test/`;

/** The files of src/catalog/ that other parts may import (rule `catalog-faces`). */
export const CATALOG_FACES = String.raw`^src/catalog/(${[
  String.raw`catalog\.(schemas|events|admin-routes|storefront-routes)\.ts`,
  String.raw`prices/price-lists\.admin-routes\.ts`,
  String.raw`[a-z-]+/[a-z-]+\.schemas\.ts`,
  String.raw`inventory/(inventory|sellable)\.ts`,
  String.raw`products/products\.service\.ts`,
  String.raw`collections/collections\.service\.ts`,
].join('|')})$`;

/** File rules, checked by dependency-cruiser on every import, type-only imports included. */
export const FILE_RULES: IForbiddenRuleType[] = [
  {
    name: 'no-import-cycle',
    comment: 'No module imports itself through others (types count; the shop included).',
    severity: 'error',
    from: { path: '^(src|packages/shop/src)/' },
    to: { circular: true },
  },
  {
    name: 'repository-private',
    comment: "All SQL on a part's tables is in its repositories; other parts call its services.",
    severity: 'error',
    from: { path: '^src/([^/]+)/' },
    to: { path: String.raw`\.repository\.ts$`, pathNot: '^src/$1/' },
  },
  {
    name: 'catalog-repositories-private',
    comment:
      "The catalog's sub-parts (products/, variants/, inventory/, collections/, search/, media/) keep " +
      'their SQL: a sub-part calls another one through its non-repository files (decision `catalog-sub-parts`).',
    severity: 'error',
    from: { path: '^src/catalog/([^/]+)' },
    to: { path: String.raw`^src/catalog/[^/]+/[^/]+\.repository\.ts$`, pathNot: '^src/catalog/$1/' },
  },
  {
    name: 'catalog-faces',
    comment:
      'Other parts use the catalog through its faces only: stock through inventory/inventory.ts and ' +
      'inventory/sellable.ts, products through products/products.service.ts, collections through ' +
      "collections/collections.service.ts, its schemas, events and (for the app) routes, price lists' included (decision `catalog-sub-parts`).",
    severity: 'error',
    from: { path: '^src/', pathNot: '^src/catalog/' },
    to: { path: '^src/catalog/', pathNot: CATALOG_FACES },
  },
  {
    name: 'tables-private',
    comment: "A part's table types are its own; others see its services' and schemas' types.",
    severity: 'error',
    from: { path: '^src/([^/]+)/', pathNot: '^src/db/migrations/' },
    to: { path: String.raw`\.tables\.ts$`, pathNot: ['^src/$1/', String.raw`^src/db/tables\.ts$`] },
  },
  {
    name: 'routes-without-sql',
    comment: 'Route files parse, call one service function and reply: no repository, no query builder.',
    severity: 'error',
    from: { path: String.raw`routes\.ts$` },
    to: { path: [String.raw`\.repository\.ts$`, '(^|/)node_modules/kysely/'] },
  },
  {
    name: 'config-at-the-top',
    comment: 'Only the composition reads src/config.ts; parts get the settings they need passed in.',
    severity: 'error',
    from: {
      path: '^src/',
      pathNot: String.raw`^src/(app|server|main|runtime|loops|retention\.loop|doctor)\.ts$|^src/(secrets|seed|archive)/`,
    },
    to: { path: String.raw`^src/config\.ts$` },
  },
  {
    name: 'optional-packages-on-demand',
    comment:
      'Packages only some configurations or requests use (Stripe, Redis, nodemailer, undici, sharp, the /docs page, ' +
      'OpenTelemetry, PGlite when the database is PostgreSQL) ' +
      'are loaded by `await import()` where needed, so that a start does not load them ' +
      '(decision `optional-packages-on-demand`). ' +
      'Their adapters below import them statically and are themselves imported on demand.',
    severity: 'error',
    from: {
      path: '^src/',
      pathNot: String.raw`^src/(payments/stripe\.provider|ratelimit/ratelimit\.redis-store|db/pglite|db/pglite-prepared)\.ts$|^src/telemetry/otel/`,
    },
    to: {
      path: '(^|/)node_modules/(stripe|ioredis|nodemailer|undici|sharp|@scalar/fastify-api-reference|@opentelemetry|@electric-sql/pglite)/',
      dependencyTypesNot: ['dynamic-import', 'type-only', 'type-import'],
    },
  },
  {
    name: 'optional-adapters-on-demand',
    comment:
      'The Stripe, Redis and PGlite adapters and the OpenTelemetry SDK (src/telemetry/otel/) are imported by ' +
      '`await import()` (or for types only): decisions `optional-packages-on-demand`, `tracing-off-costs-nothing`.',
    severity: 'error',
    from: { path: '^src/', pathNot: String.raw`^src/telemetry/otel/|^src/db/pglite\.ts$` },
    to: {
      path: String.raw`^src/(payments/stripe\.provider|ratelimit/ratelimit\.redis-store|db/pglite|db/pglite-prepared)\.ts$|^src/telemetry/otel/`,
      dependencyTypesNot: ['dynamic-import', 'type-only', 'type-import'],
    },
  },
  // The front ends (decision `front-end-arrows`): no import loop, and in the console shared pieces
  // (ui/, data/) import no screen, and a screen imports another only through a shared module.
  {
    name: 'front-end-no-import-cycle',
    comment: 'No module of a front end imports itself through others (types count).',
    severity: 'error',
    from: { path: '^packages/(console|shop)/src/' },
    to: { circular: true },
  },
  {
    name: 'console-shared-imports-no-screen',
    comment: "The console's ui/ and data/ import no screen and not the builder: screens build on them.",
    severity: 'error',
    from: { path: '^packages/console/src/(ui|data)/' },
    to: { path: String.raw`^packages/console/src/(screens/|builder/|app\.tsx$)` },
  },
  {
    name: 'console-screens-apart',
    comment:
      "A screen (a file or a folder in the console's screens/) imports another screen's pieces only through a " +
      'shared module (`screens/*-parts.ts(x)`); its styles may be shared.',
    severity: 'error',
    from: { path: '^packages/console/src/screens/([^/.]+)' },
    to: {
      path: '^packages/console/src/screens/',
      pathNot: [
        String.raw`^packages/console/src/screens/$1(/|\.)`,
        String.raw`-parts\.tsx?$`,
        String.raw`\.css$`,
      ],
    },
  },
  {
    name: 'console-parts-import-no-screen',
    comment:
      "A screens' shared module (`screens/*-parts.ts(x)`) imports no screen, so sharing makes no loop.",
    severity: 'error',
    from: { path: String.raw`^packages/console/src/screens/[^/]+-parts\.tsx?$` },
    to: { path: '^packages/console/src/screens/', pathNot: [String.raw`-parts\.tsx?$`, String.raw`\.css$`] },
  },
  {
    name: 'front-ends-apart',
    comment: 'Front ends and the client import nothing from src/ (shared rules live in a package).',
    severity: 'error',
    from: { path: '^(web|packages)/' },
    to: { path: '^src/' },
  },
];
