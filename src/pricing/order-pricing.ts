import type { Address } from '@storefront/address';
import type { ServiceDeps } from '../db/service-deps.ts';
import type { ShippingOption } from '../shipping/shipping.schemas.ts';
import { shippingRates, type Parcel, type ShippingRates } from '../shipping/shipping.service.ts';
import { classRate, taxAreaFor, type TaxArea, type UsableDiscount } from './pricing.service.ts';
import {
  quoteTax,
  withGivenTaxes,
  type ShippingTaxRule,
  type TaxLine,
  type TaxQuote,
} from './tax-arithmetic.ts';
import { serviceTax, TaxServiceFailure, taxUnavailable, type TaxServiceDeps } from './tax-service.ts';
import { assertChargeable, discountAmount, type Totals } from './totals.ts';

/** A line as it is priced: from the catalog, never from the client. */
export interface PricedLine {
  unitPrice: number;
  quantity: number;
  /** Grams per unit; null counts as 0. */
  weightGrams: number | null;
  requiresShipping: boolean;
  /** Decision `tax-classes`: the variant's class, else its product's, else `standard`. */
  taxClass: string;
  /** What a store's tax service is told of the line (decision `tax-service`). */
  variantId: string;
  sku: string | null;
  title: string;
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
  /** Decision `prices-include-tax`: the store's prices are gross, the tax a part of them. */
  pricesIncludeTax: boolean;
  /**
   * Decision `tax-service`: what a failure of the store's tax service does: a preview estimates
   * with the built-in rates (`taxEstimated`), a checkout refuses (503 `tax_unavailable`).
   */
  taxServiceFailure: 'estimate' | 'refuse';
  /**
   * Decision `market-prices`: in a market other than the default, turns an amount the store set in
   * its own currency (flat shipping, tiers, free-over thresholds, a fixed discount) into the order's.
   * The lines' prices are the market's already.
   */
  convert?: ((amount: number) => number) | undefined;
}

/** What pricing reads: the database, and the store's tax service when the caller can ask it. */
export interface PricingDeps extends Pick<ServiceDeps, 'db'> {
  /** Absent (tools, seeds): the built-in rates only. The API's carts and checkout always pass it. */
  taxService?: TaxServiceDeps | undefined;
}

/** The rates a pricing read for a destination and parcel, to price again when only the method changed. */
export interface KnownRates {
  /** The destination's tax area; null where the store has no rate (no tax). */
  taxArea: TaxArea | null;
  rates: ShippingRates | null;
}

/** A priced line's share of the discount and its tax (decision `tax-arithmetic`), in the request's order. */
export interface LineTax {
  discount: number;
  tax: number;
  rateBps: number;
  taxClass: string;
}

/** What an order costs: the one pricing the cart's preview and the checkout share (decisions `cart-shipping-and-totals` and `checkout-with-shipping`). */
export interface Pricing extends KnownRates {
  totals: Totals;
  /** Each line's discount share and tax, in the request's order. */
  lineTaxes: LineTax[];
  /** The shipping's part of `totals.tax`. */
  shippingTax: number;
  /** The invoice breakdown: one entry per class and rate of the destination; [] where it has no rate. */
  taxLines: TaxLine[];
  /** Decision `tax-service`: the store's tax service did not answer, so the tax is the built-in rates' estimate. */
  taxEstimated: boolean;
  /** What the shipped lines make: the goods after discounts, and their weight. */
  parcel: Parcel & { shipped: boolean };
  /** The store's shipping to the destination for this parcel; null when nothing ships or there is nowhere yet. */
  rates: ShippingRates | null;
  /** The method charged: the chosen one while it is an option, else (none chosen, or it no longer fits) the automatic one. */
  method: ShippingOption | null;
  /** A method was chosen and is not one of the options (turned off, deleted, too heavy, another zone). */
  chosenUnavailable: boolean;
}

/** How the destination taxes the shipping of a method (decision `shipping-tax`). */
function shippingRule(area: TaxArea | null, methodClass: string | null): ShippingTaxRule {
  if (area === null || area.shippingTax === 'none') return { kind: 'none' };
  if (methodClass === null) return { kind: 'follow_goods' };
  return { kind: 'class', taxClass: methodClass, rateBps: classRate(area, methodClass) };
}

/**
 * The quote with the store's tax service's taxes in place of the built-in rates' (decision
 * `tax-service`), when the store has an active one and there is a destination to tax for. Its
 * answer was checked (one integer tax per line and for shipping, each within its amount); the
 * discount shares and amounts stay the service's input. A failure estimates with the built-in
 * rates for a preview and refuses a checkout: never a silent zero.
 */
