import type { EmittedData } from '../../events/events.schemas.ts';
import type { InventoryUpdatedData } from '../catalog.events.ts';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/tables.ts';
import { recordEvent } from '../../events/events.ts';
import type { VariantRow } from '../catalog.tables.ts';
import { AppError } from '../../lib/errors.ts';
import {
  addToOnHand,
  lockStockLevels,
  lockVariant,
  lowStockVariants,
  releaseFromReserved,
  reserveIfAvailable,
  sellFromReserved,
  stockLevel,
  takeFromOnHand,
  updateOnHand,
  type StockLevel,
  type StockShift,
} from './inventory.repository.ts';

/**
 * Stock (decisions `stock-reservation` and `catalog-owns-stock`). The catalog owns `on_hand` and `reserved` of every variant, and this
 * module is the only code that changes them after a variant exists: reserve, sell, release, take
 * and set on hand. Each runs inside the caller's transaction, touches rows in variant-id order (so
 * concurrent writers never deadlock), and records `inventory.updated` in that transaction whenever
 * a variant's sellable stock (`available = on_hand − reserved`) changed.
 */

export interface StockLine {
  variantId: string;
  quantity: number;
}

export interface Shortfall {
  variantId: string;
  requested: number;
  available: number;
}

export const available = (variant: Pick<VariantRow, 'on_hand' | 'reserved'>): number =>
  Math.max(0, variant.on_hand - variant.reserved);

/** Lines merged per variant and sorted by variant id: the one lock order of every stock write. */
function inLockOrder(lines: readonly StockLine[]): StockLine[] {
  const merged = new Map<string, number>();
  for (const line of lines) merged.set(line.variantId, (merged.get(line.variantId) ?? 0) + line.quantity);
  return [...merged]
    .map(([variantId, quantity]) => ({ variantId, quantity }))
    .sort((a, b) => (a.variantId < b.variantId ? -1 : a.variantId > b.variantId ? 1 : 0));
}

/** The levels a shift started from. */
const levelsBefore = (shift: StockShift): Pick<StockLevel, 'on_hand' | 'reserved'> => ({
  on_hand: shift.old_on_hand,
  reserved: shift.old_reserved,
});

async function recordIfChanged(
  trx: Transaction<Database>,
  storeId: string,
  variantId: string,
  before: Pick<StockLevel, 'on_hand' | 'reserved'>,
  after: StockLevel,
): Promise<void> {
  if (available(before) === available(after)) return;
  await recordEvent(trx, {
    storeId,
    type: 'inventory.updated',
    resource: `variant:${variantId}`,
    data: { variantId, productId: after.product_id, available: available(after) } satisfies EmittedData<
      typeof InventoryUpdatedData
    >,
  });
}

export function insufficientStock(lines: readonly Shortfall[]): AppError {
  return new AppError(
    'insufficient_stock',
    409,
    'Some items are not available in the quantity requested. Nothing was reserved.',
    {
      errors: lines.map((line) => ({
        pointer: '/cartId',
        detail: `variant ${line.variantId}: ${line.requested} requested, ${line.available} available`,
        variantId: line.variantId,
        requested: line.requested,
        available: line.available,
      })),
    },
  );
}

export interface LowStockVariant {
  productId: string;
  productTitle: string;
  variantId: string;
  label: string;
  sku: string | null;
  onHand: number;
  reserved: number;
  available: number;
}

/**
 * Variants of active products with at most `threshold` units available (on hand − reserved), least
 * first: the first `limit` of them and their total count. Read without locks (a report).
 */
export async function lowStock(
  db: Kysely<Database>,
  storeId: string,
  threshold: number,
  limit: number,
): Promise<{ count: number; variants: LowStockVariant[] }> {
  const { rows, count } = await lowStockVariants(db, storeId, threshold, limit);
  return {
    count,
    variants: rows.map((row) => ({
      productId: row.product_id,
      productTitle: row.product_title,
      variantId: row.id,
      label: row.label,
      sku: row.sku,
      onHand: row.on_hand,
      reserved: row.reserved,
      available: available(row),
    })),
  };
}

/**
 * What a reservation found, under its row lock: what the variant has left available once the
 * transaction commits, and its price and sellability at that moment (held until commit, so a
 * checkout can check its quote without reading the variant again).
 */
export interface Reserved {
  available: number;
  priceAmount: number;
  /** Its product is active. */
  sellable: boolean;
}

/**
 * Reserves every line or none (decision `stock-reservation`): one conditional UPDATE per variant (`on_hand − reserved >=
 * quantity`), so the last unit is never sold twice. When any line is short it throws 409
 * `insufficient_stock` listing every short line; the caller's transaction then rolls back.
 * Returns what each reservation found, by variant id.
 */
export async function reserveStock(
  trx: Transaction<Database>,
  storeId: string,
  lines: readonly StockLine[],
  now: Date,
): Promise<Map<string, Reserved>> {
  const short: Shortfall[] = [];
  const reserved = new Map<string, Reserved>();
  for (const line of inLockOrder(lines)) {
    // A reservation (of at least one unit) always lowers what is available: the statement records
    // inventory.updated with the variant's product and what it has left.
    const row = await reserveIfAvailable(trx, storeId, line.variantId, line.quantity, now, {
      storeId,
      type: 'inventory.updated',
      resource: `variant:${line.variantId}`,
      data: { variantId: line.variantId } satisfies Omit<
        EmittedData<typeof InventoryUpdatedData>,
        'productId' | 'available'
      >,
    });
    if (row) {
      reserved.set(line.variantId, {
        available: available(row),
        priceAmount: row.price_amount,
        sellable: row.sellable,
      });
      continue;
    }
    const current = await stockLevel(trx, storeId, line.variantId);
    short.push({
      variantId: line.variantId,
      requested: line.quantity,
      available: current ? available(current) : 0,
    });
  }
  if (short.length > 0) throw insufficientStock(short);
  return reserved;
}

