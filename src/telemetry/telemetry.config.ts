import { inspect } from 'node:util';
import { boolean, ConfigError, integer, read, readUrl, type Env } from '../lib/env.ts';

/**
 * OpenTelemetry traces (decision `tracing-off-costs-nothing`), from the standard `OTEL_*` variables
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/). Tracing is on
 * only when an OTLP endpoint is named and the SDK is not disabled; everything else has the spec's
 * default. Only traces are exported: metrics are Prometheus `/metrics`, logs are pino's stdout.
 */
export interface TelemetryConfig {
  /** Spans are made and exported; false: nothing of OpenTelemetry is even loaded. */
  readonly enabled: boolean;
  /** Where spans go: the full OTLP/HTTP traces URL (…/v1/traces); null when off. */
  readonly endpoint: string | null;
  readonly protocol: OtlpProtocol;
  /** Headers sent with every export (API keys of hosted collectors): secrets, never logged. */
  readonly headers: OtlpHeaders;
  /** Time allowed for one export request, retries included (OTEL_EXPORTER_OTLP_TIMEOUT). */
  readonly timeoutMs: number;
  readonly compression: 'gzip' | 'none';
  /** The resource's service.name (OTEL_SERVICE_NAME, else service.name of the attributes). */
  readonly serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES, decoded (service.name aside). */
  readonly resourceAttributes: Readonly<Record<string, string>>;
  readonly sampler: SamplerConfig;
  /** The batch span processor (OTEL_BSP_*). */
  readonly batch: BatchConfig;
}

export type OtlpProtocol = 'http/protobuf' | 'http/json';

export const SAMPLERS = [
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
  'always_on',
  'always_off',
  'traceidratio',
] as const;

export interface SamplerConfig {
  readonly name: (typeof SAMPLERS)[number];
  /** The ratio of the traceidratio samplers (OTEL_TRACES_SAMPLER_ARG), 0–1; 1 for the others. */
  readonly ratio: number;
}

export interface BatchConfig {
  readonly scheduleDelayMs: number;
  readonly exportTimeoutMs: number;
  readonly maxQueueSize: number;
  readonly maxExportBatchSize: number;
}

/**
 * Export headers. Their values are credentials (a hosted collector's API key), so they are kept
 * out of JSON, `util.inspect` and error messages: only the names show.
 */
export class OtlpHeaders {
  readonly #values: Readonly<Record<string, string>>;

  constructor(values: Record<string, string> = {}) {
    this.#values = Object.freeze({ ...values });
  }

