import type { Address } from '@storefront/address';
import type { StockLine } from '../catalog/inventory/inventory.ts';
import { cachedSellableVariants, type ReadPricing } from '../catalog/inventory/sellable.ts';
import type { NewOrderLine, OrderTax } from '../orders/placed-orders.service.ts';
import { priceOrder, type ExtraDiscount, type Pricing, type PricingDeps } from '../pricing/order-pricing.ts';
import {
  promotionOffer,
  refusedCode,
  type OfferBuyer,
  type OrderPromotion,
  type PromotionOffer,
} from '../promotions/offer.ts';
import type { Totals } from '../pricing/totals.ts';
import type { Market } from '../markets/markets.service.ts';

/** A line as checkout prices it: from the catalog, never from the client. */
export interface QuotedLine extends NewOrderLine {
  /** Units available when quoted, read without locks (a hint; the reservation decides). */
  available: number;
  weightGrams: number | null;
  requiresShipping: boolean;
  taxClass: string;
  /** A gift card's line (decision `gift-card-products`): no promotion takes anything off it. */
  giftCard: boolean;
  /** Decision `draft-orders`: staff set its price on a draft (the catalog's is not checked against it). */
  priceSet?: boolean | undefined;
}

/**
 * A line to quote: a cart's (a variant and a quantity), or a draft order's (decision
 * `draft-orders`): a variant at a price staff set (`unitPrice`), or a custom item staff typed.
 */
export type QuoteItem = (StockLine & { unitPrice?: number | undefined }) | CustomItem;

/** A draft's custom item: no variant, its own price and tax class; `id` stands for its variant and product. */
export interface CustomItem {
  custom: { id: string; title: string; unitPrice: number; taxClass: string; requiresShipping: boolean };
  quantity: number;
}

const isCustom = (item: QuoteItem): item is CustomItem => 'custom' in item;

/** A custom item as a quoted line: always available, never a gift card. */
function customLine({ custom, quantity }: CustomItem): QuotedLine {
  return {
    variantId: custom.id,
    productId: custom.id,
    title: custom.title,
    label: '',
    sku: null,
    quantity,
    unitPrice: custom.unitPrice,
    available: Number.MAX_SAFE_INTEGER,
    weightGrams: null,
    requiresShipping: custom.requiresShipping,
    taxClass: custom.taxClass,
    giftCard: false,
    custom: true,
    priceSet: true,
  };
}

export interface Quote {
  lines: QuotedLine[];
  /** Cart lines whose variant is no longer sellable. */
  missing: { variantId: string; requested: number }[];
  /** Decision `cart-promotions`: what the order was offered (its uses are counted from it) and what applied. */
  offer: PromotionOffer | null;
  promotions: OrderPromotion[];
  /** Decision `draft-orders`: what a draft's staff discount took off (part of `totals.discount`). */
  extraDiscount: number;
  totals: Totals;
  /** How the order is taxed: each line's discount share and tax, the shipping's tax, the breakdown. */
  tax: OrderTax;
  /** Decision `tax-service`: the tax is the built-in rates' estimate (the tax service did not answer). */
  taxEstimated: boolean;
  /** The shipping of the priced order: the parcel, the store's options, the method charged. */
  shipping: Pick<Pricing, 'parcel' | 'rates' | 'method' | 'chosenUnavailable'>;
}

export interface QuoteInput {
  /** The destination country: the body's `country`, else the shipping address's. */
  country?: string | undefined;
  /** Decision `cart-promotions`: the codes entered (the body's one, else the cart's). */
  discountCodes?: readonly string[] | undefined;
  /** The shipping address (the body's, else the cart's), checked. */
  shippingAddress?: Address | null | undefined;
  /** The chosen shipping method (the body's, else the cart's). */
  shippingMethodId?: string | null | undefined;
  /** Decision `draft-orders`: a draft's typed shipping, in place of the store's methods. */
  customShipping?: { id: string; title: string; amount: number } | undefined;
  /** Decision `draft-orders`: a draft's discount from staff, after the promotions. */
  extraDiscount?: ExtraDiscount | undefined;
}

