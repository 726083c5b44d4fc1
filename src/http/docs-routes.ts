import type { FastifyApiReferenceOptions } from '@scalar/fastify-api-reference';
import Fastify, { type FastifyInstance } from 'fastify';

/** Headers of the inner answer that the outer reply makes itself. */
const HOP_HEADERS = new Set(['connection', 'content-length', 'date', 'keep-alive', 'transfer-encoding']);

/**
 * The API reference at `prefix` (`/docs`, `/docs/`, `/docs/js/scalar.js`), served by Scalar's
 * Fastify plugin, which is loaded on the first request (decision `optional-packages-on-demand`):
 * the package and its parser are ~100 modules and a 3 MB script that most processes never serve.
 * The plugin runs in a small Fastify instance of its own, made once; these routes hand it the
 * request and copy its answer, so the pages, redirects and headers are the plugin's own.
 */
export function registerDocsRoutes(
  app: FastifyInstance,
  options: { prefix: `/${string}`; configuration: FastifyApiReferenceOptions['configuration'] },
): void {
  let docs: Promise<FastifyInstance> | null = null;
  const load = (): Promise<FastifyInstance> =>
    (docs ??= (async () => {
      const { default: scalar } = await import('@scalar/fastify-api-reference');
      const inner = Fastify({ logger: false });
      await inner.register(scalar, { routePrefix: options.prefix, configuration: options.configuration });
      await inner.ready();
      return inner;
    })().catch((error: unknown) => {
      docs = null; // the next request tries again
      throw error;
    }));

  for (const url of [options.prefix, `${options.prefix}/`, `${options.prefix}/js/scalar.js`]) {
    app.get(url, { schema: { hide: true } }, async (request, reply) => {
      const inner = await load();
      const answer = await inner.inject({ method: 'GET', url: request.url, headers: request.headers });
      for (const [name, value] of Object.entries(answer.headers)) {
        if (!HOP_HEADERS.has(name) && value !== undefined) void reply.header(name, value);
      }
      void reply.code(answer.statusCode);
      return answer.rawPayload.length > 0 ? reply.send(answer.rawPayload) : reply.send();
    });
  }
  app.addHook('onClose', async () => {
    if (docs) await (await docs).close();
  });
}
