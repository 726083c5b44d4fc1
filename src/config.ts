import path from 'node:path';
import { isIP } from 'node:net';
import {
  boolean,
  ConfigError,
  duration,
  durationList,
  integer,
  read,
  redact,
  url,
  type Env,
} from './lib/env.ts';

import { loadEmailIdentityConfig, type EmailIdentityConfig } from './email/email.config.ts';
import { loadPaymentsConfig, type PaymentsConfig } from './payments/payments.config.ts';
import type { MailTransportConfig } from './mail/mail.config.ts';
import { DEFAULT_MAX_PIXELS, type MediaConfig } from './media/media.config.ts';
import type { RateLimitConfig } from './ratelimit/ratelimit.config.ts';
import { loadMetricsConfig, type MetricsConfig } from './observability/metrics.config.ts';
import { loadWebhookConfig, type WebhookConfig } from './webhooks/webhooks.config.ts';
import { loadTelemetryConfig, type TelemetryConfig } from './telemetry/telemetry.config.ts';

export { ConfigError } from './lib/env.ts';
export type { RateLimitConfig } from './ratelimit/ratelimit.config.ts';
import { KEY_BUDGET_CLIENTS, minimumKeyBudgets } from './ratelimit/ratelimit.config.ts';

/**
 * Every environment variable the service reads is parsed and validated here, once, at boot.
 * Nothing else reads `process.env`. A bad value throws a ConfigError naming the variable.
 */
