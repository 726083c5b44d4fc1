import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import { codeHash, hashMatches, normalCode } from './gift-cards.codes.ts';
import {
  appendEntry,
  findCardByHash,
  lockCardsOfOrder,
  moveBalance,
  orderTotalsByCard,
} from './gift-cards.repository.ts';
import type { GiftCard } from './gift-cards.schemas.ts';
import { balanceTooLow, cardView, recordCardEvent } from './gift-cards.service.ts';

/**
 * Gift cards as tender (decision `gift-card-ledger`): what the checkout calls, each in the caller's
 * transaction. A checkout finds a card by its code (`findCardByCode`, guesses limited per client),
 * holds an amount on it for its order (`reserve`), and later spends the hold when the order is paid
 * (`commit`), gives it back when the order expires or is cancelled (`release`), or pays a refund
 * back to the cards the order spent (`refundToCards`).
 */

export interface GiftCardLookupDeps {
  db: Kysely<Database>;
  /** Counts one guess of `client` in the store; throws 429 `rate_limited` past the budget. */
  limitGuess: (storeId: string, client: string) => Promise<void>;
}

/**
 * The card a typed code names (any case, spaces and dashes ignored), or null. Every call spends one
 * of the client's guesses first, a code that cannot be one included; the lookup is by the code's
 * hash and the stored hash is compared again in constant time, a miss against a dummy, so a miss and
 * a hit cost the same.
 */
export async function findCardByCode(
  deps: GiftCardLookupDeps,
  who: { storeId: string; client: string; now: Date },
  typed: string,
): Promise<GiftCard | null> {
  await deps.limitGuess(who.storeId, who.client);
  const normal = normalCode(typed);
  const hash = codeHash(normal ?? typed);
  const row = normal === null ? undefined : await findCardByHash(deps.db, who.storeId, hash);
  return hashMatches(row?.code_hash, hash) && row ? cardView(row, who.now) : null;
}

/**
 * Holds `amount` of a card for an order: one conditional UPDATE (`balance >= amount`, enabled, not
 * expired, in the order's currency) whose row lock makes a concurrent hold wait and then see the
 * lower balance, so two holds can never overdraw the card. 409 `gift_card_balance_too_low` when the
 * card cannot pay it (the caller's transaction then rolls back). Returns the card as it is now.
 */
export async function reserve(
  trx: Transaction<Database>,
  hold: { storeId: string; cardId: string; orderId: string; amount: number; currency: string; now: Date },
): Promise<GiftCard> {
  if (!Number.isSafeInteger(hold.amount) || hold.amount <= 0)
    throw new RangeError(`A hold must be a positive integer amount, not ${hold.amount}`);
  const { storeId, cardId, orderId, amount, now } = hold;
  const card = await moveBalance(trx, {
    storeId,
    cardId,
    delta: -amount,
    now,
    spendable: { currency: hold.currency },
  });
  if (!card)
    throw balanceTooLow(
      'The gift card cannot pay that amount: its balance is lower, or it is disabled, expired or in another currency.',
    );
  await appendEntry(trx, { storeId, cardId, kind: 'reserve', amount: -amount, held: amount, orderId, now });
  await recordCardEvent(trx, card, ['balance']);
  return cardView(card, now);
}

/** Spends what an order holds on its cards (the order was paid): the balance stays, the hold becomes spent. */
export async function commit(
  trx: Transaction<Database>,
  order: { storeId: string; orderId: string; now: Date },
): Promise<number> {
  const { storeId, orderId, now } = order;
  await lockCardsOfOrder(trx, storeId, orderId);
  let committed = 0;
  for (const card of await orderTotalsByCard(trx, storeId, orderId)) {
    if (card.held <= 0) continue;
    await appendEntry(trx, {
      storeId,
      cardId: card.gift_card_id,
      kind: 'commit',
      amount: 0,
      held: -card.held,
      orderId,
      now,
    });
    committed += card.held;
  }
  return committed;
}

/** Gives back what an order holds on its cards (it expired or was cancelled before payment). */
export async function release(
  trx: Transaction<Database>,
  order: { storeId: string; orderId: string; now: Date },
): Promise<number> {
  const { storeId, orderId, now } = order;
  await lockCardsOfOrder(trx, storeId, orderId);
  let released = 0;
  for (const card of await orderTotalsByCard(trx, storeId, orderId)) {
    if (card.held <= 0) continue;
    const row = await moveBalance(trx, { storeId, cardId: card.gift_card_id, delta: card.held, now });
    await appendEntry(trx, {
      storeId,
      cardId: card.gift_card_id,
      kind: 'release',
      amount: card.held,
      held: -card.held,
      orderId,
      now,
    });
    await recordCardEvent(trx, row!, ['balance']);
    released += card.held;
  }
  return released;
}

/** What an order spent on its cards and was not paid back yet: what a refund can still pay back to them. */
export async function refundableToCards(
  trx: Transaction<Database>,
  order: { storeId: string; orderId: string },
): Promise<number> {
  const cards = await orderTotalsByCard(trx, order.storeId, order.orderId);
  return cards.reduce((sum, card) => sum + Math.max(0, card.spent), 0);
}

/**
 * Pays up to `amount` of a refund back to the cards the order spent (each at most what it spent on
 * the order less what was refunded to it already, cards in id order). Returns how much went to the
 * cards; the rest is the provider's to refund.
 */
export async function refundToCards(
  trx: Transaction<Database>,
  refund: { storeId: string; orderId: string; amount: number; now: Date },
): Promise<number> {
  const { storeId, orderId, now } = refund;
  await lockCardsOfOrder(trx, storeId, orderId);
  let left = refund.amount;
  for (const card of await orderTotalsByCard(trx, storeId, orderId)) {
    const back = Math.min(left, card.spent);
    if (back <= 0) continue;
    const row = await moveBalance(trx, { storeId, cardId: card.gift_card_id, delta: back, now });
    await appendEntry(trx, {
      storeId,
      cardId: card.gift_card_id,
      kind: 'refund',
      amount: back,
      orderId,
      now,
    });
    await recordCardEvent(trx, row!, ['balance']);
    left -= back;
  }
  return refund.amount - left;
}
