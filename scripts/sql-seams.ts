/**
 * Part of `npm run check:architecture`: no feature runs SQL another part built (decision
 * `each-part-sends-its-own-sql`). SQL built but not run never crosses a feature's edge:
 *
 * 1. no exported function of a feature takes a fragment (a Kysely `RawBuilder`, `Expression`,
 *    `Compilable`, …) as a parameter: its repository would run it inside its own statement (a query
 *    builder the part's own repository made is how a part composes its own queries, and allowed);
 * 2. no exported function outside a repository declares a fragment or a query builder as its return
 *    type: a service would hand its part's SQL out to be embedded elsewhere;
 * 3. no file re-exports, from a repository of its part, a function whose return type is one.
 *
 * Only the features layer (scripts/architecture.rules.ts) is held to it: the lower layers' helpers
 * carry statements by design (db's `transactionEndingWith`, whose last statement the COMMIT travels
 * with; events' `eventInsert` and the mail outbox's statement, a CTE in the caller's statement,
 * decision `event-in-statement`), and the composition copies every table (archive). The check
 * reads the declared types only: a fragment behind a type alias of another name goes unseen.
 */
import ts from 'typescript';
import { LAYERS } from './architecture.rules.ts';

/** The types that are SQL built but not run. */
const FRAGMENT =
  /\b(RawBuilder|AliasedRawBuilder|Expression|AliasableExpression|AliasedExpression|ExpressionBuilder|ExpressionWrapper|Compilable|CompiledQuery|OperationNode)\b/;
/** A fragment, or a whole query still to be run. */
const QUERY = new RegExp(`${FRAGMENT.source}|\\b(Select|Insert|Update|Delete)QueryBuilder\\b`);

/** A part held to the rule: a feature (a part without a layer yet too; the check names it). */
const checked = (part: string): boolean => (LAYERS[part] ?? 'features') === 'features';

export interface SourceFile {
  /** Relative to the repository root, e.g. `src/carts/carts.repository.ts`. */
  file: string;
  text: string;
}

interface ExportedFunction {
  name: string;
  line: number;
  parameters: readonly ts.ParameterDeclaration[];
  returns: ts.TypeNode | undefined;
}

const partOf = (file: string): string | null => /^src\/([^/]+)\//.exec(file)?.[1] ?? null;
const isExported = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) &&
  (ts.getModifiers(node) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword);

function exportedFunctions(source: ts.SourceFile): ExportedFunction[] {
  const found: ExportedFunction[] = [];
  const line = (node: ts.Node): number =>
    source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  for (const statement of source.statements) {
    if (!isExported(statement)) continue;
    if (ts.isFunctionDeclaration(statement) && statement.name) {
      found.push({
        name: statement.name.text,
        line: line(statement),
        parameters: statement.parameters,
        returns: statement.type,
      });
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        const value = declaration.initializer;
        if (!ts.isIdentifier(declaration.name) || !value) continue;
        if (!ts.isArrowFunction(value) && !ts.isFunctionExpression(value)) continue;
        found.push({
          name: declaration.name.text,
          line: line(declaration),
          parameters: value.parameters,
          returns: value.type,
        });
      }
    }
  }
  return found;
}

/** Where `name`, exported by `source` without a `from`, was imported from (a relative path), if anywhere. */
function importedFrom(source: ts.SourceFile, name: string): string | null {
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings) && bindings.elements.some((e) => e.name.text === name))
      return statement.moduleSpecifier.text;
  }
  return null;
}

const resolve = (from: string, specifier: string): string => {
  const parts = [...from.split('/').slice(0, -1), ...specifier.split('/')];
  const out: string[] = [];
  for (const part of parts) {
    if (part === '..') out.pop();
    else if (part !== '.') out.push(part);
  }
  return out.join('/');
};

/** One line per violation, naming the file, the line and the function. */
export function sqlSeamProblems(files: readonly SourceFile[]): string[] {
  const parsed = new Map(
    files.map(({ file, text }) => [file, ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)]),
  );
  const problems: string[] = [];
  for (const [file, source] of parsed) {
    const part = partOf(file);
    if (part === null || !checked(part)) continue;
    const repository = file.endsWith('.repository.ts');
    for (const fn of exportedFunctions(source)) {
      for (const parameter of fn.parameters) {
        const type = parameter.type?.getText(source);
        if (type !== undefined && FRAGMENT.test(type))
          problems.push(
            `sql-from-another-part: ${file}:${fn.line} ${fn.name} takes SQL built by its caller (${parameter.name.getText(source)}: ${type}); each part builds and runs its own statements`,
          );
      }
      const returns = fn.returns?.getText(source);
      if (!repository && returns !== undefined && QUERY.test(returns))
        problems.push(
          `sql-handed-out: ${file}:${fn.line} ${fn.name} returns SQL (${returns}) for another statement; return what it reads instead`,
        );
    }
    if (repository) continue;
    for (const statement of source.statements) {
      if (!ts.isExportDeclaration(statement) || statement.isTypeOnly) continue;
      const clause = statement.exportClause;
      if (!clause || !ts.isNamedExports(clause)) continue;
      for (const element of clause.elements) {
        if (element.isTypeOnly) continue;
        const name = (element.propertyName ?? element.name).text;
        const specifier =
          statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)
            ? statement.moduleSpecifier.text
            : importedFrom(source, name);
        if (specifier === null || !specifier.endsWith('.repository.ts')) continue;
        const target = parsed.get(resolve(file, specifier));
        const fn = target && exportedFunctions(target).find((f) => f.name === name);
        const returns = fn?.returns?.getText(target);
        if (returns !== undefined && QUERY.test(returns))
          problems.push(
            `sql-handed-out: ${file} re-exports ${name} (${returns}) from ${specifier}: a repository's query leaves its part`,
          );
      }
    }
  }
  return problems;
}
