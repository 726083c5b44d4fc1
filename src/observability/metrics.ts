import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { backlogOf, type Backlog } from './backlog.ts';
import type { Kysely } from 'kysely';
import type { PoolStats } from '../db/database.ts';
import type { ReplicaStats } from '../db/replica.ts';
import type { Database } from '../db/tables.ts';
import type { Log } from '../lib/log.ts';
import { reportIfOutage } from '../db/errors.ts';

/** The HTTP methods the API answers; anything else is counted as `other`, so the label stays bounded. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Request latency buckets, seconds: a cached read is ~1 ms, a purchase ~100 ms, a timeout 10 s. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Webhook attempt buckets, seconds, up to the 15 s default WEBHOOK_TIMEOUT and past it. */
const WEBHOOK_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30];
/** The database-backed series are read at most this often, whatever the scrape interval. */
export const BACKLOG_MAX_AGE_MS = 10_000;

export interface ReadCacheCounts {
  entries: number;
  bytes: number;
  hits: number;
  misses: number;
  evictions: number;
}

/** Outcomes of one webhook attempt (webhooks.relay): `failed` is a dead letter, retried no more. */
export type WebhookOutcome = 'delivered' | 'retry' | 'failed' | 'lost';
export type MailOutcome = 'sent' | 'error';

/**
 * Removes prom-client's default series that are gauges named like counters (`nodejs_active_handles_total`,
 * `…_requests_total`, `…_resources_total`): Prometheus's naming rules reserve `_total` for counters
 * and `promtool check metrics` refuses the scrape. Each is the sum of the labelled series of the
 * same name without `_total` (`sum(nodejs_active_handles)`), which stay.
 */
function dropMisnamedGauges(registry: Registry): void {
  for (const metric of registry.getMetricsAsArray()) {
    const { name, type } = metric as unknown as { name: string; type: string };
    if (name.endsWith('_total') && type !== 'counter') registry.removeSingleMetric(name);
  }
}

