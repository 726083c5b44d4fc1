/**
 * The tax arithmetic (decision `tax-arithmetic`): fixed cases, the anchors' reported bugs, and
 * properties over random carts, classes, rates, both ways of entering prices, discounts, shipping
 * rules and partial returns (thousands of cases per run).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  allocate,
  quoteTax,
  taxInGross,
  taxOnNet,
  unitsPart,
  withGivenTaxes,
  type ShippingTaxRule,
  type TaxQuoteInput,
} from './tax-arithmetic.ts';

const RATES = [0, 500, 700, 1000, 1900, 2000, 2100, 2500, 825, 1];

const line = fc.record({
  amount: fc.integer({ min: 0, max: 5_000_000 }),
  taxClass: fc.constantFrom('standard', 'reduced', 'zero', 'books'),
  rateBps: fc.constantFrom(...RATES),
});
const shippingRule: fc.Arbitrary<ShippingTaxRule> = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  fc.constant({ kind: 'follow_goods' as const }),
  fc.record({
    kind: fc.constant('class' as const),
    taxClass: fc.constant('shipping'),
    rateBps: fc.constantFrom(...RATES),
  }),
);
/** An order: lines, a discount of at most their sum, shipping and how it is taxed, either way of entering prices. */
const order: fc.Arbitrary<TaxQuoteInput> = fc
  .record({
    lines: fc.array(line, { minLength: 1, maxLength: 12 }),
    discountShare: fc.double({ min: 0, max: 1, noNaN: true }),
    shipping: fc.integer({ min: 0, max: 100_000 }),
    shippingTax: shippingRule,
    pricesIncludeTax: fc.boolean(),
  })
  .map(({ lines, discountShare, ...rest }) => ({
    ...rest,
    lines,
    discount: Math.floor(lines.reduce((sum, l) => sum + l.amount, 0) * discountShare),
  }));

const sum = (values: readonly number[]): number => values.reduce((acc, value) => acc + value, 0);

