import { createHash } from 'node:crypto';
import { purgeOlderThan } from '../db/purge.ts';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import { sellableVariants } from '../catalog/sellable.ts';
import type { Money } from '../lib/money.ts';
import { AppError, notFound, validationFailed, type FieldError } from '../lib/errors.ts';
import type { CartItem, CartRow } from './carts.tables.ts';

export const MAX_CART_LINES = 100;
export const MAX_QUANTITY = 999;

/** A priced line: the same shape as an order line. */
export interface CartLine {
  variantId: string;
  productId: string;
  title: string;
  variantLabel: string;
  sku: string | null;
  quantity: number;
  unitPrice: Money;
  lineTotal: Money;
}

export interface Cart {
  id: string;
  items: CartLine[];
  subtotal: Money;
  completed: boolean;
  createdAt: string;
  updatedAt: string;
}

/**
 * The cart's entity tag: `"<version>-<digest of the representation>"`. It changes whenever the
 * body does, also when the cart was not written (a price changed, an archived product's line
 * dropped out); `If-Match` compares the version part only, so it guards writes, not prices.
 */
export function cartEtag(row: Pick<CartRow, 'version'>, cart: Cart): string {
  const digest = createHash('sha256').update(JSON.stringify(cart)).digest('base64url').slice(0, 16);
  return `"${row.version}-${digest}"`;
}

/** The version an entity tag names (`"7-…"`, or the `"v7"` of earlier answers); null when none. */
function versionOf(tag: string): number | null {
  const match = /^"(?:v)?(\d{1,9})(?:-[A-Za-z0-9_-]*)?"$/.exec(tag.trim());
  return match ? Number(match[1]) : null;
}

/**
 * Merges lines of the same variant (quantities add up, first position kept) and checks the limits:
 * 1–999 per variant after merging, at most 100 distinct variants.
 */
export function mergeItems(items: readonly CartItem[]): CartItem[] {
  const merged = new Map<string, CartItem>();
  const errors: FieldError[] = [];
  items.forEach((item, i) => {
    const variantId = item.variantId.toLowerCase();
    const existing = merged.get(variantId);
    if (existing) {
      existing.quantity += item.quantity;
      if (existing.quantity > MAX_QUANTITY) {
        errors.push({
          pointer: `/items/${i}/quantity`,
          detail: `brings the variant to more than ${MAX_QUANTITY}`,
        });
      }
    } else merged.set(variantId, { variantId, quantity: item.quantity });
  });
  if (merged.size > MAX_CART_LINES) {
    errors.push({ pointer: '/items', detail: `must hold at most ${MAX_CART_LINES} different variants` });
  }
  if (errors.length > 0) throw validationFailed('The cart lines are invalid.', errors);
  return [...merged.values()];
}

async function storeCurrency(db: Kysely<Database> | Transaction<Database>, storeId: string): Promise<string> {
  const store = await db
    .selectFrom('stores')
    .select('currency')
    .where('id', '=', storeId)
    .executeTakeFirstOrThrow();
  return store.currency.trim();
}

/** 400 for any line whose variant is not sellable in this store (unknown, other store, inactive product). */
async function assertSellable(
  db: Kysely<Database>,
  storeId: string,
  items: readonly CartItem[],
  raw: readonly CartItem[],
): Promise<void> {
  const found = await sellableVariants(
    { db },
    storeId,
    items.map((i) => i.variantId),
  );
  const errors: FieldError[] = [];
  raw.forEach((item, i) => {
    if (!found.has(item.variantId.toLowerCase())) {
      errors.push({
        pointer: `/items/${i}/variantId`,
        detail: 'is not a variant of an active product in this store',
      });
    }
  });
  if (errors.length > 0)
    throw validationFailed('Some cart lines name variants that cannot be bought.', errors);
}

/**
 * Prices a cart from the database (never from the client). Lines whose variant is no longer
 * sellable are left out of the priced cart (checkout reports them as insufficient stock).
 */
