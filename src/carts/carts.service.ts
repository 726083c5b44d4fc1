import { createHash } from 'node:crypto';
import { checkAddress, completeAddress, isKnownCountry, type Address } from '@storefront/address';
import {
  cachedSellableVariants,
  readPricing,
  type PricedVariant,
  type ReadPricing,
} from '../catalog/inventory/sellable.ts';
import { AppError, notFound, validationFailed, type FieldError } from '../lib/errors.ts';
import { marketOfCountry, storeAmountsIn, storeMarkets, type Market } from '../markets/markets.service.ts';
import {
  clearShippingAddresses,
  deleteCartsUntouchedSince,
  completeIfUnchanged,
  dropShippingMethod,
  findCartRow,
  insertCartWithLines,
  updateCart,
  updateOpenCart,
  writeLines,
  type CartChanges,
} from './carts.repository.ts';
import type { Cart, CartNotice, Line } from './carts.schemas.ts';
import type { CartItem, CartRow } from './carts.tables.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import type { TaxServiceDeps } from '../pricing/tax-service.ts';
import { priceOrder, type KnownRates, type PricedLine, type Pricing } from '../pricing/order-pricing.ts';
import { taxLinesView } from '../pricing/tax-arithmetic.ts';
import { normalizeDiscountCode, usableDiscount, type UsableDiscount } from '../pricing/pricing.service.ts';
import type { ShippingOption } from '../shipping/shipping.schemas.ts';

export type { CartRow } from './carts.tables.ts';

export const MAX_CART_LINES = 100;
export const MAX_QUANTITY = 999;

