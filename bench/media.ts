/**
 * `npm run bench:media`: the cost of resizing images (D47) and what a flood of resize requests does
 * to the server.
 *
 * 1. In this process: one 2000 × 1500 JPEG resized to 640 px wide WebP (and AVIF), cold each time
 *    (sharp's cache off, as the server runs it), one at a time and two at a time: images per second.
 * 2. `storefront serve` on a fresh embedded database (demo seed on, to get a staff token): N
 *    distinct 2000 × 1500 JPEGs are uploaded, then `--flood` requests for distinct resized copies
 *    are sent at once. Reported: the answers (200 or 503 `media_busy`), the server's RSS before,
 *    at its highest during the flood (sampled every 20 ms) and after, and how long the flood took
 *    to drain when each refused request is retried after its Retry-After; then the same URLs again,
 *    now read from the stored copies. Each of `--rounds` floods uses fresh images, so the rounds
 *    show whether the RSS keeps growing or stays bounded.
 *
 *   node bench/media.ts [--resizes 20] [--flood 200] [--rounds 3] [--output bench/RESULTS.md] [--no-write]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { loadSharp, resizeImage } from '../src/media/media.images.ts';
import {
  freePort,
  machine,
  positiveInteger,
  publish,
  root,
  run,
  runMain,
  serve,
  stopChild,
  temporaryDirectory,
  UNLIMITED_RATES,
} from './lib.ts';

const WIDTHS = [160, 320, 640, 960, 1280, 1920];
const ACCEPTS = ['image/avif,image/webp,*/*', 'image/webp,*/*', '*/*'];

const log = (line: string) => process.stderr.write(`${line}\n`);

