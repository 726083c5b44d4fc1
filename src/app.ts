import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { createValidatorCompiler } from './http/ajv.ts';
import { serializerFactory } from './http/serializers.ts';
import { watchStoreSettings } from './db/settings-cache.ts';
import { installErrorHandling } from './http/errors.ts';
import { installInputHygiene, problemOnClientError, problemOnFrameworkError } from './http/input-hygiene.ts';
import { healthRoutes } from './http/health-routes.ts';
import { docsConfiguration, registerDocsRoutes } from './http/docs-routes.ts';
import { registerPreflight } from './http/cors.ts';
import { storefrontAuth } from './keys/keys.auth.ts';
import { KeyResolver } from './keys/key-resolver.ts';
import { ReadCache } from './http/read-cache.ts';
import { storeStorefrontRoutes } from './stores/stores.storefront-routes.ts';
import { settingsAdminRoutes } from './stores/settings.admin-routes.ts';
import { authAdminRoutes } from './staff/auth.admin-routes.ts';
import { staffAuth } from './staff/staff.auth.ts';
import { staffAdminRoutes } from './staff/staff.admin-routes.ts';
import { keysAdminRoutes } from './keys/keys.admin-routes.ts';
import { noStoreOnSend } from './http/caching.ts';
import { catalogAdminRoutes } from './catalog/catalog.admin-routes.ts';
import { priceListsAdminRoutes } from './catalog/prices/price-lists.admin-routes.ts';
import { catalogStorefrontRoutes } from './catalog/catalog.storefront-routes.ts';
import { contentAdminRoutes } from './content/content.admin-routes.ts';
import { contentStorefrontRoutes } from './content/content.storefront-routes.ts';
import { emailAdminRoutes } from './email/email.admin-routes.ts';
import { webhooksAdminRoutes } from './webhooks/webhooks.admin-routes.ts';
import { WebhookSender } from './webhooks/webhooks.sender.ts';
import { themesAdminRoutes } from './themes/themes.admin-routes.ts';
import { appsAdminRoutes } from './apps/apps.admin-routes.ts';
import { cartsStorefrontRoutes } from './carts/carts.storefront-routes.ts';
import { ordersAdminRoutes } from './orders/orders.admin-routes.ts';
import { reportsAdminRoutes } from './orders/reports.admin-routes.ts';
import { ordersStorefrontRoutes } from './orders/orders.storefront-routes.ts';
import { checkoutStorefrontRoutes } from './checkout/checkout.storefront-routes.ts';
import { idempotentRoutes } from './idempotency/idempotency.hook.ts';
import { pricingAdminRoutes } from './pricing/pricing.admin-routes.ts';
import { promotionsAdminRoutes } from './promotions/promotions.admin-routes.ts';
import { marketsAdminRoutes } from './markets/markets.admin-routes.ts';
import { marketsStorefrontRoutes } from './markets/markets.storefront-routes.ts';
import { refreshMarketCards } from './catalog/products/products.service.ts';
import { taxServiceAdminRoutes } from './pricing/tax-service.admin-routes.ts';
import type { TaxServiceDeps } from './pricing/tax-service.ts';
import { shippingAdminRoutes } from './shipping/shipping.admin-routes.ts';
import { overviewAdminRoutes } from './overview/overview.admin-routes.ts';
import { customersAdminRoutes } from './customers/customers.admin-routes.ts';
import { customerGroupsAdminRoutes } from './customers/customer-groups.admin-routes.ts';
import { giftCardsAdminRoutes } from './gift-cards/gift-cards.admin-routes.ts';
import { importsAdminRoutes } from './imports/imports.admin-routes.ts';
import { draftOrdersAdminRoutes } from './draft-orders/draft-orders.admin-routes.ts';
import { draftOrderPayRoutes } from './draft-orders/draft-orders.pay-routes.ts';
import { draftOrdersOfCustomer } from './draft-orders/draft-orders.service.ts';
import { customersStorefrontRoutes } from './customers/customers.storefront-routes.ts';
import { customerBuyerOf, customerGroupIdsOf } from './customers/customers.auth.ts';
import { promotionHistory } from './orders/promotion-history.ts';
import { mediaAdminRoutes } from './media/media.admin-routes.ts';
import { WorkLimiter } from './media/media.limiter.ts';
import { mediaRoutes } from './media/media.routes.ts';
import { applyProviderEvent } from './orders/provider-events.service.ts';
import { paymentsRoutes } from './payments/payments.routes.ts';
import { createRateLimiter } from './ratelimit/ratelimit.limiter.ts';
import {
  adminClientRateLimit,
  adminSessionRateLimit,
  storefrontRateLimit,
  clientActionRateLimit,
} from './ratelimit/ratelimit.hook.ts';
import { minimumKeyBudgets } from './ratelimit/ratelimit.config.ts';
import { AppError, forbidden } from './lib/errors.ts';
import { isLoopbackRequest } from './http/loopback.ts';
import { adminAccessOf } from './http/admin-access.ts';
import { ordersDeps, type Runtime } from './runtime.ts';
import { webhookDocuments, webhookSampleData } from './webhook-events.ts';
import { readDevMailbox } from './mail/dev-mailbox.ts';
import { installMetrics } from './observability/metrics.http.ts';
import { registerStaticSite } from './web/static-site.ts';
import { CONSOLE_DIST, SHOP_DIST } from './web/sites.ts';
import { refineDocument, SECURITY_SCHEMES, transformRoute, type OpenApiDocument } from './http/openapi.ts';
import { API_INFO } from './http/openapi-vocabulary.ts';
import { instrumentHttp, requestSpans, withTraceIds } from './telemetry/telemetry.ts';
import { RequestLogController, withRequestRedaction } from './http/request-log.ts';
import { boundRequestDatabaseWork } from './http/request-bounds.ts';

