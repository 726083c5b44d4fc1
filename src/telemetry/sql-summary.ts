/**
 * The low-cardinality name of a SQL statement for its span (OpenTelemetry's database conventions:
 * `db.query.summary`, `db.operation.name`, `db.collection.name`): the main statement's operation
 * and its first table, `SELECT items`, `INSERT things`, `UPDATE queue`. Kysely's
 * statements and our raw ones alike are read from their text, which a light tokenizer walks (string
 * literals, dollar quotes, comments and parameters skipped, so no value can ever be named):
 *   - `WITH a AS (…), b AS (…) <main>`: the operation of <main>; a table it names that is one of the
 *     CTEs is followed to the table that CTE reads or writes (`SELECT … FROM claimed` where `claimed`
 *     is `UPDATE queue …` is `SELECT queue`); when <main> names no table,
 *     the first CTE that does gives it;
 *   - `FROM (subquery) x`, and `SELECT (subquery) AS x` without a FROM: the subquery's table;
 *     `FROM unnest(…)`, `SELECT 1`: no table, the operation alone (`SELECT`);
 *   - anything else (`BEGIN`, `SET`, `LISTEN`): its first word.
 * Decision `sql-span-names` (docs/decisions/tracing.md).
 */

interface Token {
  kind: 'word' | 'quoted' | 'open' | 'close' | 'comma' | 'dot' | 'other';
  text: string;
}

/** Statements longer than this are named from their beginning (a bulk INSERT's values are not read). */
const MAX_SCANNED = 16 * 1024;

const WORD = /[A-Za-z_][A-Za-z0-9_$]*/y;
const NUMBER = /\d+(?:\.\d*)?(?:[eE][+-]?\d+)?/y;
const DOLLAR_TAG = /\$([A-Za-z_][A-Za-z0-9_]*)?\$/y;

function matchAt(pattern: RegExp, text: string, at: number): string | null {
  pattern.lastIndex = at;
  return pattern.exec(text)?.[0] ?? null;
}

/** The end (exclusive) of the quoted text starting at `at` (a quote character), `""`/`''` doubled. */
function endOfQuoted(text: string, at: number, quote: string, backslashes: boolean): number {
  let i = at + 1;
  while (i < text.length) {
    const c = text[i];
    if (backslashes && c === '\\') i += 2;
    else if (c === quote && text[i + 1] === quote) i += 2;
    else if (c === quote) return i + 1;
    else i += 1;
  }
  return text.length;
}

function tokenize(sql: string): Token[] {
  const text = sql.length > MAX_SCANNED ? sql.slice(0, MAX_SCANNED) : sql;
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === ' ' || c === '\n' || c === '\t' || c === '\r') {
      i += 1;
    } else if (c === '-' && next === '-') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end + 1;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else if (c === "'") {
      // E'…' strings take backslash escapes; the E itself was read as a word just before.
      const previous = tokens.at(-1);
      const escaped = previous?.kind === 'word' && /^e$/i.test(previous.text) && text[i - 1] !== ' ';
      if (escaped) tokens.pop();
      i = endOfQuoted(text, i, "'", escaped);
      tokens.push({ kind: 'other', text: "''" });
    } else if (c === '"') {
      const end = endOfQuoted(text, i, '"', false);
      tokens.push({ kind: 'quoted', text: text.slice(i + 1, end - 1).replaceAll('""', '"') });
      i = end;
    } else if (c === '$') {
      const tag = matchAt(DOLLAR_TAG, text, i);
      if (tag === null) {
        // A parameter ($1): never a name.
        i += 1 + (matchAt(NUMBER, text, i + 1)?.length ?? 0);
      } else {
        const end = text.indexOf(tag, i + tag.length);
        i = end < 0 ? text.length : end + tag.length;
      }
      tokens.push({ kind: 'other', text: '$' });
    } else if (c === '(' || c === ')' || c === ',' || c === '.') {
      tokens.push({ kind: c === '(' ? 'open' : c === ')' ? 'close' : c === ',' ? 'comma' : 'dot', text: c });
      i += 1;
    } else {
      const word = matchAt(WORD, text, i);
      if (word !== null) {
        tokens.push({ kind: 'word', text: word });
        i += word.length;
      } else {
        const number = matchAt(NUMBER, text, i);
        tokens.push({ kind: 'other', text: number === null ? c : '0' });
        i += number?.length ?? 1;
      }
    }
  }
  return tokens;
}

/** A statement's operation and table (undefined when it names none). */
export interface SqlSummary {
  operation: string;
  table: string | undefined;
}

type Scope = ReadonlyMap<string, readonly [number, number]>;

class Reader {
  readonly #tokens: Token[];

  constructor(tokens: Token[]) {
    this.#tokens = tokens;
  }

  /** The keyword at `at`, upper-cased, or null when that token is not a bare word. */
  keyword(at: number): string | null {
    const token = this.#tokens[at];
    return token?.kind === 'word' ? token.text.toUpperCase() : null;
  }

  /** The index after the parenthesis that closes the one opened at `open`. */
  closing(open: number, end: number): number {
    let depth = 0;
    for (let i = open; i < end; i++) {
      const { kind } = this.#tokens[i]!;
      if (kind === 'open') depth += 1;
      else if (kind === 'close' && --depth === 0) return i;
    }
    return end;
  }

