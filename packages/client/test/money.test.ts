/**
 * The client's money display (`formatMoney`, `currencyExponent`) reads amounts in the ISO 4217 minor
 * units the service prices in (decision `markets`), for every currency the service accepts, and
 * shows them exactly: JPY has none, KWD three, and HUF two, where the browser's Intl (CLDR) shows none.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import currencyCodes from 'currency-codes';
import { currencyExponent, formatMoney, minorToDecimal } from '@storefront/client';
import { currencyDigits } from '../../../src/markets/currencies.ts';

describe('money', () => {
  test('the minor units of every currency the service accepts are the service’s', () => {
    const accepted = currencyCodes.codes().filter((code) => currencyDigits(code) !== undefined);
    assert.ok(accepted.length > 150, `${accepted.length} currencies`);
    for (const code of accepted) {
      assert.equal(currencyExponent(code), currencyDigits(code), code);
      assert.equal(currencyExponent(code.toLowerCase()), currencyDigits(code), code.toLowerCase());
    }
    // Where CLDR's display digits differ from ISO's, ISO's hold.
    const cldr = (code: string) =>
      new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions()
        .maximumFractionDigits;
    assert.notEqual(cldr('HUF'), 2, 'the reason for the table: Intl shows no minor units for HUF');
    assert.equal(currencyExponent('HUF'), 2);
  });

  test('formats integer minor units exactly, every minor unit shown', () => {
    assert.equal(formatMoney(1999, 'USD', 'en-US'), '$19.99');
    assert.equal(formatMoney(-5, 'USD', 'en-US'), '-$0.05');
    assert.equal(formatMoney(2299, 'EUR', 'de-DE'), '22,99\u00a0€');
    assert.equal(formatMoney(123456, 'JPY', 'en-US'), '¥123,456');
    assert.equal(formatMoney(1234, 'KWD', 'en-US'), 'KWD\u00a01.234');
    assert.equal(formatMoney(199950, 'HUF', 'en-US'), 'HUF\u00a01,999.50');
    assert.equal(formatMoney(1500, 'IQD', 'en-US'), 'IQD\u00a01.500');
    assert.equal(formatMoney(900719925474099, 'USD', 'en-US'), '$9,007,199,254,740.99');
    // A code no one knows still shows its amount exactly, in two decimals.
    assert.match(formatMoney(1999, 'XYZ', 'en-US'), /19\.99/);
    assert.equal(minorToDecimal(1234, currencyExponent('KWD')), '1.234');
  });
});
