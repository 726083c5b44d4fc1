/**
 * Runs the examples of README.md and docs/*.md against a real server seeded with the demo store,
 * as a reader would paste them (docs/sdk.md, one program, is sdk-doc.test.ts): every TypeScript
 * block is type-checked against the built packages and run, and every `curl` command of a shell
 * block that names no value to fill in (`<cartId>`, `ct_…`) is run with the demo store's key and
 * staff token in place of `pk_…`, `st_…`, `$PK`, `$STAFF_TOKEN`, and this server in place of
 * `http://127.0.0.1:3000`; it must answer 2xx, or exactly the refusal listed below. Shell lines
 * that install, start or deploy (`npm`, `docker`, `git`, `node bin/storefront.js`, `stripe`) are
 * not run here: CI and scripts/production-install.sh run those.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { DemoCredentials } from '../../../src/seed/demo.ts';
import { run, typeErrors, WORK_DIR } from './doc-program.test-support.ts';
import { startDemoApp, type LiveApp } from './server.test-support.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
/** The documents whose examples run here (docs/sdk.md runs as one program in sdk-doc.test.ts). */
const DOCUMENTS = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md') && name !== 'sdk.md')
    .map((name) => `docs/${name}`),
];

/** Commands of a shell block that answer other than 2xx on purpose, by document: the status. */
const EXPECTED_REFUSALS: Record<string, Record<string, number>> = {
  // The sign-in code is the one the mail carried; the guide's `123456` is made up: 401.
  'docs/customers.md': { '/storefront/v1/customers/verify': 401 },
};

interface Block {
  document: string;
  language: string;
  code: string;
  line: number;
}

function blocksOf(document: string): Block[] {
  const text = fs.readFileSync(path.join(ROOT, document), 'utf8');
  return [...text.matchAll(/^( *)```(\w*)\n([\s\S]*?)^\1```$/gm)].map((match) => ({
    document,
    language: match[2]!,
    // Blocks indented in a list: their lines lose the indentation.
    code: match[3]!
      .split('\n')
      .map((line) => line.slice(match[1]!.length))
      .join('\n'),
    line: text.slice(0, match.index).split('\n').length,
  }));
}

/** A shell block's commands: continuation lines joined, comments and blank lines dropped. */
function commandsOf(code: string): string[] {
  return code
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

const blocks = DOCUMENTS.flatMap(blocksOf);
let live: LiveApp;
let demo: DemoCredentials;

before(async () => {
  ({ live, demo } = await startDemoApp());
  fs.mkdirSync(WORK_DIR, { recursive: true });
});
after(async () => {
  if (fs.existsSync(WORK_DIR) && fs.readdirSync(WORK_DIR).length === 0) fs.rmdirSync(WORK_DIR);
  await live.close();
});

/** The example with the demo store's credentials and this server in place of the placeholders. */
function filled(code: string): string {
  return code
    .replaceAll('http://127.0.0.1:3000', live.baseUrl)
    .replaceAll('http://localhost:3000', live.baseUrl)
    .replaceAll('pk_…', demo.publishableKey)
    .replaceAll('st_…', demo.staffToken);
}

describe('the TypeScript examples of README.md and docs/', () => {
  const typescript = blocks.filter((block) => block.language === 'ts');
  test('there are some', () => assert.ok(typescript.length >= 2, `${typescript.length} blocks`));
  for (const block of typescript) {
    test(`${block.document}:${block.line} type-checks and runs against the demo store`, async () => {
      const file = path.join(WORK_DIR, `example-${randomUUID().slice(0, 8)}.ts`);
      // `export {}`: each example is a module of its own, as in a reader's project.
      fs.writeFileSync(file, `${filled(block.code)}\nexport {};\n`);
      try {
        // @storefront/address is the front ends' source package (bundled, never built on its own):
        // its examples run; its types are checked by its own tsconfig in `npm run check`.
        if (!block.code.includes("from '@storefront/address'")) assert.deepEqual(typeErrors(file), []);
        const { code, stdout, stderr } = await run(file);
        assert.equal(code, 0, `${stderr}\n--- stdout ---\n${stdout}`);
      } finally {
        fs.rmSync(file, { force: true });
      }
    });
  }
});

describe('the curl examples of README.md and docs/', () => {
  const curls = blocks
    .filter((block) => block.language === 'sh')
    .flatMap((block) => commandsOf(block.code).map((command) => ({ ...block, command })))
    .filter(({ command }) => command.startsWith('curl '));
  // What is left to fill in by hand (`<cartId>`, `ct_…`) or a file to upload (`-F file=@jacket.jpg`).
  const runnable = curls.filter(
    ({ command }) =>
      !/<[A-Za-z]+>|[a-z]{2}_…|=@\S/.test(command.replaceAll('pk_…', '').replaceAll('st_…', '')),
  );
  test('there are some', () => assert.ok(runnable.length >= 5, `${runnable.length} of ${curls.length}`));
  for (const { document, line, command } of runnable) {
    test(`${document}:${line} ${command.slice(0, 90)}`, async () => {
      const refusals = EXPECTED_REFUSALS[document] ?? {};
      const expected = Object.entries(refusals).find(([url]) => command.includes(url))?.[1];
      // The command as written, its status code printed last on a line of its own.
      const script = `curl() { command curl -sS -w '\\n%{http_code}\\n' "$@"; }\n${filled(command)}`;
      const { code, stdout, stderr } = await run(path.join(WORK_DIR, 'curl'), ['bash', '-c', script], {
        ...process.env,
        PK: demo.publishableKey,
        STAFF_TOKEN: demo.staffToken,
        API: live.baseUrl,
        B: `${live.baseUrl}/storefront/v1`,
      });
      assert.equal(code, 0, stderr);
      const status = Number(stdout.trim().split('\n').at(-1));
      if (expected === undefined) assert.ok(status >= 200 && status < 300, `${status}: ${stdout}`);
      else assert.equal(status, expected, stdout);
    });
  }
});
