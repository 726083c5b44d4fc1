/**
 * The console's conversion preview (src/ui/conversion.ts) against the service's own
 * (src/markets/conversion.ts, decision `market-prices`): the same price for every amount, rate,
 * pair of minor units and rounding, so a preview shows what a market charges. And the worked
 * decimal the Markets form shows.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { convert, isExchangeRate as serverIsRate } from '../../../src/markets/conversion.ts';
import { convertPrice, isExchangeRate, normalRate, unroundedText } from '../src/ui/conversion.ts';

const rounding = fc.constantFrom('none' as const, 'to_99' as const, 'to_whole' as const);
const rate = fc
  .tuple(fc.integer({ min: 0, max: 999_999 }), fc.option(fc.stringMatching(/^[0-9]{1,12}$/)))
  .map(([whole, decimals]) => (decimals === null ? String(whole) : `${whole}.${decimals}`))
  .filter((text) => /[1-9]/.test(text));

describe('the console converts prices as the service does', () => {
  test('the same minor units for random amounts, rates, currencies and rules', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        rate,
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 3 }),
        rounding,
        (amount, rateText, digits, baseDigits, rule) => {
          const conversion = { rate: rateText, digits, baseDigits, rounding: rule };
          const server = convert(amount, conversion);
          // Beyond the largest exact integer the service caps; a preview never gets there.
          fc.pre(server < Number.MAX_SAFE_INTEGER);
          assert.equal(convertPrice(amount, conversion), server);
        },
      ),
      { numRuns: 5000 },
    );
  });

  test('the documented examples', () => {
    const eur = { rate: '0.92', digits: 2, baseDigits: 2 };
    assert.equal(convertPrice(2400, { ...eur, rounding: 'to_99' }), 2299);
    assert.equal(convertPrice(2400, { ...eur, rounding: 'none' }), 2208);
    assert.equal(convertPrice(2400, { ...eur, rounding: 'to_whole' }), 2300);
    assert.equal(convertPrice(2400, { rate: '150', digits: 0, baseDigits: 2, rounding: 'none' }), 3600);
    assert.equal(convertPrice(1920, { rate: '1', digits: 2, baseDigits: 2, rounding: 'to_99' }), 1999);
    assert.equal(convertPrice(2000, { rate: '1', digits: 2, baseDigits: 2, rounding: 'to_99' }), 2099);
    assert.equal(convertPrice(0, { ...eur, rounding: 'to_99' }), 0);
  });

  test('rates are the service’s: positive decimals, 6 digits before the point and 12 after', () => {
    for (const text of [
      '0.92',
      '1',
      '150',
      '0.000000000001',
      '999999.5',
      '0',
      '0.0',
      '1.',
      '.5',
      '-1',
      '1e3',
      '1234567',
      '0.1234567890123',
    ])
      assert.equal(isExchangeRate(text), serverIsRate(text), text);
    assert.equal(normalRate(' 0,92 '), '0.92');
  });

  test('the worked decimal before rounding', () => {
    const conversion = { digits: 2, baseDigits: 2, rounding: 'to_99' as const };
    assert.equal(unroundedText(2400, { ...conversion, rate: '0.92' }), '22.08');
    assert.equal(unroundedText(2400, { ...conversion, rate: '0.9234' }), '22.1616');
    assert.equal(unroundedText(2400, { ...conversion, rate: '1' }), '24.00');
    assert.equal(unroundedText(2400, { rate: '150', digits: 0, baseDigits: 2, rounding: 'none' }), '3600');
    assert.equal(unroundedText(1, { rate: '0.5', digits: 3, baseDigits: 2, rounding: 'none' }), '0.005');
  });
});