/** A 2000 × 1500 photo-like JPEG: a gradient, shapes and noise, so encoders have detail to work on. */
async function photo(seed: number): Promise<Buffer> {
  const sharp = await loadSharp();
  const width = 2000;
  const height = 1500;
  const hue = (seed * 37) % 360;
  const circles = Array.from({ length: 40 }, (_, i) => {
    const x = (i * 397 + seed * 101) % width;
    const y = (i * 211 + seed * 53) % height;
    return `<circle cx="${x}" cy="${y}" r="${40 + ((i * 13) % 160)}" fill="hsl(${(hue + i * 9) % 360},60%,${30 + (i % 40)}%)" fill-opacity="0.6"/>`;
  }).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${hue},50%,80%)"/><stop offset="1" stop-color="hsl(${(hue + 60) % 360},50%,35%)"/></linearGradient></defs>
    <rect width="${width}" height="${height}" fill="url(#g)"/>${circles}</svg>`;
  const noise = await sharp({
    create: {
      width,
      height,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 0, sigma: 12 },
    },
  })
    .raw()
    .toBuffer();
  return sharp(Buffer.from(svg))
    .composite([{ input: noise, raw: { width, height, channels: 3 }, blend: 'overlay' }])
    .jpeg({ quality: 85 })
    .toBuffer();
}

async function throughput(
  original: Buffer,
  format: 'webp' | 'avif',
  count: number,
  atOnce: number,
): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: atOnce }, async () => {
      while (next < count) {
        next += 1;
        await resizeImage(original, 'jpeg', 640, format);
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

function rssMiB(pid: number): number {
  const kib = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kib) / 1024;
}

/** Samples the RSS of `pid` every 20 ms until stopped; the highest seen. */
function rssSampler(pid: number): { stop(): number } {
  let highest = rssMiB(pid);
  const timer = setInterval(() => {
    try {
      highest = Math.max(highest, rssMiB(pid));
    } catch {
      // the process is gone
    }
  }, 20);
  return {
    stop() {
      clearInterval(timer);
      return highest;
    },
  };
}

interface Answer {
  status: number;
  retryAfter: number;
}

async function request(url: string, accept: string): Promise<Answer> {
  const response = await fetch(url, { headers: { accept } });
  await response.arrayBuffer();
  return { status: response.status, retryAfter: Number(response.headers.get('retry-after') ?? 1) };
}

interface Round {
  counts: Map<number, number>;
  floodSeconds: number;
  drainSeconds: number;
  attempts: number;
  before: number;
  highest: number;
  after: number;
  cachedOk: number;
  cachedSeconds: number;
}

/**
 * Sends every request at once, then retries each refused one after its Retry-After (as a browser
 * or CDN would) until all are made; then sends them all again (now stored copies).
 */
async function floodOnce(pid: number, urls: readonly { url: string; accept: string }[]): Promise<Round> {
  const before = rssMiB(pid);
  const sampler = rssSampler(pid);
  const started = performance.now();
  const first = await Promise.all(urls.map(({ url, accept }) => request(url, accept)));
  const floodSeconds = (performance.now() - started) / 1000;
  const counts = new Map<number, number>();
  for (const answer of first) counts.set(answer.status, (counts.get(answer.status) ?? 0) + 1);
  let attempts = first.length;
  await Promise.all(
    first.map(async (answer, i) => {
      let current = answer;
      while (current.status === 503) {
        await sleep(current.retryAfter * 1000);
        attempts += 1;
        current = await request(urls[i]!.url, urls[i]!.accept);
      }
      if (current.status !== 200) throw new Error(`${urls[i]!.url}: ${current.status}`);
    }),
  );
  const drainSeconds = (performance.now() - started) / 1000;
  const highest = sampler.stop();
  const after = rssMiB(pid);
  const cachedStarted = performance.now();
  const again = await Promise.all(urls.map(({ url, accept }) => request(url, accept)));
  const cachedSeconds = (performance.now() - cachedStarted) / 1000;
  const cachedOk = again.filter((answer) => answer.status === 200).length;
  return { counts, floodSeconds, drainSeconds, attempts, before, highest, after, cachedOk, cachedSeconds };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      resizes: { type: 'string', default: '20' },
      flood: { type: 'string', default: '200' },
      rounds: { type: 'string', default: '3' },
      output: { type: 'string', default: path.join(root, 'bench', 'RESULTS.md') },
      'no-write': { type: 'boolean', default: false },
    },
  });
  const resizes = positiveInteger('resizes', values.resizes, 1, 10_000);
  const flood = positiveInteger('flood', values.flood, 1, 5_000);
  const rounds = positiveInteger('rounds', values.rounds, 1, 20);
  const host = machine();

  log('bench: making a 2000 × 1500 JPEG…');
  const original = await photo(0);
  await resizeImage(original, 'jpeg', 640, 'webp'); // loads libvips' code once
  const webpOne = await throughput(original, 'webp', resizes, 1);
  const webpTwo = await throughput(original, 'webp', resizes, 2);
  const avifOne = await throughput(original, 'avif', Math.max(1, Math.ceil(resizes / 2)), 1);
  const avifTwo = await throughput(original, 'avif', Math.max(1, Math.ceil(resizes / 2)), 2);
  log(`bench: w=640 WebP ${webpOne.toFixed(1)}/s (one at a time), ${webpTwo.toFixed(1)}/s (two)`);

  const dataDir = temporaryDirectory('storefront-bench-media-');
  const port = await freePort();
  log('bench: starting storefront serve (embedded database, demo seed)…');
  const server = await serve(
    {
      ...process.env,
      ...UNLIMITED_RATES,
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      SEED_DEMO: '1',
      LOG_LEVEL: 'error',
      ADMIN_UI: '0',
      SHOP_UI: '0',
    },
    port,
  );
  let token: string | undefined;
  for (let i = 0; i < 100 && token === undefined; i++) {
    token = /Staff token:\s+(st_\S+)/.exec(server.tail.lines.join('\n'))?.[1];
    if (token === undefined) await sleep(50);
  }
  if (token === undefined) throw new Error(`no staff token in the output:\n${server.tail.text()}`);

  const distinct = WIDTHS.length * ACCEPTS.length;
  const uploads = Math.ceil(flood / distinct);
  const results: Round[] = [];
  for (let round = 0; round < rounds; round++) {
    log(`bench: round ${round + 1}: uploading ${uploads} distinct 2000 × 1500 JPEGs…`);
    const urls: { url: string; accept: string }[] = [];
    for (let i = 0; i < uploads; i++) {
      const form = new FormData();
      const bytes = await photo(1 + round * uploads + i);
      form.append('file', new Blob([bytes], { type: 'image/jpeg' }), `photo-${i}.jpg`);
      const response = await fetch(`${server.url}/admin/v1/media`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      if (response.status !== 201) throw new Error(`upload: ${response.status} ${await response.text()}`);
      const { url } = (await response.json()) as { url: string };
      for (const w of WIDTHS)
        for (const accept of ACCEPTS) urls.push({ url: `${server.url}${url}?w=${w}`, accept });
    }
    urls.length = flood;
    await sleep(1000);
    log(`bench: round ${round + 1}: ${flood} distinct resize requests at once…`);
    results.push(await floodOnce(server.pid, urls));
  }
  const peakFile = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1];
  await stopChild(server.child);

  const mib = (n: number) => `${n.toFixed(0)} MiB`;
  const arenas = process.env.MALLOC_ARENA_MAX ? `, MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX}` : '';
  const text = `## ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}: media resizing and a resize flood, PGlite${arenas}