export interface Config {
  readonly host: string;
  readonly port: number;
  /** Public base URL printed at start-up and used in links; defaults to http://HOST:PORT. */
  readonly publicBaseUrl: string;
  /** Embedded PGlite data directory (used when databaseUrl is null). */
  readonly dataDir: string;
  /** PostgreSQL connection string; null selects the embedded database. */
  readonly databaseUrl: string | null;
  readonly databasePoolSize: number;
  /**
   * The embedded database's shared_buffers in MiB (PGLITE_SHARED_BUFFERS_MB, decision
   * `embedded-memory`).
   */
  readonly pgliteSharedBuffersMb: number;
  /**
   * Let V8 optimise the embedded database's WebAssembly with TurboFan (PGLITE_OPTIMIZING_COMPILER,
   * decision `embedded-memory`). bin/storefront.js acts on it before the process starts; validated
   * here.
   */
  readonly pgliteOptimizingCompiler: boolean;
  /**
   * Run parameterised statements as named prepared statements on PostgreSQL (decision
   * `prepared-statements`).
   */
  readonly databasePreparedStatements: boolean;
  /** BEGIN with the first statement, COMMIT with the last (PostgreSQL); off: plain BEGIN … COMMIT. */
  readonly databasePipelining: boolean;
  /**
   * What stands between the service and PostgreSQL (DATABASE_POOLER, decision `behind-pgbouncer`):
   * `none`, or `transaction` for a pooler that lends a server connection per transaction
   * (PgBouncer's `pool_mode = transaction`), which keeps no session: no LISTEN on the pooled
   * connections, no `statement_timeout` at start-up, and prepared statements off by default.
   */
  readonly databasePooler: 'none' | 'transaction';
  /**
   * PostgreSQL itself, past the pooler (DATABASE_DIRECT_URL): the one connection per process that
   * LISTENs (read-cache invalidations, the relay's wake-ups). Null behind a transaction pooler: those
   * processes poll instead.
   */
  readonly databaseDirectUrl: string | null;
  /**
   * The bound of one statement of `serve` and `worker` on PostgreSQL (DATABASE_STATEMENT_TIMEOUT,
   * decision `database-faults`): the server's `statement_timeout`, and 2 s later the client gives
   * the connection up. The CLI's other commands are not bounded.
   */
  readonly databaseStatementTimeoutMs: number;
  /** How long `/readyz` waits for the database's answer (DATABASE_READINESS_TIMEOUT). */
  readonly databaseReadinessTimeoutMs: number;
  /**
   * A PostgreSQL streaming replica for the storefront's catalog and content reads
   * (DATABASE_REPLICA_URL, decision `replica-reads`); null: every read on the primary.
   */
  readonly databaseReplicaUrl: string | null;
  /** The replica is skipped while it lags more than this behind the primary (REPLICA_MAX_LAG). */
  readonly replicaMaxLagMs: number;
  /** Connections to the replica per process (DATABASE_REPLICA_POOL_SIZE; default half the primary's, at least 2). */
  readonly databaseReplicaPoolSize: number;
  readonly redisUrl: string | null;
  /** Create the demo store on an empty database (default: on for the embedded database outside production mode). */
  readonly seedDemo: boolean;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /**
   * Root secret (decision `keyring`): encrypts stored secrets and signs opaque values. Null: one is generated and
   * kept in the database.
   */
  readonly secretKey: string | null;
  /** Earlier root secrets, still used to decrypt (SECRET_KEY_PREVIOUS) until `secrets rotate`. */
  readonly secretKeyPrevious: readonly string[];
  /** Run the background worker loops inside `serve` (always true on the embedded database). */
  readonly runWorkers: boolean;
  /**
   * Whose `X-Forwarded-For` to believe: nobody (false), every hop (true), or the proxies at these
   * addresses or CIDR ranges (Fastify's trustProxy; `loopback`, `linklocal`, `uniquelocal` allowed).
   */
  readonly trustProxy: boolean | readonly string[];
  /** How long a storefront key lookup may be served from process memory. */
  readonly keyCacheTtlMs: number;
  /** The read cache's memory bound (decision `read-cache-invalidation`), bytes; 0 turns the cache off. */
  readonly readCacheBytes: number;
  readonly shutdownTimeoutMs: number;
  readonly platformMailDomain: string;
  /** A staff session slides by this much on use… */
  readonly staffSessionTtlMs: number;
  /** …within this absolute lifetime from sign-in (decision `staff-sessions`). */
  readonly staffSessionMaxAgeMs: number;
  /** A customer session slides by this much on use… */
  readonly customerSessionTtlMs: number;
  /** …within this absolute lifetime from sign-in (decision `customer-sessions`). */
  readonly customerSessionMaxAgeMs: number;
  /** Where mail goes: a directory of .eml files, or an SMTP server. */
  readonly emailTransport: MailTransportConfig;
  /** Delays between attempts to send one mail; after the last one it is marked failed (kept, retryable). */
  readonly mailRetryScheduleMs: readonly number[];
  /** Mails a worker sends at once, over as many pooled SMTP connections (MAIL_CONCURRENCY). */
  readonly mailConcurrency: number;
  /** How long a worker holds the mails it claimed; those of a worker that died are sent after it (MAIL_LEASE). */
  readonly mailLeaseMs: number;
  readonly rateLimits: RateLimitConfig;
  /** How long finished data is kept before the purge loop removes it (decision `retention`). */
  readonly retention: RetentionConfig;
  readonly payments: PaymentsConfig;
  readonly webhooks: WebhookConfig;
  /** How long previews and checkouts wait for a store's tax service (TAX_SERVICE_TIMEOUT, decision `tax-service`). */
  readonly taxServiceTimeoutMs: number;
  readonly emailIdentity: EmailIdentityConfig;
  /** Uploaded images (decision `media-resize-bound`): storage, upload size and the bound on resizing work. */
  readonly media: MediaConfig;
  /** CSV imports (decision `csv-imports`): file size, the worker's lease, and the images a products import fetches. */
  readonly imports: ImportsConfig;
  /**
   * Production mode (NODE_ENV=production, decision `production-mode`): development conveniences are off unless named
   * explicitly: no dev mailbox, no demo seed by default, EMAIL_TRANSPORT must be given.
   */
  readonly production: boolean;
  /** Serve the merchant console at /admin (ADMIN_UI, default on). */
  readonly adminUi: boolean;
  /** Serve the reference shop at /shop (SHOP_UI, default on). */
  readonly shopUi: boolean;
  /** The publishable key the shop at /shop uses (SHOP_PUBLISHABLE_KEY); default: the demo store's. */
  readonly shopPublishableKey: string | null;
  /**
   * The console's "dev mailbox" (GET /admin/dev/mailbox): platform mail read back from the file
   * transport, so a developer can sign in without opening .eml files. Only with the file transport;
   * on by default outside production mode, and in production mode only when DEV_MAILBOX names it.
   */
  readonly devMailbox: boolean;
  /** Where /metrics answers, if anywhere (decision `metrics-off-until-readable`). */
  readonly metrics: MetricsConfig;
  /** OpenTelemetry traces from the standard OTEL_* variables (decision `tracing-off-costs-nothing`): off unless an endpoint is set. */
  readonly telemetry: TelemetryConfig;
}

