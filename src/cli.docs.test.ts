/**
 * Every `storefront` command README.md and docs/ name (`npx storefront keys create --store demo
 * --label web`, `node bin/storefront.js doctor`, `storefront export --out FILE`), in code spans and
 * code blocks, exists with the options it is given: checked against `storefront --help` of
 * bin/storefront.js, the command the docs tell readers to run. Running the commands is other tests'
 * work; RUN_BY names, for each command of the help, the test that runs it. Likewise every
 * `npm run SCRIPT` the docs show is a script of package.json, and every file a command names
 * (`npm test -- src/http/fuzz.test.ts`, `node bench/tracing.ts`) exists.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { runCli } from './test/cli.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Each command of the help, and a test that runs it (scripts/production-install.sh runs most again). */
const RUN_BY: Record<string, string> = {
  serve: 'src/cli.test.ts',
  worker: 'src/db/newer-database.test.ts',
  migrate: 'src/cli.test.ts',
  'stores create': 'src/cli.test.ts',
  'staff token': 'src/cli.test.ts',
  'keys create': 'src/cli.test.ts',
  'seed demo': 'src/cli.test.ts',
  'seed bench': 'src/cli.test.ts',
  'dkim records': 'src/email/email.dkim.test.ts',
  'secrets check': 'src/cli.test.ts',
  'secrets rotate': 'src/cli.test.ts',
  export: 'src/archive/archive.test.ts',
  import: 'src/archive/archive.test.ts',
  doctor: 'src/doctor.test.ts',
};

/** The help's commands (their words) and the options each takes. */
function commandsOfHelp(help: string): Map<string, Set<string>> {
  const commands = new Map<string, Set<string>>();
  // A usage line starts two spaces in; its description, after a gap of two or more spaces.
  for (const line of help.slice(help.indexOf('Commands:')).split('\n')) {
    const usage = /^ {2}([a-z][^ ].*?)(?: {2,}|$)/.exec(line)?.[1];
    if (!usage) continue;
    const words = usage.split(' ').filter((word) => /^[a-z]+$/.test(word));
    const name = usage.split(' ').slice(0, words.length).join(' ');
    commands.set(name, new Set([...usage.matchAll(/--[a-z-]+/g)].map(([flag]) => flag)));
  }
  return commands;
}

interface Mention {
  where: string;
  text: string;
}

/** Code spans that read like a command but name something else. */
const NOT_COMMANDS = [
  // PostgreSQL's application_name of the process that listens for webhook wake-ups.
  'storefront webhook listener',
];

/** A command a reader types (in a code block or a span), and one a span names. */
const TYPED = /(?:npx storefront|node bin\/storefront\.js)((?: [^\s`|;)#]+)+)/g;
const NAMED = /^storefront((?: [^\s`|;)#]+)+)$/g;

const DOCUMENTS = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .map((name) => `docs/${name}`),
].filter((name) => name.endsWith('.md'));

/**
 * What a document shows as code, with where: each line of its code blocks, and each code span of
 * its prose (`span: true`; one may run over two lines of a paragraph).
 */
function codeOf(document: string): (Mention & { span: boolean })[] {
  const text = fs.readFileSync(path.join(ROOT, document), 'utf8');
  const lineOf = (index: number) => text.slice(0, index).split('\n').length;
  const code: (Mention & { span: boolean })[] = [];
  const blocks = /^ *```[^\n]*\n[\s\S]*?^ *```$/gm;
  for (const block of text.matchAll(blocks)) {
    block[0].split('\n').forEach((line, index) => {
      code.push({ where: `${document}:${lineOf(block.index) + index}`, text: line, span: false });
    });
  }
  // The prose: the blocks blanked out, their lines kept.
  const prose = text.replace(blocks, (block) => block.replace(/[^\n]/g, ' '));
  for (const span of prose.matchAll(/`((?:[^`\n]|\n(?!\s*\n))+)`/g)) {
    code.push({
      where: `${document}:${lineOf(span.index)}`,
      text: span[1]!.replace(/\s+/g, ' '),
      span: true,
    });
  }
  return code;
}

/**
 * Where the docs name a `storefront` command: `npx storefront …` and `node bin/storefront.js …`
 * in code blocks and code spans, `storefront …` as a whole code span, and the first column of
 * README's table of commands.
 */
function mentions(): Mention[] {
  const found: Mention[] = [];
  for (const document of DOCUMENTS) {
    for (const { where, text, span } of codeOf(document)) {
      if (NOT_COMMANDS.includes(text)) continue;
      for (const match of [...text.matchAll(TYPED), ...(span ? text.matchAll(NAMED) : [])]) {
        found.push({ where, text: match[1]!.trim() });
      }
    }
    const text = fs.readFileSync(path.join(ROOT, document), 'utf8');
    const table = /^\| Command +\|.*\n\|[- |]+\n((?:\|.*\n)+)/m.exec(text);
    for (const row of table?.[1]!.matchAll(/^\| `([^`]+)`/gm) ?? []) {
      const line = text.slice(0, table!.index + table![0].indexOf(row[0])).split('\n').length;
      found.push({ where: `${document}:${line}`, text: row[1]! });
    }
  }
  return found;
}

