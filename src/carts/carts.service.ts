import { createHash } from 'node:crypto';
import { checkAddress, type Address } from '@storefront/address';
import { sellableVariants, type PricedVariant } from '../catalog/sellable.ts';
import { AppError, notFound, validationFailed, type FieldError } from '../lib/errors.ts';
import { storeCurrency } from '../stores/stores.service.ts';
import {
  bumpVersion,
  writeShippingAddress,
  deleteCartsUntouchedSince,
  completeIfUnchanged,
  findCartRow,
  insertCartWithLines,
  writeLines,
} from './carts.repository.ts';
import type { Cart, Line } from './carts.schemas.ts';
import type { CartItem, CartRow } from './carts.tables.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import { shippingOptionsFor } from '../shipping/shipping.service.ts';
import type { ShippingOption } from '../shipping/shipping.schemas.ts';

export type { CartRow } from './carts.tables.ts';

export const MAX_CART_LINES = 100;
export const MAX_QUANTITY = 999;

export type CartsDeps = Pick<ServiceDeps, 'db' | 'clock'>;

/** A priced cart and its entity tag. */
export interface PricedCart {
  cart: Cart;
  etag: string;
}

/**
 * The cart's entity tag: `"<version>-<digest of the representation>"`. It changes whenever the
 * body does, also when the cart was not written (a price changed, an archived product's line
 * dropped out); `If-Match` compares the version part only, so it guards writes, not prices.
 */
function cartEtag(row: Pick<CartRow, 'version'>, cart: Cart): string {
  const digest = createHash('sha256').update(JSON.stringify(cart)).digest('base64url').slice(0, 16);
  return `"${row.version}-${digest}"`;
}

/** The version an entity tag names (`"7-…"`, or the `"v7"` of earlier answers); null when none. */
function versionOf(tag: string): number | null {
  const match = /^"(?:v)?(\d{1,9})(?:-[A-Za-z0-9_-]*)?"$/.exec(tag.trim());
  return match ? Number(match[1]) : null;
}

/** Does an If-Match header name this version of the cart? (`*` matches any existing cart.) */
export function ifMatchMatches(header: string, version: number): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => versionOf(candidate) === version);
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

