/**
 * `npm run bench:mail`: how fast one `storefront worker` sends queued mail to an SMTP server.
 *
 * For each round: a fresh database (a temporary DATA_DIR, or with DATABASE_URL a fresh PostgreSQL
 * database next to that one, dropped afterwards) gets a store and N queued store mails; a local
 * SMTP sink (smtp-server on 127.0.0.1, which takes `--latency` ms to accept each message, as a
 * relay does) receives them from one `storefront worker` process. It measures the messages per
 * second from the first message to the last, and counts duplicates (by X-Storefront-Mail-Id).
 * With `--compare DIR` the same round also runs a worker of another checkout (e.g. a worktree of
 * the commit before a change), alternating, so both are measured in one run.
 *
 *   npm run bench:mail -- [--mails 2000] [--latency 20] [--concurrency 8] [--rounds 1]
 *                         [--compare DIR] [--output bench/RESULTS.md] [--no-write]
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SMTPServer } from 'smtp-server';
import { pathToFileURL } from 'node:url';
import type * as DatabaseModule from '../src/db/database.ts';
import type * as MigrateModule from '../src/db/migrate.ts';
import type * as ClockModule from '../src/lib/clock.ts';
import type * as OutboxModule from '../src/mail/outbox.ts';
import type * as OnboardingModule from '../src/onboarding/onboarding.service.ts';
import { createDatabase, databaseUrlFromEnv } from './lib/databases.ts';
import { commitOf, machine, root } from './lib/machine.ts';
import { compareCheckout, parseResultsCommandLine, type ResultsTarget } from './lib/options.ts';
import { alive, runBenchmark, startWorker, stopChild, temporaryDirectory } from './lib/processes.ts';
import { publish } from './lib/results.ts';

const HELP = `Usage: npm run bench:mail -- [options]

  --mails N         mails queued for each worker (default 2000)
  --latency MS      how long the SMTP sink takes to accept one message (default 20)
  --concurrency C   MAIL_CONCURRENCY of the worker (default 8)
  --rounds R        rounds, each a fresh database per worker (default 1)
  --compare DIR     also run a worker from the checkout in DIR, alternating with this one
  --output FILE     results file (default bench/RESULTS.md)
  --no-write        print the section, do not write the results file

Without DATABASE_URL each worker runs on a fresh embedded database in a temporary DATA_DIR. With
it, each gets a database storefront_bench_mail_<n> on that server, dropped afterwards.
`;

interface Options extends ResultsTarget {
  mails: number;
  latencyMs: number;
  concurrency: number;
  rounds: number;
  compare: string | null;
  databaseUrl: string | null;
}

function parseOptions(argv: string[]): Options | null {
  const parsed = parseResultsCommandLine(
    argv,
    {
      mails: { default: 2000, min: 1, max: 1_000_000 },
      latency: { default: 20, min: 0, max: 10_000 },
      concurrency: { default: 8, min: 1, max: 64 },
      rounds: { default: 1, min: 1, max: 100 },
    },
    { compare: { type: 'string' } },
  );
  if (parsed === null) return null;
  const { latency, ...integers } = parsed.integers;
  return {
    ...integers,
    latencyMs: latency,
    compare: compareCheckout(parsed.values.compare),
    ...parsed.results,
    databaseUrl: databaseUrlFromEnv(),
  };
}

/** A local SMTP server that takes `latencyMs` to accept each message and records when each arrived. */
async function startSink(latencyMs: number) {
  const arrivals = new Map<string, number[]>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      let head = '';
      stream.on('data', (chunk: Buffer) => {
        if (head.length < 8192) head += chunk.toString('latin1');
      });
      stream.on('end', () => {
        const id = /^X-Storefront-Mail-Id: *(\S+)/im.exec(head)?.[1] ?? `unknown-${randomUUID()}`;
        arrivals.set(id, [...(arrivals.get(id) ?? []), performance.now()]);
        setTimeout(callback, latencyMs);
      });
    },
  });
  server.on('error', () => {}); // a worker stopped mid-transaction resets its connection
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    arrivals,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Run {
  label: string;
  commit: string;
  messagesPerSecond: number;
  seconds: number;
  duplicates: number;
}

let databases = 0;

/**
 * The functions that make the queue, from the measured checkout itself: its migrations, its store
 * and its outbox rows, so a checkout from before a migration is measured on its own schema.
 */
async function queueMakers(checkout: string) {
  const load = async <T>(file: string): Promise<T> =>
    (await import(pathToFileURL(path.join(checkout, file)).href)) as T;
  return {
    openDatabase: (await load<typeof DatabaseModule>('src/db/database.ts')).openDatabase,
    migrateToLatest: (await load<typeof MigrateModule>('src/db/migrate.ts')).migrateToLatest,
    systemClock: (await load<typeof ClockModule>('src/lib/clock.ts')).systemClock,
    enqueueMail: (await load<typeof OutboxModule>('src/mail/outbox.ts')).enqueueMail,
    createStore: (await load<typeof OnboardingModule>('src/onboarding/onboarding.service.ts')).createStore,
  };
}