/**
 * What a quote prices with: the market of the destination (decision `markets`): its currency,
 * whether its prices include tax, its prices and its conversion of the store's amounts.
 */
export type QuotingStore = Pick<Market, 'currency' | 'pricesIncludeTax'> &
  Pick<Market, 'id'> & {
    convert?: ((amount: number) => number) | undefined;
    /** Decision `price-function`: the buyer's prices there (null: the variants' own). */
    buyer?: ReadPricing | null | undefined;
  };

/**
 * Prices cart lines from the catalog (never from the client) with the discount code, the tax of
 * the destination and its shipping: the one pricing the cart's preview shows (decisions `cart-shipping-and-totals` and `checkout-with-shipping`). A quote
 * decides nothing alone: the reservation checks each price under its row lock, and checkout reads
 * afresh before it refuses on a cached quote (decision `settings-cache`).
 */
export async function quote(
  deps: PricingDeps,
  storeId: string,
  { id: marketId, currency, pricesIncludeTax, buyer, convert }: QuotingStore,
  input: QuoteInput,
  /** Who buys: their limits per buyer and first order (decision `per-customer-uses-from-orders`). */
  who: OfferBuyer,
  items: readonly QuoteItem[],
  now: Date,
  /** `cached`: the variants as the cart's last reads saw them (at most a second old), else afresh. */
  read: 'cached' | 'fresh',
): Promise<Quote> {
  const variants = await cachedSellableVariants(
    deps,
    storeId,
    items.flatMap((i) => (isCustom(i) ? [] : [i.variantId])),
    read,
    buyer ?? null,
  );
  const lines: QuotedLine[] = [];
  const missing: Quote['missing'] = [];
  for (const item of items) {
    if (isCustom(item)) {
      lines.push(customLine(item));
      continue;
    }
    const variant = variants.get(item.variantId);
    if (!variant) {
      missing.push({ variantId: item.variantId, requested: item.quantity });
      continue;
    }
    lines.push({
      variantId: item.variantId,
      productId: variant.productId,
      title: variant.title,
      label: variant.label,
      sku: variant.sku,
      quantity: item.quantity,
      unitPrice: item.unitPrice ?? variant.priceAmount,
      available: variant.available,
      weightGrams: variant.weightGrams,
      requiresShipping: variant.requiresShipping,
      taxClass: variant.taxClass,
      giftCard: variant.giftCard,
      ...(item.unitPrice === undefined ? {} : { priceSet: true }),
    });
  }
  // Read afresh: checkout counts the uses of what it applies, and refuses a code that cannot be used.
  const offer = await promotionOffer(deps, storeId, {
    codes: input.discountCodes ?? [],
    marketId,
    convert,
    buyer: who,
    productIds: lines.flatMap((line) => (line.custom ? [] : [line.productId])),
    now,
    read: 'fresh',
  });
  const refused = refusedCode(offer);
  if (refused) throw refused;
  const priced = await priceOrder(deps, storeId, currency, {
    lines,
    promotions: offer,
    country: input.country,
    address: input.shippingAddress ?? null,
    methodId: input.shippingMethodId ?? null,
    pricesIncludeTax,
    taxServiceFailure: 'refuse',
    convert,
    customShipping: input.customShipping,
    extraDiscount: input.extraDiscount,
  });
  const { totals, parcel, rates, method, chosenUnavailable } = priced;
  return {
    lines,
    missing,
    offer,
    promotions: priced.promotions?.applied ?? [],
    extraDiscount: priced.extraDiscount,
    totals,
    tax: {
      included: totals.taxIncluded,
      lines: priced.lineTaxes,
      shipping: priced.shippingTax,
      region: priced.taxArea?.region ?? null,
      breakdown: priced.taxLines,
    },
    taxEstimated: priced.taxEstimated,
    shipping: { parcel, rates, method, chosenUnavailable },
  };
}