  get names(): string[] {
    return Object.keys(this.#values);
  }

  /** The values, for the exporter only. */
  values(): Record<string, string> {
    return { ...this.#values };
  }

  toJSON(): Record<string, string> {
    return Object.fromEntries(this.names.map((name) => [name, '<hidden>']));
  }

  [inspect.custom](): string {
    return `OtlpHeaders { ${this.names.map((name) => `${name}: <hidden>`).join(', ')} }`;
  }
}

const TRACES_PATH = 'v1/traces';

/** `http://collector:4318` + `v1/traces`, keeping a base path (`/otlp/` → `/otlp/v1/traces`). */
function tracesUrlOf(base: string): string {
  return base.endsWith('/') ? `${base}${TRACES_PATH}` : `${base}/${TRACES_PATH}`;
}

function httpUrl(env: Env, name: string): string | null {
  const url = readUrl(
    env,
    name,
    ['http:', 'https:'],
    'an http:// or https:// URL of an OTLP/HTTP collector',
    redactUrl,
  );
  if (url === null) return null;
  if (url.parsed.username !== '' || url.parsed.password !== '')
    throw new ConfigError(
      name,
      'a URL without credentials (put them in OTEL_EXPORTER_OTLP_HEADERS)',
      redactUrl(url.raw),
    );
  return url.raw;
}

/** A URL as shown in an error message: without credentials or query (tokens go there too). */
function redactUrl(raw: string): string {
  return raw.replace(/\/\/[^/@]*@/, '//***@').replace(/\?.*$/, '?…');
}

/** The signal-specific variable, else the general one (`OTEL_EXPORTER_OTLP_TRACES_X` / `…_OTLP_X`). */
function otlp(env: Env, suffix: string): { name: string; value: string } | undefined {
  for (const name of [`OTEL_EXPORTER_OTLP_TRACES_${suffix}`, `OTEL_EXPORTER_OTLP_${suffix}`]) {
    const value = read(env, name);
    if (value !== undefined) return { name, value };
  }
  return undefined;
}

function protocolOf(env: Env): OtlpProtocol {
  const given = otlp(env, 'PROTOCOL');
  if (given === undefined) return 'http/protobuf';
  if (given.value === 'http/protobuf' || given.value === 'http/json') return given.value;
  if (given.value === 'grpc')
    throw new ConfigError(
      given.name,
      'http/protobuf or http/json: this build has no gRPC exporter; point the endpoint at the collector’s OTLP/HTTP port (4318) instead',
      given.value,
    );
  throw new ConfigError(given.name, 'http/protobuf or http/json', given.value);
}

/**
 * `key1=value1,key2=value2` (the W3C Baggage format the spec names for OTEL_EXPORTER_OTLP_HEADERS
 * and OTEL_RESOURCE_ATTRIBUTES), values percent-decoded. `secret` hides the values in errors.
 */
function keyValueList(env: Env, name: string, secret: boolean): Record<string, string> {
  const raw = read(env, name);
  if (raw === undefined) return {};
  const result: Record<string, string> = {};
  for (const entry of raw.split(',')) {
    if (entry.trim() === '') continue;
    const at = entry.indexOf('=');
    const key = (at === -1 ? '' : entry.slice(0, at)).trim();
    const value = percentDecoded(entry.slice(at + 1).trim());
    if (value === null || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key))
      throw new ConfigError(
        name,
        'a comma-separated list of key=value pairs, values percent-encoded',
        secret ? '<hidden>' : raw,
      );
    result[key] = value;
  }
  return result;
}

function percentDecoded(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

function samplerOf(env: Env): SamplerConfig {
  const name = read(env, 'OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on';
  if (!(SAMPLERS as readonly string[]).includes(name))
    throw new ConfigError('OTEL_TRACES_SAMPLER', SAMPLERS.join(', '), name);
  const sampler = name as SamplerConfig['name'];
  if (sampler !== 'traceidratio' && sampler !== 'parentbased_traceidratio')
    return { name: sampler, ratio: 1 };
  const raw = read(env, 'OTEL_TRACES_SAMPLER_ARG');
  if (raw === undefined) return { name: sampler, ratio: 1 };
  const ratio = Number(raw);
  if (!/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(raw) || !(ratio >= 0 && ratio <= 1))
    throw new ConfigError('OTEL_TRACES_SAMPLER_ARG', 'a ratio from 0 to 1, such as 0.25', raw);
  return { name: sampler, ratio };
}

function batchOf(env: Env): BatchConfig {
  const maxQueueSize = integer(env, 'OTEL_BSP_MAX_QUEUE_SIZE', 2048, 1, 1_000_000);
  const maxExportBatchSize = integer(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512, 1, 1_000_000);
  if (maxExportBatchSize > maxQueueSize)
    throw new ConfigError(
      'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
      `an integer no larger than OTEL_BSP_MAX_QUEUE_SIZE (${maxQueueSize})`,
      String(maxExportBatchSize),
    );
  return {
    scheduleDelayMs: integer(env, 'OTEL_BSP_SCHEDULE_DELAY', 5000, 1, 3_600_000),
    exportTimeoutMs: integer(env, 'OTEL_BSP_EXPORT_TIMEOUT', 30_000, 1, 3_600_000),
    maxQueueSize,
    maxExportBatchSize,
  };
}

export function loadTelemetryConfig(env: Env): TelemetryConfig {
  const disabled = boolean(env, 'OTEL_SDK_DISABLED', false);
  const exporter = read(env, 'OTEL_TRACES_EXPORTER') ?? 'otlp';
  if (exporter !== 'otlp' && exporter !== 'none')
    throw new ConfigError('OTEL_TRACES_EXPORTER', 'otlp or none (only OTLP export is built)', exporter);
  const tracesEndpoint = httpUrl(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const baseEndpoint = httpUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  // The signal-specific URL is used as given; the general one gets the signal's path (spec).
  const endpoint = tracesEndpoint ?? (baseEndpoint === null ? null : tracesUrlOf(baseEndpoint));
  if (endpoint === null && read(env, 'OTEL_TRACES_EXPORTER') === 'otlp' && !disabled)
    throw new ConfigError(
      'OTEL_TRACES_EXPORTER',
      'otlp together with OTEL_EXPORTER_OTLP_ENDPOINT (e.g. http://localhost:4318) or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or none',
      exporter,
    );
  const resource = keyValueList(env, 'OTEL_RESOURCE_ATTRIBUTES', false);
  const serviceName = read(env, 'OTEL_SERVICE_NAME') ?? resource['service.name'] ?? 'storefront';
  delete resource['service.name'];
  const timeout = otlp(env, 'TIMEOUT');
  const compression = otlp(env, 'COMPRESSION');
  if (compression !== undefined && compression.value !== 'gzip' && compression.value !== 'none')
    throw new ConfigError(compression.name, 'gzip or none', compression.value);
  // The general headers, overridden name by name by the traces-specific ones.
  const headers = {
    ...keyValueList(env, 'OTEL_EXPORTER_OTLP_HEADERS', true),
    ...keyValueList(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', true),
  };
  const enabled = !disabled && exporter === 'otlp' && endpoint !== null;
  return Object.freeze({
    enabled,
    endpoint: enabled ? endpoint : null,
    protocol: protocolOf(env),
    headers: new OtlpHeaders(headers),
    timeoutMs: timeout === undefined ? 10_000 : integer(env, timeout.name, 10_000, 1, 600_000),
    compression: compression?.value === 'gzip' ? 'gzip' : 'none',
    serviceName,
    resourceAttributes: Object.freeze(resource),
    sampler: Object.freeze(samplerOf(env)),
    batch: Object.freeze(batchOf(env)),
  });
}
