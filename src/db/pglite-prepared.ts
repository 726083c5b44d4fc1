import { parse, protocol, type PGlite, type Results, type Transaction } from '@electric-sql/pglite';

/**
 * Prepared statements on the embedded database (decision `prepared-statements`). PGlite's `query`
 * sends every statement as an unnamed one: Parse (parse, analyse and plan again), Describe, Bind,
 * Describe, Execute and Sync, each a call into the WebAssembly backend. This handle, given to
 * Kysely in PGlite's place, parses each parameterised statement once under a name and then runs it
 * with one call (Bind, Describe, Execute, Sync): about a third of the CPU per statement (measured:
 * 98–158 µs → 37–51 µs for a keyed read or update). Values are serialised and rows parsed by
 * PGlite's own serialisers and parsers, with the parameter types the backend gave at the Parse, as
 * its `query` does. Statements without parameters (BEGIN, COMMIT, DDL), very long ones and those
 * beyond the bound run through PGlite's `query` as before.
 *
 * PGlite runs one statement at a time: a statement outside a transaction waits for any transaction
 * (`_runExclusiveTransaction`), and every statement holds the query lock (`_runExclusiveQuery`),
 * as PGlite's own `query` does; outside a transaction the file system is synced after it, as there.
 */

/** Statements longer than this (bulk inserts) are not kept prepared. */
const MAX_PREPARED_TEXT = 8 * 1024;
/** Distinct prepared statements; later ones run unprepared. */
const MAX_PREPARED = 500;
/** "cached plan must not change result type": a table changed under a prepared `SELECT *`. */
const CACHED_PLAN_CHANGED = '0A000';

type Query = PGlite['query'];

interface Prepared {
  name: string;
  /** The type of each parameter, as the backend inferred it at the Parse. */
  types: number[];
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Internals of PGlite this relies on (public methods, documented "for extensions"). */
interface PGliteInternals {
  _checkReady(): Promise<void>;
  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>;
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
}

/** `pglite` for Kysely's dialect: the same instance, its `query` (and its transactions') prepared. */
export function withPreparedStatements(pglite: PGlite): PGlite {
  const internals = pglite as unknown as PGliteInternals;
  const { serialize } = protocol;
  const statements = new Map<string, Prepared>();
  let serial = 0;

  const prepare = async (text: string): Promise<Prepared> => {
    const known = statements.get(text);
    if (known !== undefined) return known;
    const name = `sf_${(serial += 1)}`;
    const messages = await pglite.execProtocolStream(
      concat([serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()]),
      { syncToFs: false },
    );
    const prepared = { name, types: parse.parseDescribeStatementResults(messages) };
    statements.set(text, prepared);
    return prepared;
  };

  const execute = async <T>(prepared: Prepared, values: unknown[]): Promise<Results<T>> => {
    const serialized = values.map((value, index) => {
      if (value === null || value === undefined) return null;
      const serializer = pglite.serializers[prepared.types[index] ?? 0];
      if (serializer) return serializer(value);
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean')
        return String(value);
      return JSON.stringify(value);
    });
    const messages = await pglite.execProtocolStream(
      concat([
        serialize.bind({ statement: prepared.name, values: serialized }),
        serialize.describe({ type: 'P' }),
        serialize.execute({}),
        serialize.sync(),
      ]),
      { syncToFs: false },
    );
    return parse.parseResults(messages, pglite.parsers, { rowMode: 'object' })[0] as Results<T>;
  };

  /** One prepared statement, under the query lock. */
  const run = async <T>(text: string, values: unknown[], inTransaction: boolean): Promise<Results<T>> =>
    internals._runExclusiveQuery(async () => {
      let result: Results<T>;
      try {
        result = await execute<T>(await prepare(text), values);
      } catch (error) {
        if ((error as { code?: string }).code !== CACHED_PLAN_CHANGED) throw error;
        statements.delete(text);
        // In a transaction the statement failed it, as any error does; the next run prepares again.
        if (inTransaction) throw error;
        result = await execute<T>(await prepare(text), values);
      }
      if (!inTransaction) await pglite.syncToFs();
      return result;
    });

  const preparable = (text: string, values: unknown[] | undefined): values is unknown[] =>
    Array.isArray(values) &&
    values.length > 0 &&
    text.length <= MAX_PREPARED_TEXT &&
    (statements.has(text) || statements.size < MAX_PREPARED);

  const query = (original: Query, inTransaction: boolean): Query =>
    (async <T>(text: string, values?: unknown[], options?: Parameters<Query>[2]) => {
      if (options !== undefined && options.rowMode !== 'object') return original<T>(text, values, options);
      if (!preparable(text, values)) return original<T>(text, values, options);
      if (inTransaction) return run<T>(text, values, true);
      await internals._checkReady();
      return internals._runExclusiveTransaction(() => run<T>(text, values, false));
    }) as Query;

  const transaction = (async <T>(callback: (tx: Transaction) => Promise<T>) =>
    pglite.transaction((tx) =>
      callback(
        new Proxy(tx, {
          get(target, property, receiver) {
            if (property === 'query') return query(target.query.bind(target), true);
            return Reflect.get(target, property, receiver) as unknown;
          },
        }),
      ),
    )) as PGlite['transaction'];

  const prepared = query(pglite.query.bind(pglite), false);
  return new Proxy(pglite, {
    get(target, property) {
      if (property === 'query') return prepared;
      if (property === 'transaction') return transaction;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