export interface RetentionConfig {
  /** Carts untouched this long (abandoned, or long checked out). */
  readonly cartsMs: number;
  /** Mail sent this long ago (failed mail is kept for inspection). */
  readonly sentMailMs: number;
  /** Processed payment-provider events (the dedupe record) this old. */
  readonly providerEventsMs: number;
  /** Records of the built-in sandbox provider untouched this long (a refundable payment is kept). */
  readonly sandboxMs: number;
}

/** A duration from `min` to `max` milliseconds. */
function boundedDuration(env: Env, name: string, fallback: string, min: number, max: number): number {
  const ms = duration(env, name, fallback);
  if (ms < min || ms > max)
    throw new ConfigError(name, `a duration from ${min} ms to ${max / 1000} s`, read(env, name) ?? fallback);
  return ms;
}

/** Revoked keys must stop working within 1 s on every process, so the cache may not hold longer. */
function keyCacheTtl(env: Env): number {
  const ms = duration(env, 'KEY_CACHE_TTL', '500ms');
  if (ms > 1000)
    throw new ConfigError('KEY_CACHE_TTL', 'a duration of at most 1s', read(env, 'KEY_CACHE_TTL') ?? '');
  return ms;
}

function emailTransport(env: Env, cwd: string, dataDir: string, production: boolean): MailTransportConfig {
  const raw = read(env, 'EMAIL_TRANSPORT');
  if (raw === undefined) {
    // Production mode sends mail nowhere by default: a deployment names its SMTP server (decision `production-mode`).
    if (production)
      throw new ConfigError(
        'EMAIL_TRANSPORT',
        'an smtp(s)://host:port URL in production mode (or file:<directory>, named explicitly)',
        '(unset)',
      );
    return { kind: 'file', dir: path.join(dataDir, 'mail') };
  }
  if (raw.startsWith('file:')) {
    const dir = raw.slice('file:'.length);
    if (dir === '') throw new ConfigError('EMAIL_TRANSPORT', 'file:<directory> or smtp(s)://host:port', raw);
    return { kind: 'file', dir: path.resolve(cwd, dir) };
  }
  const smtp = url(env, 'EMAIL_TRANSPORT', ['smtp:', 'smtps:']);
  if (smtp === null) throw new ConfigError('EMAIL_TRANSPORT', 'file:<directory> or smtp(s)://host:port', raw);
  return { kind: 'smtp', url: smtp };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const HOSTNAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Readonly<Config> {
  const host = read(env, 'HOST') ?? '127.0.0.1';
  const port = integer(env, 'PORT', 3000, 0, 65535);

  const logLevel = read(env, 'LOG_LEVEL') ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', LOG_LEVELS.join(', '), logLevel);
  }

  const secretKey = read(env, 'SECRET_KEY') ?? null;
  if (secretKey !== null && secretKey.length < 32) {
    throw new ConfigError('SECRET_KEY', 'at least 32 characters of random text', '<hidden>');
  }
  const secretKeyPrevious = (read(env, 'SECRET_KEY_PREVIOUS') ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key !== '');
  if (secretKeyPrevious.some((key) => key.length < 32)) {
    throw new ConfigError(
      'SECRET_KEY_PREVIOUS',
      'a comma-separated list of earlier SECRET_KEY values (each at least 32 characters)',
      '<hidden>',
    );
  }

  const platformMailDomain = (read(env, 'PLATFORM_MAIL_DOMAIN') ?? 'storefront.test').toLowerCase();
  if (!HOSTNAME.test(platformMailDomain)) {
    throw new ConfigError(
      'PLATFORM_MAIL_DOMAIN',
      'a domain name such as mail.example.com',
      platformMailDomain,
    );
  }

  const publicBaseUrl = url(env, 'PUBLIC_BASE_URL', ['http:', 'https:']);
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const pooler = read(env, 'DATABASE_POOLER') ?? 'none';
  const databasePoolSize = integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000);
  if (pooler !== 'none' && pooler !== 'transaction') {
    throw new ConfigError('DATABASE_POOLER', 'none or transaction', pooler);
  }

  const dataDir = path.resolve(cwd, read(env, 'DATA_DIR') ?? './data');

  const production = read(env, 'NODE_ENV') === 'production';
  const shopPublishableKey = read(env, 'SHOP_PUBLISHABLE_KEY') ?? null;
  if (shopPublishableKey !== null && !/^pk_[0-9A-Za-z]{8,128}$/.test(shopPublishableKey)) {
    throw new ConfigError('SHOP_PUBLISHABLE_KEY', 'a publishable key (pk_…)', '<hidden>');
  }
  const transport = emailTransport(env, cwd, dataDir, production);
  return Object.freeze({
    host,
    port,
    publicBaseUrl: (publicBaseUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(
      /\/$/,
      '',
    ),
    dataDir,
    databaseUrl,
    databasePoolSize,
    pgliteSharedBuffersMb: integer(env, 'PGLITE_SHARED_BUFFERS_MB', 16, 1, 1024),
    pgliteOptimizingCompiler: boolean(env, 'PGLITE_OPTIMIZING_COMPILER', false),
    databasePreparedStatements: boolean(env, 'DATABASE_PREPARED_STATEMENTS', pooler === 'none'),
    databasePipelining: boolean(env, 'DATABASE_PIPELINING', true),
    databasePooler: pooler,
    databaseDirectUrl: url(env, 'DATABASE_DIRECT_URL', ['postgres:', 'postgresql:']),
    databaseStatementTimeoutMs: boundedDuration(env, 'DATABASE_STATEMENT_TIMEOUT', '15s', 100, 3_600_000),
    databaseReadinessTimeoutMs: boundedDuration(env, 'DATABASE_READINESS_TIMEOUT', '2s', 100, 60_000),
    databaseReplicaUrl: replicaUrl(env, databaseUrl),
    replicaMaxLagMs: boundedDuration(env, 'REPLICA_MAX_LAG', '2s', 50, 600_000),
    databaseReplicaPoolSize: integer(
      env,
      'DATABASE_REPLICA_POOL_SIZE',
      Math.max(2, Math.ceil(databasePoolSize / 2)),
      1,
      1000,
    ),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    seedDemo: boolean(env, 'SEED_DEMO', databaseUrl === null && !production),
    logLevel: logLevel as Config['logLevel'],
    secretKey,
    secretKeyPrevious: Object.freeze(secretKeyPrevious),
    runWorkers: boolean(env, 'RUN_WORKERS', true),
    trustProxy: trustProxy(env),
    keyCacheTtlMs: keyCacheTtl(env),
    readCacheBytes: integer(env, 'READ_CACHE_MB', 64, 0, 65_536) * 1024 * 1024,
    shutdownTimeoutMs: duration(env, 'SHUTDOWN_TIMEOUT', '10s'),
    platformMailDomain,
    staffSessionTtlMs: duration(env, 'STAFF_SESSION_TTL', '12h'),
    staffSessionMaxAgeMs: duration(env, 'STAFF_SESSION_MAX_AGE', '7d'),
    customerSessionTtlMs: duration(env, 'CUSTOMER_SESSION_TTL', '30d'),
    customerSessionMaxAgeMs: duration(env, 'CUSTOMER_SESSION_MAX_AGE', '90d'),
    emailTransport: transport,
    mailRetryScheduleMs: Object.freeze(
      durationList(env, 'MAIL_RETRY_SCHEDULE', '30s,2m,10m,30m,1h,3h,6h,12h,24h'),
    ),
    mailConcurrency: integer(env, 'MAIL_CONCURRENCY', 8, 1, 64),
    mailLeaseMs: duration(env, 'MAIL_LEASE', '2m'),
    rateLimits: rateLimits(env),
    retention: Object.freeze({
      cartsMs: duration(env, 'CART_RETENTION', '30d'),
      sentMailMs: duration(env, 'SENT_MAIL_RETENTION', '7d'),
      providerEventsMs: duration(env, 'PROVIDER_EVENT_RETENTION', '90d'),
      sandboxMs: duration(env, 'SANDBOX_RETENTION', '30d'),
    }),
    payments: loadPaymentsConfig(env),
    webhooks: loadWebhookConfig(env),
    taxServiceTimeoutMs: boundedDuration(env, 'TAX_SERVICE_TIMEOUT', '3s', 100, 60_000),
    emailIdentity: loadEmailIdentityConfig(env),
    media: media(env, dataDir),
    imports: Object.freeze({
      maxBytes: integer(env, 'IMPORT_MAX_MB', 64, 1, 1024) * 1024 * 1024,
      leaseMs: boundedDuration(env, 'IMPORT_LEASE', '60s', 1000, 3_600_000),
      maxImages: integer(env, 'IMPORT_MAX_IMAGES', 10_000, 0, 1_000_000),
      fetchTimeoutMs: boundedDuration(env, 'IMPORT_FETCH_TIMEOUT', '15s', 100, 120_000),
    }),
    production,
    adminUi: boolean(env, 'ADMIN_UI', true),
    shopUi: boolean(env, 'SHOP_UI', true),
    shopPublishableKey,
    devMailbox: devMailbox(env, production, transport),
    metrics: loadMetricsConfig(env),
    telemetry: loadTelemetryConfig(env),
  });
}