/** One worker of `checkout` sending `mails` queued mails to a fresh sink; returns its rate. */
async function measure(options: Options, checkout: string, label: string): Promise<Run> {
  let databaseUrl: string | null = null;
  let dataDir = '';
  if (options.databaseUrl) {
    databases += 1;
    const created = await createDatabase(
      options.databaseUrl,
      `storefront_bench_mail_${process.pid}_${databases}`,
    );
    databaseUrl = created.url;
  } else {
    dataDir = temporaryDirectory('storefront-bench-mail-');
  }
  const { openDatabase, migrateToLatest, systemClock, enqueueMail, createStore } =
    await queueMakers(checkout);
  const db = await openDatabase({ databaseUrl, dataDir, command: 'bench mail' });
  try {
    await migrateToLatest(db.kysely);
    const suffix = randomUUID().slice(0, 8);
    const { store } = await createStore(
      { db: db.kysely, clock: systemClock },
      {
        name: 'Mail Bench',
        slug: `mail-${suffix}`,
        currency: 'USD',
        ownerEmail: `owner-${suffix}@example.com`,
      },
    );
    for (let i = 0; i < options.mails; i++) {
      await enqueueMail(db.kysely, {
        storeId: store.id,
        tier: 'store',
        kind: 'order_confirmation',
        to: `buyer${i}@example.com`,
        subject: `Your order #${1000 + i}`,
        text: `Thank you for your order.\n\nOrder #${1000 + i}: 1 × Thing, $15.00.\n`,
      });
    }
  } finally {
    await db.close();
  }

  const sink = await startSink(options.latencyMs);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: dataDir }),
    EMAIL_TRANSPORT: sink.url,
    MAIL_CONCURRENCY: String(options.concurrency),
    LOG_LEVEL: 'warn',
    SEED_DEMO: '0',
  };
  if (!databaseUrl) delete env.DATABASE_URL;
  const worker = startWorker(env, checkout);
  const deadline = Date.now() + 60_000 + options.mails * (options.latencyMs + 200);
  // The owner's welcome mail, if any, is not one of the queued mails: count only order mails.
  const queued = () => [...sink.arrivals.entries()].filter(([id]) => !id.startsWith('unknown-'));
  try {
    while (queued().length < options.mails) {
      if (!alive(worker.child)) throw new Error(`the worker exited:\n${worker.tail.text()}`);
      if (Date.now() > deadline) throw new Error(`only ${queued().length} of ${options.mails} mails arrived`);
      await sleep(50);
    }
    // A little longer, to catch a duplicate that follows.
    await sleep(500);
  } finally {
    await stopChild(worker.child);
    await sink.close();
  }
  const times = queued()
    .flatMap(([, at]) => at)
    .sort((a, b) => a - b);
  const seconds = (times.at(-1)! - times[0]!) / 1000;
  const duplicates = queued().reduce((sum, [, at]) => sum + at.length - 1, 0);
  return {
    label,
    commit: commitOf(checkout),
    messagesPerSecond: (options.mails - 1) / Math.max(seconds, 0.001),
    seconds,
    duplicates,
  };
}

async function main(options: Options): Promise<void> {
  const host = machine();
  const runs: Run[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    const order: [string, string][] = [[root, 'this checkout']];
    if (options.compare) order.push([options.compare, 'compared checkout']);
    if (round % 2 === 0) order.reverse();
    for (const [checkout, label] of order) {
      const run = await measure(options, checkout, label);
      process.stderr.write(
        `bench: round ${round}, ${label} (${run.commit}): ${run.messagesPerSecond.toFixed(1)} messages/s, ${run.duplicates} duplicates\n`,
      );
      runs.push(run);
    }
  }
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]!;
  };
  const rows = [...new Set(runs.map((r) => r.label))].map((label) => {
    const mine = runs.filter((r) => r.label === label);
    return `| ${label} (${mine[0]!.commit}) | ${median(mine.map((r) => r.messagesPerSecond)).toFixed(1)} | ${mine.map((r) => r.messagesPerSecond.toFixed(1)).join(' / ')} | ${mine.reduce((sum, r) => sum + r.duplicates, 0)} |`;
  });
  const text = [
    `## ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}: mail, one worker to an SMTP server, ${options.databaseUrl ? 'PostgreSQL' : 'PGlite'}`,
    '',
    `- Date: ${host.date}`,
    `- Machine: ${host.nproc} CPUs (${host.cpu}), ${host.memory} memory, ${host.os}; load average at start ${host.load}`,
    `- Database: ${options.databaseUrl ? 'PostgreSQL' : 'embedded PGlite'}; ${options.mails} queued store mails per run; the SMTP sink takes ${options.latencyMs} ms to accept a message; MAIL_CONCURRENCY=${options.concurrency}; ${options.rounds} round(s)`,
    `- Command: \`npm run bench:mail -- --mails ${options.mails} --latency ${options.latencyMs} --concurrency ${options.concurrency} --rounds ${options.rounds}${options.compare ? ' --compare DIR' : ''}\``,
    '',
    '| worker | messages/s (median) | rounds | duplicates |',
    '| --- | ---: | --- | ---: |',
    ...rows,
    '',
  ].join('\n');
  await publish(text, options, (line) => process.stderr.write(`${line}\n`));
}

await runBenchmark(HELP, parseOptions, main);