  /** The first `keyword` at the nesting level of `from`, before `end`. */
  find(keyword: string, from: number, end: number): number | null {
    for (let i = from; i < end; i++) {
      const { kind } = this.#tokens[i]!;
      if (kind === 'open') i = this.closing(i, end);
      else if (this.keyword(i) === keyword) return i;
    }
    return null;
  }

  /** The start of the first parenthesized statement at the nesting level of `from` (after its `(`). */
  subquery(from: number, end: number): number | null {
    for (let i = from; i < end; i++) {
      if (this.#tokens[i]!.kind !== 'open') continue;
      const keyword = this.keyword(i + 1);
      if (keyword === 'SELECT' || keyword === 'WITH') return i + 1;
      i = this.closing(i, end);
    }
    return null;
  }

  statement(start: number, end: number, outer: Scope, seen: ReadonlySet<string>): SqlSummary {
    let i = start;
    while (this.#tokens[i]?.kind === 'open' && i < end) i += 1;
    const scope = new Map(outer);
    const ctes: string[] = [];
    if (this.keyword(i) === 'WITH') {
      i += this.keyword(i + 1) === 'RECURSIVE' ? 2 : 1;
      while (i < end) {
        const name = this.name(i);
        if (name === null) break;
        i += 1;
        if (this.#tokens[i]?.kind === 'open') i = this.closing(i, end) + 1; // its column list
        if (this.keyword(i) === 'AS') i += 1;
        if (this.keyword(i) === 'NOT') i += 1;
        if (this.keyword(i) === 'MATERIALIZED') i += 1;
        if (this.#tokens[i]?.kind !== 'open') break;
        const close = this.closing(i, end);
        scope.set(name, [i + 1, close]);
        ctes.push(name);
        i = close + 1;
        if (this.#tokens[i]?.kind !== 'comma') break;
        i += 1;
      }
    }
    const operation = this.keyword(i) ?? 'SQL';
    let table = this.tableOf(operation, i, end, scope, seen);
    // The main statement names no table (it reads what its CTEs computed): the first CTE that does.
    for (const name of ctes) {
      if (table !== undefined) break;
      table = this.resolve(name, scope, seen);
    }
    return { operation, table };
  }

  tableOf(
    operation: string,
    at: number,
    end: number,
    scope: Scope,
    seen: ReadonlySet<string>,
  ): string | undefined {
    switch (operation) {
      case 'SELECT': {
        const from = this.find('FROM', at + 1, end);
        if (from !== null) return this.tableAt(from + 1, end, scope, seen, true);
        // No FROM of its own: `SELECT (SELECT … FROM things …) AS n` reads the subquery's table.
        const subquery = this.subquery(at + 1, end);
        return subquery === null
          ? undefined
          : this.statement(subquery, this.closing(subquery - 1, end), scope, seen).table;
      }
      case 'DELETE':
      case 'INSERT':
      case 'MERGE':
        // DELETE FROM t, INSERT INTO t, MERGE INTO t.
        return this.tableAt(at + 2, end, scope, seen, false);
      case 'UPDATE':
      case 'TABLE':
        return this.tableAt(at + 1, end, scope, seen, false);
      default:
        return undefined;
    }
  }

  /** An identifier at `at` (bare or quoted; unquoted ones folded to lower case, as PostgreSQL does). */
  name(at: number): string | null {
    const token = this.#tokens[at];
    if (token?.kind === 'quoted') return token.text;
    return token?.kind === 'word' ? token.text.toLowerCase() : null;
  }

  /**
   * The table a FROM item (`fromItem`) or an INTO / UPDATE target at `at` names, following CTEs and
   * subqueries.
   */
  tableAt(
    at: number,
    end: number,
    scope: Scope,
    seen: ReadonlySet<string>,
    fromItem: boolean,
  ): string | undefined {
    let i = at;
    while (this.keyword(i) === 'ONLY' || this.keyword(i) === 'LATERAL') i += 1;
    if (this.#tokens[i]?.kind === 'open')
      return this.statement(i + 1, this.closing(i, end), scope, seen).table;
    let name = this.name(i);
    if (name === null) return undefined;
    // schema.table: the table.
    while (this.#tokens[i + 1]?.kind === 'dot' && this.name(i + 2) !== null) {
      i += 2;
      name = this.name(i)!;
    }
    // A function in FROM (unnest(…), generate_series(…)) is no table; after INTO it is the column list.
    if (fromItem && this.#tokens[i + 1]?.kind === 'open') return undefined;
    return scope.has(name) ? this.resolve(name, scope, seen) : name;
  }

  /** The table a CTE reads or writes (undefined for one that names none, or a recursive reference). */
  resolve(name: string, scope: Scope, seen: ReadonlySet<string>): string | undefined {
    const body = scope.get(name);
    if (body === undefined || seen.has(name)) return undefined;
    return this.statement(body[0], body[1], scope, new Set([...seen, name])).table;
  }
}

/** The operation and first table of a statement (see the module's comment). */
export function summarizeSql(sql: string): SqlSummary {
  const tokens = tokenize(sql);
  return new Reader(tokens).statement(0, tokens.length, new Map(), new Set());
}