/** DATABASE_REPLICA_URL: a postgres: URL, only beside DATABASE_URL (the embedded database has no replica). */
function replicaUrl(env: Env, databaseUrl: string | null): string | null {
  const replica = url(env, 'DATABASE_REPLICA_URL', ['postgres:', 'postgresql:']);
  if (replica !== null && databaseUrl === null)
    throw new ConfigError(
      'DATABASE_REPLICA_URL',
      'unset with the embedded database: a replica serves reads of a PostgreSQL primary, so set DATABASE_URL too',
      redact(replica),
    );
  return replica;
}

/**
 * DEV_MAILBOX: on by default with the file transport outside production mode (decision `production-mode`); named
 * explicitly it may be on in production mode too, but only ever with the file transport.
 */
function devMailbox(env: Env, production: boolean, transport: MailTransportConfig): boolean {
  const on = boolean(env, 'DEV_MAILBOX', !production && transport.kind === 'file');
  if (on && transport.kind !== 'file')
    throw new ConfigError('DEV_MAILBOX', 'off unless EMAIL_TRANSPORT is file:<directory>', 'on');
  return on;
}

/**
 * Rate-limit budgets (decisions `budgets-per-key-and-client` and `key-budget-is-a-safety-cap`): a key's budget defaults to KEY_BUDGET_CLIENTS clients' budgets and
 * may not be set below that, so no group of fewer clients can use a store's key up for the others.
 */
