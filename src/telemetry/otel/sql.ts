import { context, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { CompiledQuery, DatabaseConnection, Dialect, QueryResult } from 'kysely';
import { errorTypeOf } from '../spans.ts';
import { summarizeSql, type SqlSummary } from '../sql-summary.ts';

/** Longer statement texts (bulk inserts with thousands of placeholders) are cut here. */
const MAX_QUERY_TEXT = 2048;

/**
 * Summaries of the statements seen, by text: the same few hundred statements run over and over.
 * Bounded in entries and in the length of the texts kept (a bulk INSERT's is summarized each time).
 */
const summaries = new Map<string, SqlSummary>();
const MAX_SUMMARIES = 2000;
const MAX_CACHED_TEXT = 8192;

function summaryOf(query: CompiledQuery): SqlSummary {
  let summary = summaries.get(query.sql);
  if (summary === undefined) {
    summary = summarizeSql(query.sql);
    if (query.sql.length <= MAX_CACHED_TEXT) {
      if (summaries.size >= MAX_SUMMARIES) summaries.clear();
      summaries.set(query.sql, summary);
    }
  }
  return summary;
}

function startSpan(tracer: Tracer, query: CompiledQuery): Span {
  const { operation, table } = summaryOf(query);
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
