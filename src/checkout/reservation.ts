import type { Transaction } from 'kysely';
import { reserveStock } from '../catalog/inventory/inventory.ts';
import { marketPricesNow, type ReadPricing } from '../catalog/inventory/sellable.ts';
import type { Database } from '../db/tables.ts';
import type { QuotedLine } from './quote.ts';

/**
 * Reserves the quoted lines' stock, in the caller's transaction (decision `stock-reservation`: the
 * atomic reservation decides; 409 `insufficient_stock` when a line is short). Each reservation
 * returns, under its row lock, the variant's price and whether its product is active; both hold
 * until commit, so each line must still be sellable at its quoted price (decision
 * `quote-checked-by-reservations`), in the buyer's market when it is not the default (decision
 * `market-prices`). A draft's custom lines hold no stock and a price staff set is not the catalog's
 * to check (decision `draft-orders`). Returns what each variant has left available once this
 * commits, or null when the quote no longer holds (price it again).
 */
export async function reserveQuoted(
  db: Transaction<Database>,
  storeId: string,
  buyer: ReadPricing | null,
  lines: readonly QuotedLine[],
  now: Date,
): Promise<Map<string, number> | null> {
  const stocked = lines.filter((line) => line.custom !== true);
  const reserved = await reserveStock(db, storeId, stocked, now);
  const inMarket =
    buyer === null
      ? null
      : await marketPricesNow(
          db,
          storeId,
          buyer,
          stocked.map((line) => line.variantId),
        );
  const left = new Map<string, number>();
  for (const line of stocked) {
    const found = reserved.get(line.variantId);
    const price = inMarket ? inMarket.get(line.variantId)?.priceAmount : found?.priceAmount;
    if (!found?.sellable || (line.priceSet !== true && price !== line.unitPrice)) return null;
    left.set(line.variantId, found.available);
  }
  return left;
}
