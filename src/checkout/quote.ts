import type { Address } from '@storefront/address';
import type { StockLine } from '../catalog/inventory/inventory.ts';
import { cachedSellableVariants, type ReadPricing } from '../catalog/inventory/sellable.ts';
import type { NewOrderLine, OrderTax } from '../orders/placed-orders.service.ts';
import { priceOrder, type Pricing, type PricingDeps } from '../pricing/order-pricing.ts';
import { usableDiscount, type UsableDiscount } from '../pricing/pricing.service.ts';
import type { Totals } from '../pricing/totals.ts';
import type { Market } from '../markets/markets.service.ts';

/** A line as checkout prices it: from the catalog, never from the client. */
export interface QuotedLine extends NewOrderLine {
  /** Units available when quoted, read without locks (a hint; the reservation decides). */
  available: number;
  weightGrams: number | null;
  requiresShipping: boolean;
  taxClass: string;
}

export interface Quote {
  lines: QuotedLine[];
  /** Cart lines whose variant is no longer sellable. */
  missing: { variantId: string; requested: number }[];
  discount: UsableDiscount | null;
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
  discountCode?: string | undefined;
  /** The shipping address (the body's, else the cart's), checked. */
  shippingAddress?: Address | null | undefined;
  /** The chosen shipping method (the body's, else the cart's). */
  shippingMethodId?: string | null | undefined;
}

/**
 * What a quote prices with: the market of the destination (decision `markets`): its currency,
 * whether its prices include tax, its prices and its conversion of the store's amounts.
 */
export type QuotingStore = Pick<Market, 'currency' | 'pricesIncludeTax'> &
  Partial<Pick<Market, 'id'>> & {
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
  { currency, pricesIncludeTax, buyer, convert }: QuotingStore,
  input: QuoteInput,
  items: readonly StockLine[],
  now: Date,
  /** `cached`: the variants as the cart's last reads saw them (at most a second old), else afresh. */
  read: 'cached' | 'fresh',
): Promise<Quote> {
  const [variants, discount] = await Promise.all([
    cachedSellableVariants(
      deps,
      storeId,
      items.map((i) => i.variantId),
      read,
      buyer ?? null,
    ),
    input.discountCode !== undefined ? usableDiscount(deps, storeId, input.discountCode, now) : null,
  ]);
  const lines: QuotedLine[] = [];
  const missing: Quote['missing'] = [];
  for (const item of items) {
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
      unitPrice: variant.priceAmount,
      available: variant.available,
      weightGrams: variant.weightGrams,
      requiresShipping: variant.requiresShipping,
      taxClass: variant.taxClass,
    });
  }
  const priced = await priceOrder(deps, storeId, currency, {
    lines,
    discount,
    country: input.country,
    address: input.shippingAddress ?? null,
    methodId: input.shippingMethodId ?? null,
    pricesIncludeTax,
    taxServiceFailure: 'refuse',
    convert,
  });
  const { totals, parcel, rates, method, chosenUnavailable } = priced;
  return {
    lines,
    missing,
    discount,
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