- Date: ${host.date}
- Machine: \`nproc\` ${host.nproc} (${host.cpu}), ${host.memory} memory, \`uname -a\`: ${run('uname', ['-a'])}; load average at start ${host.load}
- Node ${host.node}, commit ${host.commit}
- Resizing (in one process, sharp's cache off, one thread per image as the server runs it): one 2000 × 1500 JPEG (${(original.length / 1024).toFixed(0)} KiB) to 640 px wide, cold each time, ${resizes} times
- Flood: \`storefront serve\` (embedded database, MEDIA_RESIZE_CONCURRENCY 2 and MEDIA_RESIZE_QUEUE 32, the defaults; MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX ?? '2 (set by `storefront serve`)'}), ${uploads} distinct 2000 × 1500 JPEGs, ${flood} requests for distinct copies (6 widths × 3 formats by Accept) sent at once from this process, refused ones retried after Retry-After; ${rounds} rounds on one server, each with fresh images

| Resize to w=640 | One at a time | Two at a time |
| --------------- | ------------: | ------------: |
| WebP            | ${webpOne.toFixed(1)} images/s | ${webpTwo.toFixed(1)} images/s |
| AVIF            | ${avifOne.toFixed(1)} images/s | ${avifTwo.toFixed(1)} images/s |

| Flood round (fresh images each) | First answers | All ${flood} made, with retries | Server RSS before / highest during / after | The same ${flood} again (stored copies) |
| ------------------------------- | ------------- | ------------------------------: | -----------------------------------------: | ---------------------------------------: |
${results
  .map(
    (r, i) =>
      `| ${i + 1} | ${[...r.counts.entries()]
        .sort(([a], [b]) => a - b)
        .map(([status, n]) => `${n} × ${status}`)
        .join(
          ', ',
        )} in ${r.floodSeconds.toFixed(2)} s | ${r.drainSeconds.toFixed(1)} s, ${r.attempts} requests | ${mib(r.before)} / ${mib(r.highest)} / ${mib(r.after)} | ${r.cachedOk} × 200 in ${r.cachedSeconds.toFixed(2)} s |`,
  )
  .join('\n')}

- Server peak RSS since start (VmHWM, start-up and the demo seed included): ${mib(Number(peakFile) / 1024)}
`;
  await publish(text, { write: !values['no-write'], output: values.output }, log);
}

await runMain(main);