export const STOREFRONT_PREFIX = '/storefront/v1';
export const ADMIN_PREFIX = '/admin/v1';
export const BODY_LIMIT = 1024 * 1024;

export interface AppOptions {
  /** Fastify logger options (tests pass a stream to read the logs). */
  logger?: FastifyServerOptions['logger'];
  /** A publishable key to prefill in /docs "Try it" (the demo key, right after it was made). */
  docsKey?: string | undefined;
  /** The console's build directory (default: packages/console/dist); tests point it at a fixture. */
  consoleDir?: string | undefined;
  /**
   * The publishable key the reference shop at /shop uses (decision `shop-publishable-key`):
   * SHOP_PUBLISHABLE_KEY or the demo store's. Read on each page load, so tests can set it after
   * making their store.
   */
  shopKey?: () => string | null;
  /**
   * Compile every route's validators and response serializers while the app is built, as Fastify
   * does by default, instead of on first use (decision `lazy-schema-compilation`); a test uses it
   * to check that all compile.
   */
  eagerSchemas?: boolean;
}

export type App = FastifyInstance;

declare module 'fastify' {
  interface FastifyInstance {
    /** What asks a store's tax service (decision `tax-service`): for the quote's callers, and tests. */
    taxService: TaxServiceDeps;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Builds the HTTP application on a runtime (database, clock, keyring, payment provider, …) without
 * listening (server.ts listens; tests use inject or listen on port 0). Each feature's routes get
 * that feature's deps, built here.
 */
export async function buildApp(runtime: Runtime, options: AppOptions = {}): Promise<App> {
  const { config } = runtime;
  const app = Fastify({
    // With tracing on, each line written within a span carries its trace_id and span_id; a request
    // is logged by its route pattern and its path with the query values redacted (request-log.ts).
    logger: withTraceIds(
      config.telemetry,
      withRequestRedaction(options.logger ?? { level: config.logLevel }),
    ),
    // Fastify's own request lines (incoming, completed) inside the request's server span.
    logController: new RequestLogController(requestSpans()),
    bodyLimit: BODY_LIMIT,
    trustProxy: typeof config.trustProxy === 'boolean' ? config.trustProxy : [...config.trustProxy],
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    // While closing, new requests get our own 503 problem+json (the hook below), not Fastify's body.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // Errors raised before a route runs are problem+json too (decision `input-hygiene`).
    frameworkErrors: problemOnFrameworkError,
    clientErrorHandler: problemOnClientError,
    schemaController: {
      compilersFactory: { buildSerializer: serializerFactory({ eager: options.eagerSchemas === true }) },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  // A server span per request when tracing is on (first, so that every other hook runs inside it).
  instrumentHttp(app);
  boundRequestDatabaseWork(app);

  app.setValidatorCompiler(createValidatorCompiler({ eager: options.eagerSchemas === true }));
  // JSON only: any other body type is 415 (routes that need a raw body, e.g. provider webhooks,
  // register their own parser in their own scope).
  app.removeContentTypeParser('text/plain');
  installErrorHandling(app);
  installInputHygiene(app);
  app.decorateRequest('storefront', null);
  app.decorateRequest('staff', null);
  app.decorateRequest('idempotencyKey', '');
  app.decorateRequest('storeIdempotentAnswer', null);
  const { idempotencyTtlMs, idempotencyLeaseMs } = config.payments;
  app.addHook(
    'onRoute',
    idempotentRoutes({
      db: runtime.db.kysely,
      keyring: runtime.keyring,
      clock: runtime.clock,
      ttlMs: idempotencyTtlMs,
      leaseMs: idempotencyLeaseMs,
    }),
  );
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    if (closing) {
      void reply.header('connection', 'close');
      done(new AppError('service_unavailable', 503, 'The service is shutting down; retry the request.'));
      return;
    }
    done();
  });

  // Metrics (decision `metrics-off-until-readable`): counted only when something can read them (METRICS_PORT or METRICS_TOKEN).
  if (runtime.metrics) installMetrics(app, runtime.metrics, config.metrics.token);

  const { keyring, payments } = runtime;
  const rateLimiter = await createRateLimiter(config.rateLimits, config.redisUrl, runtime.clock, app.log);
  const { clock } = runtime;
  const keys = new KeyResolver(runtime.db.kysely, config.keyCacheTtlMs, () => clock.now().getTime());
  const readCache =
    config.readCacheBytes > 0
      ? new ReadCache({
          db: runtime.db.kysely,
          maxBytes: config.readCacheBytes,
          subscribe: runtime.db.onReadChange,
          log: app.log,
          replica: runtime.db.replicaStats() !== null,
        })
      : null;
  app.decorate('readCache', readCache);
  // Tax rates and shipping zones, kept by this process and dropped at each change (settings-cache).
  const unwatchSettings = watchStoreSettings(runtime.db.kysely, runtime.db.onReadChange);
  app.addHook('onClose', async () => unwatchSettings());
  // The catalog's reads from a replica keep theirs apart (decision `replica-reads`).
  if (runtime.db.catalogReads !== runtime.db.kysely) {
    const unwatchReplica = watchStoreSettings(runtime.db.catalogReads, runtime.db.onReadChange);
    app.addHook('onClose', async () => unwatchReplica());
  }
  if (readCache && runtime.metrics) runtime.metrics.observeReadCache(() => readCache.stats());
  if (readCache) {
    app.addHook('onReady', () => readCache.start());
    app.addHook('onClose', () => readCache.close());
  }
  // Every feature's services get the runtime's one ServiceDeps (db, clock, cursors), plus what that
  // feature alone needs.
  const { services } = runtime;
  // The storefront's catalog and content reads: from the replica while it is in use (decision `replica-reads`).
  const { catalogReads } = runtime;
  const sessions = { ttlMs: config.staffSessionTtlMs, maxAgeMs: config.staffSessionMaxAgeMs };
  const keysDeps = { ...services, resolver: keys, minimumBudgets: minimumKeyBudgets(config.rateLimits) };
  // Test sends go out from the API process itself, through the same SSRF-guarded agents as the relay.
  const webhookSender = new WebhookSender(config.webhooks);
  const webhookDeps = {
    ...services,
    keyring,
    allowHttp: config.webhooks.allowHttp,
    sender: webhookSender,
    sampleData: webhookSampleData(services),
  };
  // A store's tax service is asked through the same SSRF-guarded agents, with its own timeout
  // (TAX_SERVICE_TIMEOUT, decision `tax-service`): what the quote's callers are given.
  const taxSender = new WebhookSender({
    timeoutMs: config.taxServiceTimeoutMs,
    allowHttp: config.webhooks.allowHttp,
  });
  app.decorate('taxService', { ...services, keyring, taxSender, log: app.log } satisfies TaxServiceDeps);
  const authDeps = {
    ...services,
    keyring,
    signInCodeKey: keyring.key('sign-in-code'),
    sessions,
    signals: runtime.signals,
    rateLimiter,
    signInLimit: config.rateLimits.signIn,
  };
  const orders = ordersDeps(runtime, app.log);
  const customerSessions = { ttlMs: config.customerSessionTtlMs, maxAgeMs: config.customerSessionMaxAgeMs };
  const customers = {
    ...services,
    keyring,
    signInCodeKey: keyring.key('sign-in-code'),
    sessions: customerSessions,
    signals: runtime.signals,
    rateLimiter,
    signInLimit: config.rateLimits.customerSignIn,
    draftOrdersOf: (storeId: string, customerId: string) =>
      draftOrdersOfCustomer(services, storeId, customerId),
  };
  // One bound on image work per process (decodes of uploads and resizes alike): decision
  // `media-resize-bound`.
  const media = {
    db: runtime.db.kysely,
    storage: runtime.media,
    limiter: new WorkLimiter({
      concurrency: config.media.resizeConcurrency,
      queue: config.media.resizeQueue,
    }),
    maxBytes: config.media.maxBytes,
    maxPixels: config.media.maxPixels,
  };
  app.addHook('onReady', () => rateLimiter.start());
  app.addHook('onClose', () => rateLimiter.close());
  app.addHook('onClose', () => webhookSender.close());
  app.addHook('onClose', () => taxSender.close());
  const { sandbox } = payments;
  if (sandbox) {
    // The sandbox delivers its signed webhooks in-process, through the webhook route (verified like
    // any provider's) but without a socket: it runs inside the service (decision
    // `sandbox-webhooks-in-process`). This replaces the direct delivery the runtime set for a process
    // without the app; either way they are kept until delivered (`sandbox-webhook-outbox`).
    sandbox.setDelivery(async (body, headers) => {
      const response = await app.inject({
        method: 'POST',
        url: '/payments/webhooks/sandbox',
        headers,
        payload: body,
      });
      return response.statusCode;
    });
    app.addHook('onClose', () => sandbox.close());
  }

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: API_INFO.info,
      servers: [{ url: '/', description: 'This server' }],
      externalDocs: API_INFO.externalDocs,
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    transform: transformRoute,
    transformObject: (document) =>
      refineDocument(
        ('openapiObject' in document ? document.openapiObject : {}) as unknown as OpenApiDocument,
        {
          storefrontPrefix: STOREFRONT_PREFIX,
          adminPrefix: ADMIN_PREFIX,
          webhooks: webhookDocuments(),
        },
      ) as never,
  });

  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
  registerDocsRoutes(app, { prefix: '/docs', configuration: docsConfiguration(options.docsKey) });