async function withServiceTax(
  deps: PricingDeps,
  storeId: string,
  currency: string,
  request: PricingRequest,
  builtIn: TaxQuote,
  methodClass: string | null,
): Promise<{ quote: TaxQuote; estimated: boolean }> {
  const destination = request.address?.country ?? request.country;
  if (deps.taxService === undefined || destination === undefined) return { quote: builtIn, estimated: false };
  let answer;
  try {
    answer = await serviceTax(deps.taxService, storeId, {
      currency,
      pricesIncludeTax: request.pricesIncludeTax,
      lines: request.lines.map((line, index) => ({
        variantId: line.variantId,
        sku: line.sku,
        title: line.title,
        quantity: line.quantity,
        amount: builtIn.lines[index]!.amount,
        discount: builtIn.lines[index]!.discount,
        taxClass: line.taxClass,
      })),
      shipping: { amount: builtIn.shipping.amount, taxClass: methodClass },
      shippingAddress: request.address,
      country: destination,
    });
  } catch (error) {
    if (!(error instanceof TaxServiceFailure)) throw error;
    if (request.taxServiceFailure === 'refuse') throw taxUnavailable();
    return { quote: builtIn, estimated: true };
  }
  if (answer === null) return { quote: builtIn, estimated: false };
  return {
    quote: withGivenTaxes(builtIn, {
      lines: answer.lines.map((line) => line.tax),
      shipping: answer.shipping.tax,
    }),
    estimated: false,
  };
}

/** The invoice breakdown of a taxed order: per class and rate, the net taxed and its tax. */
function taxLinesOf(area: TaxArea | null, quote: TaxQuote): TaxLine[] {
  if (area === null) return [];
  const lines = new Map<string, TaxLine>();
  const add = (taxClass: string, rateBps: number, net: number, tax: number) => {
    const key = `${taxClass}\u0000${rateBps}`;
    const line = lines.get(key) ?? {
      country: area.country,
      region: area.region,
      class: taxClass,
      rateBps,
      taxable: 0,
      amount: 0,
    };
    line.taxable += net;
    line.amount += tax;
    lines.set(key, line);
  };
  for (const line of quote.lines) add(line.taxClass, line.rateBps, line.net, line.tax);
  for (const part of quote.shipping.parts) add(part.taxClass, part.rateBps, part.net, part.tax);
  return [...lines.values()];
}

/**
 * Prices an order (decisions `cart-shipping-and-totals`, `checkout-with-shipping` and
 * `tax-arithmetic`): the lines, the discount shared over them, each line's tax at its class's rate
 * in the destination's area (the address's region where the store has one, else its country), and
 * shipping: the chosen method's amount while it is an option, else the automatic method's (the
 * country's default, else the cheapest that is not a pickup), else none, taxed as the destination
 * says. `free_over` compares with the goods after discounts; only lines that require shipping
 * weigh, and a cart of nothing to ship pays no shipping.
 */
export async function priceOrder(
  deps: PricingDeps,
  storeId: string,
  currency: string,
  request: PricingRequest,
  /** What an earlier pricing of the same lines to the same destination read (no statement then). */
  known?: KnownRates,
): Promise<Pricing> {
  const { lines, country, address, convert } = request;
  const discount =
    convert && request.discount?.kind === 'fixed'
      ? { ...request.discount, value: convert(request.discount.value) }
      : request.discount;
  let whole = 0n;
  for (const line of lines) whole += BigInt(line.unitPrice) * BigInt(line.quantity);
  const subtotal = Number(whole);
  assertChargeable(subtotal);
  const discounted = discountAmount(subtotal, discount);
  let weightGrams = 0;
  let shipped = false;
  for (const line of lines) {
    if (!line.requiresShipping) continue;
    shipped = true;
    weightGrams += (line.weightGrams ?? 0) * line.quantity;
  }
  const parcel = { subtotal: subtotal - discounted, weightGrams, shipped };
  const destination = address ?? (country === undefined ? null : { country });
  const [taxArea, rates] = known
    ? [known.taxArea, known.rates]
    : await Promise.all([
        taxAreaFor(deps, storeId, country, address?.region),
        shipped && destination !== null
          ? shippingRates(deps, storeId, currency, destination, parcel, convert)
          : Promise.resolve(null),
      ]);
  const chosen =
    request.methodId === null
      ? null
      : (rates?.options.find((option) => option.id === request.methodId) ?? null);
  const method = chosen ?? rates?.automatic ?? null;
  const methodClass = method === null ? null : (rates?.taxClasses.get(method.id) ?? null);
  const builtIn = quoteTax({
    lines: lines.map((line) => ({
      amount: line.unitPrice * line.quantity,
      taxClass: line.taxClass,
      rateBps: classRate(taxArea, line.taxClass),
    })),
    discount: discounted,
    shipping: method?.amount.amount ?? 0,
    shippingTax: shippingRule(taxArea, methodClass),
    pricesIncludeTax: request.pricesIncludeTax,
  });
  const { quote, estimated } = await withServiceTax(deps, storeId, currency, request, builtIn, methodClass);
  assertChargeable(quote.total);
  return {
    totals: {
      subtotal: quote.subtotal,
      discount: quote.discount,
      tax: quote.tax,
      shipping: quote.shipping.amount,
      total: quote.total,
      taxIncluded: quote.taxIncluded,
    },
    lineTaxes: quote.lines.map((line) => ({
      discount: line.discount,
      tax: line.tax,
      rateBps: line.rateBps,
      taxClass: line.taxClass,
    })),
    shippingTax: quote.shipping.tax,
    taxLines: taxLinesOf(taxArea, quote),
    taxEstimated: estimated,
    taxArea,
    parcel,
    rates,
    method,
    chosenUnavailable: request.methodId !== null && chosen === null,
  };
}
