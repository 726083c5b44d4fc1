const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses a duration such as `500ms`, `30s`, `5m`, `1h` or `3d` into milliseconds; null when malformed. */
export function parseDuration(text: string): number | null {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) return null;
  const [, amount, unit] = match;
  return Number(amount) * (UNITS[unit!] ?? 0);
}
