import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { quoteTax } from './tax-arithmetic.ts';
import { discountAmount } from './totals.ts';

/**
 * Orders placed before tax classes had their tax rounded once, on the whole order (decision
 * `tax-arithmetic`): tax = round((subtotal − discount) × rate), shipping untaxed. Every checkout
 * now rounds per line. This is the old arithmetic, kept here as the reference the new one is held
 * against for a store that uses nothing new (one standard rate, prices without tax, shipping
 * untaxed).
 */
function wholeOrderTotals(input: {
  lines: readonly { unitPrice: number; quantity: number }[];
  discount: { kind: 'percent' | 'fixed'; value: number } | null;
  taxRateBps: number;
  shippingAmount: number;
}) {
  const subtotal = input.lines.reduce(
    (sum, line) => sum + BigInt(line.unitPrice) * BigInt(line.quantity),
    0n,
  );
  let discount = 0n;
  if (input.discount?.kind === 'percent') discount = (subtotal * BigInt(input.discount.value)) / 100n;
  if (input.discount?.kind === 'fixed') discount = BigInt(input.discount.value);
  if (discount > subtotal) discount = subtotal;
  const tax = ((subtotal - discount) * BigInt(input.taxRateBps) + 5000n) / 10000n;
  const shipping = BigInt(input.shippingAmount);
  return {
    subtotal: Number(subtotal),
    discount: Number(discount),
    tax: Number(tax),
    shipping: Number(shipping),
    total: Number(subtotal - discount + tax + shipping),
  };
}

/** The same order as checkout prices it now. */
function perLineTotals(input: Parameters<typeof wholeOrderTotals>[0]) {
  const subtotal = input.lines.reduce((sum, line) => sum + line.unitPrice * line.quantity, 0);
  const quote = quoteTax({
    lines: input.lines.map((line) => ({
      amount: line.unitPrice * line.quantity,
      taxClass: 'standard',
      rateBps: input.taxRateBps,
    })),
    discount: discountAmount(subtotal, input.discount),
    shipping: input.shippingAmount,
    shippingTax: { kind: 'none' },
    pricesIncludeTax: false,
  });
  return {
    subtotal: quote.subtotal,
    discount: quote.discount,
    tax: quote.tax,
    shipping: quote.shipping.amount,
    total: quote.total,
    lines: quote.lines,
  };
}

const specEraOrder = fc.record({
  lines: fc.array(
    fc.record({
      unitPrice: fc.integer({ min: 0, max: 10_000_000 }),
      quantity: fc.integer({ min: 1, max: 999 }),
    }),
    { minLength: 1, maxLength: 30 },
  ),
  discount: fc.option(
    fc.oneof(
      fc.record({ kind: fc.constant('percent' as const), value: fc.integer({ min: 1, max: 100 }) }),
      fc.record({ kind: fc.constant('fixed' as const), value: fc.integer({ min: 1, max: 100_000_000 }) }),
    ),
    { nil: null },
  ),
  taxRateBps: fc.integer({ min: 0, max: 10_000 }),
  shippingAmount: fc.integer({ min: 0, max: 1_000_000 }),
});

describe('moving a store from whole-order to per-line rounding', () => {
  test('subtotal, discount and shipping never change; the tax moves by less than half a unit per line', () => {
    fc.assert(
      fc.property(specEraOrder, (order) => {
        const before = wholeOrderTotals(order);
        const after = perLineTotals(order);
        assert.equal(after.subtotal, before.subtotal);
        assert.equal(after.discount, before.discount);
        assert.equal(after.shipping, before.shipping);
        // Each line's rounding is off the exact tax by under half a unit, the order's by under
        // half a unit: together under (n + 1) / 2, that is at most ⌊n / 2⌋ whole units.
        const bound = Math.floor(order.lines.length / 2);
        assert.ok(
          Math.abs(after.tax - before.tax) <= bound,
          `${after.tax} vs ${before.tax} (bound ${bound})`,
        );
        assert.equal(after.total - before.total, after.tax - before.tax);
      }),
      { numRuns: 3000 },
    );
  });

  test('where the two roundings must agree: one line, a rate of 0, or every line taxed to a whole unit', () => {
    fc.assert(
      fc.property(specEraOrder, (order) => {
        const after = perLineTotals(order);
        const exactPerLine = after.lines.every((line) => (line.net * order.taxRateBps) % 10_000 === 0);
        if (order.lines.length === 1 || order.taxRateBps === 0 || exactPerLine)
          assert.deepEqual({ ...after, lines: undefined }, { ...wholeOrderTotals(order), lines: undefined });
      }),
      { numRuns: 3000 },
    );
    // A spec-era checkout: one line of 1999 with 10 % off, 7.5 %, shipping 500 untaxed — the same.
    const order = {
      lines: [{ unitPrice: 1999, quantity: 1 }],
      discount: { kind: 'percent' as const, value: 10 },
      taxRateBps: 750,
      shippingAmount: 500,
    };
    assert.deepEqual(wholeOrderTotals(order), {
      subtotal: 1999,
      discount: 199,
      tax: 135,
      shipping: 500,
      total: 2435,
    });
    assert.equal(perLineTotals(order).total, 2435);
  });

  test('where they may not: two lines each rounding up half a unit', () => {
    // Two lines of 10 at 5 %: 0.5 each rounds to 1 each (2 in all); the whole order, 20 × 5 % = 1.
    const order = {
      lines: [
        { unitPrice: 10, quantity: 1 },
        { unitPrice: 10, quantity: 1 },
      ],
      discount: null,
      taxRateBps: 500,
      shippingAmount: 0,
    };
    assert.equal(wholeOrderTotals(order).tax, 1);
    assert.equal(perLineTotals(order).tax, 2);
  });
});

describe('the discount of a code', () => {
  test('percent rounds down, fixed is capped at the subtotal, none is nothing', () => {
    assert.equal(discountAmount(1999, { kind: 'percent', value: 10 }), 199);
    assert.equal(discountAmount(600, { kind: 'fixed', value: 5000 }), 600);
    assert.equal(discountAmount(600, { kind: 'fixed', value: 250 }), 250);
    assert.equal(discountAmount(600, null), 0);
    assert.equal(
      discountAmount(Number.MAX_SAFE_INTEGER, { kind: 'percent', value: 100 }),
      Number.MAX_SAFE_INTEGER,
    );
  });
});
