import type { Address } from '@storefront/address';
import type { ServiceDeps } from '../db/service-deps.ts';
import type { ShippingOption } from '../shipping/shipping.schemas.ts';
import { shippingRates, type Parcel, type ShippingRates } from '../shipping/shipping.service.ts';
import {
  offersShipping,
  pickFromOffer,
  type OrderPromotion,
  type PromotionHistory,
  type PromotionOffer,
} from '../promotions/offer.ts';
import type { EngineResult } from '../promotions/engine.types.ts';
import { classRate, taxAreaFor, type TaxArea } from './pricing.service.ts';
import {
  quoteTax,
  withGivenTaxes,
  type ShippingTaxRule,
  type TaxLine,
  type TaxQuote,
} from './tax-arithmetic.ts';
import { serviceTax, TaxServiceFailure, taxUnavailable, type TaxServiceDeps } from './tax-service.ts';
import { allocate } from '../lib/allocate.ts';
import { assertChargeable, type Totals } from './totals.ts';

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
  /** For the promotions' conditions (decision `cart-promotions`). */
  productId: string;
  /** A gift card: no promotion discounts it. */
  giftCard?: boolean | undefined;
  sku: string | null;
  title: string;
}

export interface PricingRequest {
  lines: readonly PricedLine[];
  /** Decision `cart-promotions`: what the order may be offered; null: no promotion applies. */
  promotions: PromotionOffer | null;
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
   * its own currency (flat shipping, tiers, free-over thresholds) into the order's (the offer's
   * promotions are converted already).
   * The lines' prices are the market's already.
   */
  convert?: ((amount: number) => number) | undefined;
  /**
   * Decision `draft-orders`: shipping staff typed on a draft, charged as given in place of the
   * store's methods (taxed as the destination taxes shipping that follows the goods).
   */
  customShipping?: { id: string; title: string; amount: number } | undefined;
  /**
   * Decision `draft-orders`: staff's discount on a draft (a percentage, or an amount in the order's
   * minor units), taken off the goods the promotions left and shared over the lines like theirs.
   */
  extraDiscount?: ExtraDiscount | undefined;
}

/** A discount staff give on a draft order: `percent` of the goods (up to 2 decimals), or an `amount`. */
export interface ExtraDiscount {
  kind: 'percent' | 'amount';
  value: number;
}

/**
 * Each line's share of a staff discount (decision `draft-orders`): of what the promotions left on
 * the lines that take discounts (never a gift card's), capped at that, shared by largest remainder.
 */
export function extraDiscountShares(
  extra: ExtraDiscount | undefined,
  lines: readonly Pick<PricedLine, 'unitPrice' | 'quantity' | 'giftCard'>[],
  taken: readonly number[],
): number[] {
  const left = lines.map((line, index) =>
    line.giftCard === true ? 0 : line.unitPrice * line.quantity - (taken[index] ?? 0),
  );
  const base = left.reduce((sum, amount) => sum + amount, 0);
  if (extra === undefined || base === 0) return lines.map(() => 0);
  const total =
    extra.kind === 'amount'
      ? Math.min(extra.value, base)
      : Number((BigInt(base) * BigInt(Math.round(extra.value * 100))) / 10000n);
  return allocate(total, left);
}

