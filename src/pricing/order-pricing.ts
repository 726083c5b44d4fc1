import type { Address } from '@storefront/address';
import type { ServiceDeps } from '../db/service-deps.ts';
import type { ShippingOption } from '../shipping/shipping.schemas.ts';
import { shippingRates, type Parcel, type ShippingRates } from '../shipping/shipping.service.ts';
import { rateFor, type UsableDiscount } from './pricing.service.ts';
import { computeTotals, type Totals } from './totals.ts';

/** A line as it is priced: from the catalog, never from the client. */
export interface PricedLine {
  unitPrice: number;
  quantity: number;
  /** Grams per unit; null counts as 0. */
  weightGrams: number | null;
  requiresShipping: boolean;
}

export interface PricingRequest {
  lines: readonly PricedLine[];
  discount: UsableDiscount | null;
  /** The destination country (the address's, or a spec-era checkout's `country`). */
  country: string | undefined;
  /** The shipping address, when there is one (its region and postal code pick the zone and the tax). */
  address: Address | null;
  /** The chosen shipping method, if any. */
  methodId: string | null;
}

/** The rates a pricing read for a destination and parcel, to price again when only the method changed. */
export interface KnownRates {
  taxRateBps: number;
  rates: ShippingRates | null;
}

/** What an order costs: the one pricing the cart's preview and the checkout share (decisions `cart-shipping-and-totals` and `checkout-with-shipping`). */
export interface Pricing extends KnownRates {
  totals: Totals;
  /** What the shipped lines make: the goods after discounts, and their weight. */
  parcel: Parcel & { shipped: boolean };
  /** The store's shipping to the destination for this parcel; null when nothing ships or there is nowhere yet. */
  rates: ShippingRates | null;
  /** The method charged: the chosen one while it is an option, else (none chosen, or it no longer fits) the automatic one. */
  method: ShippingOption | null;
  /** A method was chosen and is not one of the options (turned off, deleted, too heavy, another zone). */
  chosenUnavailable: boolean;
}

/**
 * Prices an order (decisions `cart-shipping-and-totals` and `checkout-with-shipping`): the lines, the discount, tax at the rate of the address's region
 * where the store has one (else its country's), and shipping: the chosen method's amount while it
 * is an option, else the automatic method's (the country's default, else the cheapest that is not a
 * pickup), else none. `free_over` compares with the goods after discounts; only lines that require
 * shipping weigh, and a cart of nothing to ship pays no shipping.
 */
export async function priceOrder(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  currency: string,
  request: PricingRequest,
  /** What an earlier pricing of the same lines to the same destination read (no statement then). */
  known?: KnownRates,
): Promise<Pricing> {
  const { lines, discount, country, address } = request;
  const goods = computeTotals({
    lines,
    discount: discount ? { kind: discount.kind, value: discount.value } : null,
    taxRateBps: 0,
    shippingAmount: 0,
  });
  let weightGrams = 0;
  let shipped = false;
  for (const line of lines) {
    if (!line.requiresShipping) continue;
    shipped = true;
    weightGrams += (line.weightGrams ?? 0) * line.quantity;
  }
  const parcel = { subtotal: goods.subtotal - goods.discount, weightGrams, shipped };
  const destination = address ?? (country === undefined ? null : { country });
  const [rate, rates] = known
    ? [{ taxRateBps: known.taxRateBps }, known.rates]
    : await Promise.all([
        rateFor(deps, storeId, country, address?.region),
        shipped && destination !== null
          ? shippingRates(deps, storeId, currency, destination, parcel)
          : Promise.resolve(null),
      ]);
  const chosen =
    request.methodId === null
      ? null
      : (rates?.options.find((option) => option.id === request.methodId) ?? null);
  const method = chosen ?? rates?.automatic ?? null;
  const totals = computeTotals({
    lines,
    discount: discount ? { kind: discount.kind, value: discount.value } : null,
    taxRateBps: rate.taxRateBps,
    shippingAmount: method?.amount.amount ?? 0,
  });
  return {
    totals,
    taxRateBps: rate.taxRateBps,
    parcel,
    rates,
    method,
    chosenUnavailable: request.methodId !== null && chosen === null,
  };
}