/**
 * One process's metrics (decision `metrics-off-until-readable`), in a registry of its own (tests run several apps in one process):
 * HTTP requests by route pattern and status, the database pool, the outbox, webhook deliveries,
 * the mail queue, orders by status, the read cache, and Node's own process and event-loop series.
 * Every label has a bounded set of values: route patterns, never paths or ids.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly #http: Counter<'method' | 'route' | 'status'>;
  readonly #httpDuration: Histogram<'method' | 'route'>;
  readonly #webhooks: Counter<'outcome'>;
  readonly #webhookDuration: Histogram<'outcome'>;
  readonly #mail: Counter<'outcome'>;
  #backlog: { at: number; value: Promise<Backlog | null> } | null = null;
  /**
   * The labelled children of the HTTP series, by `method route status`: looked up once each, so a
   * request costs a map lookup and two increments instead of prom-client hashing its labels.
   */
  readonly #requests = new Map<
    string,
    {
      count: Counter.Internal;
      duration: Histogram.Internal<'method' | 'route'>;
    }
  >();

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    dropMisnamedGauges(this.registry);
    this.#http = new Counter({
      name: 'storefront_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status code.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.#httpDuration = new Histogram({
      name: 'storefront_http_request_duration_seconds',
      help: 'Time from the request to the end of its answer, by method and route pattern.',
      labelNames: ['method', 'route'],
      buckets: HTTP_BUCKETS,
      registers,
    });
    this.#webhooks = new Counter({
      name: 'storefront_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome: delivered, retry (failed, will be retried), failed (a dead letter: no attempts left), lost (outlived its lease).',
      labelNames: ['outcome'],
      registers,
    });
    this.#webhookDuration = new Histogram({
      name: 'storefront_webhook_delivery_duration_seconds',
      help: 'Time from sending a webhook to its answer (or the error), by outcome.',
      labelNames: ['outcome'],
      buckets: WEBHOOK_BUCKETS,
      registers,
    });
    this.#mail = new Counter({
      name: 'storefront_mail_sends_total',
      help: 'Mails handed to the transport, by outcome (sent, or an error: retried on MAIL_RETRY_SCHEDULE).',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of ['delivered', 'retry', 'failed', 'lost'] as const)
      this.#webhooks.inc({ outcome }, 0);
    for (const outcome of ['sent', 'error'] as const) this.#mail.inc({ outcome }, 0);
  }

  /** One answered request; `route` is the matched route's pattern, null when no route matched. */
  request(method: string, route: string | null, status: number, seconds: number): void {
    const known = METHODS.has(method) ? method : 'other';
    const key = `${known} ${route ?? ''} ${status}`;
    let series = this.#requests.get(key);
    if (series === undefined) {
      // As bounded as the labels: methods × route patterns × status codes.
      const labels = { method: known, route: route ?? 'unmatched' };
      series = {
        count: this.#http.labels({ ...labels, status: String(status) }),
        duration: this.#httpDuration.labels(labels),
      };
      this.#requests.set(key, series);
    }
    series.count.inc();
    series.duration.observe(seconds);
  }

  webhookAttempt(outcome: WebhookOutcome, seconds: number): void {
    this.#webhooks.inc({ outcome });
    this.#webhookDuration.observe({ outcome }, seconds);
  }

  mailSend(outcome: MailOutcome): void {
    this.#mail.inc({ outcome });
  }

  /** The pool's connections, read at each scrape. */
  observePool(stats: () => PoolStats | null): void {
    const registers = [this.registry];
    new Gauge({
      name: 'storefront_db_pool_connections',
      help: 'PostgreSQL connections of this process, by state (busy, idle); none on the embedded database.',
      labelNames: ['state'],
      registers,
      collect() {
        const now = stats();
        if (now === null) return;
        this.set({ state: 'busy' }, now.total - now.idle);
        this.set({ state: 'idle' }, now.idle);
      },
    });
    new Gauge({
      name: 'storefront_db_pool_max_connections',
      help: 'DATABASE_POOL_SIZE: the most connections the pool opens.',
      registers,
      collect() {
        const now = stats();
        if (now !== null) this.set(now.max);
      },
    });
    new Counter({
      name: 'storefront_db_statements_total',
      help: 'Statements this process has sent to PostgreSQL (each one round trip).',
      registers,
      collect() {
        const now = stats();
        if (now === null) return;
        this.reset();
        this.inc(now.statements);
      },
    });
    new Counter({
      name: 'storefront_db_transactions_total',
      help: 'Transactions this process has run on PostgreSQL: BEGINs, and statements sent outside a transaction.',
      registers,
      collect() {
        const now = stats();
        if (now === null) return;
        this.reset();
        this.inc(now.transactions);
      },
    });
    new Gauge({
      name: 'storefront_db_pool_waiting_queries',
      help: 'Queries waiting for a free pool connection.',
      registers,
      collect() {
        const now = stats();
        if (now !== null) this.set(now.waiting);
      },
    });
  }

  /** The read replica (decision `replica-reads`): in use or not, its lag, the catalog's reads by server. */
  observeReplica(stats: () => ReplicaStats | null): void {
    const registers = [this.registry];
    new Gauge({
      name: 'storefront_replica_in_use',
      help: 'Whether the catalog reads go to the replica (1) or, the replica lagging, failing or stalled, to the primary (0).',
      registers,
      collect() {
        const now = stats();
        if (now !== null) this.set(now.inUse ? 1 : 0);
      },
    });
    new Gauge({
      name: 'storefront_replica_lag_seconds',
      help: 'How far the replica was behind the primary at its last probe (0: it had replayed all the primary had written).',
      registers,
      collect() {
        const now = stats();
        if (now !== null) this.set(now.lagSeconds);
      },
    });
    new Counter({
      name: 'storefront_catalog_reads_total',
      help: 'Statements of the storefront catalog and content reads, by the server that answered them (replica, primary).',
      labelNames: ['server'],
      registers,
      collect() {
        const now = stats();
        if (now === null) return;
        this.reset();
        this.inc({ server: 'replica' }, now.reads.replica);
        this.inc({ server: 'primary' }, now.reads.primary);
      },
    });
    new Counter({
      name: 'storefront_replica_fallbacks_total',
      help: 'Catalog reads that failed on the replica (or could not get a connection to it) and went to the primary.',
      registers,
      collect() {
        const now = stats();
        if (now === null) return;
        this.reset();
        this.inc(now.retried);
      },
    });
  }

  /** The read cache's size and its hits and misses, read at each scrape. */
  observeReadCache(counts: () => ReadCacheCounts): void {
    const registers = [this.registry];
    new Counter({
      name: 'storefront_read_cache_requests_total',
      help: 'Cacheable reads answered from the read cache (hit) or the database (miss).',
      labelNames: ['result'],
      registers,
      collect() {
        const now = counts();
        this.reset();
        this.inc({ result: 'hit' }, now.hits);
        this.inc({ result: 'miss' }, now.misses);
      },
    });
    new Counter({
      name: 'storefront_read_cache_evictions_total',
      help: 'Entries the read cache dropped to stay within READ_CACHE_MB.',
      registers,
      collect() {
        this.reset();
        this.inc(counts().evictions);
      },
    });
    new Gauge({
      name: 'storefront_read_cache_bytes',
      help: 'Bytes the read cache holds (bounded by READ_CACHE_MB).',
      registers,
      collect() {
        this.set(counts().bytes);
      },
    });
  }

  /**
   * The queues and orders, from the database: the outbox's backlog and age, pending and dead-letter
   * webhook deliveries, the mail queue's backlog and age, orders by status and unpaid orders past
   * their expiry. Read at most every BACKLOG_MAX_AGE_MS; while the database is unreachable these
   * series are left out and `storefront_database_up` is 0, and the rest still answers.
   */
  observeBacklog(db: Kysely<Database>, log: Log, now: () => Date = () => new Date()): void {
    const registers = [this.registry];
    const read = (): Promise<Backlog | null> => {
      const at = now();
      if (this.#backlog === null || Math.abs(at.getTime() - this.#backlog.at) > BACKLOG_MAX_AGE_MS) {
        this.#backlog = {
          at: at.getTime(),
          value: backlogOf(db, at).catch((error: unknown) => {
            if (!reportIfOutage(log, error))
              log.warn({ err: error }, 'metrics: the database backlog could not be read');
            return null;
          }),
        };
      }
      return this.#backlog.value;
    };
    const gauge = (
      name: string,
      help: string,
      set: (gauge: Gauge, backlog: Backlog) => void,
      labelNames: string[] = [],
    ) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers,
        async collect() {
          const backlog = await read();
          this.reset();
          if (backlog !== null) set(this, backlog);
        },
      });
    new Gauge({
      name: 'storefront_database_up',
      help: 'Whether the last read of the database-backed series succeeded (1) or not (0).',
      registers,
      async collect() {
        this.set((await read()) === null ? 0 : 1);
      },
    });
    gauge(
      'storefront_outbox_pending_events',
      'Domain events recorded and not yet fanned out to webhook deliveries.',
      (g, b) => g.set(b.outbox.pending),
    );
    gauge(
      'storefront_outbox_oldest_pending_age_seconds',
      'Age of the oldest event not yet fanned out (0 when none).',
      (g, b) => g.set(b.outbox.oldestAgeSeconds),
    );
    gauge(
      'storefront_webhook_deliveries_pending',
      'Webhook deliveries waiting for their next attempt.',
      (g, b) => g.set(b.deliveries.pending),
    );
    gauge(
      'storefront_webhook_deliveries_oldest_pending_age_seconds',
      'Age of the oldest webhook delivery still pending (0 when none).',
      (g, b) => g.set(b.deliveries.oldestAgeSeconds),
    );
    gauge('storefront_mail_queue_pending', 'Mails queued and not yet sent (retries included).', (g, b) =>
      g.set(b.mail.pending),
    );
    gauge(
      'storefront_mail_queue_oldest_pending_age_seconds',
      'Age of the oldest mail not yet sent (0 when none).',
      (g, b) => g.set(b.mail.oldestAgeSeconds),
    );
    gauge(
      'storefront_orders',
      'Orders by status, across every store.',
      (g, b) => {
        for (const [status, count] of Object.entries(b.ordersByStatus)) g.set({ status }, count);
      },
      ['status'],
    );
    gauge(
      'storefront_orders_expiry_backlog',
      'Unpaid orders more than a minute past their expiry that the expiry loop has not cancelled yet.',
      (g, b) => g.set(b.ordersPastExpiry),
    );
  }

  /** The exposition text (Prometheus 0.0.4 format). */
  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
