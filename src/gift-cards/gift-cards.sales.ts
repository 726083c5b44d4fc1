import type { Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { Keyring } from '../lib/keyring.ts';
import { enqueueMail } from '../mail/outbox.ts';
import { codeHash, lastFour, newCode, normalCode } from './gift-cards.codes.ts';
import { giftCardMail, type MailedCard } from './gift-cards.mail.ts';
import { appendEntry, insertSoldCard, soldCardExists } from './gift-cards.repository.ts';
import { recordCardEvent } from './gift-cards.service.ts';

/**
 * Gift cards sold as products (decision `gift-card-products`): when an order is paid, orders/
 * calls `issueSoldCards` in the transaction that marks it paid. Each unit of a gift card line
 * becomes a card of the line's unit price, with its `issue` entry and `gift_card.issued`; the codes
 * go to the buyer in one mail, sealed in the outbox. Each unit's card is unique per order, line and
 * unit, so running this twice for an order issues and mails nothing the second time.
 */

/** A line of the paid order whose product sells gift cards. */
export interface SoldCardLine {
  /** The line's position in its order. */
  position: number;
  quantity: number;
  /** The face value of each card: the unit price, before any discount. */
  unitPrice: number;
}

export interface CardSale {
  storeId: string;
  /** For the mail. */
  storeName: string;
  order: { id: string; number: number; currency: string; customerId: string | null };
  /** Where the codes are mailed; null: nowhere (the buyer's data was erased). */
  email: string | null;
  lines: readonly SoldCardLine[];
  now: Date;
}

/** A draw of a code whose hash another card has: drawn again, this many times at most. */
const CODE_DRAWS = 4;

/**
 * Issues the cards an order sold, in the caller's transaction, and queues the mail of their codes
 * (sealed with `keyring`: a code never rests in plaintext). A unit priced below 1 makes no card (a
 * card holds something). Returns the cards issued now.
 */
export async function issueSoldCards(
  tx: { db: Transaction<Database>; keyring: Keyring },
  sale: CardSale,
): Promise<number> {
  const { storeId, order, now } = sale;
  const currency = order.currency.trim();
  const mailed: MailedCard[] = [];
  for (const line of sale.lines) {
    if (line.unitPrice < 1) continue;
    for (let unit = 0; unit < line.quantity; unit++) {
      const sold = { orderId: order.id, line: line.position, unit };
      for (let draw = 1; ; draw++) {
        const code = newCode();
        const normal = normalCode(code)!;
        const card = await insertSoldCard(tx.db, {
          storeId,
          codeHash: codeHash(normal),
          last4: lastFour(normal),
          currency,
          amount: line.unitPrice,
          customerId: order.customerId,
          sold,
          now,
        });
        if (card) {
          await appendEntry(tx.db, { storeId, cardId: card.id, kind: 'issue', amount: card.balance, now });
          await recordCardEvent(tx.db, card, 'issued');
          mailed.push({ code, amount: card.initial_amount, currency, expiresAt: card.expires_at });
          break;
        }
        if (await soldCardExists(tx.db, storeId, sold)) break;
        // Two codes of 80 random bits alike: draw again (never seen; bounded anyway).
        if (draw >= CODE_DRAWS) throw new Error('No free gift card code after several draws');
      }
    }
  }
  if (mailed.length > 0 && sale.email !== null)
    await enqueueMail(
      tx.db,
      {
        storeId,
        tier: 'store',
        kind: 'gift_card_codes',
        to: sale.email,
        about: `order:${order.id}`,
        ...giftCardMail(sale.storeName, order.number, mailed),
      },
      tx.keyring,
    );
  return mailed.length;
}
