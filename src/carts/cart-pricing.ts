import { createHash } from 'node:crypto';
import { completeAddress } from '@storefront/address';
import {
  cachedSellableVariants,
  type PricedVariant,
  type ReadPricing,
} from '../catalog/inventory/sellable.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import { validationFailed, type FieldError } from '../lib/errors.ts';
import { storeAmountsIn } from '../markets/markets.service.ts';
import { priceOrder, type KnownRates, type PricedLine, type Pricing } from '../pricing/order-pricing.ts';
import { promotionOffer, type PromotionHistory } from '../promotions/offer.ts';
import { codeNotices, freeShippingRemaining } from './cart-promotions.ts';
import { cartGiftCards } from './cart-gift-cards.ts';
import { cardsPayable } from '../gift-cards/gift-cards.tender.ts';
import { taxLinesView } from '../pricing/tax-arithmetic.ts';
import type { TaxServiceDeps } from '../pricing/tax-service.ts';
import { marketOfCart, pricingFor } from './cart-markets.ts';
import { dropShippingMethod } from './carts.repository.ts';
import type { Cart, CartNotice, Line } from './carts.schemas.ts';
import type { CartItem, CartRow } from './carts.tables.ts';

/**
 * What a cart costs, read from the catalog and priced by the pricing the checkout charges
 * (decisions `cart-shipping-and-totals`, `tax-arithmetic`, `markets` and `price-function`): its
 * lines in its market at its buyer's prices, its code, its shipping and tax, and the notices of
 * what no longer applies. carts.service.ts writes carts; this prices them.
 */

export type CartsDeps = Pick<ServiceDeps, 'db' | 'clock'> & {
  /**
   * Decision `price-function`: the customer groups of the request's customer token, whose price
   * lists price the cart ([] or absent: a guest's).
   */
  groupIds?: readonly string[] | undefined;
  /** Decision `cart-promotions`: the request's signed-in customer (limits per buyer, first orders). */
  customerId?: string | undefined;
  /** Decision `cart-promotions`: a buyer's past uses and the products' collections (given by the composition). */
  promotionHistory: PromotionHistory;
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

/** 400 for any line whose variant is not sellable in this store (unknown, other store, inactive product). */
export async function assertSellable(
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
export interface PricedCartWith extends PricedCart {
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
export async function priceCart(
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
  const variants =
    sellable ??
    (await cachedSellableVariants(
      deps,
      row.store_id,
      row.items.map((i) => i.variantId),
      'cached',
      buyer,
    ));
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
      productId: variant.productId,
      sku: variant.sku,
      title: variant.title,
      giftCard: variant.giftCard,
    });
  }
  const convert = storeAmountsIn(market);
  const offer = await promotionOffer(deps, row.store_id, {
    codes: row.discount_codes,
    marketId: market.id,
    convert,
    buyer: { customerId: deps.customerId ?? null, email: null, groupIds: deps.groupIds ?? [] },
    productIds: priced.map((line) => line.productId),
    now: deps.clock.now(),
    read: 'cached',
  });
  const address = row.shipping_address;
  const pricing = await priceOrder(
    deps,
    row.store_id,
    currency,
    {
      lines: priced,
      promotions: offer,
      // Without an address there is nowhere to ship to yet: no tax and no shipping.
      country: address?.country,
      address,
      methodId: row.shipping_method_id,
      pricesIncludeTax: taxIncluded,
      taxServiceFailure: 'estimate',
      convert,
    },
    known,
  );
  notices.push(...codeNotices(offer, pricing));
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
  const cards = await cartGiftCards(deps, row, currency, cardsPayable(totals.total, priced), notices);
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
    discountCode: row.discount_codes[0] ?? null,
    discountCodes: row.discount_codes,
    promotions: (pricing.promotions?.applied ?? []).map((applied) => ({
      ...applied,
      amount: money(applied.amount),
      shipping: money(applied.shipping ?? 0),
    })),
    freeShippingRemaining: (() => {
      const remaining = freeShippingRemaining(offer, pricing, priced);
      return remaining === null ? null : money(remaining);
    })(),
    giftCards: cards.shown,
    totals: {
      subtotal: money(totals.subtotal),
      discount: money(totals.discount),
      shipping: money(totals.shipping),
      tax: money(totals.tax),
      total: money(totals.total),
      amountDue: money(totals.total - cards.paid),
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

/** Prices a cart just written; a chosen method that no longer fits it is dropped, with a notice. */
export async function priceDroppingUnfitMethod(
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
export const shown = ({ cart, etag }: PricedCart): PricedCart => ({ cart, etag });
