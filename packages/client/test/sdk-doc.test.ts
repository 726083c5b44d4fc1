/**
 * Runs docs/sdk.md: every fenced code block of the guide is TypeScript, and all of them, in order,
 * form one program that is type-checked against the built package and then run against a real
 * server seeded with the demo store, with the guide's placeholders (`http://127.0.0.1:3000`,
 * `pk_…`, `st_…`, port 8080) replaced by the test server's. What it prints is checked line by line,
 * so the guide cannot rot.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { DemoCredentials } from '../../../src/seed/demo.ts';
import { webhookTestConfig } from '../../../src/webhooks/webhooks.test-support.ts';
import { run, typeErrors, WORK_DIR } from './doc-program.test-support.ts';
import { startDemoApp, type LiveApp } from './server.test-support.ts';

const GUIDE = path.resolve(import.meta.dirname, '../../../docs/sdk.md');

let live: LiveApp;
let demo: DemoCredentials;
let program: string;
let file: string;

before(async () => {
  ({ live, demo } = await startDemoApp({ config: webhookTestConfig() }));
  program = programOfGuide();
  fs.mkdirSync(WORK_DIR, { recursive: true });
  file = path.join(WORK_DIR, `sdk-doc-${randomUUID().slice(0, 8)}.ts`);
  fs.writeFileSync(file, program);
});
after(async () => {
  fs.rmSync(file, { force: true });
  if (fs.existsSync(WORK_DIR) && fs.readdirSync(WORK_DIR).length === 0) fs.rmdirSync(WORK_DIR);
  await live.close();
});

/** The guide's code blocks, in order, as one module, with the placeholders filled in. */
function programOfGuide(): string {
  const guide = fs.readFileSync(GUIDE, 'utf8');
  const blocks = [...guide.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)];
  assert.ok(blocks.length >= 8, `the guide has its code blocks (found ${blocks.length})`);
  const languages = new Set(blocks.map(([, language]) => language));
  assert.deepEqual([...languages], ['ts'], 'every code block is TypeScript, so every one is run');
  let code = blocks.map(([, , body]) => body).join('\n');
  const placeholders: [string, string][] = [
    ["'http://127.0.0.1:3000'", JSON.stringify(live.baseUrl)],
    ["'pk_…'", JSON.stringify(demo.publishableKey)],
    ["'st_…'", JSON.stringify(demo.staffToken)],
    ['listen(8080,', 'listen(0,'],
  ];
  for (const [placeholder, value] of placeholders) {
    assert.ok(code.includes(placeholder), `the guide uses the placeholder ${placeholder}`);
    code = code.replaceAll(placeholder, value);
  }
  return code;
}

describe('docs/sdk.md', () => {
  test('its code type-checks against the built package', () => {
    assert.deepEqual(typeErrors(file), []);
  });

  test('its code runs, in order, against a real server and prints what the guide says', async () => {
    const { code, stdout, stderr } = await run(file);
    assert.equal(code, 0, `the guide's program failed:\n${stderr}\n--- stdout ---\n${stdout}`);
    const expected = [
      /^Shopping at Demo Store \(USD\)$/,
      /^First page: .+, .+/,
      /^\d+ products under 50\.00$/,
      /^.+: .+ at \d+ USD$/,
      /^.+ is unchanged$/,
      /^Cart [0-9a-f-]{36}: 1 line, subtotal \d+$/,
      /^.+: total \d+$/,
      /^Order 1001 is pending, total \d+$/,
      /^400 validation_failed: \/email$/,
      /^request id for support: \S+$/,
      /^[0-9a-f-]{36}: \d+ requested, \d+ available$/,
      /^Sandbox payment succeeded$/,
      /^Order 1001 is paid$/,
      /^Code sent; signed in: false$/,
      /^verified order\.paid [0-9a-f-]{36}$/,
      /^test delivery answered 204$/,
      /^1 paid order\(s\) on the first page$/,
      /^key Demo storefront: active$/,
    ];
    const lines = stdout.trim().split('\n');
    assert.equal(lines.length, expected.length, `one line per expectation:\n${stdout}`);
    lines.forEach((line, index) => assert.match(line, expected[index]!, `line ${index + 1}`));
    const underFifty = Number(/^(\d+) products under/m.exec(stdout)![1]);
    assert.ok(
      underFifty > 0 && underFifty < 19,
      'listAll walked the whole demo catalog (19 active products)',
    );
  });
});
