/**
 * The tax arithmetic of an order, pure and in integers (minor units; BigInt inside so no product can
 * lose precision). One module for the cart preview, checkout, refunds, returns and reports
 * (decision `tax-arithmetic`):
 *
 * - an order-level discount is shared out over the lines in proportion to their amounts by the
 *   largest-remainder method (ties to the earlier line), so the shares add up to it exactly;
 * - each line's tax is computed on its amount after its share and rounded half up, per line: on top
 *   of a net amount (`round(net × bps / 10000)`), or as the part of a gross one
 *   (`gross − round(gross × 10000 / (10000 + bps))`) when prices include tax;
 * - shipping is untaxed, taxed at a class of its own, or split over the goods' classes in proportion
 *   to their amounts after discounts and each part taxed at its class's rate (`follow_goods`);
 * - returning k of a line's n units gives back k/n of its amount and of its tax, the remainder going
 *   with the last unit, so returning everything gives back exactly what was charged.
 *
 * Nothing here reads a database or a clock: the callers say which rate applies to which line.
 */
import { allocate } from '../lib/allocate.ts';

export { allocate } from '../lib/allocate.ts';

/** A line to tax: its amount (unit price × quantity, gross when prices include tax) and its rate. */
export interface TaxableLine {
  amount: number;
  /** The tax class the line's rate came from (`standard`, `reduced`, …). */
  taxClass: string;
  /** The rate in basis points (2000 = 20 %). */
  rateBps: number;
}

/** How shipping is taxed: not at all, at a class's rate of its own, or following the goods. */
export type ShippingTaxRule =
  { kind: 'none' } | { kind: 'class'; taxClass: string; rateBps: number } | { kind: 'follow_goods' };

export interface TaxQuoteInput {
  lines: readonly TaxableLine[];
  /** The order-level discount, at most the lines' sum. */
  discount: number;
  /**
   * Each line's share of `discount`, when the promotions engine set them (decision
   * `cart-promotions`): they add up to it, each within its line. Absent: shared out in proportion.
   */
  lineDiscounts?: readonly number[] | undefined;
  /** The shipping amount (gross when prices include tax). */
  shipping: number;
  shippingTax: ShippingTaxRule;
  /** Whether amounts include tax (the tax is a part of them) or tax is added on top. */
  pricesIncludeTax: boolean;
}

/** A line as charged: `net + tax = gross`, `amount − discount` being the gross or the net. */
export interface TaxedLine extends TaxableLine {
  /** Its share of the order's discount. */
  discount: number;
  net: number;
  tax: number;
  gross: number;
}

/** A part of the shipping taxed at one class's rate. */
export interface ShippingPart {
  taxClass: string;
  rateBps: number;
  amount: number;
  net: number;
  tax: number;
  gross: number;
}

export interface TaxQuote {
  lines: TaxedLine[];
  shipping: { amount: number; tax: number; parts: ShippingPart[] };
  subtotal: number;
  discount: number;
  /** The lines' taxes and the shipping's. */
  tax: number;
  total: number;
  taxIncluded: boolean;
}

/** One line of an order's tax breakdown (its invoice): what one class's rate taxed in one area. */
export interface TaxLine {
  country: string;
  /** The region whose rate applied (`US-CA`); null when the country's did. */
  region: string | null;
  class: string;
  rateBps: number;
  /** The net amount taxed (goods after discounts, and the shipping's part). */
  taxable: number;
  amount: number;
}

/** A breakdown as the API shows it: its amounts in minor units of `currency`, which each entry names. */
export const taxLinesView = (lines: readonly TaxLine[], currency: string) =>
  lines.map((line) => ({ ...line, currency }));

/** Tax on top of a net amount, rounded half up: `round(net × bps / 10000)`. */
export function taxOnNet(net: number, rateBps: number): number {
  return Number((BigInt(net) * BigInt(rateBps) * 2n + 10000n) / 20000n);
}

/** The tax part of a gross amount: `gross − round(gross × 10000 / (10000 + bps))`, half up. */
export function taxInGross(gross: number, rateBps: number): number {
  const divisor = 10000n + BigInt(rateBps);
  const net = (BigInt(gross) * 10000n * 2n + divisor) / (2n * divisor);
  return gross - Number(net);
}

/** Net, tax and gross of an amount (after discounts) that carries `tax`, either way prices are entered. */
function split(amount: number, tax: number, pricesIncludeTax: boolean) {
  return pricesIncludeTax
    ? { net: amount - tax, tax, gross: amount }
    : { net: amount, tax, gross: amount + tax };
}

/** Net, tax and gross of an amount (after discounts) at a rate, either way prices are entered. */
function taxed(amount: number, rateBps: number, pricesIncludeTax: boolean) {
  return split(amount, (pricesIncludeTax ? taxInGross : taxOnNet)(amount, rateBps), pricesIncludeTax);
}

/**
 * The shipping's parts by class: one for a class of its own; following the goods, one per class and
 * rate the goods carry, in proportion to their amounts after discounts (before them when every line
 * is discounted to nothing; at the first line's rate when the goods are all free).
 */
