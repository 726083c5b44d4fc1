/**
 * A transaction's BEGIN and, when its caller says so, its COMMIT travel with its statements instead
 * of taking round trips of their own (decisions `begin-with-first-statement` and
 * `commit-with-last-statement`).
 *
 * Kysely opens a transaction with `begin` (or `start transaction …`) and waits for its answer before
 * it sends the first statement: a round trip in which the database has nothing to do. On a
 * PostgreSQL connection wrapped here, the BEGIN is answered at once and kept; the next statement
 * goes out as one extended-protocol message group, BEGIN's Parse/Bind/Execute and then the
 * statement's, under one Sync. PostgreSQL runs them in order, as it would have run two messages, and
 * the explicit BEGIN keeps the transaction open after the Sync. A statement without parameters, which
 * pg sends as a simple query and which may hold several commands (the extended protocol refuses
 * them), is sent as one simple query with the BEGIN (and the COMMIT) joined to its text, and answers
 * with its own commands' results. A transaction that ends before any statement (COMMIT or ROLLBACK
 * right after BEGIN) sends nothing at all.
 *
 * A statement whose text ends with {@link COMMIT_MARK} (see `commitsWith` in ./last-statement.ts)
 * is the last of its transaction: its group ends with COMMIT's Parse/Bind/Execute before the Sync,
 * and the COMMIT that Kysely then sends is answered here. When the COMMIT fails, the statement fails
 * with its error, as Kysely's COMMIT would have. Anything but a COMMIT after it is refused: a
 * ROLLBACK cannot undo what committed, and a statement would run outside the transaction.
 *
 * Nothing else changes: a statement that fails leaves the transaction aborted exactly as before
 * (Kysely then rolls it back), the snapshot of a REPEATABLE READ transaction is taken by its first
 * statement in both cases, and a connection given back to the pool forgets what it kept.
 */
import pg from 'pg';

/** Ends the text of a transaction's last statement: COMMIT travels with it. */
export const COMMIT_MARK = '/* commit with this statement */';

/** What a connection keeps: a BEGIN for its next statement, or a COMMIT already done. */
type Kept = { begin: string } | { committed: true };
const kept = new WeakMap<pg.ClientBase, Kept>();
/** The connections wrapped by {@link sendTransactionEdges} (none when `DATABASE_PIPELINING` is off). */
const edged = new WeakSet<pg.ClientBase>();

const OPENS = /^\s*(begin|start\s+transaction)\b/i;
const ENDS = /^\s*(commit|rollback)\s*;?\s*$/i;
const COMMITS = /^\s*commit/i;

/** Whether `client` is inside a transaction: a BEGIN kept here, or PostgreSQL's last word on it. */
export function transactionOpen(client: pg.ClientBase): boolean {
  const edge = kept.get(client);
  if (edge) return 'begin' in edge;
  // pg records the status of the last ReadyForQuery: 'I' is outside a transaction.
  return (client as { _txStatus?: string })._txStatus !== 'I';
}

/**
 * How `text` is answered without a round trip of its own: a BEGIN kept for the next statement, or a
 * COMMIT/ROLLBACK ending a transaction that sent nothing or committed with its last statement.
 */
export function answeredLocally(client: pg.ClientBase, text: string): 'begin' | 'end' | null {
  if (!edged.has(client)) return null;
  if (!kept.has(client)) return OPENS.test(text) ? 'begin' : null;
  return ENDS.test(text) ? 'end' : null;
}

/** What pg's Query does with a connection; the parts this module extends. */
interface PgConnection {
  parse(query: { text: string; name: string; types: unknown[] }): void;
  bind(config: { portal: string; statement: string; values: unknown[] }): void;
  execute(config: { portal: string; rows: number }): void;
  sync(): void;
  submittedNamedStatements: Record<string, string | undefined>;
}
interface PgQuery {
  portal: string;
  prepare(connection: PgConnection): void;
  _getRows(connection: PgConnection, rows: number | undefined): void;
  handleCommandComplete(message: unknown, connection: PgConnection): void;
  handleError(error: Error, connection: PgConnection): void;
}
type Callback = (error: Error | null, result?: pg.QueryResult) => void;
const PgQuery = (
  pg as unknown as { Query: new (config: object, values: undefined, callback: Callback) => PgQuery }
).Query;

/** Parse, Bind and Execute of a statement without parameters or rows, on the unnamed statement. */
function sendPlain(connection: PgConnection, text: string): void {
  connection.parse({ text, name: '', types: [] });
  connection.bind({ portal: '', statement: '', values: [] });
  connection.execute({ portal: '', rows: 0 });
}

/**
 * A statement with a BEGIN before it and/or a COMMIT after it, in one message group under one Sync.
 * pg's client reads the active query's `name` on every ParseComplete (to mark the statement parsed
 * on the connection) and on an error: while the BEGIN's own answers arrive, the name reads as none,
 * and the statement's name only after BEGIN's CommandComplete. The COMMIT's CommandComplete, after
 * the statement's, is not the statement's result.
 */
class EdgedQuery extends PgQuery {
  declare begin: string | null;
  declare commit: boolean;
  declare statementName: string | undefined;
  declare awaiting: 'begin' | 'statement' | 'commit';

  get name(): string | undefined {
    return this.awaiting === 'begin' ? undefined : this.statementName;
  }

  set name(value: string | undefined) {
    this.statementName = value;
  }