function rateLimits(env: Env): RateLimitConfig {
  const ipRead = integer(env, 'RATE_LIMIT_IP_READ', 1200, 1, 10_000_000);
  const ipWrite = integer(env, 'RATE_LIMIT_IP_WRITE', 300, 1, 10_000_000);
  const least = minimumKeyBudgets({ ipRead, ipWrite });
  const keyBudget = (name: string, fallback: number, min: number, perClient: string): number => {
    const value = integer(env, name, fallback, 1, 1_000_000_000);
    if (value < min)
      throw new ConfigError(
        name,
        `an integer of at least ${min} (${KEY_BUDGET_CLIENTS} × ${perClient}): a key serves every shopper, so fewer than ${KEY_BUDGET_CLIENTS} clients must never use it up`,
        String(value),
      );
    return value;
  };
  const signIn = integer(env, 'RATE_LIMIT_SIGN_IN', 20, 1, 10_000_000);
  return Object.freeze({
    windowMs: duration(env, 'RATE_LIMIT_WINDOW', '60s'),
    publicRead: keyBudget('RATE_LIMIT_READ', least.publicRead, least.publicRead, 'RATE_LIMIT_IP_READ'),
    publicWrite: keyBudget('RATE_LIMIT_WRITE', least.publicWrite, least.publicWrite, 'RATE_LIMIT_IP_WRITE'),
    ipRead,
    ipWrite,
    signIn,
    // Customers' sign-in is limited as staff's (decision `customer-sign-in-limit`), unless set apart.
    customerSignIn: integer(env, 'RATE_LIMIT_CUSTOMER_SIGN_IN', signIn, 1, 10_000_000),
    domainVerify: integer(env, 'RATE_LIMIT_DOMAIN_VERIFY', 5, 1, 10_000_000),
    giftCardGuesses: integer(env, 'RATE_LIMIT_GIFT_CARD', 10, 1, 10_000_000),
    adminIp: integer(env, 'RATE_LIMIT_ADMIN_IP', 3000, 1, 10_000_000),
    adminRead: integer(env, 'RATE_LIMIT_ADMIN_READ', 1200, 1, 10_000_000),
    adminWrite: integer(env, 'RATE_LIMIT_ADMIN_WRITE', 600, 1, 10_000_000),
  });
}

