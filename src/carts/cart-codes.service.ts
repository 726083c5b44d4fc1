import { AppError } from '../lib/errors.ts';
import { normalizeDiscountCode } from '../pricing/pricing.service.ts';
import { MAX_CODES } from '../promotions/engine.ts';
import { promotionOffer, refusedCode } from '../promotions/offer.ts';
import type { GiftCardLookupDeps } from '../gift-cards/gift-cards.ledger.ts';
import { MAX_TENDER_CARDS, tenderCards, tenderOfCode } from '../gift-cards/gift-cards.tender.ts';
import { marketOfCart } from './cart-markets.ts';
import { priceCart, shown, type CartsDeps, type PricedCart } from './cart-pricing.ts';
import { cartCompleted, findCart, writeCart } from './carts.service.ts';
import type { CartRow } from './carts.tables.ts';

/** A cart's codes: discount codes (promotions) and gift cards as tender, each added and removed. */

/** 409 `too_many_discount_codes`: a cart holds at most `MAX_CODES`. */
const tooManyCodes = (): AppError =>
  new AppError(
    'too_many_discount_codes',
    409,
    `A cart holds at most ${MAX_CODES} discount codes: remove one first (DELETE /carts/{id}/discount-codes/{code}).`,
  );

/** 409 `discount_invalid` unless the code can be used now by the cart's buyer (decision `cart-promotions`). */
async function assertUsableCode(deps: CartsDeps, row: CartRow, code: string): Promise<void> {
  const market = await marketOfCart(deps, row);
  const offer = await promotionOffer(deps, row.store_id, {
    codes: [code],
    marketId: market.id,
    buyer: { customerId: deps.customerId ?? null, email: null, groupIds: deps.groupIds ?? [] },
    productIds: [],
    now: deps.clock.now(),
    read: 'cached',
  });
  const refused = refusedCode(offer);
  if (refused) throw refused;
}

/**
 * Sets the cart's codes to exactly one (decisions `cart-shipping-and-totals` and `cart-promotions`):
 * 409 `discount_invalid` when it cannot be used now, as at checkout; `null` removes every code.
 * Under If-Match.
 */
export async function setDiscountCode(
  deps: CartsDeps,
  storeId: string,
  cartId: string,
  code: string | null,
  ifMatch: string | undefined,
): Promise<PricedCart> {
  const normalized = code === null ? null : normalizeDiscountCode(code);
  if (normalized !== null) await assertUsableCode(deps, await findCart(deps, storeId, cartId), normalized);
  const row = await writeCart(deps, storeId, cartId, ifMatch, {
    changes: { discount_codes: normalized === null ? [] : [normalized] },
  });
  // A code can take the goods under a free_over threshold: the method is priced again, not dropped.
  return shown(await priceCart(deps, row));
}

/**
 * Adds a code to the cart's codes (decision `cart-promotions`): 409 `discount_invalid` when it
 * cannot be used now, 409 `too_many_discount_codes` beyond `MAX_CODES`; a code the cart holds
 * already changes nothing. A code that can be used but takes nothing off stays, with a notice.
 */
export async function addDiscountCode(
  deps: CartsDeps,
  storeId: string,
  cartId: string,
  code: string,
  ifMatch: string | undefined,
): Promise<PricedCart> {
  const normalized = normalizeDiscountCode(code);
  const current = await findCart(deps, storeId, cartId);
  if (current.discount_codes.includes(normalized) && current.completed_at === null)
    return shown(await priceCart(deps, current));
  if (current.discount_codes.length >= MAX_CODES) throw tooManyCodes();
  await assertUsableCode(deps, current, normalized);
  const row = await writeCart(
    deps,
    storeId,
    cartId,
    ifMatch,
    { changes: { discount_codes: [...current.discount_codes, normalized] } },
    current,
  );
  return shown(await priceCart(deps, row));
}

/** Removes a code from the cart's codes (decision `cart-promotions`); one it does not hold changes nothing. */
export async function removeDiscountCode(
  deps: CartsDeps,
  storeId: string,
  cartId: string,
  code: string,
  ifMatch: string | undefined,
): Promise<PricedCart> {
  const normalized = normalizeDiscountCode(code);
  const current = await findCart(deps, storeId, cartId);
  if (!current.discount_codes.includes(normalized) && current.completed_at === null)
    return shown(await priceCart(deps, current));
  const row = await writeCart(
    deps,
    storeId,
    cartId,
    ifMatch,
    { changes: { discount_codes: current.discount_codes.filter((held) => held !== normalized) } },
    current,
  );
  return shown(await priceCart(deps, row));
}

/**
 * Adds a gift card to the cart by its code (decision `gift-card-tender`): one of the client's
 * guesses is spent first (429 `rate_limited` past the budget); 409 `gift_card_invalid` when no card
 * of the store has the code or it cannot pay now, 409 `too_many_gift_cards` beyond
 * `MAX_TENDER_CARDS`. The cart keeps the card's id, never its code; a card it holds already changes
 * nothing.
 */
export async function addGiftCard(
  deps: CartsDeps & { giftCards: GiftCardLookupDeps },
  storeId: string,
  cartId: string,
  code: string,
  client: string,
  ifMatch: string | undefined,
): Promise<PricedCart> {
  const current = await findCart(deps, storeId, cartId);
  if (current.completed_at !== null) throw cartCompleted();
  const market = await marketOfCart(deps, current);
  const card = await tenderOfCode(
    deps.giftCards,
    { storeId, client, now: deps.clock.now() },
    code,
    market.currency,
  );
  if (current.gift_card_ids.includes(card.id)) return shown(await priceCart(deps, current));
  if (current.gift_card_ids.length >= MAX_TENDER_CARDS)
    throw new AppError(
      'too_many_gift_cards',
      409,
      `A cart holds at most ${MAX_TENDER_CARDS} gift cards: remove one first (DELETE /carts/{id}/gift-cards/{last4}).`,
    );
  const row = await writeCart(
    deps,
    storeId,
    cartId,
    ifMatch,
    { changes: { gift_card_ids: [...current.gift_card_ids, card.id] } },
    current,
  );
  return shown(await priceCart(deps, row));
}

/** Removes the cart's gift cards whose code ends in `last4` (any case); none changes nothing. */
export async function removeGiftCard(
  deps: CartsDeps,
  storeId: string,
  cartId: string,
  last4: string,
  ifMatch: string | undefined,
): Promise<PricedCart> {
  const current = await findCart(deps, storeId, cartId);
  const wanted = last4.toUpperCase();
  const held = await tenderCards(deps.db, storeId, current.gift_card_ids, '', deps.clock.now());
  const gone = new Set(held.filter((card) => card.last4 === wanted).map((card) => card.id));
  if (gone.size === 0 && current.completed_at === null) return shown(await priceCart(deps, current));
  const row = await writeCart(
    deps,
    storeId,
    cartId,
    ifMatch,
    { changes: { gift_card_ids: current.gift_card_ids.filter((id) => !gone.has(id)) } },
    current,
  );
  return shown(await priceCart(deps, row));
}