  override prepare(connection: PgConnection): void {
    this.awaiting = 'statement';
    if (this.begin !== null) sendPlain(connection, this.begin);
    super.prepare(connection);
    if (this.begin !== null) this.awaiting = 'begin';
  }

  /** pg's Execute of the statement and its Sync (no row limit here): the COMMIT goes between. */
  override _getRows(connection: PgConnection, rows: number | undefined): void {
    if (!this.commit || rows) {
      super._getRows(connection, rows);
      return;
    }
    connection.execute({ portal: this.portal, rows: 0 });
    sendPlain(connection, 'COMMIT');
    connection.sync();
  }

  override handleCommandComplete(message: unknown, connection: PgConnection): void {
    if (this.awaiting === 'begin') {
      this.awaiting = 'statement';
      return;
    }
    if (this.awaiting === 'commit') return;
    if (this.commit) this.awaiting = 'commit';
    super.handleCommandComplete(message, connection);
  }

  override handleError(error: Error, connection: PgConnection): void {
    if (this.awaiting === 'begin') {
      // The BEGIN failed, so the statement's Parse was skipped: it is not on its way any more.
      this.awaiting = 'statement';
      if (this.statementName) delete connection.submittedNamedStatements[this.statementName];
    }
    super.handleError(error, connection);
  }
}

const answered = (command: string): pg.QueryResult => ({
  command,
  rowCount: null,
  oid: 0,
  rows: [],
  fields: [],
});

/** The results of a simple query's own commands, without those of the BEGIN before and COMMIT after. */
function ownResults(
  result: pg.QueryResult | pg.QueryResult[],
  begin: boolean,
  commit: boolean,
): pg.QueryResult | pg.QueryResult[] {
  const all = Array.isArray(result) ? result : [result];
  const own = all.slice(begin ? 1 : 0, commit ? -1 : undefined);
  return own.length === 1 ? own[0]! : own;
}

/** Refused after a transaction committed with its last statement (a programming error). */
export class CommittedAlready extends Error {
  constructor(what: string) {
    super(`${what} after the transaction committed with its last statement (COMMIT_MARK)`);
    this.name = 'CommittedAlready';
  }
}

/**
 * Wraps `client.query` (innermost, over pg's own) so that a BEGIN is kept and sent with the next
 * statement, and a statement marked last carries the COMMIT. A statement that cannot carry a kept
 * BEGIN (a callback or a custom submittable, such as a cursor) is queued behind a BEGIN of its own.
 */
export function sendTransactionEdges(client: pg.ClientBase): void {
  edged.add(client);
  const send = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = ((config: unknown, values?: unknown, callback?: unknown) => {
    const text = typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text;
    const submittable = typeof (config as { submit?: unknown } | null)?.submit === 'function';
    const promised =
      typeof text === 'string' && callback === undefined && typeof values !== 'function' && !submittable;
    const parameters = typeof config === 'string' ? values : (config as { values?: unknown }).values;
    const plain =
      promised && (parameters === undefined || (Array.isArray(parameters) && parameters.length === 0));
    const edge = kept.get(client);
    if (edge && 'committed' in edge) {
      kept.delete(client);
      if (plain && ENDS.test(text) && COMMITS.test(text)) return Promise.resolve(answered('COMMIT'));
      return Promise.reject(new CommittedAlready(plain && ENDS.test(text) ? 'ROLLBACK' : 'a statement'));
    }
    if (edge === undefined && plain && OPENS.test(text)) {
      kept.set(client, { begin: text });
      return Promise.resolve(answered('BEGIN'));
    }
    const begin = edge?.begin ?? null;
    if (begin !== null) {
      kept.delete(client);
      if (plain && ENDS.test(text))
        return Promise.resolve(answered(COMMITS.test(text) ? 'COMMIT' : 'ROLLBACK'));
    }
    const commit = promised && text.endsWith(COMMIT_MARK);
    if (!promised || (begin === null && !commit)) {
      // Queued first on this connection; if it fails, so does the statement behind it.
      if (begin !== null) (send(begin) as Promise<unknown>).catch(() => undefined);
      return send(config, values, callback);
    }
    if (plain && !(typeof config === 'object' && config !== null && 'name' in config)) {
      // Without parameters pg sends a statement as a simple query, which may hold several commands
      // (the extended protocol refuses them): the BEGIN and the COMMIT join its text instead.
      const edged = `${begin === null ? '' : `${begin};\n`}${text}${commit ? '\n;COMMIT' : ''}`;
      const statement = typeof config === 'string' ? edged : { ...(config as object), text: edged };
      return (send(statement) as Promise<pg.QueryResult | pg.QueryResult[]>).then((result) => {
        if (commit) kept.set(client, { committed: true });
        return ownResults(result, begin !== null, commit);
      });
    }
    const statement = typeof config === 'string' ? { text, values } : { ...(config as object), text };
    return new Promise((resolve, reject) => {
      const query = new EdgedQuery({ ...statement, queryMode: 'extended' }, undefined, (error, result) => {
        if (error) return reject(error);
        if (commit) kept.set(client, { committed: true });
        resolve(result);
      });
      query.begin = begin;
      query.commit = commit;
      send(query);
    });
  }) as typeof client.query;
}

/** A connection given back to the pool forgets what it kept (its caller never ended it). */
export function forgetTransactionEdges(client: pg.ClientBase): void {
  kept.delete(client);
}
