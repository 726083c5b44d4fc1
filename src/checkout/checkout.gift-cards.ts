import type { Kysely } from 'kysely';
import type { CartRow } from '../carts/carts.service.ts';
import type { Database } from '../db/tables.ts';
import type { GiftCardLookupDeps } from '../gift-cards/gift-cards.ledger.ts';
import {
  cardsPayable,
  giftCardInvalid,
  payWithCards,
  problemWords,
  tenderCards,
  tenderOfCode,
  type CardPayment,
} from '../gift-cards/gift-cards.tender.ts';
import type { Clock } from '../lib/clock.ts';
import type { CheckoutInput } from './checkout.input.ts';
import type { Quote } from './quote.ts';

/** The gift cards that pay a checkout (decision `gift-card-tender`). */

type CardDeps = { db: Kysely<Database>; clock: Clock; giftCards?: GiftCardLookupDeps | undefined };

/**
 * The gift cards a checkout pays with, by id (decision `gift-card-tender`): the body's codes, each
 * looked up as one of the client's guesses, else the cart's cards. 409 `gift_card_invalid` for a
 * code no card has or a card that cannot pay.
 */
export async function checkoutCardIds(
  deps: CardDeps,
  storeId: string,
  input: CheckoutInput,
  cart: CartRow,
  currency: string,
): Promise<readonly string[]> {
  const codes = input.giftCardCodes;
  if (codes === undefined) return cart.gift_card_ids;
  if (codes.length > 0 && !deps.giftCards)
    throw giftCardInvalid('This store takes no gift cards at this checkout.');
  const ids: string[] = [];
  for (const code of codes) {
    const card = await tenderOfCode(
      deps.giftCards!,
      { storeId, client: input.client, now: deps.clock.now() },
      code,
      currency,
    );
    if (!ids.includes(card.id)) ids.push(card.id);
  }
  return ids;
}

/**
 * What each gift card pays of the quoted total (decision `gift-card-tender`), read afresh; those
 * not needed are left out. A card that can no longer pay refuses the checkout (409
 * `gift_card_invalid`): the buyer counted on it.
 */
export async function cardPayments(
  deps: CardDeps,
  storeId: string,
  ids: readonly string[],
  quoted: Quote,
  currency: string,
  now: Date,
): Promise<CardPayment[]> {
  if (ids.length === 0) return [];
  const cards = await tenderCards(deps.db, storeId, ids, currency, now);
  const unusable = cards.find((card) => card.problem !== null);
  if (unusable) throw giftCardInvalid(problemWords(unusable));
  if (cards.length < ids.length) throw giftCardInvalid('A gift card of this cart no longer exists.');
  return payWithCards(cards, cardsPayable(quoted.totals.total, quoted.lines)).filter(
    (card) => card.amount > 0,
  );
}
