/**
 * `npm run bench:purchase`: complete purchases, the way a shop makes them, against `storefront serve`.
 *
 * Seeds a benchmark store with the CLI (`seed bench`) into a fresh temporary data directory or, with
 * DATABASE_URL, into a PostgreSQL database it creates for the run (and drops afterwards), starts
 * `storefront serve` as a child process, and measures:
 *
 *   1. steady purchases: `--buyers` buyers, each in a loop: create a cart with one random variant →
 *      check out with an Idempotency-Key → confirm the payment at the sandbox provider
 *      (`pm_card_visa`) → read the order back every `--poll-interval` ms until it is `paid`;
 *   2. a hot-variant race: `--race-buyers` buyers each put the one variant of a product with
 *      `--race-units` units in a cart, then all check out at once; the winners pay; the stock must end
 *      at exactly 0 with no order oversold.
 *
 * With `--readers N`, N shoppers browse while the buyers run (each round's warm-up and recorded
 * seconds, nothing else): each in a loop, a request picked at random among the first product page,
 * a product detail, a search (`q`, a word of a seeded title) and the same search with a filter (a
 * price range or `available=true`), each reader its own client address. It reports their reads/s
 * per round and their failures: a soak "of purchases and reads" is `--rounds` with `--readers`.
 *
 * On PostgreSQL the worker loops (webhook relay, mail worker, …) run by default in a `storefront worker`
 * process beside the server (`--workers separate`; the server gets RUN_WORKERS=false), and each
 * process serves its /metrics on a loopback METRICS_PORT of its own. Per paid purchase it reports, for
 * the server (API) and for the worker: its CPU (/proc/<pid>/stat), the CPU of the PostgreSQL backends
 * it connects (pg_stat_activity by application_name: `storefront serve`, `storefront worker`), the
 * statements and transactions it sends (its storefront_db_statements_total and
 * storefront_db_transactions_total, scraped before and after each recorded round), and its RSS
 * (VmRSS) idle and after the last round; plus the database's own transactions (pg_stat_database).
 * While each recorded round runs it also samples, every 50 ms on a connection of its own (itself
 * excluded), where the database's client backends are (pg_stat_activity: `active, on CPU`,
 * `active, waiting: Lock/transactionid`, `LWLock/WALWrite`, …, `idle in transaction`, `idle`), by
 * process (application_name), and reports the mean number of backends in each state per sample: the
 * backends waiting on a lock another transaction holds (Lock/*) are what serialises purchases
 * (`--no-waits`: no sampling).
 * The database's floor (`--floor`, pgbench running the least SQL of one purchase) runs before the
 * first round and after the last: its tps, its database CPU per purchase, and each server's
 * purchases/s and database CPU per purchase as a multiple of them. PGlite: one process, CPU and RSS.
 *
 * With `--compare DIR` a second server (and its worker) runs from another checkout (e.g. a worktree
 * of main) with its own database, and the rounds alternate between the two: a before/after in one
 * run. It puts a section with the machine, the date and the numbers on top of bench/RESULTS.md. See
 * bench/README.md.
 *
 *   npm run bench:purchase -- [--buyers 50] [--readers 0] [--duration 10] [--warmup 2] [--rounds 1]
 *                             [--products 200] [--poll-interval 25] [--race-buyers 1000] [--race-units 100]
 *                             [--no-race] [--shipping] [--promotions] [--workers separate|inline]
 *                             [--floor PATH | --no-floor] [--no-waits] [--compare DIR] [--compare-env N=V]
 *                             [--db-prefix storefront_bench_purchase_] [--output bench/RESULTS.md] [--no-write]
 */
import { machine, root } from './lib/machine.ts';
import { requireNode24, runBenchmark } from './lib/processes.ts';
import { percentile, publish } from './lib/results.ts';
import { HELP, type Options, parseOptions } from './purchase/options.ts';
import { counts, int, mib, ms, one, sortedOf, two } from './purchase/format.ts';
import { rssOf, setUpTarget } from './purchase/target.ts';
import { failedReads } from './purchase/readers.ts';
import { backendsIn, isLockWait } from './purchase/waits.ts';
import { type FloorRun, runFloor } from './purchase/floor.ts';
import { combine, readsPerSecondOf, type Round, steadyRound } from './purchase/steady.ts';
import { type Race, race, raceHolds } from './purchase/race.ts';
import { loadAverage, section } from './purchase/report.ts';

