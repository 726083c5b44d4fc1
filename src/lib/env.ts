import { parseDuration } from './duration.ts';

/** Typed readers for environment variables; each throws a ConfigError naming the variable. */

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, accepts: string, value: string) {
    super(`Invalid ${variable}=${JSON.stringify(value)}: expected ${accepts}.`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

export type Env = Record<string, string | undefined>;

export function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(name, `an integer from ${min} to ${max}`, raw);
  }
  return value;
}

export function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(name, '1/true/yes/on or 0/false/no/off', raw);
}

export function duration(env: Env, name: string, fallback: string): number {
  const raw = read(env, name) ?? fallback;
  const ms = parseDuration(raw);
  if (ms === null || ms <= 0) throw new ConfigError(name, 'a duration such as 500ms, 30s, 5m, 1h or 3d', raw);
  return ms;
}

export function url(env: Env, name: string, protocols: string[]): string | null {
  return readUrl(env, name, protocols, `a URL starting with ${protocols.join(' or ')}`, redact)?.raw ?? null;
}

/**
 * A URL with one of `protocols` (e.g. `https:`), as given and parsed; null when unset. Anything else
 * throws a ConfigError saying what the variable `accepts`, with the value as `shown` (its secrets hidden).
 */
export function readUrl(
  env: Env,
  name: string,
  protocols: readonly string[],
  accepts: string,
  shown: (raw: string) => string,
): { raw: string; parsed: URL } | null {
  const raw = read(env, name);
  if (raw === undefined) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, accepts, shown(raw));
  }
  if (!protocols.includes(parsed.protocol)) throw new ConfigError(name, accepts, shown(raw));
  return { raw, parsed };
}

/** Hides a password in a connection string before it is shown in an error message. */
export function redact(raw: string): string {
  return raw.replace(/\/\/([^:/@]+):([^@]+)@/, '//$1:***@');
}

export function durationList(env: Env, name: string, fallback: string): number[] {
  const raw = read(env, name) ?? fallback;
  const values = raw.split(',').map((part) => parseDuration(part.trim()));
  if (values.length === 0 || values.length > 50 || values.some((v) => v === null || v <= 0)) {
    throw new ConfigError(name, 'a comma-separated list of durations such as 30s,5m,1h', raw);
  }
  return values as number[];
}
