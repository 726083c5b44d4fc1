import type { FastifyApiReferenceOptions } from '@scalar/fastify-api-reference';
import { createHash } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { contentSecurityPolicy, pageSecurityHeaders, type CspSources } from './security-headers.ts';

/** Headers of the inner answer that the outer reply makes itself. */
const HOP_HEADERS = new Set(['connection', 'content-length', 'date', 'keep-alive', 'transfer-encoding']);

/**
 * The API reference at `prefix` (`/docs`, `/docs/`, `/docs/js/scalar.js`), served by Scalar's
 * Fastify plugin, which is loaded on the first request (decision `optional-packages-on-demand`): the package and its parser
 * are ~100 modules and a 3 MB script that most processes never serve. The plugin runs in a small
 * Fastify instance of its own, made once; these routes hand it the request and copy its answer, so
 * the pages, redirects and headers are the plugin's own.
 *
 * Every answer also carries the security headers of every page (security-headers.ts), with a
 * Content-Security-Policy of this origin only: the page's one inline script (the call that starts
 * the reference with its configuration) is allowed by its SHA-256 hash, computed from the page
 * itself, so nothing else inline ever runs. Styles need 'unsafe-inline': the reference's script
 * injects its stylesheets as `<style>` elements at run time (see DOCS_SOURCES).
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
      void reply.headers(pageSecurityHeaders(docsPolicy(answer)));
      void reply.code(answer.statusCode);
      return answer.rawPayload.length > 0 ? reply.send(answer.rawPayload) : reply.send();
    });
  }
  app.addHook('onClose', async () => {
    if (docs) await (await docs).close();
  });
}

/**
 * What the reference loads, all from this origin: its script, /openapi.json, and images and fonts
 * its script makes as data: URLs. Inline styles are unavoidable: the script adds its own CSS as
 * `<style>` elements when it starts (a nonce cannot reach them: they are made by code, not served).
 */
const DOCS_SOURCES: CspSources = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
};

const INLINE_SCRIPT = /<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi;

/** The policy of one answer: a page's own inline scripts are allowed by their hashes. */
function docsPolicy(answer: { headers: Record<string, unknown>; rawPayload: Buffer }): string {
  const type = answer.headers['content-type'];
  const html = typeof type === 'string' && /^text\/html\b/.test(type);
  const scripts = html ? [...answer.rawPayload.toString('utf8').matchAll(INLINE_SCRIPT)] : [];
  const hashes = scripts.map(
    ([, script]) => `'sha256-${createHash('sha256').update(script!).digest('base64')}'`,
  );
  return contentSecurityPolicy({ ...DOCS_SOURCES, 'script-src': ["'self'", ...hashes] });
}

/**
 * /docs: the API reference on this server's own document, its "Try it" sending to this server.
 * Nothing of Scalar's cloud: no agent, MCP, developer toolbar, telemetry or web fonts.
 */
export function docsConfiguration(docsKey: string | undefined) {
  return {
    url: '/openapi.json',
    pageTitle: 'Storefront API reference',
    agent: { disabled: true },
    mcp: { disabled: true },
    showDeveloperTools: 'never' as const,
    hideClientButton: true,
    telemetry: false,
    withDefaultFonts: false,
    defaultOpenFirstTag: true,
    documentDownloadType: 'json' as const,
    authentication: {
      preferredSecurityScheme: 'publishableKey',
      ...(docsKey ? { securitySchemes: { publishableKey: { value: docsKey } } } : {}),
    },
  };
}
