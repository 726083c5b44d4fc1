/**
 * Command-line options of the benchmark scripts: the usage error, integer and checkout options,
 * `--output`/`--no-write`, and DATABASE_URL.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { root } from './machine.ts';

/** A bad command-line option: the scripts print the message and the help, and exit 2. */
export class UsageError extends Error {}

/** Parses `--name` as an integer in [min, max], or throws a UsageError naming the option. */
export function positiveInteger(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/** `--compare DIR`: the absolute path of another checkout of this project, or null when not given. */
export function compareCheckout(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  const compare = path.resolve(raw);
  if (!existsSync(path.join(compare, 'bin', 'storefront.js')))
    throw new UsageError(`--compare must be a checkout of this project (no bin/storefront.js in ${compare})`);
  return compare;
}

/**
 * `--output FILE` and `--no-write`, the options of every script that writes a section into
 * bench/RESULTS.md (spread into parseArgs's options).
 */
export const RESULTS_OPTIONS = {
  output: { type: 'string', default: path.join(root, 'bench', 'RESULTS.md') },
  'no-write': { type: 'boolean', default: false },
} as const;

/** Where a script's section goes: the results file, and whether to write it (false: print only). */
export interface ResultsTarget {
  output: string;
  write: boolean;
}

/** The ResultsTarget of parsed RESULTS_OPTIONS. */
export function resultsTarget(values: { output: string; 'no-write': boolean }): ResultsTarget {
  return { output: path.resolve(values.output), write: !values['no-write'] };
}

/** DATABASE_URL when it is set and not blank (a run on PostgreSQL), else null (embedded PGlite). */
export function databaseUrlFromEnv(): string | null {
  return process.env.DATABASE_URL?.trim() ? process.env.DATABASE_URL.trim() : null;
}
