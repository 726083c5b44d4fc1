import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../test/harness.ts';

// The operator's files (deploy/): Prometheus alerting rules with their unit tests, the Grafana
// dashboard, and docs/observability.md, held against what /metrics really exposes.
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const RULES = path.join(ROOT, 'deploy', 'prometheus');
const DASHBOARD = path.join(ROOT, 'deploy', 'grafana', 'storefront-dashboard.json');
const DOCS = path.join(ROOT, 'docs', 'observability.md');
const PROMTOOL = process.env.PROMTOOL_PATH ?? 'promtool';
const TOKEN = 'deploy-test-token-deploy-test-token-01';

function promtool(args: string[], cwd = RULES): string {
  const run = spawnSync(PROMTOOL, args, { cwd, encoding: 'utf8' });
  if (run.error)
    throw new Error(
      `promtool is not on PATH: install Debian's prometheus package (\`apt-get install prometheus\`; .ci/run does), or set PROMTOOL_PATH.`,
    );
  assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
  return run.stdout;
}

/** The metric names an expression or a text names (ours, Node's and the process's). */
const namesIn = (text: string): string[] => [
  ...new Set(text.match(/\b(storefront|nodejs|process)_[a-z0-9_]+/g) ?? []),
];

let t: TestApp;
let exposed: Set<string>;
before(async () => {
  t = await startTestApp({ config: { metrics: { port: null, host: '127.0.0.1', token: TOKEN } } });
  const answer = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  // Every declared series (a labelled one without samples yet has its # TYPE line), and the
  // histograms' _bucket, _sum and _count.
  exposed = new Set(
    [...answer.body.matchAll(/^# TYPE (\S+) (\w+)$/gm)].flatMap(([, name, type]) =>
      type === 'histogram' ? [name!, `${name}_bucket`, `${name}_sum`, `${name}_count`] : [name!],
    ),
  );
});
after(() => t.close());

describe('deploy/: alerting rules and dashboard', () => {
  test('`promtool check rules` and the rules unit tests (`promtool test rules`) pass', () => {
    assert.match(promtool(['check', 'rules', 'storefront.rules.yml']), /SUCCESS: \d+ rules found/);
    assert.match(promtool(['test', 'rules', 'storefront.rules.test.yml']), /SUCCESS/);
  });

  test('every series the rules and the dashboard query is one /metrics exposes', () => {
    const rules = fs
      .readFileSync(path.join(RULES, 'storefront.rules.yml'), 'utf8')
      .split('\n')
      .filter((line) => !line.trim().startsWith('#'))
      .join('\n');
    const dashboard = JSON.parse(fs.readFileSync(DASHBOARD, 'utf8')) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    const queried = [
      ...namesIn(rules).filter((name) => !/^storefront_[a-z]+$/.test(name)),
      ...dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => namesIn(target.expr))),
    ];
    assert.ok(queried.length > 20);
    // The pool's series exist on PostgreSQL only (the embedded database has no pool).
    const missing = queried.filter(
      (name) => !exposed.has(name) && !(t.db.kind === 'pglite' && name.startsWith('storefront_db_pool_')),
    );
    assert.deepEqual([...new Set(missing)], []);
    assert.ok(dashboard.panels.length >= 10);
  });

  test('docs/observability.md describes every storefront_ series', () => {
    const docs = fs.readFileSync(DOCS, 'utf8');
    const ours = [...exposed]
      .filter((name) => name.startsWith('storefront_'))
      .map((name) => name.replace(/_(bucket|sum|count)$/, ''));
    const undocumented = [...new Set(ours)].filter(
      (name) => !docs.includes(`\`${name}\``) && !docs.includes(`\`${name}{`),
    );
    assert.deepEqual(undocumented, []);
  });
});
