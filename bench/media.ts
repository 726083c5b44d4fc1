/**
 * `npm run bench:media`: the cost of resizing images (decision `media-resize-bound`) and what a flood of resize requests does
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
 * 3. Large uploads (issue 42): `--large N` uploads of a 7000 × 7000 PNG of 16 bits per sample
 *    (each a distinct gradient, about 3.5 MiB) sent at once to a fresh `storefront serve`: their
 *    statuses and times, the server's RSS before, at its highest and after. With `--compare DIR`
 *    the same is done on a server of that checkout (e.g. the commit before a change), in turn.
 *    `--large-only` skips parts 1 and 2. MEDIA_MAX_PIXELS in the environment reaches the servers.
 *
 *   node bench/media.ts [--resizes 20] [--flood 200] [--rounds 3] [--large 3] [--large-only]
 *                       [--compare DIR] [--output bench/RESULTS.md] [--no-write]
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { loadSharp, resizeImage } from '../src/media/media.images.ts';
import { machine, run } from './lib/machine.ts';
import { compareCheckout, positiveInteger, RESULTS_OPTIONS } from './lib/options.ts';
import {
  freePort,
  runMain,
  type RunningServer,
  serve,
  stopChild,
  temporaryDirectory,
  UNLIMITED_RATES,
} from './lib/processes.ts';
import { publish } from './lib/results.ts';

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

/** A 7000 × 7000 PNG of 16 bits per sample with alpha, a gradient: the upload of issue 42. */
async function largePng(seed: number): Promise<Buffer> {
  const sharp = await loadSharp();
  const size = 7000;
  const hue = (seed * 67) % 360;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${hue},60%,70%)"/><stop offset="1" stop-color="hsl(${(hue + 90) % 360},50%,30%)"/></linearGradient></defs>
    <rect width="${size}" height="${size}" fill="url(#g)"/></svg>`;
  return sharp(Buffer.from(svg), { limitInputPixels: false })
    .toColourspace('rgb16')
    .png({ compressionLevel: 9 })
    .toBuffer();
}

/** A fresh `storefront serve` (embedded database, demo seed for a staff token) of `checkout`. */
async function startServer(checkout: string | undefined): Promise<{ server: RunningServer; token: string }> {
  const port = await freePort();
  const server = await serve(
    {
      ...process.env,
      ...UNLIMITED_RATES,
      DATA_DIR: temporaryDirectory('storefront-bench-media-'),
      DATABASE_URL: '',
      SEED_DEMO: '1',
      LOG_LEVEL: 'error',
      ADMIN_UI: '0',
      SHOP_UI: '0',
    },
    port,
    checkout === undefined ? {} : { checkout },
  );
  for (let i = 0; i < 100; i++) {
    const token = /Staff token:\s+(st_\S+)/.exec(server.tail.lines.join('\n'))?.[1];
    if (token !== undefined) return { server, token };
    await sleep(50);
  }
  throw new Error(`no staff token in the output:\n${server.tail.text()}`);
}

async function uploadFile(
  server: RunningServer,
  token: string,
  bytes: Buffer,
  name: string,
): Promise<{ status: number; body: string; seconds: number }> {
  const form = new FormData();
  form.append('file', new Blob([bytes]), name);
  const started = performance.now();
  const response = await fetch(`${server.url}/admin/v1/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const body = await response.text();
  return { status: response.status, body, seconds: (performance.now() - started) / 1000 };
}

interface LargeRun {
  label: string;
  answers: { status: number; title: string; seconds: number }[];
  before: number;
  highest: number;
  after: number;
}

/** `files` uploaded at once to a fresh server of `checkout`: answers, times and the server's RSS. */
async function largeUploads(label: string, checkout: string | undefined, files: Buffer[]): Promise<LargeRun> {
  const { server, token } = await startServer(checkout);
  await sleep(1000);
  const before = rssMiB(server.pid);
  const sampler = rssSampler(server.pid);
  const answers = await Promise.all(
    files.map(async (bytes, i) => {
      const answer = await uploadFile(server, token, bytes, `large-${i}.png`);
      const title = answer.status === 201 ? 'created' : (JSON.parse(answer.body) as { title: string }).title;
      return { status: answer.status, title, seconds: answer.seconds };
    }),
  );
  const highest = sampler.stop();
  await sleep(1000);
  const after = rssMiB(server.pid);
  await stopChild(server.child);
  return { label, answers, before, highest, after };
}

