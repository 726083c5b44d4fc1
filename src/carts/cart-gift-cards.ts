import { payWithCards, problemWords, tenderCards } from '../gift-cards/gift-cards.tender.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import type { Cart, CartNotice } from './carts.schemas.ts';
import type { CartRow } from './carts.tables.ts';

/**
 * A cart's gift cards (decision `gift-card-tender`): what each pays of the cart now, and a notice
 * for each that no longer can.
 */

/** The cart's cards as shown, and what they pay together; notices for those that cannot pay are added to `notices`. */
export async function cartGiftCards(
  deps: Pick<ServiceDeps, 'db' | 'clock'>,
  row: Pick<CartRow, 'store_id' | 'gift_card_ids'>,
  currency: string,
  payable: number,
  notices: CartNotice[],
): Promise<{ shown: Cart['giftCards']; paid: number }> {
  if (row.gift_card_ids.length === 0) return { shown: [], paid: 0 };
  const cards = await tenderCards(deps.db, row.store_id, row.gift_card_ids, currency, deps.clock.now());
  for (const card of cards)
    if (card.problem !== null)
      notices.push({
        code: 'gift_card_unusable',
        detail: `${problemWords(card)} It pays nothing; remove it or use another.`,
        giftCard: card.last4,
        reason: card.problem,
      });
  const payments = payWithCards(cards, payable);
  return {
    shown: payments.map((payment, index) => ({
      last4: payment.last4,
      amount: { amount: payment.amount, currency },
      balance: { amount: payment.balance, currency: cards[index]!.currency },
    })),
    paid: payments.reduce((sum, payment) => sum + payment.amount, 0),
  };
}
