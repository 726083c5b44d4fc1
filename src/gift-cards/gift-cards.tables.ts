import type { ColumnType, Generated, Selectable } from 'kysely';
import type { CreatedAt, NullableTime, UpdatedAt } from '../db/tables.ts';

/**
 * A store's gift card (decision `gift-card-codes`): its code kept only as a SHA-256 and its last
 * 4 characters; `balance` is the sum of its ledger's amounts, changed only with a ledger entry.
 */
export interface GiftCardTable {
  store_id: string;
  id: Generated<string>;
  code_hash: string;
  last4: string;
  currency: string;
  initial_amount: number;
  balance: number;
  expires_at: NullableTime;
  note: ColumnType<string | null, string | null | undefined, string | null>;
  customer_id: ColumnType<string | null, string | null | undefined, string | null>;
  disabled: ColumnType<boolean, boolean | undefined, boolean>;
  /**
   * Decision `gift-card-products`: the order that sold the card, its line's position and which unit
   * of the line it is; all null on cards staff issued.
   */
  order_id: ColumnType<string | null, string | null | undefined, never>;
  order_line: ColumnType<number | null, number | null | undefined, never>;
  order_unit: ColumnType<number | null, number | null | undefined, never>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type GiftCardRow = Selectable<GiftCardTable>;

export type LedgerKind = 'issue' | 'reserve' | 'commit' | 'release' | 'refund' | 'adjust';

/**
 * One entry of a card's ledger (decision `gift-card-ledger`), never changed: `amount` is its effect
 * on the balance, `held` its effect on what `order_id` holds on the card.
 */
export interface GiftCardLedgerTable {
  store_id: string;
  id: Generated<string>;
  gift_card_id: string;
  kind: LedgerKind;
  amount: number;
  held: ColumnType<number, number | undefined, never>;
  order_id: ColumnType<string | null, string | null | undefined, never>;
  reason: ColumnType<string | null, string | null | undefined, never>;
  created_at: CreatedAt;
}
export type GiftCardLedgerRow = Selectable<GiftCardLedgerTable>;

export interface GiftCardTables {
  gift_cards: GiftCardTable;
  gift_card_ledger: GiftCardLedgerTable;
}

declare module '../db/tables.ts' {
  interface Database extends GiftCardTables {}
}
