/**
 * `npm run check:architecture` (part of `npm run check`): holds src/ to the rules in
 * scripts/architecture.rules.ts and the arrows drawn in docs/architecture.md.
 *
 * 1. File rules, by dependency-cruiser on every import (type-only imports count); the front ends
 *    (packages/console, packages/shop) are cruised with their own tsconfig.
 * 2. Parts: every part has a layer; no cycle between parts; an arrow goes down the layers, or
 *    within a layer only as drawn in the Mermaid diagram of docs/architecture.md, and every arrow
 *    drawn there exists (the diagram cannot drift from the code).
 * 3. Tables: SQL in a part names only the tables that part declares in its `*.tables.ts`.
 * 4. SQL seams: no part takes, hands out or re-exports a query fragment (scripts/sql-seams.ts).
 *
 * Exits 1 with one line per violation, naming the imports or the SQL that cause it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import {
  DRAWN_LAYERS,
  FILE_RULES,
  LAYER_ORDER,
  LAYERS,
  NOT_ARCHITECTURE,
  SHARED_TABLES,
  type Layer,
} from './architecture.rules.ts';
import { sqlSeamProblems } from './sql-seams.ts';

const root = path.resolve(import.meta.dirname, '..');
process.chdir(root);
const problems: string[] = [];

// The front ends are cruised apart, each with its own tsconfig (JSX, its `@storefront/*` paths).
const FRONT_ENDS = ['packages/console', 'packages/shop'].filter((dir) =>
  fs.existsSync(`${dir}/tsconfig.json`),
);
const notCruised = `${NOT_ARCHITECTURE}|^packages/[^/]+/dist/`;
const cruiseWith = async (paths: string[], tsConfig: string, exclude: string): Promise<ICruiseResult> =>
  (
    await cruise(paths, {
      validate: true,
      ruleSet: { forbidden: FILE_RULES },
      tsPreCompilationDeps: true,
      tsConfig: { fileName: tsConfig },
      doNotFollow: { path: 'node_modules' },
      exclude: { path: exclude },
    })
  ).output as ICruiseResult;
const output = await cruiseWith(
  ['src', ...['web', 'packages'].filter((dir) => fs.existsSync(dir))],
  'tsconfig.json',
  [notCruised, ...FRONT_ENDS.map((dir) => `^${dir}/src/`)].join('|'),
);
const frontEnds: ICruiseResult[] = [];
for (const dir of FRONT_ENDS)
  frontEnds.push(await cruiseWith([`${dir}/src`], `${dir}/tsconfig.json`, notCruised));

// 1. File rules.
for (const violation of [output, ...frontEnds].flatMap((each) => each.summary.violations)) {
  const cycle = violation.cycle?.map((step) => step.name).join(' → ');
  problems.push(
    `${violation.rule.name}: ${violation.from} → ${violation.to}${cycle ? ` (cycle: ${violation.from} → ${cycle})` : ''}`,
  );
}

// 2. Parts and arrows.
const partOf = (file: string): string | null => {
  const match = /^src\/([^/]+)(\/)?/.exec(file);
  if (!match) return null;
  return match[1]!;
};
const layerIndex = (layer: Layer): number => LAYER_ORDER.indexOf(layer);
const arrows = new Map<string, string[]>(); // "a -> b" → the imports behind it
for (const module of output.modules) {
  const from = partOf(module.source);
  if (from === null) continue;
  if (!(from in LAYERS))
    problems.push(`unknown part src/${from}: give it a layer in scripts/architecture.rules.ts`);
  for (const dependency of module.dependencies) {
    const to = partOf(dependency.resolved);
    if (to === null || to === from) continue;
    const key = `${from} -> ${to}`;
    arrows.set(key, [...(arrows.get(key) ?? []), `${module.source} → ${dependency.resolved}`]);
  }
}

const documentation = fs.readFileSync('docs/architecture.md', 'utf8');
const diagram = /```mermaid\n([\s\S]*?)```/.exec(documentation)?.[1] ?? '';
const drawn = new Set(
  [...diagram.matchAll(/^\s*([\w.-]+)\s*-->\s*([\w.-]+)\s*$/gm)].map(([, a, b]) => `${a} -> ${b}`),
);
const drawnLayer = (part: string): boolean => DRAWN_LAYERS.includes(LAYERS[part]!);

for (const [key, imports] of arrows) {
  const [from, to] = key.split(' -> ') as [string, string];
  const a = LAYERS[from];
  const b = LAYERS[to];
  if (a === undefined || b === undefined) continue;
  const why = `${imports[0]}${imports.length > 1 ? ` and ${imports.length - 1} more` : ''}`;
  if (layerIndex(b) > layerIndex(a)) {
    problems.push(`arrow up the layers: ${from} (${a}) imports ${to} (${b}): ${why}`);
  } else if (a === b && drawnLayer(from) && !drawn.has(key)) {
    problems.push(`arrow not drawn in docs/architecture.md: ${from} --> ${to}: ${why}`);
  }
}
for (const key of drawn) {
  const [from, to] = key.split(' -> ') as [string, string];
  if (from in LAYERS && to in LAYERS && !arrows.has(key)) {
    problems.push(
      `docs/architecture.md draws ${from} --> ${to}, but no such import exists: remove the arrow`,
    );
  }
}

// No cycle between parts (Tarjan's strongly connected components).
const graph = new Map<string, string[]>();
for (const key of arrows.keys()) {
  const [from, to] = key.split(' -> ') as [string, string];
  graph.set(from, [...(graph.get(from) ?? []), to]);
}
let counter = 0;
const index = new Map<string, number>();
const low = new Map<string, number>();
const stack: string[] = [];
const onStack = new Set<string>();
function connect(part: string): void {
  index.set(part, counter);
  low.set(part, counter);
  counter += 1;
  stack.push(part);
  onStack.add(part);
  for (const next of graph.get(part) ?? []) {
    if (!index.has(next)) {
      connect(next);
      low.set(part, Math.min(low.get(part)!, low.get(next)!));
    } else if (onStack.has(next)) {
      low.set(part, Math.min(low.get(part)!, index.get(next)!));
    }
  }
  if (low.get(part) === index.get(part)) {
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== part);
    if (component.length > 1) {
      const inCycle = new Set(component);
      const edges = [...arrows.keys()].filter((key) => key.split(' -> ').every((p) => inCycle.has(p)));
      problems.push(`import cycle between parts ${component.sort().join(', ')}: ${edges.join('; ')}`);
    }
  }
}
for (const part of graph.keys()) if (!index.has(part)) connect(part);

// 3. Tables: who declares which, and who names them in SQL.
const sourceFiles = fs
  .globSync('src/**/*.ts')
  .filter((file) => !new RegExp(NOT_ARCHITECTURE).test(file) && !file.startsWith('src/db/migrations/'));
