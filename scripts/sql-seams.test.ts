import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { sqlSeamProblems, type SourceFile } from './sql-seams.ts';

const root = path.resolve(import.meta.dirname, '..');

/** A repository as the parts write them: it builds and runs its own statements. */
const repository: SourceFile = {
  file: 'src/carts/carts.repository.ts',
  text: `import { sql, type Kysely, type RawBuilder } from 'kysely';
function linesOf(eb: ExpressionBuilder<Database, 'c'>) { return eb; }
export async function findCartRow(db: Kysely<Database>, storeId: string): Promise<CartRow | undefined> {
  return db.selectFrom('carts').selectAll().executeTakeFirst();
}
export function pendingCount(storeId: string): RawBuilder<number> {
  return sql<number>\`(SELECT count(*) FROM carts WHERE store_id = \${storeId})\`;
}
export const ERASED = 'erased';
`,
};

const problemsWith = (...files: SourceFile[]): string[] => sqlSeamProblems([repository, ...files]);

describe('sql seams (npm run check:architecture)', () => {
  test('a repository that runs its own statements, and its private fragments, pass', () => {
    assert.deepEqual(problemsWith(), []);
  });

  test("a repository function that runs another part's SQL fails", () => {
    const problems = problemsWith({
      file: 'src/shipping/shipping.repository.ts',
      text: `export function lockMethod(db: Transaction<Database>, id: string, also?: RawBuilder<unknown>) {
  return db.selectFrom('shipping_methods').select(also!.as('also')).executeTakeFirst();
}`,
    });
    assert.equal(problems.length, 1);
    assert.match(
      problems[0]!,
      /^sql-from-another-part: src\/shipping\/shipping\.repository\.ts:1 lockMethod takes/,
    );
  });

  test('a service taking a statement (an arrow function, a Compilable) fails', () => {
    const problems = problemsWith({
      file: 'src/carts/carts.service.ts',
      text: `export const findCartWith = async <T>(deps: Deps, also: Compilable): Promise<T> => run(also);`,
    });
    assert.equal(problems.length, 1);
    assert.match(problems[0]!, /findCartWith takes SQL built by its caller \(also: Compilable\)/);
  });

  test("a service that hands out or re-exports a repository's query fails", () => {
    const problems = problemsWith(
      {
        file: 'src/carts/carts.service.ts',
        text: `import { pendingCount, ERASED } from './carts.repository.ts';
export { pendingCount, ERASED };
export type { CartRow } from './carts.repository.ts';`,
      },
      {
        file: 'src/carts/cart-queries.service.ts',
        text: `export { pendingCount as counted } from './carts.repository.ts';
export function cartQuery(db: Db): SelectQueryBuilder<Database, 'carts', object> {
  return db.selectFrom('carts');
}`,
      },
    );
    assert.deepEqual(
      problems.map((problem) => problem.split(':')[0]! + ': ' + problem.split(' ')[1]!),
      [
        'sql-handed-out: src/carts/carts.service.ts',
        'sql-handed-out: src/carts/cart-queries.service.ts:2',
        'sql-handed-out: src/carts/cart-queries.service.ts',
      ],
    );
    assert.match(problems[0]!, /re-exports pendingCount \(RawBuilder<number>\)/);
    assert.match(problems[2]!, /re-exports pendingCount \(RawBuilder<number>\)/);
  });

  test('src/db and src/lib helpers carry statements by design', () => {
    assert.deepEqual(
      problemsWith({
        file: 'src/db/last-statement.ts',
        text: `export function runLast(db: Kysely<DB>, last: Compilable): Promise<void> { return run(last); }`,
      }),
      [],
    );
  });

  test('src/ today has none', () => {
    const files = fs
      .globSync('src/**/*.ts', { cwd: root })
      .filter((file) => !file.endsWith('.test.ts') && !file.startsWith('src/db/migrations/'))
      .map((file) => ({ file, text: fs.readFileSync(path.join(root, file), 'utf8') }));
    assert.deepEqual(sqlSeamProblems(files), []);
  });
});