function largeTable(runs: readonly LargeRun[], count: number, bytes: number): string {
  const mib = (n: number) => `${n.toFixed(0)} MiB`;
  return `- Large uploads: ${count} distinct 7000 × 7000 PNGs of 16 bits per sample (RGBA, ${(bytes / 1024 / 1024).toFixed(1)} MiB each) sent at once to a fresh \`storefront serve\` (embedded database, demo seed; MEDIA_MAX_PIXELS ${process.env.MEDIA_MAX_PIXELS ?? 'unset: the default'}), RSS sampled every 20 ms

| Server | Answers | Seconds (each upload) | RSS before / highest / 1 s after |
| ------ | ------- | --------------------: | -------------------------------: |
${runs
  .map(
    (run) =>
      `| ${run.label} | ${run.answers.map((a) => `${a.status} ${a.title}`).join(', ')} | ${run.answers.map((a) => a.seconds.toFixed(1)).join(', ')} | ${mib(run.before)} / ${mib(run.highest)} / ${mib(run.after)} |`,
  )
  .join('\n')}
`;
}

async function largeOnly(count: number, compare: string | null, write: { write: boolean; output: string }) {
  const host = machine();
  log(`bench: making ${count} 7000 × 7000 16-bit PNGs…`);
  const files = await Promise.all(Array.from({ length: count }, (_, i) => largePng(i)));
  const runs = [await largeUploads(`this checkout (${host.commit})`, undefined, files)];
  if (compare !== null) runs.push(await largeUploads(`compared (${compare})`, compare, files));
  const text = `## ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}: large uploads at once, PGlite

- Date: ${host.date}
- Machine: \`nproc\` ${host.nproc} (${host.cpu}), ${host.memory} memory; load average at start ${host.load}
- Node ${host.node}, commit ${host.commit}
${largeTable(runs, count, files[0]!.length)}`;
  await publish(text, write, log);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      resizes: { type: 'string', default: '20' },
      flood: { type: 'string', default: '200' },
      rounds: { type: 'string', default: '3' },
      ...RESULTS_OPTIONS,
      large: { type: 'string', default: '3' },
      'large-only': { type: 'boolean', default: false },
      compare: { type: 'string' },
    },
  });
  const large = positiveInteger('large', values.large, 1, 20);
  const compare = compareCheckout(values.compare);
  if (values['large-only'])
    return largeOnly(large, compare, { write: !values['no-write'], output: values.output });
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

  log('bench: starting storefront serve (embedded database, demo seed)…');
  const { server, token } = await startServer(undefined);

  const distinct = WIDTHS.length * ACCEPTS.length;
  const uploads = Math.ceil(flood / distinct);
  const results: Round[] = [];
  for (let round = 0; round < rounds; round++) {
    log(`bench: round ${round + 1}: uploading ${uploads} distinct 2000 × 1500 JPEGs…`);
    const urls: { url: string; accept: string }[] = [];
    for (let i = 0; i < uploads; i++) {
      const answer = await uploadFile(server, token, await photo(1 + round * uploads + i), `photo-${i}.jpg`);
      if (answer.status !== 201) throw new Error(`upload: ${answer.status} ${answer.body}`);
      const { url } = JSON.parse(answer.body) as { url: string };
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

  log(`bench: ${large} large uploads at once…`);
  const files = await Promise.all(Array.from({ length: large }, (_, i) => largePng(i)));
  const largeRuns = [await largeUploads(`this checkout (${host.commit})`, undefined, files)];
  if (compare !== null) largeRuns.push(await largeUploads(`compared (${compare})`, compare, files));

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
${largeTable(largeRuns, large, files[0]!.length)}`;
  await publish(text, { write: !values['no-write'], output: values.output }, log);
}

await runMain(main);