export async function priceCart(db: Kysely<Database> | Transaction<Database>, row: CartRow): Promise<Cart> {
  const [variants, currency] = await Promise.all([
    sellableVariants(
      { db },
      row.store_id,
      row.items.map((i) => i.variantId),
    ),
    storeCurrency(db, row.store_id),
  ]);
  const items: CartLine[] = [];
  let subtotal = 0;
  for (const item of row.items) {
    const variant = variants.get(item.variantId);
    if (!variant) continue;
    const lineTotal = variant.priceAmount * item.quantity;
    subtotal += lineTotal;
    items.push({
      variantId: item.variantId,
      productId: variant.productId,
      title: variant.title,
      variantLabel: variant.label,
      sku: variant.sku,
      quantity: item.quantity,
      unitPrice: { amount: variant.priceAmount, currency },
      lineTotal: { amount: lineTotal, currency },
    });
  }
  return {
    id: row.id,
    items,
    subtotal: { amount: subtotal, currency },
    completed: row.completed_at !== null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

async function writeLines(
  trx: Transaction<Database>,
  storeId: string,
  cartId: string,
  items: readonly CartItem[],
) {
  await trx.deleteFrom('cart_lines').where('store_id', '=', storeId).where('cart_id', '=', cartId).execute();
  if (items.length === 0) return;
  await trx
    .insertInto('cart_lines')
    .values(
      items.map((item, position) => ({
        store_id: storeId,
        cart_id: cartId,
        variant_id: item.variantId,
        position,
        quantity: item.quantity,
      })),
    )
    .execute();
}

export async function createCart(
  db: Kysely<Database>,
  storeId: string,
  raw: readonly CartItem[],
): Promise<CartRow> {
  const items = mergeItems(raw);
  await assertSellable(db, storeId, items, raw);
  return db.transaction().execute(async (trx) => {
    const cart = await trx
      .insertInto('carts')
      .values({ store_id: storeId })
      .returningAll()
      .executeTakeFirstOrThrow();
    await writeLines(trx, storeId, cart.id, items);
    return { ...cart, items };
  });
}

/** The cart with its lines; `forUpdate` locks the cart row (checkout). */
export async function findCart(
  db: Kysely<Database> | Transaction<Database>,
  storeId: string,
  cartId: string,
  options: { forUpdate?: boolean } = {},
): Promise<CartRow> {
  const query = db.selectFrom('carts').selectAll().where('store_id', '=', storeId).where('id', '=', cartId);
  const row = await (options.forUpdate ? query.forUpdate() : query).executeTakeFirst();
  if (!row) throw notFound('No cart with that id in this store.');
  const lines = await db
    .selectFrom('cart_lines')
    .select(['variant_id', 'quantity'])
    .where('store_id', '=', storeId)
    .where('cart_id', '=', cartId)
    .orderBy('position')
    .execute();
  return { ...row, items: lines.map((line) => ({ variantId: line.variant_id, quantity: line.quantity })) };
}

export const cartCompleted = (): AppError =>
  new AppError(
    'cart_completed',
    409,
    'This cart was checked out and can no longer change. Create a new cart.',
  );

/** Does an If-Match header name this version of the cart? (`*` matches any existing cart.) */
export function ifMatchMatches(header: string, version: number): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => versionOf(candidate) === version);
}

/**
 * Replaces every line of a cart (the client sends the complete desired state). With `ifMatch`, the
 * write only happens if the cart is still at that version (412 otherwise), checked in the same
 * UPDATE so two tabs cannot both win.
 */
export async function replaceCart(
  db: Kysely<Database>,
  storeId: string,
  cartId: string,
  raw: readonly CartItem[],
  ifMatch: string | undefined,
): Promise<CartRow> {
  const items = mergeItems(raw);
  const current = await findCart(db, storeId, cartId);
  if (current.completed_at !== null) throw cartCompleted();
  if (ifMatch !== undefined && !ifMatchMatches(ifMatch, current.version)) throw preconditionFailed();
  await assertSellable(db, storeId, items, raw);
  const row = await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('carts')
      .set((eb) => ({ version: eb('version', '+', 1), updated_at: new Date() }))
      .where('store_id', '=', storeId)
      .where('id', '=', cartId)
      .where('completed_at', 'is', null)
      .$if(ifMatch !== undefined && ifMatch.trim() !== '*', (qb) => qb.where('version', '=', current.version))
      .returningAll()
      .executeTakeFirst();
    if (!updated) return null;
    await writeLines(trx, storeId, cartId, items);
    return { ...updated, items };
  });
  if (row) return row;
  const now = await findCart(db, storeId, cartId);
  if (now.completed_at !== null) throw cartCompleted();
  throw preconditionFailed();
}

const preconditionFailed = (): AppError =>
  new AppError(
    'precondition_failed',
    412,
    'The cart changed since you read it (If-Match does not match its ETag). Read it again and retry.',
  );

/** Removes carts untouched since `cutoff` (abandoned, or checked out long ago: orders copy their lines). */
export async function purgeStaleCarts(db: Kysely<Database>, cutoff: Date): Promise<number> {
  return purgeOlderThan(db, { table: 'carts', keyColumns: ['id'], timeColumn: 'updated_at', cutoff });
}