export type CartsDeps = Pick<ServiceDeps, 'db' | 'clock'> & {
  /**
   * Decision `price-function`: the customer groups of the request's customer token, whose price
   * lists price the cart ([] or absent: a guest's).
   */
  groupIds?: readonly string[] | undefined;
  /** Decision `tax-service`: the store's tax service; a preview that cannot ask it estimates. */
  taxService?: TaxServiceDeps | undefined;
};

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
  pricing: ReadPricing | null,
): Promise<Map<string, PricedVariant>> {
  // Read afresh (a line is refused or taken on it), and kept: the cart's next reads show them.
  const found = await cachedSellableVariants(
    deps,
    storeId,
    items.map((i) => i.variantId),
    'fresh',
    pricing,
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

/** The discount a cart's code gives now, or null with a notice when it no longer can. */
async function cartDiscount(
  deps: CartsDeps,
  row: CartRow,
  notices: CartNotice[],
): Promise<UsableDiscount | null> {
  if (row.discount_code === null) return null;
  try {
    return await usableDiscount(deps, row.store_id, row.discount_code, deps.clock.now());
  } catch (error) {
    if (!(error instanceof AppError) || error.title !== 'discount_invalid') throw error;
    notices.push({
      code: 'discount_code_invalid',
      detail: `The discount code ${row.discount_code} can no longer be used (expired or used up); checkout would refuse it.`,
    });
    return null;
  }
}

/**
 * The cart's lines with their discount shares and taxes (decision `tax-arithmetic`); a line's tax
 * is null while there is no destination to tax it for.
 */
function withTaxes(items: readonly Line[], pricing: Pricing, destined: boolean): Line[] {
  return items.map((item, index) => {
    const taxed = pricing.lineTaxes[index]!;
    const currency = item.unitPrice.currency;
    return {
      ...item,
      discount: { amount: taxed.discount, currency },
      tax: destined ? { amount: taxed.tax, rateBps: taxed.rateBps, class: taxed.taxClass } : null,
    };
  });
}

/** A priced cart, with the pricing it was shown with (its shipping options among it). */
interface PricedCartWith extends PricedCart {
  pricing: Pricing;
  variants: Map<string, PricedVariant>;
}

/**
 * Prices a cart from the catalog (never from the client), with the totals its checkout will charge
 * when nothing changes (decision `cart-shipping-and-totals`): the one pricing checkout uses (`priceOrder`), on the cart's lines at
 * current prices, its code, and its address and method. Lines whose variant is no longer sellable
 * are left out (checkout reports them as insufficient stock). A method or code that no longer
 * applies is not counted, and a notice says so. `sellable` is the catalog's answer when the caller
 * has just read it for these lines.
 */
async function priceCart(
  deps: CartsDeps,
  row: CartRow,
  sellable?: Map<string, PricedVariant>,
  notices: CartNotice[] = [],
  known?: KnownRates,
): Promise<PricedCartWith> {
  // Decision `markets`: the market of its address's country, else of the country it was given.
  const market = await marketOfCart(deps, row);
  const { currency, pricesIncludeTax: taxIncluded } = market;
  const buyer = await pricingFor(deps, row.store_id, market);
  const [variants, discount] = await Promise.all([
    sellable ??
      cachedSellableVariants(
        deps,
        row.store_id,
        row.items.map((i) => i.variantId),
        'cached',
        buyer,
      ),
    cartDiscount(deps, row, notices),
  ]);
  const items: Line[] = [];
  const priced: PricedLine[] = [];
  for (const item of row.items) {
    const variant = variants.get(item.variantId);
    if (!variant) continue;
    items.push({
      variantId: item.variantId,
      productId: variant.productId,
      title: variant.title,
      variantLabel: variant.label,
      sku: variant.sku,
      quantity: item.quantity,
      unitPrice: { amount: variant.priceAmount, currency },
      lineTotal: { amount: variant.priceAmount * item.quantity, currency },
    });
    priced.push({
      unitPrice: variant.priceAmount,
      quantity: item.quantity,
      weightGrams: variant.weightGrams,
      requiresShipping: variant.requiresShipping,
      taxClass: variant.taxClass,
      variantId: item.variantId,
      sku: variant.sku,
      title: variant.title,
    });
  }
  const address = row.shipping_address;
  const pricing = await priceOrder(
    deps,
    row.store_id,
    currency,
    {
      lines: priced,
      discount,
      // Without an address there is nowhere to ship to yet: no tax and no shipping.
      country: address?.country,
      address,
      methodId: row.shipping_method_id,
      pricesIncludeTax: taxIncluded,
      taxServiceFailure: 'estimate',
      convert: storeAmountsIn(market),
    },
    known,
  );
  if (pricing.chosenUnavailable)
    notices.push({
      code: 'shipping_method_unavailable',
      detail:
        'The chosen shipping method no longer fits this cart or its address: choose another from its shipping options.',
    });
  const { rates, totals } = pricing;
  if (rates !== null && rates.configured && rates.options.length === 0)
    notices.push({
      code: 'shipping_unavailable',
      detail:
        'The store does not ship to this address: no shipping method reaches it. Checkout would refuse it.',
    });
  const money = (amount: number) => ({ amount, currency });
  const cart: Cart = {
    id: row.id,
    items: withTaxes(items, pricing, address !== null),
    subtotal: money(totals.subtotal),
    completed: row.completed_at !== null,
    shippingAddress: address === null ? null : completeAddress(address),
    shippingMethod: pricing.chosenUnavailable
      ? null
      : row.shipping_method_id === null
        ? null
        : pricing.method,
    discountCode: row.discount_code,
    totals: {
      subtotal: money(totals.subtotal),
      discount: money(totals.discount),
      shipping: money(totals.shipping),
      tax: money(totals.tax),
      total: money(totals.total),
      taxIncluded: totals.taxIncluded,
    },
    taxEstimated: pricing.taxEstimated,
    taxLines: taxLinesView(pricing.taxLines, currency),
    notices,
    ...(row.country === null ? {} : { country: row.country }),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
  return { cart, etag: cartEtag(row, cart), pricing, variants };
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
async function writeCart(
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

/** The notice of a write that moved the cart to another market (none when it stayed). */
function movedNotice(was: Market | null, now: Market | null): CartNotice[] {
  if (was === null || now === null || was.id === now.id) return [];
  return [
    {
      code: 'market_changed',
      detail: `The cart moved from the market ${was.name} (${was.currency}) to ${now.name} (${now.currency}): every line is priced there now.`,
    },
  ];
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

/** An ISO 3166-1 alpha-2 code, upper-cased; 400 otherwise. */
function checkCountry(country: string): string {
  const upper = country.toUpperCase();
  if (!isKnownCountry(upper))
    throw validationFailed('The country is not one.', [
      { pointer: '/country', detail: 'must be an ISO 3166-1 alpha-2 country code such as DE' },
    ]);
  return upper;
}

/** How the cart's buyer is priced in a market: with the price lists of their groups. */
function pricingFor(deps: CartsDeps, storeId: string, market: Market): Promise<ReadPricing | null> {
  return readPricing(deps, storeId, market, deps.groupIds ?? []);
}

/** The market a cart is priced in: its address's country's, else its own country's, else the default. */
function marketOfCart(deps: CartsDeps, row: CartRow): Promise<Market> {
  return marketOfCountry(deps, row.store_id, row.shipping_address?.country ?? row.country);
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

/** Prices a cart just written; a chosen method that no longer fits it is dropped, with a notice. */
async function priceDroppingUnfitMethod(
  deps: CartsDeps,
  row: CartRow,
  sellable?: Map<string, PricedVariant>,
  notices: CartNotice[] = [],
): Promise<PricedCart> {
  const priced = await priceCart(deps, row, sellable, notices);
  if (!priced.pricing.chosenUnavailable) return shown(priced);
  await dropShippingMethod(deps.db, row.store_id, row.id, row.version);
  return shown(
    await priceCart(deps, { ...row, shipping_method_id: null }, priced.variants, [
      ...notices.filter((notice) => notice.code !== 'shipping_method_unavailable'),
      {
        code: 'shipping_method_cleared',
        detail:
          'The chosen shipping method cannot carry the cart as it is now, so it was cleared: choose another.',
      },
    ]),
  );
}

/** The cart and its tag, without what priced it. */
const shown = ({ cart, etag }: PricedCart): PricedCart => ({ cart, etag });

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

/**
 * Applies a discount code to the cart's preview (decision `cart-shipping-and-totals`): 409 `discount_invalid` when it cannot be used
 * now, as at checkout; `null` removes it. Under If-Match.
 */
export async function setDiscountCode(
  deps: CartsDeps,
  storeId: string,
  cartId: string,
  code: string | null,
  ifMatch: string | undefined,
): Promise<PricedCart> {
  const normalized = code === null ? null : normalizeDiscountCode(code);
  if (normalized !== null) await usableDiscount(deps, storeId, normalized, deps.clock.now());
  const row = await writeCart(deps, storeId, cartId, ifMatch, { changes: { discount_code: normalized } });
  // A code can take the goods under a free_over threshold: the method is priced again, not dropped.
  return shown(await priceCart(deps, row));
}

/** Forgets the shipping address of some carts (the carts of an erased buyer's orders). */
export function forgetCartAddresses(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  cartIds: readonly string[],
): Promise<void> {
  return clearShippingAddresses(deps.db, storeId, cartIds);
}