async function main(options: Options): Promise<void> {
  requireNode24('npm run bench:purchase');
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const host = machine();

  const targets = [await setUpTarget('this checkout', { root }, options, log)];
  if (options.compare !== null)
    targets.push(await setUpTarget('compared', { root: options.compare }, options, log, options.compareEnv));

  for (const t of targets) {
    log(
      `bench: ${t.label}: RSS idle: server ${mib(t.rssIdle.api)} MiB${t.worker ? `, worker ${mib(t.rssIdle.worker)} MiB` : ''}`,
    );
  }

  const floorShape = { clients: options.buyers, seconds: Math.max(10, options.duration) };
  const floor: FloorRun[] = [];
  const runTheFloor = async (when: string): Promise<void> => {
    if (options.floor === null || options.databaseUrl === null) return;
    log(
      `bench: the database's floor ${when}: bash ${options.floor} ${floorShape.clients} ${floorShape.seconds}…`,
    );
    const result = await runFloor(options.floor, floorShape.clients, floorShape.seconds, options.databaseUrl);
    log(
      result.failure !== null && !Number.isFinite(result.tps)
        ? `       the floor failed: ${result.failure}`
        : `       ${int(result.tps)} tps, database CPU ${int(result.databaseCpuMicros)} µs/purchase`,
    );
    floor.push(result);
  };
  await runTheFloor('before the first round');

  const rounds = new Map<string, Round[]>(targets.map((t) => [t.label, []]));
  for (let round = 1; round <= options.rounds; round += 1) {
    const order = round % 2 === 1 ? targets : [...targets].reverse();
    for (const target of order) {
      const of = options.rounds > 1 ? ` (round ${round} of ${options.rounds})` : '';
      log(
        `bench: ${target.label}: ${options.buyers} buyers${options.readers > 0 ? ` and ${options.readers} readers` : ''} for ${options.duration} s${of}…`,
      );
      const measured = await steadyRound(target, options);
      measured.rss = rssOf(target);
      if (round === options.rounds) target.rssAfter = measured.rss;
      rounds.get(target.label)?.push(measured);
      const ok = measured.purchases.filter((p) => p.ok);
      const totals = sortedOf(ok.map((p) => p.total));
      const each = (n: number): number => n / Math.max(1, ok.length);
      log(
        `       ${int(ok.length / measured.seconds)} purchases/s, p50 ${ms(percentile(totals, 50))} ms, p99 ` +
          `${ms(percentile(totals, 99))} ms, ${measured.purchases.length - ok.length} failed, ` +
          (measured.reads
            ? `${int(readsPerSecondOf(measured.reads))} reads/s, ${failedReads(measured.reads)} reads failed` +
              (failedReads(measured.reads) > 0 ? ` (${counts(measured.reads.failures)})` : '') +
              ', '
            : '') +
          'server CPU ' +
          `${int(each(measured.serverCpuSeconds * 1e6))} µs/purchase` +
          (target.worker ? `, worker CPU ${int(each(measured.workerCpuSeconds * 1e6))} µs` : '') +
          (target.databaseUrl !== null
            ? `, database CPU ${int(each(measured.databaseCpu.total * 1e6))} µs, statements ` +
              `${one(each(measured.api.statements))}${target.worker ? ` + ${one(each(measured.worker.statements))}` : ''}`
            : '') +
          (measured.waits
            ? `, backends on locks ${two(backendsIn(measured.waits, isLockWait))}, idle in transaction ` +
              `${two(backendsIn(measured.waits, (what) => what === 'idle in transaction'))}`
            : '') +
          `, RSS ${int(measured.rss.api)}${target.worker ? ` + ${int(measured.rss.worker)}` : ''} MiB`,
      );
    }
  }
  for (const t of targets) {
    log(
      `bench: ${t.label}: RSS after the last round: server ${mib(t.rssAfter?.api ?? Number.NaN)} MiB` +
        (t.worker ? `, worker ${mib(t.rssAfter?.worker ?? Number.NaN)} MiB` : ''),
    );
  }
  await runTheFloor('after the last round');
  const races: Race[] = [];
  if (options.race) {
    for (const target of targets) {
      log(`bench: ${target.label}: race of ${options.raceBuyers} buyers for ${options.raceUnits} units…`);
      const result = await race(target, options);
      log(
        `       ${result.orders} orders, ${result.insufficient} insufficient_stock, checkout p99 ${ms(percentile(result.checkoutMs, 99))} ms, ` +
          `stock after ${result.onHand}/${result.reserved}: ${raceHolds(result) ? 'holds' : 'FAILS'}`,
      );
      races.push(result);
    }
  }
  const text = section({
    options,
    machine: host,
    endLoad: loadAverage(),
    steady: targets.map((t) => combine(t, rounds.get(t.label) ?? [])),
    races,
    pool: process.env.DATABASE_POOL_SIZE?.trim() || '10 (default)',
    floor,
    floorShape,
  });
  await publish(text, options, log);
  if (races.some((r) => !raceHolds(r))) process.exitCode = 1;
}

await runBenchmark(HELP, parseOptions, main);