describe('the storefront commands the docs name', () => {
  let commands: Map<string, Set<string>>;
  before(async () => {
    const { code, stdout } = await runCli(['--help'], {}, path.join(ROOT, 'bin/storefront.js'));
    assert.equal(code, 0);
    commands = commandsOfHelp(stdout);
  });

  test('the help lists every command RUN_BY names, and no other', () => {
    assert.deepEqual([...commands.keys()].sort(), Object.keys(RUN_BY).sort());
    for (const [name, file] of Object.entries(RUN_BY)) {
      const source = fs.readFileSync(path.join(ROOT, file), 'utf8');
      const args = name
        .split(' ')
        .map((word) => `'${word}'`)
        .join(', ');
      assert.ok(source.includes(args), `${file} runs storefront ${name} (${args})`);
    }
  });

  const named = mentions();
  test('there are some', () => assert.ok(named.length >= 20, `${named.length}`));
  for (const { where, text } of named) {
    test(`${where}: storefront ${text}`, () => {
      // `storefront --help`, and `storefront …` (any command).
      if (text === '--help' || text === '…') return;
      const words = text.split(' ');
      const name = [...commands.keys()].find(
        (candidate) => text === candidate || text.startsWith(`${candidate} `),
      );
      assert.ok(name, `no command "${words.slice(0, 2).join(' ')}" in storefront --help`);
      // After the command: its options and their values, and for import the archive.
      const rest = text.slice(name.length).trim();
      assert.doesNotMatch(rest, /^[a-z]+(\s|$)/, `"storefront ${name}" takes no subcommand "${rest}"`);
      for (const [flag] of rest.matchAll(/--[a-z-]+/g)) {
        assert.ok(commands.get(name)!.has(flag) || flag === '--help', `storefront ${name} has no ${flag}`);
      }
    });
  }
});

describe("the npm scripts and files the docs' commands name", () => {
  const scripts = (
    JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: object }
  ).scripts;
  const named = DOCUMENTS.flatMap(codeOf).flatMap(({ where, text }) => [
    ...[...text.matchAll(/\bnpm run ([\w:-]+)/g)].map(([, script]) => ({ where, script: script! })),
    // `npm test -- FILE…`, `node scripts/….ts`, `bash scripts/….sh`: files of this repository.
    ...[...text.matchAll(/\b(?:npm test --|node|bash)((?: +[^\s#`]+)+)/g)].flatMap(([, args]) =>
      args!
        .trim()
        .split(/ +/)
        .filter((arg) => /^(src|scripts|packages|bench)\/[^…]+\.(ts|sh)$/.test(arg))
        .map((file) => ({ where, file })),
    ),
  ]);
  test('there are some', () => assert.ok(named.length >= 30, `${named.length}`));
  for (const name of named) {
    if ('script' in name) {
      test(`${name.where}: npm run ${name.script}`, () =>
        assert.ok(name.script in scripts, `package.json has no script ${name.script}`));
    } else {
      test(`${name.where}: ${name.file}`, () =>
        assert.ok(fs.globSync(name.file, { cwd: ROOT }).length > 0, `no ${name.file}`));
    }
  }
});
