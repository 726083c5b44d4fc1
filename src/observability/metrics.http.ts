import http from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { safeEqual } from '../lib/crypto.ts';
import { unauthorized } from '../lib/errors.ts';
import type { Log } from '../lib/log.ts';
import type { Metrics } from './metrics.ts';

/** Whether a request's `Authorization: Bearer …` is the metrics token (constant-time). */
function bearerIs(header: string | undefined, token: string): boolean {
  const match = /^Bearer ([\x21-\x7e]+)$/i.exec(header ?? '');
  return match !== null && safeEqual(match[1]!, token);
}

/**
 * Counts every answered request of the app by its route pattern (`request.routeOptions.url`, never
 * the path), and, with METRICS_TOKEN, serves /metrics on the app's own port to requests that carry
 * it: anyone else gets 401, so /metrics is never open on the public port (decision `metrics-off-until-readable`).
 */
export function installMetrics(app: FastifyInstance, metrics: Metrics, token: string | null): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.request(
      request.method,
      request.routeOptions.url ?? null,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
  if (token === null) return;
  app.get(
    '/metrics',
    { schema: { hide: true }, config: { traced: false } },
    async (request: FastifyRequest, reply: FastifyReply) => {
      if (!bearerIs(request.headers.authorization, token))
        throw unauthorized('Send the metrics token as Authorization: Bearer … (METRICS_TOKEN).', 'metrics');
      const { contentType, body } = await metrics.text();
      return reply.header('cache-control', 'no-store').type(contentType).send(body);
    },
  );
}

export interface MetricsServer {
  /** The port it listens on (METRICS_PORT, or the one the system chose for 0). */
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The METRICS_PORT listener: GET /metrics and nothing else, on METRICS_HOST (loopback by default),
 * for a Prometheus on the same host or network. With METRICS_TOKEN it asks for the token too. A
 * scrape that fails (it never should: the database-backed series fall back on their own) answers
 * 500 without details.
 */
export async function startMetricsServer(
  metrics: Metrics,
  options: { host: string; port: number; token: string | null },
  log: Log,
): Promise<MetricsServer> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end('Not found: GET /metrics\n');
      return;
    }
    if (options.token !== null && !bearerIs(request.headers.authorization, options.token)) {
      response
        .writeHead(401, {
          'content-type': 'text/plain; charset=utf-8',
          'www-authenticate': 'Bearer realm="metrics"',
        })
        .end('Send the metrics token as Authorization: Bearer … (METRICS_TOKEN).\n');
      return;
    }
    metrics.text().then(
      ({ contentType, body }) => {
        response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        response.end(request.method === 'HEAD' ? undefined : body);
      },
      (error: unknown) => {
        log.error({ err: error }, 'metrics: the scrape failed');
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('The scrape failed.\n');
      },
    );
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : options.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
