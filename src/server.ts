import type { Logger } from 'pino';
import { buildApp, type App } from './app.ts';
import type { Config } from './config.ts';
import type { Db } from './db/database.ts';
import { systemClock } from './http/context.ts';
import { seedDemo, type DemoCredentials } from './seed/demo.ts';
import { backgroundLoops } from './workers/loops.ts';
import { startWorkers, type RunningWorkers } from './workers/runner.ts';

export interface RunningServer {
  app: App;
  url: string;
  demo: DemoCredentials | null;
  close(): Promise<void>;
}

/**
 * Starts the HTTP service on an open, migrated database: optional demo seed, listen, worker loops
 * (always on the embedded database, which only one process may open).
 */
export async function startServer(config: Readonly<Config>, db: Db, log: Logger): Promise<RunningServer> {
  const demo = config.seedDemo ? await seedDemo(db.kysely, config.staffSessionTtlMs) : null;
  const app = await buildApp(config, { db });
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;

  let workers: RunningWorkers | null = null;
  if (config.runWorkers || db.kind === 'pglite') {
    workers = startWorkers(backgroundLoops(db.kysely, systemClock), log.child({ component: 'workers' }));
  }

  let closing: Promise<void> | null = null;
  return {
    app,
    url,
    demo,
    close() {
      closing ??= (async () => {
        await app.close();
        await workers?.stop();
      })();
      return closing;
    },
  };
}