/** What pricing reads: the database, and the store's tax service when the caller can ask it. */
export interface PricingDeps extends Pick<ServiceDeps, 'db'> {
  /** Decision `cart-promotions`: a buyer's past uses and the products' collections. */
  promotionHistory: PromotionHistory;
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
  /** Decision `draft-orders`: what staff's discount took off (part of `totals.discount`); 0 without one. */
  extraDiscount: number;
  /** What the shipped lines make: the goods after discounts, and their weight. */
  parcel: Parcel & { shipped: boolean };
  /** The store's shipping to the destination for this parcel; null when nothing ships or there is nowhere yet. */
  rates: ShippingRates | null;
  /** The method charged: the chosen one while it is an option, else (none chosen, or it no longer fits) the automatic one. */
  method: ShippingOption | null;
  /** A method was chosen and is not one of the options (turned off, deleted, too heavy, another zone). */
  chosenUnavailable: boolean;
  /** Decision `cart-promotions`: what the promotions took off, and the engine's whole answer; null without an offer. */
  promotions: { applied: OrderPromotion[]; result: EngineResult } | null;
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

/** The engine's pick, with what each applied promotion took off (free shipping: the shipping charged without it). */
function appliedOf(offer: PromotionOffer, result: EngineResult, shipping: number): OrderPromotion[] {
  const names = new Map(offer.promotions.map((promotion) => [promotion.id, promotion.name]));
  return result.applied.map((applied) => ({
    id: applied.promotionId,
    name: names.get(applied.promotionId)!,
    code: applied.code,
    amount: applied.amount - applied.shipping + (applied.shipping > 0 ? shipping : 0),
    shipping: applied.shipping > 0 ? shipping : 0,
  }));
}

/** How many times the promotions and the shipping are weighed against each other at most. */
const SHIPPING_ROUNDS = 3;

/**
 * Prices an order (decisions `cart-shipping-and-totals`, `checkout-with-shipping`,
 * `tax-arithmetic` and `cart-promotions`): the lines, the promotions the engine picks with each
 * line's share of them, each line's tax at its class's rate in the destination's area (the
 * address's region where the store has one, else its country), and shipping: the chosen method's
 * amount while it is an option, else the automatic method's (the country's default, else the
 * cheapest that is not a pickup), else none, taxed as the destination says, and nothing when a
 * free-shipping promotion applies. `free_over` compares with the goods after discounts; only lines
 * that require shipping weigh, and a cart of nothing to ship pays no shipping.
 *
 * The promotions and the shipping depend on each other (a free-over threshold on the goods after
 * discounts; a free-shipping promotion worth the shipping): the engine first picks without
 * shipping, and when a candidate could take shipping off, again with the shipping of the goods it
 * left, up to `SHIPPING_ROUNDS` times until its goods discount stops changing. The same steps
 * price the preview and the checkout, so they agree.
 */
export async function priceOrder(
  deps: PricingDeps,
  storeId: string,
  currency: string,
  request: PricingRequest,
  /** What an earlier pricing of the same lines to the same destination read (no statement then). */
  known?: KnownRates,
): Promise<Pricing> {
  const { lines, country, address, convert, promotions: offer } = request;
  let whole = 0n;
  for (const line of lines) whole += BigInt(line.unitPrice) * BigInt(line.quantity);
  const subtotal = Number(whole);
  assertChargeable(subtotal);
  const engineLines = lines.map((line, index) => ({
    key: String(index),
    variantId: line.variantId,
    productId: line.productId,
    unitPrice: line.unitPrice,
    quantity: line.quantity,
    discountable: line.giftCard !== true,
  }));
  let picked = offer === null ? null : pickFromOffer(offer, engineLines, null);
  let weightGrams = 0;
  let shipped = false;
  for (const line of lines) {
    if (!line.requiresShipping) continue;
    shipped = true;
    weightGrams += (line.weightGrams ?? 0) * line.quantity;
  }
  const destination = address ?? (country === undefined ? null : { country });
  const custom = request.customShipping;
  const rate = (goodsDiscount: number): Promise<ShippingRates | null> => {
    if (known !== undefined) return Promise.resolve(known.rates);
    if (custom !== undefined) return Promise.resolve(null);
    return shipped && destination !== null
      ? shippingRates(deps, storeId, currency, destination, parcelOf(goodsDiscount), convert)
      : Promise.resolve(null);
  };
  const parcelOf = (goodsDiscount: number) => ({ subtotal: subtotal - goodsDiscount, weightGrams, shipped });
  const [taxArea, firstRates] = await Promise.all([
    known ? known.taxArea : taxAreaFor(deps, storeId, country, address?.region),
    rate(picked?.discount ?? 0),
  ]);
  let rates = firstRates;
  const methodOf = (found: ShippingRates | null) => {
    if (custom !== undefined) {
      const typed: ShippingOption = {
        id: custom.id,
        name: custom.title,
        amount: { amount: custom.amount, currency },
        minDeliveryDays: null,
        maxDeliveryDays: null,
      };
      return { chosen: typed, method: typed };
    }
    const chosen =
      request.methodId === null
        ? null
        : (found?.options.find((option) => option.id === request.methodId) ?? null);
    return { chosen, method: chosen ?? found?.automatic ?? null };
  };
  let { chosen, method } = methodOf(rates);
  if (offer !== null && picked !== null && offersShipping(offer)) {
    for (let round = 0; round < SHIPPING_ROUNDS && method !== null && method.amount.amount > 0; round += 1) {
      const next = pickFromOffer(offer, engineLines, method.amount.amount);
      const moved = next.discount !== picked.discount;
      picked = next;
      if (!moved || known !== undefined) break;
      rates = await rate(next.discount);
      ({ chosen, method } = methodOf(rates));
    }
  }
  const parcel = parcelOf(picked?.discount ?? 0);
  const methodAmount = method?.amount.amount ?? 0;
  const shipsFree = picked !== null && picked.shippingDiscount > 0;
  const methodClass = method === null ? null : (rates?.taxClasses.get(method.id) ?? null);
  const promotionShares = picked?.lines.map((line) => line.discount) ?? lines.map(() => 0);
  const extraShares = extraDiscountShares(request.extraDiscount, lines, promotionShares);
  const extra = extraShares.reduce((sum, share) => sum + share, 0);
  const builtIn = quoteTax({
    lines: lines.map((line) => ({
      amount: line.unitPrice * line.quantity,
      taxClass: line.taxClass,
      rateBps: classRate(taxArea, line.taxClass),
    })),
    discount: (picked?.discount ?? 0) + extra,
    lineDiscounts:
      extra === 0
        ? picked?.lines.map((line) => line.discount)
        : promotionShares.map((share, index) => share + extraShares[index]!),
    shipping: shipsFree ? 0 : methodAmount,
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
    extraDiscount: extra,
    taxArea,
    parcel,
    rates,
    method,
    chosenUnavailable: request.methodId !== null && chosen === null,
    promotions:
      offer === null || picked === null
        ? null
        : { applied: appliedOf(offer, picked, methodAmount), result: picked },
  };
}
