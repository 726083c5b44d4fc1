/** Numbers for the purchase benchmark's report: tallies, sorted samples, their formats. */
import { percentile } from '../lib/results.ts';

export function tally(into: Record<string, number>, key: string): void {
  into[key] = (into[key] ?? 0) + 1;
}

export function sortedOf(values: number[]): Float64Array {
  return Float64Array.from(values).sort();
}

export const int = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
export const ms = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : '–');
export const one = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : '–');
export const two = (n: number): string => (Number.isFinite(n) ? n.toFixed(2) : '–');
export const pair = (sorted: Float64Array): string =>
  `${ms(percentile(sorted, 50))} / ${ms(percentile(sorted, 99))}`;
export const counts = (record: Record<string, number>): string =>
  Object.entries(record)
    .map(([key, n]) => `${key}: ${int(n)}`)
    .join(', ') || '0';

/** The mean of the finite values, NaN when there are none. */
export function meanOf(values: number[]): number {
  const finite = values.filter((v) => Number.isFinite(v));
  return finite.length > 0 ? finite.reduce((a, v) => a + v, 0) / finite.length : Number.NaN;
}

export const mib = (n: number): string => (Number.isFinite(n) ? n.toFixed(0) : '–');
export const rssPair = (idle: number, after: number | undefined): string =>
  Number.isFinite(idle) || Number.isFinite(after ?? Number.NaN)
    ? `${mib(idle)} → ${mib(after ?? Number.NaN)}`
    : '–';
export const sumOf = (a: number, b: number): number => a + b;
