import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';

/**
 * Storefront runs on Node.js 24; a machine may have an older one (Debian 12 ships Node 20). What the
 * `storefront` command (bin/storefront.js) and the root `prepare` (package.json, run by `npm ci`)
 * do on it depends on the install: a development checkout after `npm ci` has Node.js 24 of its own
 * (the `node` devDependency), a production install (`npm ci --omit=dev`) has none, a fresh clone has
 * no node_modules at all. Each is tested with this machine's older Node when it has one, and always
 * with this Node made to report version 20.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const PRETEND_20 = `--import=data:text/javascript,Object.defineProperty(process,'versions',{value:{...process.versions,node:'20.20.2'}})`;

/** Node.js binaries older than 24 on the PATH or at /usr/bin/node. */
function olderNodes(): string[] {
  const candidates = [
    ...(process.env.PATH ?? '').split(path.delimiter).map((dir) => path.join(dir, 'node')),
    '/usr/bin/node',
  ];
  const seen = new Set([fs.realpathSync(process.execPath)]);
  return candidates.filter((candidate) => {
    if (!fs.existsSync(candidate) || seen.has(fs.realpathSync(candidate))) return false;
    seen.add(fs.realpathSync(candidate));
    const version = spawnSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    return version.status === 0 && Number(version.stdout.split('.')[0]) < 24;
  });
}

/** [label, node, extra NODE_OPTIONS] of every older Node to try. */
const OLDER: [string, string, string][] = [
  ...olderNodes().map((node): [string, string, string] => [node, node, '']),
  ['Node 24 reporting 20.20.2', process.execPath, PRETEND_20],
];

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-node-versions-'));
after(() => fs.rmSync(work, { recursive: true, force: true }));

type Install = 'development' | 'production' | 'fresh clone';

/** A copy of the files that run before anything else, laid out as `install` leaves a checkout. */
function checkout(install: Install, built = true): string {
  const dir = fs.mkdtempSync(path.join(work, `${install.replace(' ', '-')}-`));
  for (const file of ['package.json', 'bin/storefront.js', 'scripts/prepare.js', 'scripts/prepare.ts']) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, file), path.join(dir, file));
  }
  if (install !== 'fresh clone') fs.mkdirSync(path.join(dir, 'node_modules'));
  if (install === 'development') {
    fs.mkdirSync(path.join(dir, 'node_modules', 'node', 'bin'), { recursive: true });
    fs.symlinkSync(process.execPath, path.join(dir, 'node_modules', 'node', 'bin', 'node'));
  }
  if (built)
    for (const app of ['console', 'shop']) {
      fs.mkdirSync(path.join(dir, 'packages', app, 'dist'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'packages', app, 'dist', 'index.html'), '<!doctype html>');
    }
  return dir;
}

/** Runs `command` in `dir` with `node` first on the PATH, as npm runs a script or a user a command. */
function shell(dir: string, node: string, nodeOptions: string, command: string) {
  const bin = fs.mkdtempSync(path.join(work, 'path-'));
  fs.symlinkSync(node, path.join(bin, 'node'));
  return spawnSync('sh', ['-c', command], {
    cwd: dir,
    encoding: 'utf8',
    env: { PATH: `${bin}${path.delimiter}/usr/bin${path.delimiter}/bin`, NODE_OPTIONS: nodeOptions },
  });
}

const prepareScript = (): string =>
  (
    JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    }
  ).scripts.prepare!;

describe('on a Node.js older than 24', () => {
  for (const [label, node, options] of OLDER) {
    test(`bin/storefront.js says what to do for each kind of install (${label})`, () => {
      const advice: [Install, RegExp, RegExp | null][] = [
        ['development', /run through npm[\s\S]*npm start[\s\S]*npx storefront <command>/, null],
        ['production', /production install[\s\S]*Install Node\.js 24 or newer on this host/, /npx|npm start/],
        ['fresh clone', /Run `npm ci` first/, null],
      ];
      for (const [install, says, never] of advice) {
        const result = shell(checkout(install), node, options, 'node bin/storefront.js doctor');
        assert.equal(result.status, 1, `${install}: ${result.stderr}`);
        assert.match(
          result.stderr,
          /^storefront: this needs Node\.js 24 or newer, and this is Node\.js 2[0-3]\./,
        );
        assert.match(result.stderr, says, install);
        if (never) assert.doesNotMatch(result.stderr, never, install);
        assert.doesNotMatch(result.stderr, /ERR_UNKNOWN_FILE_EXTENSION|\n\s+at /);
        assert.equal(result.stdout, '');
      }
    });

    test(`the prepare script of a production install says what the host lacks, and does not fail (${label})`, () => {
      const built = shell(checkout('production'), node, options, prepareScript());
      assert.equal(built.status, 0, built.stderr);
      assert.equal(built.stderr, '');
      assert.match(
        built.stdout,
        /^prepare: this is Node\.js 2[0-3]\.\S+, and Storefront runs on Node\.js 24 or newer\./,
      );
      assert.match(built.stdout, /Install Node\.js 24 on this host/);
      assert.match(built.stdout, /the console and shop built ahead \(npm run build\) are there/);
      const unbuilt = shell(checkout('production', false), node, options, prepareScript());
      assert.equal(unbuilt.status, 0, unbuilt.stderr);
      assert.match(
        unbuilt.stdout,
        /there is no build of the console and shop: run `npm ci && npm run build`/,
      );
    });
  }
});

test('on Node.js 24 a production install’s prepare only says whether the builds are there', () => {
  const result = shell(checkout('production'), process.execPath, '', prepareScript());
  assert.equal(result.status, 0, result.stderr);
  assert.equal(
    result.stdout,
    'prepare: no development dependencies: the console and shop built ahead (npm run build) are there.\n',
  );
});
