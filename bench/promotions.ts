/**
 * `npm run bench:promotions`: the pure promotions engine (`pickPromotions`, decision
 * `promotion-engine`) at checkout with 50 active automatic promotions (issue 46). No server and no
 * database: the engine's input is built as the cart service would pass it
 * (bench/lib/promotion-inputs.ts), and each call is timed with `performance.now()` in this process,
 * with the process's CPU time.
 *
 * Cases: carts of 1, 3, 10 and 30 lines, each with 0, 1 and 5 entered codes, against the same 50
 * automatic promotions of every kind (percent on the order over a minimum, amount or percent on the
 * items of some products or collections, free shipping over a threshold, buy X get Y, customer group
 * and market conditions; some combine, some do not). Each case has `--carts` different carts and
 * buyers, taken in turn; after `--warmup` unrecorded calls per case, the cases are timed round-robin
 * (so a change in the machine's other load falls on all of them alike), `--iterations` calls each.
 * Then the worst cases at the bound of 16 candidates: every one qualifies and combines with every
 * other, on 30 and on 100 lines (a cart's most); the bench fails if the engine reports more than 16
 * candidates or more than 2^17 − 1 steps.
 *
 *   npm run bench:promotions -- [--iterations 2000] [--warmup 500] [--carts 20]
 *                               [--worst 10] [--output bench/RESULTS.md] [--no-write]
 */
import { MAX_CANDIDATES, pickPromotions } from '../src/promotions/engine.ts';
import type { EngineInput } from '../src/promotions/engine.types.ts';
import { machine } from './lib/machine.ts';
import { parseResultsCommandLine, type ResultsTarget } from './lib/options.ts';
import { requireNode24, runBenchmark } from './lib/processes.ts';
import { cases, MOST_STEPS, worstCases } from './lib/promotion-inputs.ts';
import { median, percentile, publish } from './lib/results.ts';

const HELP = `Usage: npm run bench:promotions -- [options]

  --iterations N  timed calls per case, after the warm-up (default 2000)
  --warmup N      unrecorded calls per case first (default 500)
  --carts N       different carts (and buyers) per case, taken in turn (default 20)
  --worst N       timed calls of each worst case at the bound of 16 candidates (default 10)
  --output FILE   results file (default bench/RESULTS.md)
  --no-write      print the section, do not write the results file
`;

interface Options {
  iterations: number;
  warmup: number;
  carts: number;
  worst: number;
  results: ResultsTarget;
}

function parseOptions(argv: string[]): Options | null {
  const parsed = parseResultsCommandLine(argv, {
    iterations: { default: 2000, min: 10, max: 1_000_000 },
    warmup: { default: 500, min: 0, max: 1_000_000 },
    carts: { default: 20, min: 1, max: 10_000 },
    worst: { default: 10, min: 1, max: 10_000 },
  });
  return parsed && { ...parsed.integers, results: parsed.results };
}

const log = (line: string): void => void process.stderr.write(`${line}\n`);
const ms = (n: number): string => n.toFixed(n < 1 ? 3 : 2);
const int = (n: number): string => Math.round(n).toLocaleString('en-US');

/**
 * Times calls: each one's wall-clock milliseconds, and the process's CPU time (user + system, its
 * GC threads' too) summed over them, which the machine's other load moves less than the clock.
 */
class Timer {
  readonly wall: number[] = [];
  #cpuMicros = 0;

  call(input: EngineInput): void {
    const cpu = process.cpuUsage();
    const started = performance.now();
    pickPromotions(input);
    this.wall.push(performance.now() - started);
    const used = process.cpuUsage(cpu);
    this.#cpuMicros += used.user + used.system;
  }

  /** Mean CPU milliseconds a call. */
  get cpu(): number {
    return this.#cpuMicros / 1000 / this.wall.length;
  }
}

interface Timing {
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

function timing(times: number[]): Timing {
  const sorted = Float64Array.from(times).sort();
  return {
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1]!,
  };
}

/** What the engine did for each input: candidates, steps, qualifying promotions and applied ones. */
function work(inputs: EngineInput[]) {
  const results = inputs.map((input) => pickPromotions(input));
  for (const { work } of results)
    if (work.candidates > MAX_CANDIDATES || work.steps > MOST_STEPS)
      throw new Error(`beyond the bound: ${work.candidates} candidates, ${work.steps} steps`);
  const range = (values: number[]) => {
    const [low, high] = [Math.min(...values), Math.max(...values)];
    return low === high ? int(low) : `${int(low)}–${int(high)}`;
  };
  const steps = results.map((result) => result.work.steps);
  return {
    candidates: range(results.map((result) => result.work.candidates)),
    qualifying: range(
      results.map(
        (result) =>
          result.work.candidates +
          result.notApplied.filter((each) => each.reason === 'not_considered').length,
      ),
    ),
    applied: range(results.map((result) => result.applied.length)),
    steps: `${int(median(steps))} / ${int(Math.max(...steps))}`,
    maxSteps: Math.max(...steps),
  };
}