  await app.register(healthRoutes, {
    deps: {
      ping: () => runtime.db.ping(runtime.config.databaseReadinessTimeoutMs),
      now: () => runtime.clock.now().getTime(),
    },
  });
  await app.register(mediaRoutes, { deps: media });
  await app.register(draftOrderPayRoutes, { deps: { db: services.db, keyring, clock } });
  await app.register(paymentsRoutes, {
    deps: { payments, onEvent: (event, log) => applyProviderEvent({ ...orders, log }, event) },
  });

  await app.register(
    async (storefront) => {
      registerPreflight(storefront, '');
      storefront.addHook('onRequest', storefrontAuth(keys));
      storefront.addHook('onRequest', storefrontRateLimit(rateLimiter));
      await storefront.register(storeStorefrontRoutes, { deps: catalogReads, readCache });
      await storefront.register(marketsStorefrontRoutes, { deps: catalogReads, readCache });
      // Decision `price-function`: a customer token prices catalog reads and carts for its groups.
      const customerGroups = (request: FastifyRequest) => customerGroupIdsOf(customers, request);
      await storefront.register(catalogStorefrontRoutes, { deps: catalogReads, readCache, customerGroups });
      await storefront.register(contentStorefrontRoutes, { deps: catalogReads, readCache });
      // Carts and checkout ask the store's tax service, when it has one (decision `tax-service`).
      // Decision `gift-card-codes`: every gift card code looked up spends one of the client's guesses.
      const giftCards = {
        db: services.db,
        limitGuess: clientActionRateLimit(rateLimiter, config.rateLimits.giftCardGuesses, {
          name: 'gift-card-guess',
          what: 'gift card codes',
        }),
      };
      await storefront.register(cartsStorefrontRoutes, {
        deps: { ...services, taxService: app.taxService, promotionHistory },
        customerBuyer: (request: FastifyRequest) => customerBuyerOf(customers, request),
        giftCards,
      });
      await storefront.register(checkoutStorefrontRoutes, {
        deps: { ...orders, taxService: app.taxService, giftCards },
        customers,
      });
      await storefront.register(ordersStorefrontRoutes, { deps: orders });
      await storefront.register(customersStorefrontRoutes, { deps: customers });
    },
    { prefix: STOREFRONT_PREFIX },
  );

