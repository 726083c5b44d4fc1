import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { GiftCardLedgerRow, GiftCardRow, LedgerKind } from './gift-cards.tables.ts';

/** All SQL on gift cards and their ledger (decisions `gift-card-codes`, `gift-card-ledger`). */

type Db = Kysely<Database> | Transaction<Database>;

/**
 * The admin list's query: a store's cards, optionally those whose code ends in `last4`, or those an
 * order sold.
 */
export function cardsQuery(db: Db, storeId: string, filter: { last4?: string; orderId?: string } = {}) {
  let query = db.selectFrom('gift_cards').selectAll().where('store_id', '=', storeId);
  if (filter.last4 !== undefined) query = query.where('last4', '=', filter.last4);
  if (filter.orderId !== undefined) query = query.where('order_id', '=', filter.orderId);
  return query;
}

export function findCard(db: Db, storeId: string, cardId: string): Promise<GiftCardRow | undefined> {
  return cardsQuery(db, storeId).where('id', '=', cardId).executeTakeFirst();
}

/** The store's cards of these ids (any order; unknown ids are left out). */
export function cardsOfIds(db: Db, storeId: string, ids: readonly string[]): Promise<GiftCardRow[]> {
  return cardsQuery(db, storeId).where('id', 'in', ids).execute();
}

/** The card whose code has this hash (the unique index answers). */
export function findCardByHash(db: Db, storeId: string, hash: string): Promise<GiftCardRow | undefined> {
  return cardsQuery(db, storeId).where('code_hash', '=', hash).executeTakeFirst();
}

/** Locks a card's row until the end of the transaction (a staff change against a concurrent reserve). */
export function lockCard(trx: Transaction<Database>, storeId: string, cardId: string) {
  return cardsQuery(trx, storeId).where('id', '=', cardId).forUpdate().executeTakeFirst();
}