/** What selling reserved lines did: the lines short of stock, and what sold gift cards. */
export interface ReservedSale {
  oversold: Shortfall[];
  /** The variants sold whose product sells gift cards (decision `gift-card-products`). */
  giftCards: Set<string>;
}

/**
 * Turns a reservation into a sale: `on_hand` and `reserved` both drop by the quantity (available
 * stays). It never fails (decision `catalog-owns-stock`): a confirmed payment must always make its order paid. Should a row
 * hold less than the quantity (stock changed by hand, a variant deleted), it stops at zero and the
 * line is returned as oversold, so the order can be flagged for the merchant. Also says which
 * variants sold gift cards, read by the same statements.
 */
export async function sellReservedLines(
  trx: Transaction<Database>,
  storeId: string,
  lines: readonly StockLine[],
  now: Date,
): Promise<ReservedSale> {
  const oversold: Shortfall[] = [];
  const giftCards = new Set<string>();
  for (const line of inLockOrder(lines)) {
    const row = await sellFromReserved(trx, storeId, line.variantId, line.quantity, now);
    if (!row) {
      oversold.push({ variantId: line.variantId, requested: line.quantity, available: 0 });
      continue;
    }
    if (row.gift_card) giftCards.add(line.variantId);
    if (row.old_on_hand < line.quantity) {
      oversold.push({ variantId: line.variantId, requested: line.quantity, available: row.old_on_hand });
    }
    await recordIfChanged(trx, storeId, line.variantId, levelsBefore(row), row);
  }
  return { oversold, giftCards };
}

/** {@link sellReservedLines}, its lines short of stock. */
export async function sellReserved(
  trx: Transaction<Database>,
  storeId: string,
  lines: readonly StockLine[],
  now: Date,
): Promise<Shortfall[]> {
  return (await sellReservedLines(trx, storeId, lines, now)).oversold;
}

/** Gives a reservation back (an unpaid order expired): `reserved` drops, never below zero. */
export async function releaseReserved(
  trx: Transaction<Database>,
  storeId: string,
  lines: readonly StockLine[],
  now: Date,
): Promise<void> {
  for (const line of inLockOrder(lines)) {
    const row = await releaseFromReserved(trx, storeId, line.variantId, line.quantity, now);
    if (row) await recordIfChanged(trx, storeId, line.variantId, levelsBefore(row), row);
  }
}

/**
 * Puts units back on hand (a paid order cancelled, a return restocked: decisions `order-cancellation` and `returns`), in lock order;
 * a variant deleted since is skipped. Returns the lines that went back.
 */
export async function restock(
  trx: Transaction<Database>,
  storeId: string,
  lines: readonly StockLine[],
  now: Date,
): Promise<StockLine[]> {
  const restocked: StockLine[] = [];
  for (const line of inLockOrder(lines)) {
    if (line.quantity <= 0) continue;
    const row = await addToOnHand(trx, storeId, line.variantId, line.quantity, now);
    if (!row) continue;
    restocked.push(line);
    await recordIfChanged(trx, storeId, line.variantId, levelsBefore(row), row);
  }
  return restocked;
}

/**
 * Sells stock that is not reserved (a late payment revives an expired order): all lines or none.
 * Returns false, changing nothing, when any line is short.
 */
export async function takeStock(
  trx: Transaction<Database>,
  storeId: string,
  lines: readonly StockLine[],
  now: Date,
): Promise<boolean> {
  const wanted = inLockOrder(lines);
  const rows = await lockStockLevels(
    trx,
    storeId,
    wanted.map((line) => line.variantId),
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  if (
    !wanted.every(
      (line) => available(byId.get(line.variantId) ?? { on_hand: 0, reserved: 0 }) >= line.quantity,
    )
  )
    return false;
  for (const line of wanted) {
    const row = await takeFromOnHand(trx, storeId, line.variantId, line.quantity, now);
    await recordIfChanged(trx, storeId, line.variantId, byId.get(line.variantId)!, row);
  }
  return true;
}

/** The variant row, locked for the rest of the transaction (a change to it); undefined when unknown. */
export { lockVariant };

/**
 * Sets a variant's on-hand count (a stock recount). It may not go below what pending orders hold
 * (decision `catalog-owns-stock`): that is 409 `stock_reserved`, decided in the same UPDATE, so a checkout committing at the
 * same moment cannot slip under it. Returns the variant row, or null when it does not exist.
 */
export async function setOnHand(
  trx: Transaction<Database>,
  storeId: string,
  variantId: string,
  onHand: number,
  now: Date,
): Promise<VariantRow | null> {
  const before = await lockVariant(trx, storeId, variantId);
  if (!before) return null;
  if (before.on_hand === onHand) return before;
  if (onHand < before.reserved) {
    throw new AppError(
      'stock_reserved',
      409,
      `${before.reserved} unit${before.reserved === 1 ? ' is' : 's are'} reserved by pending orders, so on hand cannot go below ${before.reserved}. Wait for those orders to be paid or to expire.`,
      {
        errors: [
          {
            pointer: '/onHand',
            detail: `must be at least ${before.reserved} (reserved by pending orders)`,
            in: 'body',
          },
        ],
      },
    );
  }
  const row = await updateOnHand(trx, storeId, variantId, onHand, now);
  await recordIfChanged(trx, storeId, variantId, before, row);
  return row;
}
