/** The purchase benchmark's report: its section of bench/RESULTS.md. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Machine } from '../lib/machine.ts';
import { median, quotedProblem } from '../lib/results.ts';
import { floorShapeOf, type FloorRun } from './floor.ts';
import { counts, int, meanOf, one, pair, rssPair, sortedOf, sumOf, two } from './format.ts';
import { type Step, stepsOf } from './one-purchase.ts';
import type { Options } from './options.ts';
import { type Race, raceHolds } from './race.ts';
import { type Role, STATS_FLUSH_MS } from './readings.ts';
import { readsPerSecondOf, type Steady } from './steady.ts';
import type { Target } from './target.ts';
import { backendsIn, isLockWait, WAIT_SAMPLE_MS, WAITING } from './waits.ts';

export interface Report {
  options: Options;
  machine: Machine;
  endLoad: string;
  steady: Steady[];
  races: Race[];
  pool: string;
  /** The floor's runs before the first round and after the last (empty: no floor). */
  floor: FloorRun[];
  /** Clients and seconds of each floor run. */
  floorShape: { clients: number; seconds: number };
}

/** The rows of the "per purchase, by process" table for one server. */
function processRows(s: Steady, server: string, kind: 'PostgreSQL' | 'PGlite'): string[] {
  const t = s.target;
  const after = t.rssAfter;
  if (t.worker === null) {
    const what =
      kind === 'PGlite'
        ? 'server (API, worker loops and the embedded database: one process)'
        : 'server (API and worker loops: `storefront serve`)';
    return [
      `| ${server} | ${what} | ${int(s.serverCpuMicros)} | ${int(s.databaseCpuMicros)} | ${one(s.api.statements)} | ${one(
        s.api.transactions,
      )} | ${rssPair(t.rssIdle.api, after?.api)} |`,
    ];
  }
  return [
    `| ${server} | API (\`storefront serve\`) | ${int(s.serverCpuMicros)} | ${int(s.databaseCpuMicrosOf.api)} | ${one(
      s.api.statements,
    )} | ${one(s.api.transactions)} | ${rssPair(t.rssIdle.api, after?.api)} |`,
    `| ${server} | worker (\`storefront worker\`) | ${int(s.workerCpuMicros)} | ${int(s.databaseCpuMicrosOf.worker)} | ${one(
      s.worker.statements,
    )} | ${one(s.worker.transactions)} | ${rssPair(t.rssIdle.worker, after?.worker)} |`,
    `| ${server} | both${Number.isFinite(s.databaseCpuMicrosOf.other) && s.databaseCpuMicrosOf.other > 0 ? ` (database: ${int(s.databaseCpuMicrosOf.other)} µs of other backends too)` : ''} | ${int(
      sumOf(s.serverCpuMicros, s.workerCpuMicros),
    )} | ${int(s.databaseCpuMicros)} | ${one(sumOf(s.api.statements, s.worker.statements))} | ${one(
      sumOf(s.api.transactions, s.worker.transactions),
    )} | ${rssPair(t.rssIdle.api + t.rssIdle.worker, after ? after.api + after.worker : Number.NaN)} |`,
  ];
}

/** Rows of the wait table: at most this many, the largest. */
const WAIT_ROWS = 10;

/**
 * The wait table of one server: for each process and class, the backends in it on average per
 * sample and their share of the process's backends, the largest first; then a note saying what
 * they mean.
 */