describe('fixed cases', () => {
  test('tax on top rounds half up per line; the part of a gross amount likewise', () => {
    assert.equal(taxOnNet(1000, 2000), 200);
    assert.equal(taxOnNet(1, 5000), 1, 'half a unit rounds up');
    assert.equal(taxOnNet(1, 4999), 0);
    assert.equal(taxInGross(1200, 2000), 200);
    assert.equal(taxInGross(0, 2000), 0);
    assert.equal(taxInGross(1, 0), 0);
  });

  test('docs/tax.md: the German store worked through (19 % and 7 %, 10 % off, shipping following the goods, a partial return)', () => {
    const quote = quoteTax({
      lines: [
        { amount: 2 * 2990, taxClass: 'standard', rateBps: 1900 },
        { amount: 1500, taxClass: 'reduced', rateBps: 700 },
      ],
      discount: 748,
      shipping: 490,
      shippingTax: { kind: 'follow_goods' },
      pricesIncludeTax: true,
    });
    assert.deepEqual(
      quote.lines.map((line) => [line.discount, line.gross, line.tax, line.net]),
      [
        [598, 5382, 859, 4523],
        [150, 1350, 88, 1262],
      ],
    );
    assert.deepEqual(
      quote.shipping.parts.map((part) => [part.taxClass, part.amount, part.tax, part.net]),
      [
        ['standard', 392, 63, 329],
        ['reduced', 98, 6, 92],
      ],
    );
    assert.deepEqual([quote.total, quote.tax], [7222, 1016]);
    assert.deepEqual([unitsPart(5382, 2, 0, 1), unitsPart(859, 2, 0, 1)], [2691, 429]);
    assert.deepEqual([unitsPart(5382, 2, 1, 2), unitsPart(859, 2, 1, 2)], [2691, 430]);
  });

  test('a tax service’s taxes in place of the rates’: nets, grosses, rates and totals follow from them', () => {
    const input = {
      lines: [
        { amount: 4000, taxClass: 'standard', rateBps: 1900 },
        { amount: 1500, taxClass: 'reduced', rateBps: 700 },
      ],
      discount: 400,
      shipping: 500,
      shippingTax: { kind: 'none' as const },
    };
    const exclusive = withGivenTaxes(quoteTax({ ...input, pricesIncludeTax: false }), {
      lines: [684, 105],
      shipping: 95,
    });
    assert.deepEqual(
      exclusive.lines.map((line) => [line.net, line.tax, line.gross, line.rateBps]),
      [
        // The 400 off shared 291 / 109; the rate is what the service's tax comes to on the net.
        [3709, 684, 4393, 1844],
        [1391, 105, 1496, 755],
      ],
    );
    assert.deepEqual(
      exclusive.shipping.parts.map((part) => [part.taxClass, part.net, part.tax]),
      [['shipping', 500, 95]],
    );
    assert.deepEqual([exclusive.tax, exclusive.total], [884, 5100 + 500 + 884]);
    const inclusive = withGivenTaxes(quoteTax({ ...input, pricesIncludeTax: true }), {
      lines: [575, 98],
      shipping: 0,
    });
    assert.deepEqual(
      inclusive.lines.map((line) => [line.net, line.tax, line.gross]),
      [
        [3134, 575, 3709],
        [1293, 98, 1391],
      ],
    );
    assert.deepEqual([inclusive.tax, inclusive.total, inclusive.shipping.parts.length], [673, 5600, 1]);
  });

  test('largest remainder: exact shares, the leftover units to the largest remainders, ties to the earlier line', () => {
    assert.deepEqual(allocate(100, [1, 1, 1]), [34, 33, 33]);
    assert.deepEqual(allocate(10, [3, 3, 4]), [3, 3, 4]);
    assert.deepEqual(allocate(1, [0, 5, 5]), [0, 1, 0]);
    assert.deepEqual(allocate(0, [0, 0]), [0, 0]);
    assert.throws(() => allocate(1, [0, 0]), RangeError);
  });

  test('Vendure #2662: £38.23 a unit with 20 % VAT included, 10 units, then 6.2 % off: every figure adds up', () => {
    const gross = 3823 * 10;
    const quote = quoteTax({
      lines: [{ amount: gross, taxClass: 'standard', rateBps: 2000 }],
      discount: 0,
      shipping: 0,
      shippingTax: { kind: 'none' },
      pricesIncludeTax: true,
    });
    assert.equal(quote.total, 38230, 'the shelf price times ten, not a net price grossed up again');
    assert.equal(quote.lines[0]!.net + quote.lines[0]!.tax, 38230);
    assert.equal(quote.tax, 6372);
    const discounted = quoteTax({
      lines: [{ amount: gross, taxClass: 'standard', rateBps: 2000 }],
      discount: Math.floor((gross * 62) / 1000),
      shipping: 0,
      shippingTax: { kind: 'none' },
      pricesIncludeTax: true,
    });
    assert.equal(discounted.total, 38230 - 2370);
    assert.equal(discounted.lines[0]!.net + discounted.lines[0]!.tax, discounted.total);
  });

  test('Vendure #3047: 399.00 with 9 % included, 2 units: the line charges exactly 2 × 399.00 and its net and tax add up to it', () => {
    const quote = quoteTax({
      lines: [{ amount: 39900 * 2, taxClass: 'standard', rateBps: 900 }],
      discount: 0,
      shipping: 0,
      shippingTax: { kind: 'none' },
      pricesIncludeTax: true,
    });
    const [charged] = quote.lines;
    assert.equal(charged!.gross, 79800, 'the shelf price times the quantity');
    assert.equal(quote.total, 79800);
    assert.deepEqual(
      [charged!.net, charged!.tax],
      [73211, 6589],
      'net and tax derived from the line, adding up to it',
    );
  });

  test('a discount shared over lines: the shares add up to it and the line taxes to the order tax', () => {
    const quote = quoteTax({
      lines: [333, 333, 334].map((amount) => ({ amount, taxClass: 'standard', rateBps: 2000 })),
      discount: 100,
      shipping: 0,
      shippingTax: { kind: 'none' },
      pricesIncludeTax: false,
    });
    assert.deepEqual(
      quote.lines.map((l) => l.discount),
      [33, 33, 34],
    );
    assert.equal(sum(quote.lines.map((l) => l.tax)), quote.tax);
    assert.equal(quote.total, 1000 - 100 + quote.tax);
  });

  test('Vendure #54: shipping of zero-rated goods carries no VAT; add a 20 % product and it does, in proportion', () => {
    const books = { amount: 3000, taxClass: 'zero', rateBps: 0 };
    const only = quoteTax({
      lines: [books],
      discount: 0,
      shipping: 500,
      shippingTax: { kind: 'follow_goods' },
      pricesIncludeTax: true,
    });
    assert.equal(only.shipping.tax, 0);
    const mixed = quoteTax({
      lines: [books, { amount: 3000, taxClass: 'standard', rateBps: 2000 }],
      discount: 0,
      shipping: 500,
      shippingTax: { kind: 'follow_goods' },
      pricesIncludeTax: true,
    });
    assert.deepEqual(
      mixed.shipping.parts.map((p) => [p.taxClass, p.amount, p.tax]),
      [
        ['zero', 250, 0],
        ['standard', 250, 42],
      ],
    );
  });

  test('Vendure #54 and Medusa #2814: shipping follows the goods, split by class (the EU rule)', () => {
    const quote = quoteTax({
      lines: [
        { amount: 6000, taxClass: 'standard', rateBps: 2000 },
        { amount: 4000, taxClass: 'reduced', rateBps: 500 },
      ],
      discount: 0,
      shipping: 1000,
      shippingTax: { kind: 'follow_goods' },
      pricesIncludeTax: false,
    });
    assert.deepEqual(
      quote.shipping.parts.map((p) => [p.taxClass, p.amount, p.tax]),
      [
        ['standard', 600, 120],
        ['reduced', 400, 20],
      ],
    );
    assert.equal(quote.shipping.tax, 140);
    assert.equal(quote.tax, 1200 + 200 + 140);
    assert.equal(quote.total, 10000 + 1000 + 1540);
  });

  test('shipping at a class of its own, and untaxed shipping (every store until it says otherwise)', () => {
    const lines = [{ amount: 1000, taxClass: 'standard', rateBps: 2000 }];
    const own = quoteTax({
      lines,
      discount: 0,
      shipping: 500,
      shippingTax: { kind: 'class', taxClass: 'shipping', rateBps: 1000 },
      pricesIncludeTax: false,
    });
    assert.equal(own.shipping.tax, 50);
    const none = quoteTax({
      lines,
      discount: 0,
      shipping: 500,
      shippingTax: { kind: 'none' },
      pricesIncludeTax: false,
    });
    assert.deepEqual([none.shipping.tax, none.tax, none.total], [0, 200, 1700]);
  });

  test('a discount larger than the lines is refused', () => {
    assert.throws(
      () =>
        quoteTax({
          lines: [{ amount: 10, taxClass: 'standard', rateBps: 0 }],
          discount: 11,
          shipping: 0,
          shippingTax: { kind: 'none' },
          pricesIncludeTax: false,
        }),
      RangeError,
    );
  });
});

