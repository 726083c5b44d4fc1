/** The purchase benchmark's options (bench/purchase.ts): its --help and their parsing. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { databaseUrlFromEnv } from '../lib/databases.ts';
import { root } from '../lib/machine.ts';
import { compareCheckout, parseResultsCommandLine, type ResultsTarget, UsageError } from '../lib/options.ts';

/** The database's floor for a purchase (pgbench, the least SQL of one purchase), when it exists. */
const DEFAULT_FLOOR = path.resolve(root, '..', 'shared', 'tools', 'purchase-floor', 'run.sh');

export const HELP = `Usage: npm run bench:purchase -- [options]

  --buyers N          concurrent buyers in the steady scenario (default 50)
  --readers N         concurrent shoppers browsing while the buyers run (warm-up and recorded
                      seconds), each in a loop: the first product page, a product detail, a search
                      or a search with a filter, picked at random; reads/s and read failures per
                      round (default 0: none)
  --duration S        recorded seconds of the steady scenario per round (default 10)
  --warmup S          unrecorded seconds of purchases before each round (default 2; 0 disables)
  --rounds R          repeat the steady scenario R times; median purchases/s (default 1)
  --products N        products to seed (2 variants each; buyers pick a variant at random) (default 200)
  --poll-interval MS  wait between two reads of an order that is not paid yet (default 25)
  --race-buyers N     buyers in the hot-variant race (default 1000)
  --race-units N      units of the raced variant (default 100)
  --no-race           skip the race
  --shipping          each buyer also sets a US shipping address on the cart, reads its shipping
                      options and chooses the first (what a shop with shipping does, decision \`cart-shipping-and-totals\`); the
                      store gets a United States zone with a flat and a weight-based method
  --promotions        this checkout's store gets an automatic promotion (5 % off the order) and a
                      code (BENCH10: 10 % off, combining with it), and each checkout enters the code;
                      a compared server (--compare) stays without: the two in one run give the
                      promotions' cost on the purchase path (decision \`cart-promotions\`)
  --workers MODE      PostgreSQL: \`separate\` (default) runs the worker loops (webhook relay, mail
                      worker, …) in a \`storefront worker\` process beside each server (the server
                      gets RUN_WORKERS=false); \`inline\` runs them in the server. PGlite: always inline
  --floor PATH        the database's floor (PostgreSQL): a script run as \`bash PATH <buyers>
                      <max(10, duration)>\` that prints pgbench's \`tps = N\`, once before the first
                      round and once after the last (default ${DEFAULT_FLOOR},
                      when it exists)
  --no-floor          do not run the floor
  --no-waits          PostgreSQL: do not sample where the database's backends wait during the
                      recorded rounds (default: pg_stat_activity every 50 ms on a connection of
                      its own)
  --compare DIR       also run a server from the checkout in DIR (its own database), alternating
                      with this one round by round
  --compare-env N=V   an environment variable of the compared server only (repeatable), e.g.
                      --compare . --compare-env DATABASE_POOL_SIZE=20
  --db-prefix P       name prefix of the PostgreSQL databases made for the run
                      (default storefront_bench_purchase_)
  --output FILE       results file (default bench/RESULTS.md)
  --no-write          print the section, do not write the results file

Without DATABASE_URL the embedded database runs in a fresh temporary DATA_DIR. With it, the
benchmark connects to that PostgreSQL server, creates a database per server for the run and drops
it afterwards (WITH (FORCE)); the database named in the URL is left alone.

Reported per paid purchase, for each server: purchases/s (and × the floor's tps), the steps' times,
the CPU of the server (API) process, of the worker process and of the PostgreSQL backends of each
(by application_name), the statements and transactions each process sends (its
storefront_db_*_total counters, scraped from its own METRICS_PORT) and the database's transactions
(pg_stat_database); the RSS of each process idle and after the last round; the floor's tps and its
database CPU per purchase. PostgreSQL also: where the database's client backends were during the
recorded rounds (pg_stat_activity every 50 ms, by application_name): the mean number per sample
on CPU, waiting (Lock/transactionid, Lock/tuple, LWLock/WALWrite, IO/WALSync, …: a backend
waiting on a Lock/* is held up by another transaction, a serialisation point), idle in
transaction (its process has not sent the next statement yet) and idle; the 10 largest.
PGlite: one process, no database split, no counters, no floor, no waits.
With --readers: reads/s (median over the rounds) and read failures; the CPU, statements and
transactions per purchase then include what the reads cost.
`;

