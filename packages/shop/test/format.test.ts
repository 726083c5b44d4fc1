/** The shop's reading of a typed price (the search's price filter): exact, through digits, in the currency's minor units. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { currencyExponent } from '@storefront/client';
import { priceToMinor } from '../src/format.ts';

describe('priceToMinor', () => {
  test('reads a typed price as integer minor units of its currency, never through a float', () => {
    const usd = currencyExponent('USD');
    assert.equal(priceToMinor('12', usd), 1200);
    assert.equal(priceToMinor('12.5', usd), 1250);
    assert.equal(priceToMinor(' 12,50 ', usd), 1250);
    assert.equal(priceToMinor('0.29', usd), 29); // 0.29 * 100 is 28.999999999999996
    assert.equal(priceToMinor('12.', usd), 1200);
    assert.equal(priceToMinor('999999999.99', usd), 99999999999);
    assert.equal(priceToMinor('4500', currencyExponent('JPY')), 4500);
    assert.equal(priceToMinor('9.21', currencyExponent('KWD')), 9210);
  });

  test('rounds decimals the currency does not have half up', () => {
    assert.equal(priceToMinor('12.345', 2), 1235);
    assert.equal(priceToMinor('12.344', 2), 1234);
    assert.equal(priceToMinor('0.995', 2), 100);
    assert.equal(priceToMinor('12.5', 0), 13);
    assert.equal(priceToMinor('1.2345', 3), 1235);
  });

  test('says empty and not a price apart', () => {
    assert.equal(priceToMinor('', 2), null);
    assert.equal(priceToMinor('   ', 2), null);
    for (const text of ['abc', '-1', '1e3', '1.2.3', '.5', '1234567890'])
      assert.ok(Number.isNaN(priceToMinor(text, 2)), text);
  });
});