/** A new card with its balance (a code hash another card of the store has: 23505 on gift_cards_code_idx). */
export function insertCard(
  trx: Transaction<Database>,
  card: {
    storeId: string;
    codeHash: string;
    last4: string;
    currency: string;
    amount: number;
    expiresAt: Date | null;
    note: string | null;
    customerId: string | null;
    now: Date;
  },
): Promise<GiftCardRow> {
  return trx
    .insertInto('gift_cards')
    .values({
      store_id: card.storeId,
      code_hash: card.codeHash,
      last4: card.last4,
      currency: card.currency,
      initial_amount: card.amount,
      balance: card.amount,
      expires_at: card.expiresAt,
      note: card.note,
      customer_id: card.customerId,
      created_at: card.now,
      updated_at: card.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * A card an order sold (decision `gift-card-products`): unit `unit` of the order's line at
 * `line`. Undefined when nothing was inserted: the unit's card exists already, or (never seen) another
 * card has the code's hash; `soldCardExists` tells which.
 */
export function insertSoldCard(
  trx: Transaction<Database>,
  card: {
    storeId: string;
    codeHash: string;
    last4: string;
    currency: string;
    amount: number;
    customerId: string | null;
    sold: { orderId: string; line: number; unit: number };
    now: Date;
  },
): Promise<GiftCardRow | undefined> {
  return trx
    .insertInto('gift_cards')
    .values({
      store_id: card.storeId,
      code_hash: card.codeHash,
      last4: card.last4,
      currency: card.currency,
      initial_amount: card.amount,
      balance: card.amount,
      expires_at: null,
      customer_id: card.customerId,
      order_id: card.sold.orderId,
      order_line: card.sold.line,
      order_unit: card.sold.unit,
      created_at: card.now,
      updated_at: card.now,
    })
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** Whether the card of unit `unit` of an order's line at `line` exists. */
export async function soldCardExists(
  trx: Transaction<Database>,
  storeId: string,
  sold: { orderId: string; line: number; unit: number },
): Promise<boolean> {
  const row = await trx
    .selectFrom('gift_cards')
    .select('id')
    .where('store_id', '=', storeId)
    .where('order_id', '=', sold.orderId)
    .where('order_line', '=', sold.line)
    .where('order_unit', '=', sold.unit)
    .executeTakeFirst();
  return row !== undefined;
}

/** Changes a card's staff-set fields. */
export function updateCard(
  trx: Transaction<Database>,
  storeId: string,
  cardId: string,
  changes: {
    note?: string | null;
    expires_at?: Date | null;
    disabled?: boolean;
    customer_id?: string | null;
  },
  now: Date,
): Promise<GiftCardRow> {
  return trx
    .updateTable('gift_cards')
    .set({ ...changes, updated_at: now })
    .where('store_id', '=', storeId)
    .where('id', '=', cardId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Moves a card's balance by `delta` if it stays at least 0 (one conditional UPDATE: its row lock
 * makes a concurrent move wait and then see this one's balance); with `spendable`, only while the
 * card is enabled and not expired at `now`. The updated card, or undefined when the condition fails.
 */
export function moveBalance(
  trx: Transaction<Database>,
  move: { storeId: string; cardId: string; delta: number; now: Date; spendable?: { currency: string } },
): Promise<GiftCardRow | undefined> {
  let query = trx
    .updateTable('gift_cards')
    .set({ balance: sql`balance + ${move.delta}`, updated_at: move.now })
    .where('store_id', '=', move.storeId)
    .where('id', '=', move.cardId)
    .where(sql<boolean>`balance + ${move.delta} >= 0`);
  if (move.spendable)
    query = query
      .where('disabled', '=', false)
      .where('currency', '=', move.spendable.currency)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', move.now)]));
  return query.returningAll().executeTakeFirst();
}

export async function appendEntry(
  trx: Transaction<Database>,
  entry: {
    storeId: string;
    cardId: string;
    kind: LedgerKind;
    amount: number;
    held?: number;
    orderId?: string | null;
    reason?: string | null;
    now: Date;
  },
): Promise<void> {
  await trx
    .insertInto('gift_card_ledger')
    .values({
      store_id: entry.storeId,
      gift_card_id: entry.cardId,
      kind: entry.kind,
      amount: entry.amount,
      held: entry.held ?? 0,
      order_id: entry.orderId ?? null,
      reason: entry.reason ?? null,
      created_at: entry.now,
    })
    .execute();
}

/** A card's entries, oldest first: at most `limit`, the latest ones. */
export async function entriesOf(
  db: Db,
  storeId: string,
  cardId: string,
  limit: number,
): Promise<GiftCardLedgerRow[]> {
  const rows = await db
    .selectFrom('gift_card_ledger')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('gift_card_id', '=', cardId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.reverse();
}

/**
 * Per card, what an order holds on it (reserved, not yet committed or released) and what it has
 * spent (committed, less refunds), in card id order (the order cards are locked in).
 */
export async function orderTotalsByCard(
  trx: Transaction<Database>,
  storeId: string,
  orderId: string,
): Promise<{ gift_card_id: string; held: number; spent: number }[]> {
  const rows = await trx
    .selectFrom('gift_card_ledger')
    .select([
      'gift_card_id',
      sql<string>`sum(held)`.as('held'),
      sql<string>`sum(CASE WHEN kind = 'commit' THEN -held WHEN kind = 'refund' THEN -amount ELSE 0 END)`.as(
        'spent',
      ),
    ])
    .where('store_id', '=', storeId)
    .where('order_id', '=', orderId)
    .groupBy('gift_card_id')
    .orderBy('gift_card_id')
    .execute();
  return rows.map((row) => ({
    gift_card_id: row.gift_card_id,
    held: Number(row.held),
    spent: Number(row.spent),
  }));
}

/** Locks the cards an order touched, in id order (two transactions never wait on each other in a circle). */
export async function lockCardsOfOrder(
  trx: Transaction<Database>,
  storeId: string,
  orderId: string,
): Promise<void> {
  await trx
    .selectFrom('gift_cards')
    .select('id')
    .where('store_id', '=', storeId)
    .where(
      'id',
      'in',
      trx
        .selectFrom('gift_card_ledger')
        .select('gift_card_id')
        .where('store_id', '=', storeId)
        .where('order_id', '=', orderId),
    )
    .orderBy('id')
    .forUpdate()
    .execute();
}

/** A customer's cards (their data export). */
export function cardsOfCustomer(db: Db, storeId: string, customerId: string) {
  return cardsQuery(db, storeId).where('customer_id', '=', customerId).orderBy('created_at').execute();
}

/** Clears the notes of a customer's cards (their erasure: staff may have written about them). */
export async function clearNotesOfCustomer(db: Db, storeId: string, customerId: string): Promise<void> {
  await db
    .updateTable('gift_cards')
    .set({ note: null })
    .where('store_id', '=', storeId)
    .where('customer_id', '=', customerId)
    .where('note', 'is not', null)
    .execute();
}
