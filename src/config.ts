import path from 'node:path';
import { parseDuration } from './lib/duration.ts';

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
  readonly redisUrl: string | null;
  /** Create the demo store on an empty database (default: on for the embedded database only). */
  readonly seedDemo: boolean;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Secret used to sign opaque values (pagination cursors). Null: generated and kept in the database. */
  readonly secretKey: string | null;
  /** Run the background worker loops inside `serve` (always true on the embedded database). */
  readonly runWorkers: boolean;
  readonly trustProxy: boolean;
  /** How long a storefront key lookup may be served from process memory. */
  readonly keyCacheTtlMs: number;
  readonly shutdownTimeoutMs: number;
  readonly platformMailDomain: string;
  readonly staffSessionTtlMs: number;
}

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, accepts: string, value: string) {
    super(`Invalid ${variable}=${JSON.stringify(value)}: expected ${accepts}.`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

type Env = Record<string, string | undefined>;

function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(name, `an integer from ${min} to ${max}`, raw);
  }
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(name, '1/true/yes/on or 0/false/no/off', raw);
}

function duration(env: Env, name: string, fallback: string): number {
  const raw = read(env, name) ?? fallback;
  const ms = parseDuration(raw);
  if (ms === null || ms <= 0) throw new ConfigError(name, 'a duration such as 500ms, 30s, 5m, 1h or 3d', raw);
  return ms;
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const raw = read(env, name);
  if (raw === undefined) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `a URL starting with ${protocols.join(' or ')}`, redact(raw));
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `a URL starting with ${protocols.join(' or ')}`, redact(raw));
  }
  return raw;
}

/** Hides a password in a connection string before it is shown in an error message. */
function redact(raw: string): string {
  return raw.replace(/\/\/([^:/@]+):([^@]+)@/, '//$1:***@');
}

/** Revoked keys must stop working within 1 s on every process, so the cache may not hold longer. */
function keyCacheTtl(env: Env): number {
  const ms = duration(env, 'KEY_CACHE_TTL', '500ms');
  if (ms > 1000)
    throw new ConfigError('KEY_CACHE_TTL', 'a duration of at most 1s', read(env, 'KEY_CACHE_TTL') ?? '');
  return ms;
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

  return Object.freeze({
    host,
    port,
    publicBaseUrl: (publicBaseUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(
      /\/$/,
      '',
    ),
    dataDir: path.resolve(cwd, read(env, 'DATA_DIR') ?? './data'),
    databaseUrl,
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    seedDemo: boolean(env, 'SEED_DEMO', databaseUrl === null),
    logLevel: logLevel as Config['logLevel'],
    secretKey,
    runWorkers: boolean(env, 'RUN_WORKERS', true),
    trustProxy: boolean(env, 'TRUST_PROXY', false),
    keyCacheTtlMs: keyCacheTtl(env),
    shutdownTimeoutMs: duration(env, 'SHUTDOWN_TIMEOUT', '10s'),
    platformMailDomain,
    staffSessionTtlMs: duration(env, 'STAFF_SESSION_TTL', '12h'),
  });
}
