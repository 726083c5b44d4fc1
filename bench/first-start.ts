/**
 * `npm run bench:first-start`: what the first `storefront serve` on an empty embedded data
 * directory (`npm start` on a fresh checkout) takes: the peak resident memory of the server
 * process, and of it and its children together, the memory once it listens, and the seconds until
 * /healthz answers (the demo store is made before it listens). Scenarios, interleaved run by run:
 *
 * - `cluster template`: this checkout, with the cluster `npm ci` made (node_modules/.cache,
 *   decision `cluster-template`), which a new data directory copies;
 * - `no template`: this checkout with the template moved aside for the run (initdb in the server);
 * - `--compare DIR`: another checkout's first start (say the commit before), on its own.
 *
 *   npm run bench:first-start -- [--runs 3] [--compare DIR] [--output bench/RESULTS.md] [--no-write]
 */
import { existsSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { commitOf, machine, root } from './lib/machine.ts';
import { compareCheckout, positiveInteger } from './lib/options.ts';
import { freePort, onCleanup, runMain, serve, stopChild, temporaryDirectory } from './lib/processes.ts';
import { publish } from './lib/results.ts';
import { CLUSTER_TEMPLATE, ensureClusterTemplate } from '../src/db/pglite.ts';

interface Sample {
  /** Peak RSS of the server process, MiB. */
  serverPeak: number;
  /** Peak of the server's and its children's RSS together, MiB. */
  treePeak: number;
  /** RSS of the server 2 s after /healthz first answered, MiB. */
  settled: number;
  /** Seconds from spawning the server to its first /healthz 200. */
  seconds: number;
}

function rssKiB(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** The pids whose parent is `pid` (a scan of /proc). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry));
    } catch {
      // gone
    }
  }
  return children;
}

async function firstStart(checkout: string): Promise<Sample> {
  const dataDir = temporaryDirectory('storefront-first-start-');
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', SEED_DEMO: '1' };
  delete env.DATABASE_URL;
  let serverPeak = 0;
  let treePeak = 0;
  let pid = 0;
  let sampling = true;
  // The server's pid is known once spawned; sample from the first tick.
  const sampler = (async () => {
    while (sampling) {
      if (pid > 0) {
        const own = rssKiB(pid);
        const tree = own + childrenOf(pid).reduce((sum, child) => sum + rssKiB(child), 0);
        serverPeak = Math.max(serverPeak, own);
        treePeak = Math.max(treePeak, tree);
      }
      await sleep(50);
    }
  })();
  const port = await freePort();
  const starting = serve(env, port, { checkout, pollMs: 50 });
  // lib's serve spawns at once: find the child among ours.
  while (pid === 0) {
    const [child] = childrenOf(process.pid).filter((candidate) =>
      readFileSync(`/proc/${candidate}/cmdline`, 'utf8').includes('storefront.js'),
    );
    if (child) pid = child;
    else await sleep(10);
  }
  const server = await starting;
  await sleep(2000);
  const settled = rssKiB(server.pid);
  sampling = false;
  await sampler;
  await stopChild(server.child);
  return {
    serverPeak: serverPeak / 1024,
    treePeak: treePeak / 1024,
    settled: settled / 1024,
    seconds: server.startupSeconds,
  };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
};

await runMain(async () => {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '3' },
      compare: { type: 'string' },
      output: { type: 'string', default: 'bench/RESULTS.md' },
      'no-write': { type: 'boolean', default: false },
    },
  });
  const runs = positiveInteger('--runs', values.runs, 1, 50);
  const compare = compareCheckout(values.compare);
  await ensureClusterTemplate();
  const aside = `${CLUSTER_TEMPLATE}.aside`;
  onCleanup(() => {
    if (existsSync(aside) && !existsSync(CLUSTER_TEMPLATE)) renameSync(aside, CLUSTER_TEMPLATE);
  });
  const scenarios: [string, () => Promise<Sample>][] = [
    ['cluster template', () => firstStart(root)],
    [
      'no template (initdb in the server)',
      async () => {
        renameSync(CLUSTER_TEMPLATE, aside);
        try {
          return await firstStart(root);
        } finally {
          renameSync(aside, CLUSTER_TEMPLATE);
        }
      },
    ],
    ...(compare
      ? [[`${commitOf(compare)} (--compare)`, () => firstStart(compare)] as [string, () => Promise<Sample>]]
      : []),
  ];
  const samples = new Map<string, Sample[]>(scenarios.map(([name]) => [name, []]));
  for (let run = 1; run <= runs; run++)
    for (const [name, measure] of scenarios) {
      const sample = await measure();
      samples.get(name)!.push(sample);
      process.stderr.write(
        `bench: run ${run}/${runs} ${name}: server ${sample.serverPeak.toFixed(0)} MiB, with children ${sample.treePeak.toFixed(0)} MiB, settled ${sample.settled.toFixed(0)} MiB, ${sample.seconds.toFixed(1)} s\n`,
      );
    }
  const m = machine();
  const row = (name: string, list: Sample[]) => {
    const of = (key: keyof Sample, digits: number) =>
      `${median(list.map((s) => s[key])).toFixed(digits)} (max ${Math.max(...list.map((s) => s[key])).toFixed(digits)})`;
    return `| ${name} | ${of('serverPeak', 0)} | ${of('treePeak', 0)} | ${of('settled', 0)} | ${of('seconds', 1)} |`;
  };
  const text = [
    `## First start on an empty embedded data directory (${m.date})`,
    '',
    `- Machine: ${m.nproc} CPUs (${m.cpu}), ${m.memory}, ${m.os}, Node ${m.node}, load ${m.load}; commit ${m.commit}`,
    `- \`npm run bench:first-start -- --runs ${runs}${compare ? ' --compare …' : ''}\`: \`storefront serve\` with the demo seed on a fresh DATA_DIR, RSS sampled every 50 ms from /proc; medians of ${runs} runs, interleaved.`,
    '',
    '| Scenario | Server peak RSS (MiB) | With its children (MiB) | Server RSS 2 s after listening (MiB) | Seconds to /healthz |',
    '| --- | --- | --- | --- | --- |',
    ...scenarios.map(([name]) => row(name, samples.get(name)!)),
  ].join('\n');
  await publish(text, { write: !values['no-write'], output: values.output }, (line) =>
    process.stderr.write(`${line}\n`),
  );
});
