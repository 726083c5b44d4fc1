import { context, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { CompiledQuery, DatabaseConnection, Dialect, QueryResult } from 'kysely';
import { errorTypeOf } from '../spans.ts';

/** Longer statement texts (bulk inserts with thousands of placeholders) are cut here. */
const MAX_QUERY_TEXT = 2048;

interface Node {
  readonly kind: string;
}

/** The table a FROM / INTO item names (`products`, or `products AS p`). */
function tableOf(node: unknown): string | undefined {
  const item = node as (Node & { table?: { identifier?: { name?: unknown } }; node?: unknown }) | undefined;
  if (item?.kind === 'AliasNode') return tableOf(item.node);
  if (item?.kind !== 'TableNode') return undefined;
  const name = item.table?.identifier?.name;
  return typeof name === 'string' ? name : undefined;
}

/** The statement's operation and main table, from Kysely's query tree (raw SQL: its first word). */
function describe(query: CompiledQuery): { operation: string; table: string | undefined } {
  const node = query.query as Node & {
    from?: { froms?: readonly unknown[] };
    into?: unknown;
    table?: unknown;
  };
  switch (node.kind) {
    case 'SelectQueryNode':
      return { operation: 'SELECT', table: tableOf(node.from?.froms?.[0]) };
    case 'InsertQueryNode':
      return { operation: 'INSERT', table: tableOf(node.into) };
    case 'UpdateQueryNode':
      return { operation: 'UPDATE', table: tableOf(node.table) };
    case 'DeleteQueryNode':
      return { operation: 'DELETE', table: tableOf(node.from?.froms?.[0]) };
    case 'MergeQueryNode':
      return { operation: 'MERGE', table: tableOf(node.into) };
    default: {
      const word = /^\s*(?:--[^\n]*\n\s*)*([A-Za-z]+)/.exec(query.sql)?.[1];
      return { operation: word === undefined ? 'SQL' : word.toUpperCase(), table: undefined };
    }
  }
}

function startSpan(tracer: Tracer, query: CompiledQuery): Span {
  const { operation, table } = describe(query);
  const summary = table === undefined ? operation : `${operation} ${table}`;
  const text = query.sql.length > MAX_QUERY_TEXT ? `${query.sql.slice(0, MAX_QUERY_TEXT)}…` : query.sql;
  return tracer.startSpan(
    summary,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'db.system.name': 'postgresql',
        'db.operation.name': operation,
        ...(table === undefined ? {} : { 'db.collection.name': table }),
        'db.query.summary': summary,
        // Parameterised text ($1, $2…): the values, which may be personal data, are never recorded.
        'db.query.text': text,
      },
    },
    context.active(),
  );
}

function failed(span: Span, error: unknown): void {
  // db.response.status_code: the SQLSTATE (23505, 40001…), which is also the error's code.
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') span.setAttribute('db.response.status_code', code);
  span.setAttribute('error.type', errorTypeOf(error));
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** Statements run outside any sampled span (the worker loops' polling) get none of their own. */
function inSampledSpan(): boolean {
  return trace.getSpan(context.active())?.isRecording() === true;
}

const instrumented = new WeakSet<DatabaseConnection>();

function instrumentConnection(connection: DatabaseConnection, tracer: Tracer): DatabaseConnection {
  if (instrumented.has(connection)) return connection;
  instrumented.add(connection);
  // The connection object itself is kept (drivers release it by private fields and symbols); its
  // executeQuery is wrapped, as Kysely's own query logging does. (streamQuery is not: neither
  // dialect here can stream, PGlite not at all and pg only with a cursor, which is not configured.)
  const execute = connection.executeQuery.bind(connection);
  connection.executeQuery = <R>(query: CompiledQuery, options?: Parameters<typeof execute>[1]) => {
    if (!inSampledSpan()) return execute<R>(query, options);
    const span = startSpan(tracer, query);
    return execute<R>(query, options).then(
      (result: QueryResult<R>) => {
        span.setAttribute('db.response.returned_rows', result.rows.length);
        span.end();
        return result;
      },
      (error: unknown) => {
        failed(span, error);
        throw error;
      },
    );
  };
  return connection;
}

/**
 * A Kysely dialect whose statements get a CLIENT span (database semantic conventions: `SELECT
 * products`, the parameterised text, rows returned, the SQLSTATE of a failure) when they run
 * inside a sampled span, a child of it; a statement outside any span costs one context lookup.
 */
export function instrumentKyselyDialect(dialect: Dialect, tracer: Tracer): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver() {
      const driver = dialect.createDriver();
      const acquire = driver.acquireConnection.bind(driver);
      driver.acquireConnection = async (options) => instrumentConnection(await acquire(options), tracer);
      return driver;
    },
  };
}
