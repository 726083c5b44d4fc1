import { isIP } from 'node:net';
import { ConfigError, integer, read, type Env } from '../lib/env.ts';

/**
 * Where `/metrics` answers (decision `metrics-off-until-readable`): on a port of its own (METRICS_PORT, bound to METRICS_HOST,
 * loopback by default), or on the service's own port to requests that carry METRICS_TOKEN; with
 * neither it does not exist. Never open on the public port.
 */
export interface MetricsConfig {
  /** A listener of its own for /metrics; null: none. */
  readonly port: number | null;
  /** The address that listener binds (METRICS_HOST, default 127.0.0.1). */
  readonly host: string;
  /** A bearer token that opens /metrics (on the public port, and on METRICS_PORT when set); null: none. */
  readonly token: string | null;
}

export function loadMetricsConfig(env: Env): MetricsConfig {
  const portText = read(env, 'METRICS_PORT');
  const port = portText === undefined ? null : integer(env, 'METRICS_PORT', 0, 1, 65535);
  const host = read(env, 'METRICS_HOST') ?? '127.0.0.1';
  if (isIP(host.replace(/^\[|\]$/g, '')) === 0 && host !== 'localhost')
    throw new ConfigError('METRICS_HOST', 'an IP address to bind the metrics listener to', host);
  const token = read(env, 'METRICS_TOKEN') ?? null;
  if (token !== null && (token.length < 32 || !/^[\x21-\x7e]+$/.test(token)))
    throw new ConfigError('METRICS_TOKEN', 'at least 32 printable characters without spaces', '<hidden>');
  return Object.freeze({ port, host, token });
}
