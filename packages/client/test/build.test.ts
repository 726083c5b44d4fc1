/**
 * The client's build (scripts/build-client.ts) while its package is being read: `npm test` and
 * `npm run check` both build it first, and two of them in one checkout used to delete `dist` while
 * the other's sdk-doc.test.ts type-checked ("Cannot find module '@storefront/client'"). A build now
 * never leaves `dist` missing: a forced rebuild in another process runs while this one resolves and
 * type-checks the package over and over.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { buildClient } from '../../../scripts/build-client.ts';
import { typeErrors, WORK_DIR } from './doc-program.test-support.ts';

const SCRIPT = path.resolve(import.meta.dirname, '../../../scripts/build-client.ts');
const DIST = path.resolve(import.meta.dirname, '../dist');
let file: string;

before(() => {
  fs.mkdirSync(WORK_DIR, { recursive: true });
  file = path.join(WORK_DIR, `build-${randomUUID().slice(0, 8)}.ts`);
  fs.writeFileSync(
    file,
    "import { createStorefrontClient } from '@storefront/client';\nexport const client = createStorefrontClient;\n",
  );
});
after(() => {
  fs.rmSync(file, { force: true });
  if (fs.existsSync(WORK_DIR) && fs.readdirSync(WORK_DIR).length === 0) fs.rmdirSync(WORK_DIR);
});

test('a build from unchanged sources does nothing', () => {
  buildClient();
  assert.equal(buildClient(), false);
});

test('a rebuild in another process never leaves the package missing to a reader', async () => {
  const child = spawn(process.execPath, [SCRIPT, '--force'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let exited: number | null | undefined;
  child.on('exit', (code) => (exited = code));
  let looks = 0;
  let checks = 0;
  while (exited === undefined) {
    for (const name of ['index.js', 'index.d.ts', 'storefront.d.ts', 'schema.d.ts'])
      assert.ok(
        fs.existsSync(path.join(DIST, name)),
        `dist/${name} is there during the rebuild (look ${looks})`,
      );
    looks += 1;
    if (looks % 20 === 0) {
      assert.deepEqual(typeErrors(file), [], 'the package type-checks during the rebuild');
      checks += 1;
    }
    await sleep(5);
  }
  assert.equal(exited, 0, 'the rebuild succeeded');
  assert.ok(looks >= 20 && checks > 0, `${looks} looks and ${checks} type-checks while it ran`);
  assert.deepEqual(typeErrors(file), []);
});