/** 400 for any line whose variant is not sellable in this store (unknown, other store, inactive product). */
async function assertSellable(
  deps: Pick<CartsDeps, 'db'>,
  storeId: string,
  items: readonly CartItem[],
  raw: readonly CartItem[],
): Promise<Map<string, PricedVariant>> {
  const found = await sellableVariants(
    deps,
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
  return found;
}

/**
 * Prices a cart from the catalog (never from the client). Lines whose variant is no longer
 * sellable are left out of the priced cart (checkout reports them as insufficient stock).
 * `sellable` is the catalog's answer when the caller has just read it for these lines.
 */
async function priceCart(
  deps: Pick<CartsDeps, 'db'>,
  row: CartRow,
  sellable?: Map<string, PricedVariant>,
): Promise<PricedCart> {
  const [variants, currency] = await Promise.all([
    sellable ??
      sellableVariants(
        deps,
        row.store_id,
        row.items.map((i) => i.variantId),
      ),
    storeCurrency(deps, row.store_id),
  ]);
  const items: Line[] = [];
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
  const cart: Cart = {
    id: row.id,
    items,
    subtotal: { amount: subtotal, currency },
    completed: row.completed_at !== null,
    shippingAddress: row.shipping_address === null ? null : addressView(row.shipping_address),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
  return { cart, etag: cartEtag(row, cart) };
}

/** An address as the API shows it: every field present, null when empty. */
function addressView(address: Address): Required<Address> {
  return {
    name: address.name,
    company: address.company ?? null,
    line1: address.line1,
    line2: address.line2 ?? null,
    city: address.city,
    region: address.region ?? null,
    postalCode: address.postalCode ?? null,
    country: address.country,
    phone: address.phone ?? null,
  };
}

export async function createCart(
  deps: CartsDeps,
  storeId: string,
  raw: readonly CartItem[],
): Promise<PricedCart> {
  const items = mergeItems(raw);
  const sellable = await assertSellable(deps, storeId, items, raw);
  const row = await insertCartWithLines(deps.db, storeId, items, deps.clock.now());
  // Priced from the catalog read that just checked the lines: one read per request.
  return priceCart(deps, row, sellable);
}

/** The cart with its lines; `forUpdate` locks the cart row (checkout, in its transaction). */
export async function findCart(
  deps: Pick<CartsDeps, 'db'>,
  storeId: string,
  cartId: string,
  options: { forUpdate?: boolean } = {},
): Promise<CartRow> {
  const row = await findCartRow(deps.db, storeId, cartId, options.forUpdate);
  if (!row) throw notFound('No cart with that id in this store.');
  return row;
}

export async function readCart(
  deps: Pick<CartsDeps, 'db'>,
  storeId: string,
  cartId: string,
): Promise<PricedCart> {
  return priceCart(deps, await findCart(deps, storeId, cartId));
}

export const cartCompleted = (): AppError =>
  new AppError(
    'cart_completed',
    409,
    'This cart was checked out and can no longer change. Create a new cart.',
  );

const preconditionFailed = (): AppError =>
  new AppError(
    'precondition_failed',
    412,
    'The cart changed since you read it (If-Match does not match its ETag). Read it again and retry.',
  );

/**
 * Replaces every line of a cart (the client sends the complete desired state). With `ifMatch`, the
 * write only happens if the cart is still at that version (412 otherwise), checked in the same
 * UPDATE so two tabs cannot both win.
 */
export async function replaceCart(
  deps: CartsDeps,
  storeId: string,
  cartId: string,
  raw: readonly CartItem[],
  ifMatch: string | undefined,
): Promise<PricedCart> {
  const items = mergeItems(raw);
  const current = await findCart(deps, storeId, cartId);
  if (current.completed_at !== null) throw cartCompleted();
  if (ifMatch !== undefined && !ifMatchMatches(ifMatch, current.version)) throw preconditionFailed();
  const sellable = await assertSellable(deps, storeId, items, raw);
  const guarded = ifMatch !== undefined && ifMatch.trim() !== '*' ? current.version : null;
  const row = await deps.db.transaction().execute(async (trx) => {
    const updated = await bumpVersion(trx, storeId, cartId, deps.clock.now(), guarded);
    if (!updated) return null;
    await writeLines(trx, storeId, cartId, items);
    return { ...updated, items };
  });
  if (row) return priceCart(deps, row, sellable);
  const now = await findCart(deps, storeId, cartId);
  if (now.completed_at !== null) throw cartCompleted();
  throw preconditionFailed();
}

/**
 * Checkout, in its transaction: marks the cart checked out (read-only from then on) if it is still
 * open and at `version` (the version that was priced), holding its row lock until the end of the
 * transaction. 409 `cart_completed` when it was checked out meanwhile, 404 when it is gone; false
 * when it changed (priced again by the caller).
 */
export async function completeCart(
  deps: Pick<CartsDeps, 'db'>,
  storeId: string,
  cartId: string,
  version: number,
  at: Date,
): Promise<boolean> {
  if (await completeIfUnchanged(deps.db, storeId, cartId, version, at)) return true;
  const now = await findCart(deps, storeId, cartId);
  if (now.completed_at !== null) throw cartCompleted();
  return false;
}

/** Removes carts untouched since `cutoff` (abandoned, or checked out long ago: orders copy their lines). */
export function purgeStaleCarts(deps: Pick<CartsDeps, 'db'>, cutoff: Date): Promise<number> {
  return deleteCartsUntouchedSince(deps.db, cutoff);
}

/**
 * Sets where the cart's parcel goes (D39): checked against the country's rules (400 with a pointer
 * at each bad field) and kept normalised. With `ifMatch`, only while the cart is at that version
 * (412 otherwise), like every cart write.
 */
export async function setShippingAddress(
  deps: CartsDeps,
  storeId: string,
  cartId: string,
  input: Partial<Record<keyof Address, unknown>>,
  ifMatch: string | undefined,
): Promise<PricedCart> {
  const { address, problems } = checkAddress(input);
  if (problems.length > 0) throw validationFailed('The address is incomplete or invalid.', problems);
  const current = await findCart(deps, storeId, cartId);
  if (current.completed_at !== null) throw cartCompleted();
  if (ifMatch !== undefined && !ifMatchMatches(ifMatch, current.version)) throw preconditionFailed();
  const guarded = ifMatch !== undefined && ifMatch.trim() !== '*' ? current.version : null;
  if (await writeShippingAddress(deps.db, storeId, cartId, addressView(address), deps.clock.now(), guarded))
    return readCart(deps, storeId, cartId);
  const now = await findCart(deps, storeId, cartId);
  if (now.completed_at !== null) throw cartCompleted();
  throw preconditionFailed();
}

const addressRequired = (): AppError =>
  new AppError(
    'shipping_address_required',
    409,
    'Set the cart’s shipping address first (PUT /carts/{id}/shipping-address): options depend on where the parcel goes.',
  );

/**
 * The shipping methods the cart's parcel can take to its address (D39), cheapest first: its zone's
 * active methods that can carry the lines that require shipping (by their weight, and by the
 * subtotal of all the goods for free_over).
 * Empty when no line requires shipping, or no zone covers the address.
 */
export async function cartShippingOptions(
  deps: Pick<CartsDeps, 'db'>,
  storeId: string,
  cartId: string,
): Promise<ShippingOption[]> {
  const row = await findCart(deps, storeId, cartId);
  if (row.shipping_address === null) throw addressRequired();
  const [variants, currency] = await Promise.all([
    sellableVariants(
      deps,
      storeId,
      row.items.map((item) => item.variantId),
    ),
    storeCurrency(deps, storeId),
  ]);
  let subtotal = 0;
  let weightGrams = 0;
  let shipped = false;
  for (const item of row.items) {
    const variant = variants.get(item.variantId);
    if (!variant) continue;
    // free_over compares with all the goods; only what is shipped weighs.
    subtotal += variant.priceAmount * item.quantity;
    if (!variant.requiresShipping) continue;
    shipped = true;
    weightGrams += (variant.weightGrams ?? 0) * item.quantity;
  }
  if (!shipped) return [];
  const { country, region, postalCode } = row.shipping_address;
  return shippingOptionsFor(
    deps,
    storeId,
    currency,
    { country, region, postalCode },
    { subtotal, weightGrams },
  );
}
