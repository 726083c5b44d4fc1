import { checkAddress, completeAddress, type Address } from '@storefront/address';
import { validationFailed, AppError, notFound, type FieldError } from '../lib/errors.ts';
import { marketOfCountry, storeMarkets } from '../markets/markets.service.ts';
import type { ShippingOption } from '../shipping/shipping.schemas.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import { checkCountry, marketOfCart, movedNotice, pricingFor } from './cart-markets.ts';
import {
  assertSellable,
  priceCart,
  priceDroppingUnfitMethod,
  shown,
  type CartsDeps,
  type PricedCart,
} from './cart-pricing.ts';
import {
  clearShippingAddresses,
  deleteCartsUntouchedSince,
  completeIfUnchanged,
  findCartRow,
  insertCartWithLines,
  updateCart,
  updateOpenCart,
  writeLines,
  type CartChanges,
} from './carts.repository.ts';
import type { CartItem, CartRow } from './carts.tables.ts';

export type { CartsDeps, PricedCart } from './cart-pricing.ts';
export type { CartRow } from './carts.tables.ts';

export const MAX_CART_LINES = 100;

export const MAX_QUANTITY = 999;

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

export async function createCart(
  deps: CartsDeps,
  storeId: string,
  raw: readonly CartItem[],
  country?: string,
): Promise<PricedCart> {
  const items = mergeItems(raw);
  const upper = country === undefined ? null : checkCountry(country);
  const market = await marketOfCountry(deps, storeId, upper);
  const sellable = await assertSellable(deps, storeId, items, raw, await pricingFor(deps, storeId, market));
  const row = await insertCartWithLines(deps.db, storeId, items, deps.clock.now(), upper);
  // Priced from the catalog read that just checked the lines: one read per request.
  return shown(await priceCart(deps, row, sellable));
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

export async function readCart(deps: CartsDeps, storeId: string, cartId: string): Promise<PricedCart> {
  return shown(await priceCart(deps, await findCart(deps, storeId, cartId)));
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
 * One write of a cart (decisions `cart-full-replace` and `cart-shipping-and-totals`): its lines and/or other fields, moving it to its next version. With
 * `ifMatch`, the write only happens if the cart is still at that version (412 otherwise), checked
 * in the same UPDATE so two tabs cannot both win; a checked-out cart is 409 `cart_completed`.
 */
export async function writeCart(
  deps: CartsDeps,
  storeId: string,
  cartId: string,
  ifMatch: string | undefined,
  write: { items?: CartItem[]; changes?: CartChanges },
  /** The cart as the caller has just read it, when it has. */
  read?: CartRow,
): Promise<CartRow> {
  if (read === undefined && ifMatch === undefined && !write.items) {
    // Unconditional and of the cart's own fields: one UPDATE, no read before it.
    const updated = await updateOpenCart(deps.db, storeId, cartId, write.changes ?? {}, deps.clock.now());
    if (updated) return updated;
    if ((await findCart(deps, storeId, cartId)).completed_at !== null) throw cartCompleted();
    throw preconditionFailed();
  }
  const current = read ?? (await findCart(deps, storeId, cartId));
  if (current.completed_at !== null) throw cartCompleted();
  if (ifMatch !== undefined && !ifMatchMatches(ifMatch, current.version)) throw preconditionFailed();
  const guarded = ifMatch !== undefined && ifMatch.trim() !== '*' ? current.version : null;
  const { items } = write;
  // A write of the cart's own fields is one UPDATE (its own transaction); new lines go with it in one.
  const row = items
    ? await deps.db.transaction().execute(async (trx) => {
        const updated = await updateCart(
          trx,
          storeId,
          cartId,
          write.changes ?? {},
          deps.clock.now(),
          guarded,
        );
        if (!updated) return null;
        await writeLines(trx, storeId, cartId, items);
        return { ...updated, items };
      })
    : await updateCart(deps.db, storeId, cartId, write.changes ?? {}, deps.clock.now(), guarded).then(
        (updated) => updated && { ...updated, items: current.items },
      );
  if (row) return row;
  const now = await findCart(deps, storeId, cartId);
  if (now.completed_at !== null) throw cartCompleted();
  throw preconditionFailed();
}

/**
 * Replaces every line of a cart (the client sends the complete desired state), under If-Match. A
 * chosen shipping method that no longer fits the new lines (too heavy now) is dropped, and the
 * answer says so (decision `cart-shipping-and-totals`).
 */
export async function replaceCart(
  deps: CartsDeps,
  storeId: string,
  cartId: string,
  raw: readonly CartItem[],
  ifMatch: string | undefined,
  country?: string,
): Promise<PricedCart> {
  const items = mergeItems(raw);
  const upper = country === undefined ? undefined : checkCountry(country);
  // In a store with markets, the cart is read first: the market it will be in prices the lines.
  const current =
    (await storeMarkets(deps, storeId)).length > 1 ? await findCart(deps, storeId, cartId) : undefined;
  const [was, next] = current
    ? await Promise.all([
        marketOfCart(deps, current),
        marketOfCart(deps, upper === undefined ? current : { ...current, country: upper }),
      ])
    : [null, null];
  const sellable = await assertSellable(
    deps,
    storeId,
    items,
    raw,
    await pricingFor(deps, storeId, next ?? (await marketOfCountry(deps, storeId, upper))),
  );
  const row = await writeCart(
    deps,
    storeId,
    cartId,
    ifMatch,
    { items, ...(upper === undefined ? {} : { changes: { country: upper } }) },
    current,
  );
  return priceDroppingUnfitMethod(deps, row, sellable, movedNotice(was, next));
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
 * Sets where the cart's parcel goes (decision `cart-shipping-and-totals`): checked against the country's rules (400 with a pointer
 * at each bad field) and kept normalised, under If-Match like every cart write. A chosen method
 * that does not serve the new address is dropped, and the answer says so.
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
  return moving(deps, storeId, cartId, ifMatch, async (current) => {
    const row = await writeCart(
      deps,
      storeId,
      cartId,
      ifMatch,
      { changes: { shipping_address: JSON.stringify(completeAddress(address)) } },
      current,
    );
    return { ...row, shipping_address: completeAddress(address) };
  });
}

/**
 * Sets the country a cart is priced for before it has an address (decision `markets`): its market
 * prices every line from then on (null: the default market's), under If-Match. The address's
 * country, once given, wins.
 */
export async function setCartCountry(
  deps: CartsDeps,
  storeId: string,
  cartId: string,
  country: string | null,
  ifMatch: string | undefined,
): Promise<PricedCart> {
  const upper = country === null ? null : checkCountry(country);
  return moving(deps, storeId, cartId, ifMatch, (current) =>
    writeCart(deps, storeId, cartId, ifMatch, { changes: { country: upper } }, current),
  );
}

/**
 * A write that may move the cart to another market (its address or country): in a store with
 * markets, the cart is read first, and when the write moves it, every line is priced in the new
 * market and the answer says so (`market_changed`).
 */
async function moving(
  deps: CartsDeps,
  storeId: string,
  cartId: string,
  ifMatch: string | undefined,
  write: (current: CartRow | undefined) => Promise<CartRow>,
): Promise<PricedCart> {
  const markets = await storeMarkets(deps, storeId);
  const current = markets.length > 1 ? await findCart(deps, storeId, cartId) : undefined;
  const row = await write(current);
  const [was, now] = current
    ? await Promise.all([marketOfCart(deps, current), marketOfCart(deps, row)])
    : [null, null];
  return priceDroppingUnfitMethod(deps, row, undefined, movedNotice(was, now));
}

const addressRequired = (): AppError =>
  new AppError(
    'shipping_address_required',
    409,
    'Set the cart’s shipping address first (PUT /carts/{id}/shipping-address): options depend on where the parcel goes.',
  );

/**
 * The shipping methods the cart's parcel can take to its address (decision `cart-shipping-and-totals`), cheapest first: its zone's
 * active methods that can carry the lines that require shipping (by their weight, and by the goods
 * after discounts for free_over). Empty when no line requires shipping, or no zone covers the
 * address.
 */
export async function cartShippingOptions(
  deps: CartsDeps,
  storeId: string,
  cartId: string,
): Promise<ShippingOption[]> {
  const row = await findCart(deps, storeId, cartId);
  if (row.shipping_address === null) throw addressRequired();
  return (await priceCart(deps, row)).pricing.rates?.options ?? [];
}

const methodUnavailable = (): AppError =>
  new AppError(
    'shipping_method_unavailable',
    409,
    'That shipping method is not one of this cart’s shipping options (GET /carts/{id}/shipping-options).',
  );

/** Chooses the cart's shipping method (decision `cart-shipping-and-totals`): one of its current options, under If-Match. */
export async function setShippingMethod(
  deps: CartsDeps,
  storeId: string,
  cartId: string,
  methodId: string,
  ifMatch: string | undefined,
): Promise<PricedCart> {
  const id = methodId.toLowerCase();
  const current = await findCart(deps, storeId, cartId);
  if (current.shipping_address === null) throw addressRequired();
  const before = await priceCart(deps, current);
  if (!(before.pricing.rates?.options ?? []).some((option) => option.id === id)) throw methodUnavailable();
  const row = await writeCart(
    deps,
    storeId,
    cartId,
    ifMatch,
    { changes: { shipping_method_id: id } },
    current,
  );
  // Only the method changed: the lines, the address and the rates just read price it (no re-read).
  return shown(await priceCart(deps, row, before.variants, [], before.pricing));
}

/** Forgets the shipping address of some carts (the carts of an erased buyer's orders). */
export function forgetCartAddresses(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  cartIds: readonly string[],
): Promise<void> {
  return clearShippingAddresses(deps.db, storeId, cartIds);
}
