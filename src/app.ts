import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config.ts';
import type { Db } from './db/database.ts';
import { createValidatorCompiler } from './http/ajv.ts';
import { systemClock, type AppContext, type Clock } from './http/context.ts';
import { installErrorHandling } from './http/errors.ts';
import { healthRoutes } from './http/health-routes.ts';
import { CursorCodec } from './http/pagination.ts';
import { registerPreflight, storefrontAuth } from './http/storefront-auth.ts';
import { KeyResolver } from './keys/key-resolver.ts';
import { deriveKey, loadRootSecret } from './lib/secrets.ts';
import { storeStorefrontRoutes } from './stores/stores.storefront-routes.ts';

export const STOREFRONT_PREFIX = '/storefront/v1';
export const ADMIN_PREFIX = '/admin/v1';
export const BODY_LIMIT = 1024 * 1024;

export interface AppDeps {
  db: Db;
  clock?: Clock;
  /** Fastify logger options (tests pass a stream to read the logs). */
  logger?: FastifyServerOptions['logger'];
}

export type App = FastifyInstance;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Builds the HTTP application without listening (server.ts listens; tests use inject or listen on port 0). */
export async function buildApp(config: Readonly<Config>, deps: AppDeps): Promise<App> {
  const app = Fastify({
    logger: deps.logger ?? {
      level: config.logLevel,
      redact: ['req.headers.authorization', 'req.headers["x-publishable-key"]'],
    },
    bodyLimit: BODY_LIMIT,
    trustProxy: config.trustProxy,
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(createValidatorCompiler());
  installErrorHandling(app);
  app.decorateRequest('storefront', null);
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });

  const rootSecret = await loadRootSecret(deps.db.kysely, config.secretKey);
  const ctx: AppContext = {
    config,
    db: deps.db.kysely,
    dbKind: deps.db.kind,
    clock: deps.clock ?? systemClock,
    cursors: new CursorCodec(deriveKey(rootSecret, 'cursor')),
    keys: new KeyResolver(deps.db.kysely, config.keyCacheTtlMs),
  };

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Storefront API',
        version: '1.0.0',
        description:
          'Public Storefront API (publishable key) and Admin API (staff session). Errors are application/problem+json.',
      },
      servers: [{ url: config.publicBaseUrl }],
      components: {
        securitySchemes: {
          publishableKey: { type: 'apiKey', in: 'header', name: 'X-Publishable-Key' },
          staffSession: { type: 'http', scheme: 'bearer', description: 'st_… staff session token' },
        },
      },
    },
  });

  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
  await app.register(scalar, { routePrefix: '/docs', configuration: { url: '/openapi.json' } });

  await app.register(healthRoutes, { ctx });

  await app.register(
    async (storefront) => {
      registerPreflight(storefront, '');
      storefront.addHook('onRequest', storefrontAuth(ctx.keys));
      storefront.addHook('onRoute', (route) => {
        route.schema = { ...route.schema, security: [{ publishableKey: [] }] };
      });
      await storefront.register(storeStorefrontRoutes, { ctx });
    },
    { prefix: STOREFRONT_PREFIX },
  );

  return app;
}