  await app.register(
    async (admin) => {
      admin.addHook('onRequest', adminClientRateLimit(rateLimiter, config.rateLimits.adminIp));
      admin.addHook('onRequest', staffAuth({ ...services, sessions }));
      admin.addHook(
        'onRequest',
        adminSessionRateLimit(rateLimiter, {
          read: config.rateLimits.adminRead,
          write: config.rateLimits.adminWrite,
        }),
      );
      // Every admin route's access comes from the one table (ADMIN_ACCESS); a route missing from it
      // fails the build of the app. The role shows in the OpenAPI document as `x-staff-role`.
      admin.addHook('onRoute', (route) => {
        const access = adminAccessOf(route);
        route.config = { ...route.config, access };
        route.schema = {
          ...route.schema,
          security: access === 'public' ? [] : [{ staffSession: [] }],
          ...(access === 'public' ? {} : { 'x-staff-role': access }),
        };
      });
      admin.addHook('onSend', noStoreOnSend);
      await admin.register(authAdminRoutes, { deps: authDeps });
      await admin.register(staffAdminRoutes, { deps: services });
      await admin.register(settingsAdminRoutes, { deps: services });
      await admin.register(keysAdminRoutes, { deps: keysDeps });
      await admin.register(catalogAdminRoutes, { deps: services });
      await admin.register(priceListsAdminRoutes, { deps: services });
      await admin.register(mediaAdminRoutes, { deps: media });
      await admin.register(contentAdminRoutes, { deps: services });
      await admin.register(themesAdminRoutes, { deps: services });
      await admin.register(appsAdminRoutes, { deps: services });
      await admin.register(webhooksAdminRoutes, { deps: webhookDeps });
      await admin.register(emailAdminRoutes, {
        deps: {
          ...services,
          config,
          keyring,
          signals: runtime.signals,
          rateLimiter,
          verifyLimit: config.rateLimits.domainVerify,
        },
      });
      await admin.register(ordersAdminRoutes, { deps: orders });
      await admin.register(reportsAdminRoutes, { deps: orders });
      await admin.register(pricingAdminRoutes, { deps: orders });
      await admin.register(promotionsAdminRoutes, { deps: services });
      await admin.register(taxServiceAdminRoutes, {
        deps: { ...services, keyring, allowHttp: config.webhooks.allowHttp },
      });
      await admin.register(marketsAdminRoutes, { deps: { ...services, refreshMarketCards } });
      await admin.register(shippingAdminRoutes, { deps: services });
      await admin.register(overviewAdminRoutes, { deps: services });
      await admin.register(customersAdminRoutes, { deps: customers });
      await admin.register(customerGroupsAdminRoutes, { deps: services });
      await admin.register(giftCardsAdminRoutes, { deps: services });
      await admin.register(importsAdminRoutes, {
        deps: {
          ...services,
          publicBaseUrl: config.publicBaseUrl,
          maxBytes: config.imports.maxBytes,
          wake: () => runtime.signals.wake('imports'),
        },
      });
      await admin.register(draftOrdersAdminRoutes, {
        deps: { ...orders, taxService: app.taxService, publicBaseUrl: config.publicBaseUrl },
      });
    },
    { prefix: ADMIN_PREFIX },
  );

