/**
 * The documents a newcomer reads first stay true to the tree: the README's layout names every part
 * of src/ and every package, and the functions docs/architecture.md's walkthroughs follow exist.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { LAYERS } from './architecture.rules.ts';

const root = path.resolve(import.meta.dirname, '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

function readmeLayout(): string {
  const readme = read('README.md');
  const start = readme.indexOf('## Layout');
  assert.notEqual(start, -1, 'README.md has a Layout section');
  return readme.slice(start, readme.indexOf('\n## ', start + 1));
}

test("the README's layout names every part of src/ and every package", () => {
  const layout = readmeLayout();
  const missing: string[] = [];
  for (const part of Object.keys(LAYERS)) {
    const name = part.endsWith('.ts') ? part : `${part}/`;
    if (!new RegExp(String.raw`(^|[\s,])${name.replace('.', String.raw`\.`)}`, 'm').test(layout))
      missing.push(name);
  }
  for (const entry of fs.readdirSync(path.join(root, 'packages'), { withFileTypes: true }))
    if (entry.isDirectory() && !layout.includes(`packages/${entry.name}/`))
      missing.push(`packages/${entry.name}/`);
  assert.deepEqual(missing, [], `README.md's layout leaves out: ${missing.join(', ')}`);
});

/** Every file under a folder whose name ends with one of `extensions`, read as text. */
function sourcesUnder(folder: string, extensions: readonly string[]): string[] {
  return fs
    .readdirSync(path.join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && extensions.some((ext) => entry.name.endsWith(ext)))
    .map((entry) => fs.readFileSync(path.join(entry.parentPath, entry.name), 'utf8'));
}

test('the functions docs/architecture.md names (its walkthroughs) exist in the code', () => {
  const doc = read('docs/architecture.md');
  // camelCase names in backticks (`placeOrder`, `holdPendingSlot()`): the walkthroughs' steps.
  const named = new Set([...doc.matchAll(/`([a-z]+[A-Z][A-Za-z0-9]*)(?:\(\))?`/g)].map((match) => match[1]!));
  assert.ok(named.size > 20, 'the walkthroughs name functions');
  const code = [
    ...sourcesUnder('src', ['.ts']),
    ...['console', 'shop', 'client', 'address', 'blocks'].flatMap((pkg) =>
      sourcesUnder(`packages/${pkg}/src`, ['.ts', '.tsx']),
    ),
  ].join('\n');
  const missing = [...named].filter((name) => !new RegExp(String.raw`\b${name}\b`).test(code));
  assert.deepEqual(
    missing,
    [],
    `docs/architecture.md names what the code does not have: ${missing.join(', ')}`,
  );
});