const owner = new Map<string, string>();
for (const file of sourceFiles.filter((f) => f.endsWith('.tables.ts'))) {
  const text = fs.readFileSync(file, 'utf8');
  const merged = /interface Database extends (\w+)/.exec(text)?.[1];
  if (!merged) continue;
  const body = new RegExp(`interface ${merged} \\{([^}]*)\\}`).exec(text)?.[1] ?? '';
  for (const [, table] of body.matchAll(/^\s*(\w+)\s*:/gm)) owner.set(table!, partOf(file)!);
}
const tableReference = [
  /\b(?:selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin|rightJoin|fullJoin|mergeInto)\(\s*'(\w+)/g,
  /\btable:\s*'(\w+)'/g,
  /\b(?:FROM|JOIN|UPDATE|INTO|TABLE)\s+(\w+)/g,
];
for (const file of sourceFiles) {
  const part = partOf(file);
  if (part === null || part === 'db') continue;
  const text = fs.readFileSync(file, 'utf8');
  for (const pattern of tableReference) {
    for (const match of text.matchAll(pattern)) {
      const table = match[1]!;
      const holder = owner.get(table);
      if (holder === undefined || holder === part || SHARED_TABLES[table]?.with.includes(part)) continue;
      const line = text.slice(0, match.index).split('\n').length;
      problems.push(
        `table owned by ${holder}: ${file}:${line} names ${table} (ask ${holder}'s services instead)`,
      );
    }
  }
}

// 4. SQL seams: each part builds and runs its own statements.
problems.push(...sqlSeamProblems(sourceFiles.map((file) => ({ file, text: fs.readFileSync(file, 'utf8') }))));

if (problems.length > 0) {
  process.stderr.write(`Architecture check failed (${problems.length}):\n  ${problems.join('\n  ')}\n`);
  process.exit(1);
}
process.stdout.write(
  `Architecture check passed: ${output.modules.length} modules (and ${frontEnds.map((each, i) => `${each.modules.length} of ${FRONT_ENDS[i]}`).join(', ')}), ${arrows.size} arrows between ${graph.size} parts, no cycle, ${owner.size} tables each used by its owner only, no SQL across a part's edge.\n`,
);
