import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { createPglite, ensureClusterTemplate } from './pglite.ts';

/** This process's peak resident memory so far, MiB. */
const peakMiB = (): number =>
  Number(/^VmHWM:\s+(\d+) kB/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-pglite-create-'));
after(() => fs.rmSync(work, { recursive: true, force: true }));

// Decision `cluster-template`: PGlite's initdb raises the peak of the process that runs it by about
// 450 MiB (1 GiB without --liftoff-only, as in a test); opening a cluster, by about 100.
describe('a new embedded data directory', { skip: process.platform !== 'linux' && 'reads /proc' }, () => {
  test('starts as a copy of the cluster template, without initdb in this process', async (t) => {
    const template = await ensureClusterTemplate(path.join(work, 'template'));
    assert.ok(fs.existsSync(path.join(template, 'PG_VERSION')), 'the template was made (in a child process)');
    assert.deepEqual(
      fs.readdirSync(work).filter((name) => name.endsWith('.tmp')),
      [],
      'no half-made template is left',
    );
    const dataDir = path.join(work, 'data');
    fs.mkdirSync(dataDir);
    fs.writeFileSync(path.join(dataDir, 'storefront.lock'), '{}'); // what the service puts there first
    // A file only the template has: a data directory made by initdb would not have it.
    fs.writeFileSync(path.join(template, 'made-by-the-template'), '');
    const before = peakMiB();
    const pglite = await createPglite(dataDir, 16, template);
    try {
      assert.deepEqual((await pglite.query('SELECT 1 AS one')).rows, [{ one: 1 }]);
      await pglite.exec('CREATE TABLE only_in_the_copy (id int)');
    } finally {
      await pglite.close();
    }
    // What it saves is memory (initdb peaks near 600 MiB); a peak is a figure for the benchmark
    // (`npm run bench:first-start`), too noisy on a loaded machine to assert: the copy is asserted.
    t.diagnostic(`this process's peak grew by ${(peakMiB() - before).toFixed(0)} MiB`);
    assert.ok(
      fs.existsSync(path.join(dataDir, 'made-by-the-template')),
      'the data directory is a copy of the template, not a cluster initdb made',
    );
    assert.ok(fs.existsSync(path.join(dataDir, 'storefront.lock')), 'what was in the directory stays');
    assert.equal(
      fs.readFileSync(path.join(dataDir, 'PG_VERSION'), 'utf8'),
      fs.readFileSync(path.join(template, 'PG_VERSION'), 'utf8'),
    );
    // The copy is the data directory's own: the template is left as it was.
    const again = await createPglite(path.join(work, 'second'), 16, template);
    try {
      const tables = await again.query("SELECT 1 FROM pg_tables WHERE tablename = 'only_in_the_copy'");
      assert.equal(tables.rows.length, 0);
    } finally {
      await again.close();
    }
  });
});
