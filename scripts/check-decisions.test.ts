import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { checkDecisions } from './check-decisions.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-check-decisions-'));
after(() => fs.rmSync(work, { recursive: true, force: true }));

/** A tree with one decision page and the given files; the problems the check finds in it. */
function problemsOf(files: Record<string, string>): string[] {
  const root = fs.mkdtempSync(path.join(work, 'tree-'));
  const all: Record<string, string> = {
    'docs/decisions/README.md': '# Decisions\n',
    'docs/decisions/things.md': '# Things\n\n## real-slug\n\n**Rule:** one.\n\n_Why:_ two.\n',
    ...files,
  };
  for (const [file, text] of Object.entries(all)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  return checkDecisions(root, Object.keys(all));
}

// Written in pieces, so that this file does not cite a design number itself.
const d = (n: number) => `D${n}`;

describe('decision citations (scripts/check-decisions.ts)', () => {
  test('a design number cited in any of its forms fails, naming file and line', () => {
    const problems = problemsOf({
      'src/a.ts': [
        '// fine',
        `// Stock (${d(8)}).`,
        `/** See DESIGN ${d(48)}. */`,
        `// ${d(24)}'s path and ${d(37)}’s shape`,
        `// (${d(44)}/${d(45)}) and ${d(22)}–${d(25)}`,
        `const s = 'x (${d(33)}: always)';`,
      ].join('\n'),
      'docs/guide.md': `Intro.\n\nAs ${d(41)}) says.\n`,
    });
    assert.deepEqual(
      problems.map((problem) => problem.split(': ')[0]),
      [
        'src/a.ts:2',
        'src/a.ts:3',
        'src/a.ts:4',
        'src/a.ts:4',
        'src/a.ts:5',
        'src/a.ts:5',
        'src/a.ts:5',
        'src/a.ts:5',
        'src/a.ts:6',
        'docs/guide.md:3',
      ],
    );
  });

  test('what only looks like a design number passes', () => {
    const problems = problemsOf({
      'src/b.ts': [
        "const colour = '#D1D5DB'; const grey = '#D1';",
        "const state = '3D000'; const id = '0D12a-D3f';",
        '// duplicates: D1 a.ts:10-20, b.ts:3-13',
        'const key = process.env.D2_KEY;',
      ].join('\n'),
      'CHANGELOG.md': `- Stock (${d(8)}).\n`,
    });
    assert.deepEqual(problems, []);
  });

  test('a slug cited that is no heading fails; real slugs and links pass', () => {
    const problems = problemsOf({
      'src/c.ts': '// decision `real-slug`, decisions `real-slug` and `no-such-slug`',
      'docs/guide.md': [
        'See [decision `real-slug`](decisions/things.md#real-slug).',
        'See [decision `real-slug`](decisions/other.md#real-slug).',
        'See decision [`gone`](decisions/things.md#gone).',
      ].join('\n'),
    });
    assert.deepEqual(problems, [
      'src/c.ts:1: decision `no-such-slug` is no heading in docs/decisions/',
      'docs/guide.md:2: link to other.md#real-slug, which is no decision heading of that page',
      'docs/guide.md:3: decision `gone` is no heading in docs/decisions/',
      'docs/guide.md:3: link to things.md#gone, which is no decision heading of that page',
    ]);
  });

  test('the repository itself passes', () => {
    const files = fs
      .readdirSync(path.join(ROOT, 'docs/decisions'))
      .map((page) => `docs/decisions/${page}`)
      .concat(['README.md', 'docs/architecture.md']);
    assert.deepEqual(checkDecisions(ROOT, files), []);
  });
});