export interface Options extends ResultsTarget {
  buyers: number;
  /** Shoppers browsing (product page, detail, search) while the buyers run; 0: none. */
  readers: number;
  duration: number;
  warmup: number;
  rounds: number;
  products: number;
  pollMs: number;
  raceBuyers: number;
  raceUnits: number;
  race: boolean;
  /** Each purchase takes the cart's shipping steps (address, options, method) before checkout. */
  shipping: boolean;
  /** This checkout's store has an automatic promotion and a code each checkout enters (--promotions). */
  promotions: boolean;
  /** Where the worker loops run: in the server, or in a `storefront worker` beside it (PostgreSQL). */
  workers: 'inline' | 'separate';
  /** The floor script (PostgreSQL), or null: no floor. */
  floor: string | null;
  /** PostgreSQL: sample where the database's backends wait during each recorded round (not --no-waits). */
  waits: boolean;
  compare: string | null;
  /** Extra environment of the compared server (e.g. another DATABASE_POOL_SIZE). */
  compareEnv: Record<string, string>;
  dbPrefix: string;
  databaseUrl: string | null;
}

export function parseOptions(argv: string[]): Options | null {
  const parsed = parseResultsCommandLine(
    argv,
    {
      buyers: { default: 50, min: 1, max: 5000 },
      readers: { default: 0, min: 0, max: 5000 },
      duration: { default: 10, min: 1, max: 3600 },
      warmup: { default: 2, min: 0, max: 600 },
      rounds: { default: 1, min: 1, max: 100 },
      products: { default: 200, min: 1, max: 1_000_000 },
      'poll-interval': { default: 25, min: 1, max: 60_000 },
      'race-buyers': { default: 1000, min: 1, max: 10_000 },
      'race-units': { default: 100, min: 1, max: 1_000_000 },
    },
    {
      'no-race': { type: 'boolean', default: false },
      shipping: { type: 'boolean', default: false },
      promotions: { type: 'boolean', default: false },
      workers: { type: 'string' },
      floor: { type: 'string' },
      'no-floor': { type: 'boolean', default: false },
      'no-waits': { type: 'boolean', default: false },
      compare: { type: 'string' },
      'compare-env': { type: 'string', multiple: true, default: [] },
      'db-prefix': { type: 'string', default: 'storefront_bench_purchase_' },
    },
  );
  if (parsed === null) return null;
  const { integers, values } = parsed;
  const compare = compareCheckout(values.compare);
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(values['db-prefix'])) {
    throw new UsageError('--db-prefix must be lower-case letters, digits and underscores (at most 41)');
  }
  const databaseUrl = databaseUrlFromEnv();
  const compareEnv: Record<string, string> = {};
  for (const pair of values['compare-env']) {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(pair);
    if (!match) throw new UsageError(`--compare-env must be NAME=VALUE, got "${pair}"`);
    compareEnv[match[1]!] = match[2]!;
  }
  if (Object.keys(compareEnv).length > 0 && compare === null) {
    throw new UsageError(
      '--compare-env needs --compare (use --compare . to compare this checkout with itself)',
    );
  }
  const workers = values.workers ?? (databaseUrl === null ? 'inline' : 'separate');
  if (workers !== 'inline' && workers !== 'separate')
    throw new UsageError(`--workers must be inline or separate, got "${workers}"`);
  if (workers === 'separate' && databaseUrl === null)
    throw new UsageError(
      '--workers separate needs DATABASE_URL (PGlite is one process: the loops run in the server)',
    );
  let floor: string | null = null;
  if (values['no-floor']) {
    if (values.floor !== undefined) throw new UsageError('--floor and --no-floor contradict each other');
  } else if (values.floor !== undefined) {
    floor = path.resolve(values.floor);
    if (!existsSync(floor)) throw new UsageError(`--floor: no file ${floor}`);
    if (databaseUrl === null)
      throw new UsageError('--floor needs DATABASE_URL (the floor runs on PostgreSQL)');
  } else if (databaseUrl !== null && existsSync(DEFAULT_FLOOR)) {
    floor = DEFAULT_FLOOR;
  }
  const { 'poll-interval': pollMs, 'race-buyers': raceBuyers, 'race-units': raceUnits, ...counts } = integers;
  const options: Options = {
    ...counts,
    pollMs,
    raceBuyers,
    raceUnits,
    race: !values['no-race'],
    shipping: values.shipping,
    promotions: values.promotions,
    workers,
    floor,
    waits: !values['no-waits'],
    compare,
    compareEnv,
    dbPrefix: values['db-prefix'],
    ...parsed.results,
    databaseUrl,
  };
  return options;
}