function shippingParts(
  input: TaxQuoteInput,
  lines: readonly TaxedLine[],
): { taxClass: string; rateBps: number; amount: number }[] {
  const { shipping, shippingTax } = input;
  if (shipping === 0 || shippingTax.kind === 'none') return [];
  if (shippingTax.kind === 'class')
    return [{ taxClass: shippingTax.taxClass, rateBps: shippingTax.rateBps, amount: shipping }];
  const groups = new Map<string, { taxClass: string; rateBps: number; after: number; before: number }>();
  for (const line of lines) {
    const key = `${line.taxClass}\u0000${line.rateBps}`;
    const group = groups.get(key) ?? { taxClass: line.taxClass, rateBps: line.rateBps, after: 0, before: 0 };
    group.after += line.amount - line.discount;
    group.before += line.amount;
    groups.set(key, group);
  }
  const list = [...groups.values()];
  if (list.length === 0) return [];
  const weights = list.some((group) => group.after > 0)
    ? list.map((group) => group.after)
    : list.some((group) => group.before > 0)
      ? list.map((group) => group.before)
      : list.map((_, index) => (index === 0 ? 1 : 0));
  const amounts = allocate(shipping, weights);
  return list.map((group, index) => ({
    taxClass: group.taxClass,
    rateBps: group.rateBps,
    amount: amounts[index]!,
  }));
}

/** Taxes an order: the discount shared over the lines, tax per line and on shipping, the totals. */
export function quoteTax(input: TaxQuoteInput): TaxQuote {
  const subtotal = input.lines.reduce((sum, line) => sum + line.amount, 0);
  if (input.discount < 0 || input.discount > subtotal)
    throw new RangeError(`discount ${input.discount} is outside 0…${subtotal}`);
  const shares =
    input.lineDiscounts ??
    allocate(
      input.discount,
      input.lines.map((line) => line.amount),
    );
  if (
    input.lineDiscounts !== undefined &&
    (shares.length !== input.lines.length ||
      shares.reduce((sum, share) => sum + share, 0) !== input.discount ||
      shares.some((share, index) => share < 0 || share > input.lines[index]!.amount))
  )
    throw new RangeError('the lines’ discounts do not add up to the discount within their lines');
  const lines = input.lines.map((line, index) => {
    const discount = shares[index]!;
    return { ...line, discount, ...taxed(line.amount - discount, line.rateBps, input.pricesIncludeTax) };
  });
  const parts = shippingParts(input, lines).map((part) => ({
    ...part,
    ...taxed(part.amount, part.rateBps, input.pricesIncludeTax),
  }));
  const shippingTax = parts.reduce((sum, part) => sum + part.tax, 0);
  const tax = lines.reduce((sum, line) => sum + line.tax, 0) + shippingTax;
  const goods = subtotal - input.discount;
  const total = input.pricesIncludeTax ? goods + input.shipping : goods + input.shipping + tax;
  return {
    lines,
    shipping: { amount: input.shipping, tax: shippingTax, parts },
    subtotal,
    discount: input.discount,
    tax,
    total,
    taxIncluded: input.pricesIncludeTax,
  };
}

/**
 * A quote with the taxes given (a tax service's checked answer: one per line, in order, and one for
 * shipping) in place of the rates': each line's net and gross follow from its tax and its rate is
 * the one that tax comes to; shipping is one part of class `shipping`; the totals add up again.
 */
export function withGivenTaxes(
  quote: TaxQuote,
  taxes: { lines: readonly number[]; shipping: number },
): TaxQuote {
  const included = quote.taxIncluded;
  const rateOf = (tax: number, net: number) => (net === 0 ? 0 : Math.round((tax * 10000) / net));
  const lines = quote.lines.map((line, index) => {
    const parts = split(line.amount - line.discount, taxes.lines[index]!, included);
    return { ...line, ...parts, rateBps: rateOf(parts.tax, parts.net) };
  });
  const amount = quote.shipping.amount;
  const shipping = split(amount, taxes.shipping, included);
  const parts =
    amount === 0 && taxes.shipping === 0
      ? []
      : [{ taxClass: 'shipping', rateBps: rateOf(shipping.tax, shipping.net), amount, ...shipping }];
  const tax = lines.reduce((sum, line) => sum + line.tax, 0) + taxes.shipping;
  const goods = quote.subtotal - quote.discount;
  return {
    ...quote,
    lines,
    shipping: { amount, tax: taxes.shipping, parts },
    tax,
    total: included ? goods + amount : goods + amount + tax,
  };
}

/**
 * What returning units `from + 1 … to` of a line's `units` gives back of `total` (its amount, or its
 * tax): k/n of it, rounded down, with the remainder going with the last unit, so the parts of any
 * sequence of returns add up to `total` once every unit is back.
 */
export function unitsPart(total: number, units: number, from: number, to: number): number {
  if (!(0 <= from && from <= to && to <= units) || units <= 0)
    throw new RangeError(`units ${from}…${to} of ${units}`);
  const upTo = (count: number): bigint =>
    count === units ? BigInt(total) : (BigInt(total) * BigInt(count)) / BigInt(units);
  return Number(upTo(to) - upTo(from));
}
