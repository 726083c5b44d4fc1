import {
  ColumnNode,
  OperationNodeTransformer,
  sql,
  TableNode,
  type ColumnType,
  type Generated,
  type Kysely,
  type KyselyPlugin,
  type QueryId,
  type Updateable,
} from 'kysely';
import type { CreatedAt, Database, Time } from '../db/tables.ts';

/**
 * All SQL of sign-in: codes and sessions, written once against two abstract tables (`codes`,
 * `sessions`) that each user of the module (staff, customers) maps onto its own tables with
 * `signInTables`. The mapping is checked by the compiler: a table can stand in only when it has
 * every column below with the same types, and its owner column holds a string.
 */

/** The columns a sign-in code table must have; `code_owner` stands for the owner column. */
export interface CodeTable {
  store_id: string;
  id: Generated<string>;
  /** Who the code is for: a staff member's id, an HMAC of a customer's email. */
  code_owner: string;
  /** HMAC of the 6-digit code; the code itself is only ever in the email. */
  code_hash: string;
  /** HMAC of the owner and the address bucket of the client that asked for the code. */
  client_hash: string;
  expires_at: Time;
  attempts: Generated<number>;
  used_at: ColumnType<Date | null, never, Date | string | null>;
  voided_at: ColumnType<Date | null, never, Date | string | null>;
  created_at: CreatedAt;
}

/** The columns a session table must have; `session_owner` stands for the owner column. */
export interface SessionTable {
  store_id: string;
  id: Generated<string>;
  session_owner: string;
  expires_at: Time;
  last_used_at: ColumnType<Date, Date | string | undefined, Date | string>;
  revoked_at: ColumnType<Date | null, never, Date | string | null>;
  created_at: CreatedAt;
}

interface SignInDatabase {
  codes: CodeTable;
  sessions: SessionTable;
}

type TableWith<Shape> = { [T in keyof Database]: Database[T] extends Shape ? T : never }[keyof Database];
type StringColumn<T extends keyof Database> = {
  [C in keyof Database[T]]: Database[T][C] extends string ? C : never;
}[keyof Database[T]] &
  string;

/** Which tables and columns of a part play the codes and the sessions (built by `signInTables`). */
export interface SignInTables {
  readonly codes: string;
  readonly sessions: string;
  /** Renames the abstract tables and owner columns to the part's own in every statement. */
  readonly plugin: KyselyPlugin;
}

class RenameTables extends OperationNodeTransformer {
  readonly #names: ReadonlyMap<string, string>;
  constructor(names: ReadonlyMap<string, string>) {
    super();
    this.#names = names;
  }
  protected override transformTable(node: TableNode, queryId?: QueryId): TableNode {
    const name = this.#names.get(node.table.identifier.name);
    return name === undefined ? super.transformTable(node, queryId) : TableNode.create(name);
  }
  protected override transformColumn(node: ColumnNode, queryId?: QueryId): ColumnNode {
    const name = this.#names.get(node.column.name);
    return name === undefined ? super.transformColumn(node, queryId) : ColumnNode.create(name);
  }
}

/**
 * The seam: a part's own code and session tables, with the column that names their owner. The
 * types refuse a table that lacks a column of `CodeTable` / `SessionTable` or has it with another
 * type.
 */
export function signInTables<
  Codes extends TableWith<Omit<CodeTable, 'code_owner'>>,
  Sessions extends TableWith<Omit<SessionTable, 'session_owner'>>,
>(tables: {
  codes: Codes;
  codeOwner: StringColumn<Codes>;
  sessions: Sessions;
  sessionOwner: StringColumn<Sessions>;
}): SignInTables {
  const transformer = new RenameTables(
    new Map<string, string>([
      ['codes', tables.codes],
      ['code_owner', tables.codeOwner],
      ['sessions', tables.sessions],
      ['session_owner', tables.sessionOwner],
    ]),
  );
  return {
    codes: tables.codes,
    sessions: tables.sessions,
    plugin: {
      transformQuery: (args) => transformer.transformNode(args.node, args.queryId),
      transformResult: (args) => Promise.resolve(args.result),
    },
  };
}

/** The database (or transaction) seen through a part's tables: the one place the types are bridged. */
function on(db: Kysely<Database>, tables: SignInTables): Kysely<SignInDatabase> {
  return db.withPlugin(tables.plugin) as unknown as Kysely<SignInDatabase>;
}

export interface CodeOwner {
  storeId: string;
  owner: string;
  clientHash: string;
}

// Codes

/** Codes made for an owner since `since`: in all, and for one of its clients. */
export async function countCodesSince(
  db: Kysely<Database>,
  tables: SignInTables,
  code: CodeOwner,
  since: Date,
): Promise<{ member: number; client: number }> {
  const row = await on(db, tables)
    .selectFrom('codes')
    .select((eb) => [
      eb.fn.countAll<number>().as('member'),
      eb.fn.countAll<number>().filterWhere('client_hash', '=', code.clientHash).as('client'),
    ])
    .where('store_id', '=', code.storeId)
    .where('code_owner', '=', code.owner)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return { member: Number(row.member), client: Number(row.client) };
}

/** Voids the pending codes of one client of an owner (not other clients'). */
export async function voidPendingCodes(
  db: Kysely<Database>,
  tables: SignInTables,
  code: CodeOwner,
  now: Date,
): Promise<void> {
  await on(db, tables)
    .updateTable('codes')
    .set({ voided_at: now })
    .where('store_id', '=', code.storeId)
    .where('code_owner', '=', code.owner)
    .where('client_hash', '=', code.clientHash)
    .where('used_at', 'is', null)
    .where('voided_at', 'is', null)
    .execute();
}