async function main(options: Options): Promise<void> {
  requireNode24('npm run bench:promotions');
  const before = machine();
  const all = cases(options.carts);
  log(
    `bench: ${all.length} cases, ${options.carts} carts each; warming up (${options.warmup} calls per case)…`,
  );
  for (const each of all)
    for (let i = 0; i < options.warmup; i += 1) pickPromotions(each.inputs[i % each.inputs.length]!);
  const timers = all.map(() => new Timer());
  for (let i = 0; i < options.iterations; i += 1)
    for (const [c, each] of all.entries()) timers[c]!.call(each.inputs[i % each.inputs.length]!);
  const rows = all.map((each, c) => {
    const t = timing(timers[c]!.wall);
    const w = work(each.inputs);
    log(
      `bench: ${each.name}: p50 ${ms(t.p50)} ms, p99 ${ms(t.p99)} ms; ${w.candidates} candidates, steps ${w.steps}`,
    );
    return `| ${each.lines} | ${each.codes} | ${ms(t.p50)} | ${ms(t.p95)} | ${ms(t.p99)} | ${ms(t.max)} | ${ms(timers[c]!.cpu)} | ${w.qualifying} | ${w.candidates} | ${w.applied} | ${w.steps} |`;
  });

  const worst = worstCases();
  const worstRows = worst.map((each) => {
    const w = work([each.input]);
    pickPromotions(each.input);
    const timer = new Timer();
    for (let i = 0; i < options.worst; i += 1) timer.call(each.input);
    const t = timing(timer.wall);
    log(
      `bench: worst, ${each.name}: p50 ${ms(t.p50)} ms, max ${ms(t.max)} ms; ${w.candidates} candidates, ${w.steps} steps`,
    );
    return `| ${each.name} | ${ms(t.p50)} | ${ms(t.max)} | ${ms(timer.cpu)} | ${w.qualifying} | ${w.candidates} | ${w.applied} | ${int(w.maxSteps)} (${((w.maxSteps / MOST_STEPS) * 100).toFixed(1)} %) |`;
  });
  const after = machine();

  const text = [
    `## ${new Date().toISOString().slice(0, 19)}Z: promotions engine (issue 46)`,
    '',
    `${before.date}, commit ${before.commit}, ${before.nproc} × ${before.cpu}, ${before.memory}, ` +
      `Node ${before.node}, ${before.os}, load ${before.load} at the start, ${after.load} at the end. ` +
      `\`npm run bench:promotions -- --iterations ${options.iterations} --warmup ${options.warmup} --carts ${options.carts} --worst ${options.worst}\`.`,
    '',
    `\`pickPromotions\` alone (src/promotions/engine.ts: no database, no HTTP), in one process, each call timed with \`performance.now()\`. ` +
      `The candidates are 50 automatic promotions, five of each of ten kinds (percent off the order over a minimum; an amount off two to four products' items; a percent off a collection's items; free shipping over a threshold; buy X get Y between collections; a percent off the order for a customer group; an amount off the order in a market; a percent off a collection for a first order; an amount off two or more units of a product; free shipping in a market), a third combining with every class, a third with none, a third with some; with 1 or 5 codes, as many code promotions entered (of: 10 % off the order; 5.00 off a collection's items; free shipping; buy 2 get 1 free in a collection; 15 % off a collection's items). ` +
      `Each case takes ${options.carts} carts in turn (products of 3.00–119.70 in one or two of 8 collections, 1–3 units a line; shipping 6.95; the buyer in the vip group or none, in the us or eu market, a first order or not). ` +
      `${int(options.warmup)} unrecorded calls per case, then ${int(options.iterations)} timed calls per case, the cases round-robin. ` +
      `p50–max: wall clock per call; CPU ms a call: the process's user + system CPU time over the case's calls (its GC threads' too) divided by them, which the machine's other load moves less. ` +
      `Qualifying: the promotions whose conditions hold and that take something off (the search considers at most ${MAX_CANDIDATES}, entered codes first); applied: the promotions picked (these three: lowest–highest over the case's carts); steps: the search's partial combinations, median / most over the case's carts (the bound: ${int(MOST_STEPS)}).`,
    '',
    '| Lines | Codes | p50 ms | p95 ms | p99 ms | max ms | CPU ms a call | Qualifying | Candidates | Applied | Steps (median / most) |',
    '| ----: | ----: | -----: | -----: | -----: | -----: | ------------: | ---------: | ---------: | ------: | --------------------: |',
    ...rows,
    '',
    `At the bound: every promotion qualifies and combines with every class (the vip buyer's first order, shipping 6.95); ${int(options.worst)} timed calls each after one unrecorded. Steps: of the bound's ${int(MOST_STEPS)}.`,
    '',
    '| Worst case | p50 ms | max ms | CPU ms a call | Qualifying | Candidates | Applied | Steps |',
    '| ---------- | -----: | -----: | ------------: | ---------: | ------: | ------: | ----: |',
    ...worstRows,
    '',
  ].join('\n');
  await publish(text, options.results, log);
}

await runBenchmark(HELP, parseOptions, main);
