#!/usr/bin/env node
/* global process, URL */
// The `storefront` command. Plain JavaScript on purpose: it must run on any Node.js, so that an
// older one (Node 20 ships on Debian 12) gets a clear message instead of ERR_UNKNOWN_FILE_EXTENSION
// for the TypeScript sources, which only Node 24 or newer runs directly.
import { existsSync } from 'node:fs';

const REQUIRED_MAJOR = 24;
const major = Number(process.versions.node.split('.')[0]);

if (major < REQUIRED_MAJOR) {
  // What to do depends on what this checkout has: `npm ci` installs Node.js 24 into it (the `node`
  // devDependency, which npm and npx put first on the PATH); a production install
  // (`npm ci --omit=dev`) leaves it out, so the host must bring its own.
  const projectNode = existsSync(new URL('../node_modules/node/bin/node', import.meta.url));
  const installed = existsSync(new URL('../node_modules/', import.meta.url));
  const advice = projectNode
    ? [
        '`npm ci` installed Node.js 24 into this project (the `node` development package); run through npm, which uses it:',
        '  npm start                 start the service',
        "  npx storefront <command>  any other command (npx runs the project's own Node.js)",
      ]
    : installed
      ? [
          'This is a production install (`npm ci --omit=dev`): it has no Node.js of its own to run instead.',
          'Install Node.js 24 or newer on this host (nodesource, Debian backports or a tarball), then run this again',
          '(docs/operations.md, "Production install").',
        ]
      : [
          'Run `npm ci` first: in development it installs Node.js 24 into the project, then `npm start` and',
          '`npx storefront <command>` use it. A production host needs Node.js 24 of its own (docs/operations.md).',
        ];
  process.stderr.write(
    [
      `storefront: this needs Node.js ${REQUIRED_MAJOR} or newer, and this is Node.js ${process.versions.node}.`,
      ...advice,
      '',
    ].join('\n'),
  );
  process.exit(1);
}

// `storefront serve` and `storefront worker` start with V8 flags that V8 reads only from the command
// line, so the process replaces itself (same pid and stdio, `process.execve`) with one that has them:
// - on the embedded database, which runs PostgreSQL compiled to WebAssembly in this process,
//   `--liftoff-only`: V8 compiles it with its baseline compiler (Liftoff) and would later compile
//   the hot functions again with TurboFan, which takes ~500 MiB for a few seconds and keeps ~50 MiB
//   more for ~20 % less CPU per query (decision `embedded-memory`; PGLITE_OPTIMIZING_COMPILER=1
//   keeps TurboFan);
// - `--max-semi-space-size=8` (MiB): V8's young generation otherwise grows to several times that
//   under load, which is most of the RSS a busy API process gains; with 8 MiB it stayed ~35 MiB
//   lower under the read load at the same throughput (decision `young-generation-bound`). A value
//   given in NODE_OPTIONS or on the command line wins.
// It also sets MALLOC_ARENA_MAX=2 unless the environment names a value: glibc otherwise gives each
// thread that allocates (libuv's pool, libvips resizing images) an arena of its own and seldom
// gives their memory back, and the RSS rose by ~80 MiB with each flood of image resizes instead of
// levelling off (decision `malloc-arenas`).
// src/config.ts validates PGLITE_OPTIMIZING_COMPILER; this reads it first.
const embedded = (process.env.DATABASE_URL ?? '').trim() === '';
const optimizing = /^(1|true|yes|on)$/i.test((process.env.PGLITE_OPTIMIZING_COMPILER ?? '').trim());
const given = `${process.env.NODE_OPTIONS ?? ''} ${process.execArgv.join(' ')}`;
const flags = [
  ...(embedded && !optimizing && !given.includes('--liftoff-only') ? ['--liftoff-only'] : []),
  ...(given.includes('--max-semi-space-size') ? [] : ['--max-semi-space-size=8']),
];
const arenas = process.env.MALLOC_ARENA_MAX === undefined ? { MALLOC_ARENA_MAX: '2' } : null;
// `export` and `import` read or write a whole embedded database in one process: the same flags keep
// their peak RSS ~460 MiB lower (bench/RESULTS.md, "export and import").
// A `storefront worker` needs them as much as `serve`: without them its RSS went from ~130 to
// 190–260 MiB under the purchase benchmark (its live heap stayed ~34 MB).
const relaunched = ['serve', 'worker', 'export', 'import'];
if (
  relaunched.includes(process.argv[2] ?? '') &&
  (flags.length > 0 || arenas) &&
  typeof process.execve === 'function'
) {
  process.execve(
    process.execPath,
    [process.execPath, ...flags, ...process.execArgv, ...process.argv.slice(1)],
    { ...process.env, ...arenas },
  );
}

// Node's module compile cache: the type-stripped TypeScript and V8's compiled code of every module
// (ours and node_modules) are kept on disk, so a later start does not parse and compile ~2,000
// files again (decision `compile-cache`). In os.tmpdir()/node-compile-cache unless
// NODE_COMPILE_CACHE names a directory; NODE_DISABLE_COMPILE_CACHE=1 turns it off. It never fails
// the start.
const { enableCompileCache } = await import('node:module');
enableCompileCache();

await import('../src/main.ts');