export interface ImportsConfig {
  /** The largest import file, bytes (IMPORT_MAX_MB). */
  readonly maxBytes: number;
  /** How long a worker holds an import without recording progress before another may take it over. */
  readonly leaseMs: number;
  /** The most images one products import fetches from `Image Src` URLs. */
  readonly maxImages: number;
  /** How long one image fetch may take. */
  readonly fetchTimeoutMs: number;
}

/** MEDIA_*: where uploads are kept (only the local adapter is built), their size and pixels, the resize bound. */
function media(env: Env, dataDir: string): MediaConfig {
  const storage = read(env, 'MEDIA_STORAGE') ?? 'local';
  if (storage !== 'local')
    throw new ConfigError('MEDIA_STORAGE', 'local (S3-compatible storage is not built yet)', storage);
  return Object.freeze({
    storage,
    dir: path.join(dataDir, 'media'),
    maxBytes: integer(env, 'MEDIA_MAX_MB', 10, 1, 100) * 1024 * 1024,
    // Up to sharp's own limit (16383 × 16383).
    maxPixels: integer(env, 'MEDIA_MAX_PIXELS', DEFAULT_MAX_PIXELS, 1_000_000, 268_402_689),
    resizeConcurrency: integer(env, 'MEDIA_RESIZE_CONCURRENCY', 2, 1, 64),
    resizeQueue: integer(env, 'MEDIA_RESIZE_QUEUE', 32, 0, 10_000),
  });
}

const PROXY_PRESETS = ['loopback', 'linklocal', 'uniquelocal'];

/** TRUST_PROXY: a boolean, or a comma-separated list of proxy addresses, CIDR ranges and presets. */
function trustProxy(env: Env): boolean | readonly string[] {
  const raw = read(env, 'TRUST_PROXY');
  if (raw === undefined || /^(1|true|yes|on|0|false|no|off)$/i.test(raw)) {
    return boolean(env, 'TRUST_PROXY', false);
  }
  const entries = raw.split(',').map((entry) => entry.trim().toLowerCase());
  const valid = entries.every((entry) => {
    if (PROXY_PRESETS.includes(entry)) return true;
    const [address = '', bits, ...rest] = entry.split('/');
    const family = isIP(address);
    if (family === 0 || rest.length > 0) return false;
    if (bits === undefined) return true;
    return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
  });
  if (!valid) {
    throw new ConfigError(
      'TRUST_PROXY',
      'a boolean, or a comma-separated list of proxy IP addresses, CIDR ranges (10.0.0.0/8) and loopback, linklocal, uniquelocal',
      raw,
    );
  }
  // A /0 is not a proxy but every client, and Fastify's trustProxy refuses it when `serve` starts.
  const everyone = entries.find((entry) => /\/0+$/.test(entry));
  if (everyone !== undefined)
    throw new ConfigError(
      'TRUST_PROXY',
      `proxy addresses and ranges of /1 or narrower: ${everyone} is every client, not a proxy (TRUST_PROXY=true would say that, and \`storefront doctor\` calls it unsafe)`,
      raw,
    );
  return Object.freeze(entries);
}
