/**
 * Command-line options of the benchmark scripts: parsing a command line, the usage error, integer
 * and checkout options, and `--output`/`--no-write`.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
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

/** An integer option: its default and the smallest and largest value it takes. */
export interface IntegerOption {
  default: number;
  min: number;
  max: number;
}

/** What node:util's parseArgs (strict) makes of `options`. */
type ParsedValues<O extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{ args: string[]; strict: true; options: O }>
>['values'];

/** A parsed command line: the integer options as numbers, the other options as parseArgs reads them. */
export interface CommandLine<I extends string, O extends ParseArgsOptionsConfig> {
  integers: Record<I, number>;
  values: ParsedValues<O>;
}

/**
 * Parses a benchmark's command line, strictly (an unknown option is an error): each of `integers`
 * as an integer in its range (else a UsageError naming it), the `others` as parseArgs reads them,
 * and `--help` or `-h`, for which it returns null (the script then prints its help).
 */
export function parseCommandLine<I extends string, O extends ParseArgsOptionsConfig = Record<never, never>>(
  argv: string[],
  integers: Record<I, IntegerOption>,
  others = {} as O,
): CommandLine<I, O> | null {
  const names = Object.keys(integers) as I[];
  const options: ParseArgsOptionsConfig = {
    ...Object.fromEntries(
      names.map((name) => [name, { type: 'string', default: String(integers[name].default) }]),
    ),
    ...others,
    help: { type: 'boolean', short: 'h', default: false },
  };
  const { values } = parseArgs({ args: argv, strict: true, options });
  if (values.help) return null;
  const parsed = Object.fromEntries(
    names.map((name) => {
      const { min, max } = integers[name];
      return [name, positiveInteger(name, String(values[name]), min, max)];
    }),
  ) as Record<I, number>;
  return { integers: parsed, values: values as ParsedValues<O> };
}

/**
 * parseCommandLine for a script that writes a results section: `--output` and `--no-write` are
 * options too, read into `results`.
 */
export function parseResultsCommandLine<
  I extends string,
  O extends ParseArgsOptionsConfig = Record<never, never>,
>(
  argv: string[],
  integers: Record<I, IntegerOption>,
  others = {} as O,
): (CommandLine<I, O & typeof RESULTS_OPTIONS> & { results: ResultsTarget }) | null {
  const parsed = parseCommandLine(argv, integers, { ...others, ...RESULTS_OPTIONS });
  if (parsed === null) return null;
  const values = parsed.values as { output: string; 'no-write': boolean };
  return { ...parsed, results: resultsTarget(values) };
}
