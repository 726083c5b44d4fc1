import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import { AppError } from '../lib/errors.ts';
import { findCardByCode, reserve, type GiftCardLookupDeps } from './gift-cards.ledger.ts';
import { cardsOfIds, findCard } from './gift-cards.repository.ts';
import type { GiftCard } from './gift-cards.schemas.ts';
import type { GiftCardRow } from './gift-cards.tables.ts';

/**
 * Gift cards as a way to pay (decision `gift-card-tender`): the cards a cart or checkout names, what
 * each can pay of an amount (after discounts, shipping and tax, never gift-card lines), and the
 * holds a checkout places on them in its transaction. Carts and checkout call these; the ledger
 * (gift-cards.ledger.ts) moves the balances.
 */

/** The most gift cards a cart or a checkout may name. */
export const MAX_TENDER_CARDS = 5;

/** Why a card cannot pay now. */
export type CardProblem = 'disabled' | 'expired' | 'currency' | 'empty';

/** A card as tender: its balance, and why it cannot pay now (null: it can). */
export interface TenderCard {
  id: string;
  last4: string;
  balance: number;
  currency: string;
  problem: CardProblem | null;
}

/** What one card pays of an order: `amount` of its `balance`. */
export interface CardPayment {
  id: string;
  last4: string;
  amount: number;
  balance: number;
}

const PROBLEMS: Record<CardProblem, string> = {
  disabled: 'has been disabled by the store',
  expired: 'has expired',
  currency: 'is in another currency than this order',
  empty: 'has no balance left',
};

export const giftCardInvalid = (detail: string): AppError => new AppError('gift_card_invalid', 409, detail);

/** The words for a card's problem, as a notice or a refusal says it. */
export const problemWords = (card: Pick<TenderCard, 'last4' | 'problem'>): string =>
  `The gift card ending ${card.last4} ${card.problem === null ? 'can pay' : PROBLEMS[card.problem]}.`;

function tenderOf(row: GiftCardRow, currency: string, now: Date): TenderCard {
  const cardCurrency = row.currency.trim();
  const problem: CardProblem | null = row.disabled
    ? 'disabled'
    : row.expires_at !== null && row.expires_at <= now
      ? 'expired'
      : cardCurrency !== currency
        ? 'currency'
        : row.balance <= 0
          ? 'empty'
          : null;
  return { id: row.id, last4: row.last4, balance: row.balance, currency: cardCurrency, problem };
}

/** The cards of `ids` as tender in `currency` at `now`, in the order of `ids` (cards gone are left out). */
export async function tenderCards(
  db: Kysely<Database>,
  storeId: string,
  ids: readonly string[],
  currency: string,
  now: Date,
): Promise<TenderCard[]> {
  if (ids.length === 0) return [];
  const rows = new Map((await cardsOfIds(db, storeId, ids)).map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = rows.get(id);
    return row ? [tenderOf(row, currency, now)] : [];
  });
}

/**
 * The card a typed code names, as tender in `currency` (one of the client's guesses spent, decision
 * `gift-card-codes`). 409 `gift_card_invalid` when no card of the store has that code, or when the
 * card cannot pay now (saying why: the holder of a code may know what is wrong with it).
 */
export async function tenderOfCode(
  deps: GiftCardLookupDeps,
  who: { storeId: string; client: string; now: Date },
  code: string,
  currency: string,
): Promise<TenderCard> {
  const found: GiftCard | null = await findCardByCode(deps, who, code);
  if (found === null) throw giftCardInvalid('No gift card of this store has that code.');
  const row = await findCard(deps.db, who.storeId, found.id);
  const card = tenderOf(row!, currency, who.now);
  if (card.problem !== null) throw giftCardInvalid(problemWords(card));
  return card;
}

/** What gift cards may pay of a total: all of it but the lines that sell gift cards (a card never buys a card). */
export function cardsPayable(
  total: number,
  lines: readonly { giftCard?: boolean | undefined; unitPrice: number; quantity: number }[],
): number {
  const cardLines = lines.reduce(
    (sum, line) => sum + (line.giftCard === true ? line.unitPrice * line.quantity : 0),
    0,
  );
  return Math.max(0, total - cardLines);
}

/**
 * What each card pays of `payable`, in the order given: each usable card as much of what is left as
 * its balance allows. Cards that cannot pay, or are not needed, pay 0.
 */
export function payWithCards(cards: readonly TenderCard[], payable: number): CardPayment[] {
  let left = Math.max(0, payable);
  return cards.map((card) => {
    const amount = card.problem === null ? Math.min(card.balance, left) : 0;
    left -= amount;
    return { id: card.id, last4: card.last4, amount, balance: card.balance };
  });
}

/**
 * Holds what each card pays on the order, in the checkout's transaction, cards in id order (two
 * checkouts never wait on each other in a circle). A balance spent meanwhile is 409
 * `gift_card_balance_too_low` (the transaction then rolls back: no hold, no order).
 */
export async function holdCards(
  trx: Transaction<Database>,
  order: { storeId: string; orderId: string; currency: string; now: Date },
  payments: readonly CardPayment[],
): Promise<void> {
  const sorted = payments.filter((payment) => payment.amount > 0).sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const payment of sorted) await reserve(trx, { ...order, cardId: payment.id, amount: payment.amount });
}