  const transport = config.emailTransport;
  if (config.devMailbox && transport.kind === 'file') {
    // Development only (file transport, not production mode): the console's dev mailbox reads
    // sign-in codes here, for this machine only (decision `production-mode`).
    app.get('/admin/dev/mailbox', { schema: { hide: true } }, async (request, reply) => {
      void reply.header('cache-control', 'no-store');
      if (!isLoopbackRequest(request))
        throw forbidden(
          'The dev mailbox shows sign-in codes, so it answers only on this machine: open the console at http://localhost:PORT or http://127.0.0.1:PORT.',
        );
      return { mails: await readDevMailbox(transport.dir) };
    });
  }
  if (config.adminUi) {
    registerStaticSite(app, {
      prefix: '/admin',
      dir: options.consoleDir ?? CONSOLE_DIST,
      apiPrefixes: [`${ADMIN_PREFIX}/`, '/admin/dev/'],
      name: 'merchant console',
    });
  }
  if (config.shopUi) {
    const shopKey = options.shopKey ?? (() => config.shopPublishableKey);
    registerStaticSite(app, {
      prefix: '/shop',
      dir: SHOP_DIST,
      apiPrefixes: [],
      name: 'reference shop',
      meta: () => ({ 'storefront-publishable-key': shopKey() }),
    });
  }

  return app;
}