function waitLines(s: Steady, server: string, compared: boolean): string[] {
  const w = s.waits;
  if (w === null) return [];
  const processOf: Record<Role, string> = {
    api: s.target.worker ? 'API (`storefront serve`)' : 'server (`storefront serve`)',
    worker: 'worker (`storefront worker`)',
    other: 'other (not the service’s)',
  };
  const rows: { role: Role; what: string; mean: number; share: number }[] = [];
  for (const role of ['api', 'worker', 'other'] as const) {
    const all = Object.values(w.seen[role]).reduce((a, n) => a + n, 0);
    for (const [what, n] of Object.entries(w.seen[role]))
      rows.push({ role, what, mean: w.samples > 0 ? n / w.samples : Number.NaN, share: n / all });
  }
  rows.sort((a, b) => b.mean - a.mean || a.what.localeCompare(b.what));
  const onLocks = backendsIn(w, isLockWait);
  const inside = backendsIn(w, (what) => /^(LWLock|IO|BufferPin)\//.test(what.replace(WAITING, '')));
  const lockKinds = [
    ...new Set(rows.filter((r) => isLockWait(r.what)).map((r) => r.what.slice(WAITING.length))),
  ];
  return [
    `Where the PostgreSQL client backends of the run’s database were during the recorded rounds${compared ? ` (${server})` : ''}: ` +
      `${int(w.samples)} samples of \`pg_stat_activity\` (every ${WAIT_SAMPLE_MS} ms, on a connection of the benchmark’s own, not counted), ` +
      `each backend in its state, by the process it serves (\`application_name\`); backends = the mean number in that state per sample` +
      `${rows.length > WAIT_ROWS ? `; the ${WAIT_ROWS} largest of ${rows.length}` : ''}.`,
    '',
    '| Process | State / wait | Backends | Share of the process’s backends |',
    '| --- | --- | ---: | ---: |',
    ...rows
      .slice(0, WAIT_ROWS)
      .map((r) => `| ${processOf[r.role]} | ${r.what} | ${two(r.mean)} | ${(r.share * 100).toFixed(0)} % |`),
    '',
    `${compared ? `${server}: on` : 'On'} average ${two(onLocks)} backends were waiting on a lock held by another transaction ` +
      `(Lock/*${lockKinds.length > 0 ? `: ${lockKinds.join(', ')}` : ''}): the serialisation points; ` +
      `${two(inside)} waited inside PostgreSQL (LWLock/*, IO/*: WAL flushes, buffers), ` +
      `${two(backendsIn(w, (what) => what === 'active, on CPU'))} ran on CPU, ` +
      `${two(backendsIn(w, (what) => what === 'idle in transaction'))} were idle in transaction (waiting for the API or the worker between statements of a transaction) ` +
      `and ${two(backendsIn(w, (what) => what === 'idle'))} idle (the pools’ spare connections).` +
      (w.failure !== null ? ` The sampling failed before a round’s end: ${w.failure}.` : ''),
    '',
  ];
}

export function section(report: Report): string {
  const { options, machine: m, steady, races } = report;
  const stamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const kind = options.databaseUrl ? 'PostgreSQL' : 'PGlite';
  const compared = steady.length > 1;
  const name = (t: Target): string => (compared ? `${t.label} (${t.commit})` : t.commit);
  const separate = steady.some((s) => s.target.worker !== null);
  const floorTps = meanOf(report.floor.map((f) => f.tps));
  const floorCpu = meanOf(report.floor.map((f) => f.databaseCpuMicros));
  const withFloor = report.floor.length > 0;
  const withReaders = options.readers > 0;
  const times = (n: number): string => (Number.isFinite(n) ? `${n.toFixed(2)}×` : '–');

  const steadyRows = steady.map((s) => {
    const totals = sortedOf(s.ok.map((p) => p.total));
    const step = (which: Step): string => pair(sortedOf(s.ok.map((p) => p.steps[which] ?? Number.NaN)));
    const polls = s.ok.reduce((a, p) => a + p.polls, 0) / Math.max(1, s.ok.length);
    return `| ${name(s.target)} | ${int(s.ok.length)} | ${int(s.purchasesPerSecond)} | ${withFloor ? `${two(s.purchasesPerSecond / floorTps)} | ` : ''}${pair(totals)} | ${stepsOf(options.shipping).map(step).join(' | ')} | ${one(
      polls,
    )} | ${counts(s.failures)} | ${withReaders ? `${int(s.readsPerSecond)} | ${counts(s.readFailures)} | ` : ''}${int(s.serverCpuMicros)} | ${int(s.databaseCpuMicros)} | ${one(s.transactionsPerPurchase)} |`;
  });
  const raceRows = races.map((r) => {
    const verdict = raceHolds(r) ? 'holds' : '**fails**';
    return `| ${compared ? r.target : 'race'} | ${int(r.buyers)} | ${int(r.units)} | ${int(r.orders)} | ${int(r.insufficient)} | ${counts(
      {
        ...r.cartFailures,
        ...r.otherFailures,
        ...r.payFailures,
      },
    )} | ${pair(r.cartMs)} | ${pair(r.checkoutMs)} | ${pair(r.purchaseMs)} | ${int(r.paid)} | ${int(r.onHand)} / ${int(
      r.reserved,
    )} | ${int(r.oversoldOrders)} | ${two(r.serverCpuSeconds)} | ${separate ? `${two(r.workerCpuSeconds)} | ` : ''}${two(r.databaseCpuSeconds)} | ${verdict} |`;
  });

  const notes: string[] = [];
  if (compared) {
    const [a, b] = steady;
    if (a && b) {
      notes.push(
        `- ${a.target.label} vs ${b.target.label}: ${(a.purchasesPerSecond / b.purchasesPerSecond).toFixed(2)}× the purchases/s, ` +
          `${(a.serverCpuMicros / b.serverCpuMicros).toFixed(2)}× the server CPU per purchase` +
          (Number.isFinite(a.workerCpuMicros) && Number.isFinite(b.workerCpuMicros)
            ? `, ${(a.workerCpuMicros / b.workerCpuMicros).toFixed(2)}× the worker CPU per purchase`
            : '') +
          (Number.isFinite(a.databaseCpuMicros)
            ? `, ${(a.databaseCpuMicros / b.databaseCpuMicros).toFixed(2)}× the database CPU per purchase`
            : '') +
          '.',
      );
    }
  }
  if (options.rounds > 1 || compared) {
    notes.push(
      `- Purchases/s per round: ${steady
        .map(
          (s) =>
            `${compared ? `${s.target.label} ` : ''}${s.rounds.map((r) => int(r.purchases.filter((p) => p.ok).length / r.seconds)).join(' / ')}`,
        )
        .join('; ')}.`,
    );
  }
  if (withReaders && (options.rounds > 1 || compared)) {
    notes.push(
      `- Reads/s per round: ${steady
        .map(
          (s) =>
            `${compared ? `${s.target.label} ` : ''}${s.rounds.map((r) => int(r.reads ? readsPerSecondOf(r.reads) : Number.NaN)).join(' / ')}`,
        )
        .join('; ')}.`,
    );
  }
  if (options.rounds > 2) {
    // A soak: memory after each round, and the last against the fifth minute's.
    for (const s of steady) {
      const rss = s.rounds.map((r) =>
        r.rss ? r.rss.api + (Number.isNaN(r.rss.worker) ? 0 : r.rss.worker) : Number.NaN,
      );
      const perRound =
        options.warmup + options.duration + (s.rounds[0]?.flush ? (2 * STATS_FLUSH_MS) / 1000 : 0);
      const fifth = rss[Math.min(rss.length - 1, Math.max(0, Math.ceil(300 / perRound) - 1))] ?? Number.NaN;
      notes.push(
        `- ${s.target.label}: RSS after each round (MiB${s.rounds[0]?.rss && !Number.isNaN(s.rounds[0].rss.worker) ? ', API + worker' : ''}): ${rss.map(int).join(' / ')}; the last is ${(rss.at(-1)! / fifth).toFixed(2)}× the one at about minute five.`,
      );
    }
  }
  for (const s of steady) {
    const f = s.flush;
    if (f === null || !Number.isFinite(f.api.statements)) continue;
    const counted =
      s.api.transactions +
      f.api.transactions +
      (s.target.worker ? s.worker.transactions + f.worker.transactions : 0);
    notes.push(
      `- ${compared ? `${s.target.label}: ` : ''}in the ${STATS_FLUSH_MS / 1000} s after each round (the wait for PostgreSQL's statistics: ` +
        `the worker catching up, idle loops), per purchase of the round: ${s.target.worker ? 'API' : 'server'} ${int(f.serverCpuMicros)} µs CPU, ` +
        `${one(f.api.statements)} statements, ${one(f.api.transactions)} transactions` +
        (s.target.worker
          ? `; worker ${int(f.workerCpuMicros)} µs, ${one(f.worker.statements)} statements, ${one(f.worker.transactions)} transactions`
          : '') +
        `; database ${int(f.databaseCpuMicros)} µs. Over the round and those seconds the processes counted ` +
        `${one(counted)} transactions per purchase, pg_stat_database ${one(s.transactionsPerPurchase)}.`,
    );
  }
  if (withFloor) {
    const runs = report.floor;
    notes.push(
      `- The database's floor (\`${path.basename(path.dirname(options.floor ?? ''))}/${path.basename(options.floor ?? '')}\`: pgbench, the least SQL of one purchase, ` +
        `${report.floorShape.clients} clients, ${report.floorShape.seconds} s, on a database of its own, before the first round and after the last): ` +
        `${runs.map((f) => `${int(f.tps)} tps`).join(' / ')}, median ${int(median(runs.map((f) => f.tps)))}; ` +
        `PostgreSQL CPU ${runs.map((f) => `${int(f.databaseCpuMicros)}`).join(' / ')} µs per purchase. ` +
        steady
          .map(
            (s) =>
              `${compared ? `${s.target.label}: ` : 'The service: '}${times(s.purchasesPerSecond / floorTps)} the floor's purchases/s, ` +
              `${times(s.databaseCpuMicros / floorCpu)} its database CPU per purchase`,
          )
          .join('; ') +
        '.',
    );
    for (const [index, f] of runs.entries()) {
      if (f.failure !== null)
        notes.push(`- The floor's ${index === 0 ? 'first' : 'second'} run: ${f.failure}`);
    }
  }
  for (const s of steady) {
    for (const [who, tail] of [
      ['server', s.target.server.tail],
      ['worker', s.target.worker?.tail],
    ] as const) {
      if (tail === undefined || tail.problems === 0) continue;
      notes.push(
        `- ${compared ? `${s.target.label}: ` : ''}the ${who} logged ${int(tail.problems)} warnings or errors; the first: ${quotedProblem(tail.firstProblem)}`,
      );
    }
  }
  const databases = steady
    .map((s) => `${compared ? `${s.target.label}: ` : ''}${s.target.database}`)
    .join('; ');

  return [
    `## ${stamp}: purchases, ${kind}`,
    '',
    `- Date: ${m.date}`,
    `- Machine: ${m.nproc} CPUs (${m.cpu}), ${m.memory} memory, ${m.os}; load average at start ${m.load}, at the end ${report.endLoad}`,
    `- Node ${m.node}, commit ${compared ? steady.map((s) => `${s.target.label} ${s.target.commit}`).join(', ') : m.commit}`,
    `- Database: ${databases}${options.databaseUrl ? `; DATABASE_POOL_SIZE ${report.pool}` : ''}`,
    ...(Object.keys(options.compareEnv).length > 0
      ? [
          `- The compared server's own environment: ${Object.entries(options.compareEnv)
            .map(([name, value]) => `\`${name}=${value}\``)
            .join(', ')}`,
        ]
      : []),
    `- Steady: ${options.buyers} buyers, each in a loop: \`POST /storefront/v1/carts\` (one random variant of ` +
      `${int(options.products * 2)})${options.shipping ? ' → `PUT …/shipping-address` (a US address) → `GET …/shipping-options` → `PUT …/shipping-method` (the first)' : ''} → \`POST /storefront/v1/checkout\` (Idempotency-Key${options.promotions ? "; with --promotions, this checkout's server only: `discountCode: BENCH10`, a 10 % code combining with an automatic 5 % off the order" : ''}) → \`POST /sandbox/v1/payments/:ref/confirm\` ` +
      `(pm_card_visa) → \`GET /storefront/v1/orders/:id\` every ${options.pollMs} ms until \`paid\`; ${options.duration} s ` +
      `after ${options.warmup} s of warm-up${options.rounds > 1 || compared ? `, ${options.rounds} round${options.rounds === 1 ? '' : 's'}${compared ? ' per server, alternating' : ''}, median purchases/s` : ''}; ` +
      `client and server on the same machine; rate limits out of reach (bench/lib/processes.ts UNLIMITED_RATES) (REDIS_URL ${process.env.REDIS_URL ? 'set' : 'unset'})`,
    ...(withReaders
      ? [
          `- Readers: ${options.readers} shoppers browsing while the buyers run (warm-up and recorded seconds), each its own ` +
            'client address and connection, each in a loop, one read at random of: `GET /storefront/v1/products?limit=20`, ' +
            '`GET /storefront/v1/products/:id` (a random product), `GET /storefront/v1/products?q=…&limit=20` (a word of a random ' +
            'product’s title) and the same with `minPrice`/`maxPrice` around one of its prices or `available=true`; ' +
            'Reads/s: answered 2xx or 304 over the readers’ time, the median of the rounds; a read failure is any other status ' +
            'or a connection error. The CPU, statements and transactions per purchase include what the reads cost',
        ]
      : []),
    `- Worker loops (webhook relay, mail worker, …): ${
      separate
        ? 'in a `storefront worker` process beside each server (the server has `RUN_WORKERS=false`), so Server CPU is the API alone'
        : kind === 'PGlite'
          ? 'in the server process (PGlite: one process)'
          : 'in the server process (`--workers inline`)'
    }${kind === 'PostgreSQL' ? '; each process serves /metrics on a loopback METRICS_PORT of its own (its round-trip counters)' : ''}`,
    '',
    `| Server | Purchases | Purchases/s | ${withFloor ? '× floor | ' : ''}Purchase p50 / p99 ms | Cart p50 / p99 | ${options.shipping ? 'Shipping steps p50 / p99 | ' : ''}Checkout p50 / p99 | Confirm p50 / p99 | Confirm → paid p50 / p99 | Order reads / purchase | Failures | ${withReaders ? 'Reads/s | Read failures | ' : ''}Server CPU µs / purchase | Database CPU µs / purchase | Transactions / purchase |`,
    `| --- | ---: | ---: | ${withFloor ? '---: | ' : ''}---: | ---: | ${options.shipping ? '---: | ' : ''}---: | ---: | ---: | ---: | --- | ${withReaders ? '---: | --- | ' : ''}---: | ---: | ---: |`,
    ...steadyRows,
    '',
    kind === 'PostgreSQL'
      ? 'Per purchase, by process: the CPU of each process and of the PostgreSQL backends it connects ' +
        '(by `application_name`), the statements and transactions it sends (its `storefront_db_statements_total` ' +
        'and `storefront_db_transactions_total`, read from its /metrics at the start and the end of each recorded round), ' +
        'and its RSS (VmRSS, MiB) idle after start-up and seeding → after the last round. ' +
        `“Transactions / purchase” above is the database’s own count (pg_stat_database), over the round and the ${STATS_FLUSH_MS / 1000} s after it.`
      : 'Per purchase, by process: the CPU of the one process (the embedded database included) and its RSS ' +
        '(VmRSS, MiB) idle after start-up and seeding → after the last round; PGlite has no round-trip counters.',
    '',
    '| Server | Process | CPU µs / purchase | Database CPU µs / purchase | Statements / purchase | Transactions / purchase | RSS idle → after MiB |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
    ...steady.flatMap((s) => processRows(s, name(s.target), kind)),
    ...(withFloor
      ? [
          `| floor | pgbench (no service; statements and transactions as its script says, BEGIN and COMMIT not counted) | – | ${int(
            floorCpu,
          )} | ${floorShapeOf(options.floor).statements} | ${floorShapeOf(options.floor).transactions} | – |`,
        ]
      : []),
    '',
    ...steady.flatMap((s) => waitLines(s, name(s.target), compared)),
    ...(races.length > 0
      ? [
          `Hot-variant race: one variant with ${int(options.raceUnits)} units; ${int(options.raceBuyers)} buyers put it in a cart at the same moment, ` +
            'then all check out at once; the winners confirm and read their order until `paid`. It holds when exactly ' +
            'min(units, buyers) checkouts make an order, every other one is 409 `insufficient_stock`, every order is paid, ' +
            'the variant ends with on hand = units − paid and nothing reserved, no order is `oversold`, and the checkout p99 is under 2 s.',
          '',
          `| Server | Buyers | Units | Orders (201) | 409 insufficient_stock | Other failures | Cart p50 / p99 ms | Checkout p50 / p99 ms | Winner checkout → paid p50 / p99 ms | Paid | On hand / reserved after | Oversold orders | Server CPU s | ${separate ? 'Worker CPU s | ' : ''}Database CPU s | Verdict |`,
          `| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ${separate ? '---: | ' : ''}---: | --- |`,
          ...raceRows,
          '',
        ]
      : []),
    ...notes,
    ...(notes.length > 0 ? [''] : []),
  ].join('\n');
}

export function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'unknown';
  }
}
