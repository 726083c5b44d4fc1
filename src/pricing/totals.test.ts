import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { computeTotals } from './totals.ts';

const line = fc.record({
  unitPrice: fc.integer({ min: 0, max: 10_000_000 }),
  quantity: fc.integer({ min: 1, max: 999 }),
});
const discount = fc.option(
  fc.oneof(
    fc.record({ kind: fc.constant('percent' as const), value: fc.integer({ min: 1, max: 100 }) }),
    fc.record({ kind: fc.constant('fixed' as const), value: fc.integer({ min: 1, max: 100_000_000 }) }),
  ),
  { nil: null },
);
const input = fc.record({
  lines: fc.array(line, { minLength: 1, maxLength: 100 }),
  discount,
  taxRateBps: fc.integer({ min: 0, max: 10_000 }),
  shippingAmount: fc.integer({ min: 0, max: 1_000_000 }),
});

describe('order arithmetic', () => {
  test('integers only, never negative, parts add up to the total', () => {
    fc.assert(
      fc.property(input, (value) => {
        const totals = computeTotals(value);
        for (const amount of Object.values(totals)) {
          assert.ok(Number.isSafeInteger(amount) && amount >= 0, `${amount}`);
        }
        assert.equal(totals.subtotal - totals.discount + totals.tax + totals.shipping, totals.total);
        assert.ok(totals.discount <= totals.subtotal);
        assert.equal(
          totals.subtotal,
          value.lines.reduce((sum, l) => sum + l.unitPrice * l.quantity, 0),
        );
      }),
      { numRuns: 500 },
    );
  });

  test('tax is half-up on the discounted subtotal, shipping untaxed', () => {
    // 1999 × 1 with 10 % off = 1799.1 → ⌊⌋ discount 199 → taxable 1800; 7.5 % = 135 exactly.
    assert.deepEqual(
      computeTotals({
        lines: [{ unitPrice: 1999, quantity: 1 }],
        discount: { kind: 'percent', value: 10 },
        taxRateBps: 750,
        shippingAmount: 500,
      }),
      {
        subtotal: 1999,
        discount: 199,
        tax: 135,
        shipping: 500,
        total: 2435,
      },
    );
    // 0.5 rounds up: 1000 × 0.05 % = 0.5 → 1.
    assert.equal(
      computeTotals({
        lines: [{ unitPrice: 1000, quantity: 1 }],
        discount: null,
        taxRateBps: 5,
        shippingAmount: 0,
      }).tax,
      1,
    );
    // 0.4 rounds down.
    assert.equal(
      computeTotals({
        lines: [{ unitPrice: 800, quantity: 1 }],
        discount: null,
        taxRateBps: 5,
        shippingAmount: 0,
      }).tax,
      0,
    );
  });

  test('a fixed discount larger than the subtotal is capped', () => {
    const totals = computeTotals({
      lines: [{ unitPrice: 300, quantity: 2 }],
      discount: { kind: 'fixed', value: 5000 },
      taxRateBps: 2000,
      shippingAmount: 250,
    });
    assert.deepEqual(totals, { subtotal: 600, discount: 600, tax: 0, shipping: 250, total: 250 });
  });
});
