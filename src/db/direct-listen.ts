/**
 * Behind a transaction pooler (decision `behind-pgbouncer`): the one connection a process keeps
 * straight to PostgreSQL for LISTEN, and the URL a process listens on.
 */
import pg from 'pg';

/** How long a lost direct LISTEN connection waits before it is opened again. */
const RELISTEN_MS = 5000;

/**
 * Behind a transaction pooler: one connection straight to PostgreSQL (DATABASE_DIRECT_URL) that
 * LISTENs on `storefront_read` and hands every payload to `emit`, opened again 5 s after it drops.
 * A notification reaches this process a moment after the COMMIT that sent it returned, as it reaches
 * any other process: what was missed while it was down, the caches' re-reads cover.
 */
export function listenDirectly(
  url: string,
  command: string | undefined,
  emit: (payload: string) => void,
  { channel, connectTimeoutMs }: { channel: string; connectTimeoutMs: number },
): { close(): Promise<void> } {
  let client: pg.Client | null = null;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  const open = (): void => {
    if (closed) return;
    const next = new pg.Client({
      connectionString: url,
      application_name: `${command ?? 'storefront'} listener`,
      connectionTimeoutMillis: connectTimeoutMs,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    let dropped = false;
    const drop = (): void => {
      if (dropped) return;
      dropped = true;
      if (client === next) client = null;
      next.end().catch(() => undefined);
      if (!closed) {
        timer = setTimeout(open, RELISTEN_MS);
        timer.unref();
      }
    };
    next.on('error', drop);
    next.on('end', drop);
    next.on('notification', (message) => {
      if (message.channel === channel) emit(message.payload ?? '');
    });
    next
      .connect()
      .then(() => next.query(`LISTEN ${channel}`))
      .then(() => {
        if (closed) drop();
        else client = next;
      }, drop);
  };
  open();
  return {
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const last = client;
      client = null;
      await last?.end().catch(() => undefined);
    },
  };
}

/**
 * The PostgreSQL URL a process LISTENs on with a connection of its own (the webhook relay): PostgreSQL
 * past the pooler behind a transaction pooler (null without DATABASE_DIRECT_URL: it polls), else
 * DATABASE_URL; null on the embedded database.
 */
export function listenUrlOf(config: {
  databaseUrl: string | null;
  databasePooler: 'none' | 'transaction';
  databaseDirectUrl: string | null;
}): string | null {
  if (config.databaseUrl === null) return null;
  return config.databasePooler === 'transaction' ? config.databaseDirectUrl : config.databaseUrl;
}