export async function insertCode(
  db: Kysely<Database>,
  tables: SignInTables,
  code: CodeOwner & { hash: string; expiresAt: Date; now: Date },
): Promise<void> {
  await on(db, tables)
    .insertInto('codes')
    .values({
      store_id: code.storeId,
      code_owner: code.owner,
      client_hash: code.clientHash,
      code_hash: code.hash,
      expires_at: code.expiresAt,
      created_at: code.now,
    })
    .execute();
}

/**
 * Spends one attempt on the newest usable code of an owner's client and hands back its hash to
 * compare, in one conditional UPDATE: a guess is counted before it is compared, and a code whose
 * attempts are used up is not returned at all, so at most `maxAttempts` guesses ever see a code's
 * hash however many arrive at once (concurrent UPDATEs of the row wait for each other and re-check
 * the condition).
 */
export function spendCodeAttempt(
  db: Kysely<Database>,
  tables: SignInTables,
  code: CodeOwner,
  now: Date,
  maxAttempts: number,
): Promise<{ id: string; code_hash: string } | undefined> {
  return on(db, tables)
    .updateTable('codes')
    .set({ attempts: sql<number>`attempts + 1` })
    .where('store_id', '=', code.storeId)
    .where('id', '=', (eb) =>
      eb
        .selectFrom('codes')
        .select('id')
        .where('store_id', '=', code.storeId)
        .where('code_owner', '=', code.owner)
        .where('client_hash', '=', code.clientHash)
        .where('used_at', 'is', null)
        .where('voided_at', 'is', null)
        .where('expires_at', '>', now)
        .orderBy('created_at', 'desc')
        .limit(1),
    )
    .where('used_at', 'is', null)
    .where('voided_at', 'is', null)
    .where('expires_at', '>', now)
    .where('attempts', '<', maxAttempts)
    .returning(['id', 'code_hash'])
    .executeTakeFirst();
}

/** Uses a code once (its attempt already counted): true when this call used it. */
export async function useCode(
  db: Kysely<Database>,
  tables: SignInTables,
  storeId: string,
  codeId: string,
  now: Date,
): Promise<boolean> {
  const row = await on(db, tables)
    .updateTable('codes')
    .set({ used_at: now })
    .where('store_id', '=', storeId)
    .where('id', '=', codeId)
    .where('used_at', 'is', null)
    .where('voided_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Deletes every code of an owner (an erased customer's). */
export async function deleteCodesOf(
  db: Kysely<Database>,
  tables: SignInTables,
  storeId: string,
  owner: string,
): Promise<void> {
  await on(db, tables)
    .deleteFrom('codes')
    .where('store_id', '=', storeId)
    .where('code_owner', '=', owner)
    .execute();
}

/** Deletes at most `limit` codes made before `before` (a system purge, across stores); returns how many. */
export async function deleteCodesMadeBefore(
  db: Kysely<Database>,
  tables: SignInTables,
  before: Date,
  limit: number,
): Promise<number> {
  const result = await on(db, tables)
    .deleteFrom('codes')
    .where('id', 'in', (eb) =>
      eb.selectFrom('codes').select('id').where('created_at', '<', before).limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

// Sessions

export async function insertSession(
  db: Kysely<Database>,
  tables: SignInTables,
  session: { storeId: string; owner: string; expiresAt: Date; now: Date },
): Promise<string> {
  const row = await on(db, tables)
    .insertInto('sessions')
    .values({
      store_id: session.storeId,
      session_owner: session.owner,
      expires_at: session.expiresAt,
      last_used_at: session.now,
      created_at: session.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Slides a session (`expires_at`, `last_used_at`) or marks it revoked (`revoked_at`). */
export async function updateSession(
  db: Kysely<Database>,
  tables: SignInTables,
  storeId: string,
  sessionId: string,
  change: Updateable<SessionTable>,
): Promise<void> {
  await on(db, tables)
    .updateTable('sessions')
    .set(change)
    .where('store_id', '=', storeId)
    .where('id', '=', sessionId)
    .execute();
}

export async function sessionIdsOf(
  db: Kysely<Database>,
  tables: SignInTables,
  storeId: string,
  owner: string,
): Promise<string[]> {
  const rows = await on(db, tables)
    .selectFrom('sessions')
    .select('id')
    .where('store_id', '=', storeId)
    .where('session_owner', '=', owner)
    .execute();
  return rows.map((row) => row.id);
}

/** Sessions expired, or revoked before `revokedBefore`, at most `limit` (across stores). */
export function staleSessions(
  db: Kysely<Database>,
  tables: SignInTables,
  now: Date,
  revokedBefore: Date,
  limit: number,
): Promise<{ store_id: string; id: string }[]> {
  return on(db, tables)
    .selectFrom('sessions')
    .select(['store_id', 'id'])
    .where((eb) => eb.or([eb('expires_at', '<', now), eb('revoked_at', '<', revokedBefore)]))
    .limit(limit)
    .execute();
}

export async function deleteSession(
  db: Kysely<Database>,
  tables: SignInTables,
  storeId: string,
  sessionId: string,
): Promise<void> {
  await on(db, tables)
    .deleteFrom('sessions')
    .where('store_id', '=', storeId)
    .where('id', '=', sessionId)
    .execute();
}
