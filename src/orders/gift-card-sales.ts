import type { Transaction } from 'kysely';
import { giftCardProducts } from '../catalog/products/products.service.ts';
import type { Database } from '../db/tables.ts';
import { issueSoldCards } from '../gift-cards/gift-cards.sales.ts';
import type { Keyring } from '../lib/keyring.ts';
import { ERASED_EMAIL } from './buyers.repository.ts';
import type { OrderLineFields } from './orders.repository.ts';
import type { OrderRow } from './orders.tables.ts';

/**
 * What an order that became paid sold of gift cards (decision `gift-card-products`): each unit of a
 * line whose product is a gift card product becomes a card of the line's unit price (its face
 * value: discounts do not lower it), the order's and its customer's, and the codes are mailed to
 * the order's email. In the transaction that marks the order paid: every path that does so calls
 * this (the payment's webhook, a late payment reviving an expired order, an order paid at once).
 * `soldVariants`, when the sale of the order's reserved stock read them (`sellReservedLines`), are
 * the lines' variants that sell gift cards; without them the lines' products are read (a statement).
 * Returns the cards issued.
 */
export async function issueGiftCardsOf(
  tx: { db: Transaction<Database>; keyring: Keyring },
  storeName: string,
  order: OrderRow,
  lines: readonly OrderLineFields[],
  now: Date,
  soldVariants?: ReadonlySet<string>,
): Promise<number> {
  let sells: (line: OrderLineFields) => boolean;
  if (soldVariants) sells = (line) => soldVariants.has(line.variant_id);
  else {
    const products = await giftCardProducts(
      tx,
      order.store_id,
      lines.map((line) => line.product_id),
    );
    sells = (line) => products.has(line.product_id);
  }
  const sold = lines.filter(sells);
  if (sold.length === 0) return 0;
  return issueSoldCards(tx, {
    storeId: order.store_id,
    storeName,
    order: { id: order.id, number: order.number, currency: order.currency, customerId: order.customer_id },
    // An erased buyer (decision `erasure-is-immediate`) is never mailed again.
    email: order.email === ERASED_EMAIL ? null : order.email,
    lines: sold.map((line) => ({
      position: line.position,
      quantity: line.quantity,
      unitPrice: line.unit_price_amount,
    })),
    now,
  });
}
