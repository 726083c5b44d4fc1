import {
  RawNode,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import { COMMIT_MARK } from './pg-transactions.ts';

const MARK = RawNode.createWithSql(COMMIT_MARK);
const MARKED_KINDS = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'SelectQueryNode']);

/** Ends each statement with {@link COMMIT_MARK}. */
const commitMark: KyselyPlugin = {
  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    if (!MARKED_KINDS.has(node.kind)) return node;
    const marked = node as RootOperationNode & { endModifiers?: readonly RawNode[] };
    return { ...marked, endModifiers: [...(marked.endModifiers ?? []), MARK] } as RootOperationNode;
  },
  transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(result);
  },
};

/**
 * `trx` for the transaction's last statement (decision `commit-with-last-statement`): on PostgreSQL
 * the COMMIT travels with it, saving the COMMIT's own round trip, and the transaction's locks are let
 * go one round trip sooner. Give it to exactly one statement, the last thing the transaction's
 * callback does: a statement or a ROLLBACK after it is refused (src/db/pg-transactions.ts). On the
 * embedded database the mark is only a comment; Kysely's COMMIT commits, as always.
 */
export function commitsWith<T extends { withPlugin(plugin: KyselyPlugin): unknown }>(trx: T): T {
  return trx.withPlugin(commitMark) as T;
}
