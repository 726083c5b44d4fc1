/** The numbers of a results section, and writing the section into bench/RESULTS.md. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';

/** The p-th percentile (0–100, nearest rank) of sorted values; NaN when there are none. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

/** The median of the values (the mean of the middle two for an even count; NaN for none). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? Number.NaN)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

const HEADER = `# Benchmark results

Produced by \`npm run bench\` (bench/run.ts, HTTP load) and \`npm run bench:webhooks\`
(bench/webhooks.ts, webhook delivery); newest first. bench/README.md explains each scenario and the
caveats. These are shared 2-core machines on which the load generator and the server compete for
the CPU, so compare the ratios within one section rather than absolute numbers across sections.
`;

/** A line a child logged as a warning or an error, cut to 300 characters, as Markdown code. */
export function quotedProblem(line: string | null): string {
  return `\`${(line ?? '').slice(0, 300).replace(/`/g, "'")}\``;
}

/** The results note on a server that logged `count` warnings or errors, quoting the first. */
export function serverProblemsNote(count: number, first: string | null): string {
  return `- The server logged ${count.toLocaleString('en-US')} warnings or errors; the first: ${quotedProblem(first)}`;
}

/** Puts a section on top of the results file (below its introduction), formatted with Prettier. */
export async function writeResults(file: string, text: string): Promise<void> {
  const existing = existsSync(file) ? readFileSync(file, 'utf8') : '';
  let content: string;
  const at = existing.search(/^## /m);
  if (existing === '') content = `${HEADER}\n${text}`;
  else if (at === -1) content = `${existing.trimEnd()}\n\n${text}`;
  else content = `${existing.slice(0, at)}${text}\n${existing.slice(at)}`;
  try {
    const config = await prettier.resolveConfig(file);
    content = await prettier.format(content, { ...config, filepath: file });
  } catch {
    // unformatted is still correct Markdown
  }
  writeFileSync(file, content);
}

/** Prints the section and, unless `--no-write`, puts it on top of the results file. */
export async function publish(
  text: string,
  options: { write: boolean; output: string },
  log: (line: string) => void,
): Promise<void> {
  process.stdout.write(`\n${text}\n`);
  if (!options.write) return;
  await writeResults(options.output, text);
  log(`bench: results written to ${path.relative(process.cwd(), options.output) || options.output}`);
}