describe('properties', () => {
  test('Σ line amounts = subtotal; Σ shares = discount; each share within its line', () => {
    fc.assert(
      fc.property(order, (input) => {
        const quote = quoteTax(input);
        assert.equal(sum(quote.lines.map((l) => l.amount)), quote.subtotal);
        assert.equal(sum(quote.lines.map((l) => l.discount)), input.discount);
        for (const l of quote.lines) assert.ok(l.discount >= 0 && l.discount <= l.amount);
      }),
      { numRuns: 3000 },
    );
  });

  test('Σ line taxes + shipping tax = tax; net + tax = gross for every line, every shipping part and the order', () => {
    fc.assert(
      fc.property(order, (input) => {
        const quote = quoteTax(input);
        assert.equal(sum(quote.lines.map((l) => l.tax)) + quote.shipping.tax, quote.tax);
        assert.equal(sum(quote.shipping.parts.map((p) => p.tax)), quote.shipping.tax);
        for (const l of [...quote.lines, ...quote.shipping.parts]) {
          assert.equal(l.net + l.tax, l.gross);
          assert.ok(l.tax >= 0 && l.tax <= l.gross);
        }
        const net = sum(quote.lines.map((l) => l.net)) + sum(quote.shipping.parts.map((p) => p.net));
        const untaxedShipping = input.shippingTax.kind === 'none' ? input.shipping : 0;
        assert.equal(net + untaxedShipping + quote.tax, quote.total);
      }),
      { numRuns: 3000 },
    );
  });

  test('the total: goods after discounts plus shipping, plus tax unless prices include it', () => {
    fc.assert(
      fc.property(order, (input) => {
        const quote = quoteTax(input);
        const goods = quote.subtotal - quote.discount;
        assert.equal(quote.total, goods + input.shipping + (input.pricesIncludeTax ? 0 : quote.tax));
        assert.equal(quote.taxIncluded, input.pricesIncludeTax);
      }),
      { numRuns: 2000 },
    );
  });

  test('shipping parts add up to the shipping; one per class and rate of the goods when it follows them', () => {
    fc.assert(
      fc.property(order, (input) => {
        const quote = quoteTax(input);
        if (input.shippingTax.kind === 'none' || input.shipping === 0) {
          assert.deepEqual(quote.shipping.parts, []);
          assert.equal(quote.shipping.tax, 0);
          return;
        }
        assert.equal(sum(quote.shipping.parts.map((p) => p.amount)), input.shipping);
        if (input.shippingTax.kind === 'follow_goods') {
          const classes = new Set(input.lines.map((l) => `${l.taxClass}/${l.rateBps}`));
          assert.equal(quote.shipping.parts.length, classes.size);
        }
      }),
      { numRuns: 2000 },
    );
  });

  test('per-line rounding differs from whole-order rounding by at most one minor unit per line (one rate, tax on top)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5_000_000 }), { minLength: 1, maxLength: 12 }),
        fc.constantFrom(...RATES),
        (amounts, rateBps) => {
          const quote = quoteTax({
            lines: amounts.map((amount) => ({ amount, taxClass: 'standard', rateBps })),
            discount: 0,
            shipping: 0,
            shippingTax: { kind: 'none' },
            pricesIncludeTax: false,
          });
          const whole = taxOnNet(sum(amounts), rateBps);
          assert.ok(Math.abs(quote.tax - whole) <= amounts.length);
        },
      ),
      { numRuns: 2000 },
    );
  });

  test('returns: any sequence of partial returns gives back exactly the line’s amount and tax once every unit is back', () => {
    fc.assert(
      fc.property(
        order,
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: 20 }),
        (input, units, batches) => {
          const quote = quoteTax(input);
          for (const l of quote.lines) {
            let back = 0;
            let amount = 0;
            let tax = 0;
            for (const batch of [...batches, units]) {
              const to = Math.min(units, back + batch);
              amount += unitsPart(l.gross, units, back, to);
              tax += unitsPart(l.tax, units, back, to);
              const expected = to === units ? l.gross : Math.floor((l.gross * to) / units);
              assert.equal(amount, expected, 'k/n of the line so far, rounded down');
              back = to;
              if (back === units) break;
            }
            assert.equal(amount, l.gross);
            assert.equal(tax, l.tax);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});
