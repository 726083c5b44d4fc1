/** The words after a price that includes tax, by the shopper's country (issue 45): VAT, GST, else tax. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { taxCountry, taxWords } from '../src/tax-words.ts';

describe('taxWords', () => {
  test('VAT in the EU, the EEA, the UK, Switzerland and the other VAT countries of the table', () => {
    for (const country of ['DE', 'FR', 'IE', 'SE', 'NO', 'IS', 'LI', 'CH', 'GB', 'TR', 'ZA', 'AE', 'SA'])
      assert.equal(taxWords(country), 'incl. VAT', country);
  });

  test('GST in Australia, New Zealand, Singapore, India and Canada', () => {
    for (const country of ['AU', 'NZ', 'SG', 'IN', 'CA'])
      assert.equal(taxWords(country), 'incl. GST', country);
  });

  test('"incl. tax" anywhere else, and without a country', () => {
    // Malaysia's GST became SST in 2018; Japan's is a consumption tax; the US has sales taxes.
    for (const country of ['MY', 'JP', 'US', 'BR', 'XX'])
      assert.equal(taxWords(country), 'incl. tax', country);
    assert.equal(taxWords(null), 'incl. tax');
  });
});

describe('taxCountry', () => {
  test('the country chosen, else the market’s only one, else none', () => {
    assert.equal(taxCountry('AT', { countries: ['DE', 'AT'] }), 'AT');
    assert.equal(taxCountry(null, { countries: ['NZ'] }), 'NZ');
    assert.equal(taxCountry(null, { countries: ['DE', 'AT'] }), null);
    assert.equal(taxCountry(null, { countries: [] }), null, 'the default market names no country');
    assert.equal(taxCountry(null, null), null, 'the markets not read yet');
  });
});
