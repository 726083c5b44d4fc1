import type { Logger } from 'pino';
import { buildApp, type App } from './app.ts';
import type { Config } from './config.ts';
import type { Db } from './db/database.ts';
import { DEMO_OWNER_EMAIL, DEMO_SLUG, demoStoreKey, seedDemo, type DemoCredentials } from './seed/demo.ts';
import { findStoreWithSlug } from './stores/stores.service.ts';
import { backgroundLoops } from './loops.ts';
import { startWorkers, type RunningWorkers } from './workers/runner.ts';
import { createMailTransport } from './mail/transport.ts';
import { reportUnreadableSecrets } from './secrets/rotate.ts';
import { createRuntime } from './runtime.ts';
import { startMetricsServer } from './observability/metrics.http.ts';

/** `host:port`, an IPv6 address in brackets. */
export const hostPort = (host: string, port: number): string =>
  `${host.includes(':') ? `[${host}]` : host}:${port}`;

export interface RunningServer {
  app: App;
  url: string;
  demo: DemoCredentials | null;
  /** Whether a demo store exists (made by this start or an earlier one). */
  demoStore: boolean;
  /** The publishable key the reference shop at /shop uses, if any. */
  shopKey: string | null;
  /** Where the METRICS_PORT listener answers, if there is one. */
  metricsUrl: string | null;
  close(): Promise<void>;
}

/**
 * Starts the HTTP service on an open, migrated database: optional demo seed, listen, worker loops
 * (always on the embedded database, which only one process may open).
 */
export async function startServer(config: Readonly<Config>, db: Db, log: Logger): Promise<RunningServer> {
  const runtime = await createRuntime(config, db, { log });
  const sessions = { ttlMs: config.staffSessionTtlMs, maxAgeMs: config.staffSessionMaxAgeMs };
  const demo = config.seedDemo
    ? await seedDemo({
        ...runtime.services,
        sessions,
        baseUrl: config.publicBaseUrl,
        keyring: runtime.keyring,
        media: runtime.media,
      })
    : null;
  // The key of the reference shop and of /docs "Try it" (decision `shop-publishable-key`): the
  // configured one, else the demo store's (kept sealed since the seed, so it survives restarts
  // until someone revokes it).
  const shopKey =
    config.shopPublishableKey ??
    (await demoStoreKey({ db: db.kysely, keyring: runtime.keyring }).catch((error: unknown) => {
      log.warn({ err: error }, 'the demo store key cannot be opened; /shop has no key');
      return null;
    }));
  const demoStore = demo !== null || (await findStoreWithSlug({ db: db.kysely }, DEMO_SLUG)) !== null;
  const app = await buildApp(runtime, { docsKey: shopKey ?? undefined, shopKey: () => shopKey });
  await reportUnreadableSecrets(db.kysely, runtime.keyring, log);
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${hostPort(config.host, port)}`;

  const metricsServer =
    runtime.metrics && config.metrics.port !== null
      ? await startMetricsServer(runtime.metrics, { ...config.metrics, port: config.metrics.port }, log)
      : null;

  let workers: RunningWorkers | null = null;
  const mailTransport = createMailTransport(config.emailTransport, config.mailConcurrency);
  if (config.runWorkers || db.kind === 'pglite') {
    const workerLog = log.child({ component: 'workers' });
    workers = startWorkers(backgroundLoops(runtime, { log: workerLog, mailTransport }), workerLog);
    runtime.signals.attach(workers);
  }

  let closing: Promise<void> | null = null;
  return {
    app,
    url,
    demo,
    demoStore,
    shopKey,
    metricsUrl: metricsServer ? `http://${hostPort(config.metrics.host, metricsServer.port)}/metrics` : null,
    close() {
      closing ??= (async () => {
        await app.close();
        await metricsServer?.close();
        await workers?.stop();
        mailTransport.close();
      })();
      return closing;
    },
  };
}

/**
 * What `serve` prints when it listens: where everything is, and the demo store's credentials when
 * this start made it. It names the demo store only when one exists (a production start has none).
 */
export function startBanner(config: Readonly<Config>, server: RunningServer, kind: Db['kind']): string[] {
  const base = config.publicBaseUrl;
  const lines = [
    '',
    `  Storefront is running at ${server.url}  (${kind === 'pglite' ? `embedded database in ${config.dataDir}` : 'PostgreSQL'})`,
    ...(config.adminUi
      ? [
          server.demoStore
            ? `  Console:         ${base}/admin/  (store "${DEMO_SLUG}", ${DEMO_OWNER_EMAIL})`
            : `  Console:         ${base}/admin/  (sign in with a store's slug and a staff member's email)`,
        ]
      : []),
    ...(config.shopUi
      ? [
          server.shopKey
            ? `  Shop:            ${base}/shop/  (${config.shopPublishableKey ? 'SHOP_PUBLISHABLE_KEY' : 'the demo store'})`
            : `  Shop:            ${base}/shop/  (no key: set SHOP_PUBLISHABLE_KEY, see docs/shop.md)`,
        ]
      : []),
    ...(server.metricsUrl ? [`  Metrics:         ${server.metricsUrl}`] : []),
    `  API reference:   ${base}/docs`,
    `  OpenAPI:         ${base}/openapi.json`,
  ];
  if (server.demo) {
    lines.push(
      '',
      '  Demo store created (slug "demo"). Save these; they are shown only once:',
      `  Publishable key: ${server.demo.publishableKey}`,
      `  Staff token:     ${server.demo.staffToken}`,
      '',
      `  Try: curl -H "X-Publishable-Key: ${server.demo.publishableKey}" ${base}/storefront/v1/store`,
    );
  } else if (server.demoStore && config.seedDemo) {
    lines.push(
      '',
      '  New credentials: stop the server, then `npx storefront keys create --store demo --label dev`.',
    );
  }
  return lines;
}
