import { ConfigError, duration, read, type Env } from '../lib/env.ts';

/** Sending-domain verification settings (decision `sending-domain-verification`). */
export interface EmailIdentityConfig {
  /** DNS servers for verification lookups (`host` or `host:port`); empty = the system resolver. */
  readonly dnsServers: readonly string[];
  /** How often pending domains are checked. */
  readonly verifyIntervalMs: number;
  /** How long a domain may stay pending before it is `failed`. */
  readonly verifyWindowMs: number;
  /** How often verified domains are rechecked. */
  readonly recheckIntervalMs: number;
  /** Time allowed for one DNS answer before a lookup is retried (once); a timeout is "not yet". */
  readonly dnsTimeoutMs: number;
  /** A domain `failed` this long is released, so its real owner can register it (decision `released-domain-deleted`). */
  readonly releaseAfterMs: number;
}

const SERVER = /^(\[[0-9a-fA-F:]+\]|[0-9a-fA-F:.]+)(:\d{1,5})?$/;

export function loadEmailIdentityConfig(env: Env): EmailIdentityConfig {
  const raw = read(env, 'DNS_SERVERS');
  const dnsServers =
    raw === undefined
      ? []
      : raw
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
  if (dnsServers.some((server) => !SERVER.test(server))) {
    throw new ConfigError(
      'DNS_SERVERS',
      'a comma-separated list of IP addresses with optional :port',
      raw ?? '',
    );
  }
  return Object.freeze({
    dnsServers: Object.freeze(dnsServers),
    verifyIntervalMs: duration(env, 'DOMAIN_VERIFY_INTERVAL', '5m'),
    verifyWindowMs: duration(env, 'DOMAIN_VERIFY_WINDOW', '72h'),
    recheckIntervalMs: duration(env, 'DOMAIN_RECHECK_INTERVAL', '24h'),
    dnsTimeoutMs: duration(env, 'DNS_TIMEOUT', '3s'),
    releaseAfterMs: duration(env, 'DOMAIN_RELEASE_AFTER', '30d'),
  });
}

/** What the email part reads of the service's configuration (the composition passes its Config). */
export interface EmailSettings {
  /** The platform's own mail domain: platform mail, the fallback sender, DKIM key hosts. */
  readonly platformMailDomain: string;
  readonly emailIdentity: EmailIdentityConfig;
}
