import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkAddress, countryRules, formatAddress, knownCountries, type Address } from '@storefront/address';

const US: Address = {
  name: 'Ada Lovelace',
  line1: '1 Infinite Loop',
  city: 'Cupertino',
  region: 'US-CA',
  postalCode: '95014',
  country: 'US',
};
const DE: Address = {
  name: 'Ada Lovelace',
  line1: 'Unter den Linden 1',
  city: 'Berlin',
  postalCode: '10117',
  country: 'DE',
};

const pointers = (input: Partial<Address>, base = '/shippingAddress') =>
  checkAddress(input, base).problems.map((problem) => problem.pointer);

describe('country rules from the data set', () => {
  test('the US needs a state and a ZIP code; Germany a postal code and no region', () => {
    const us = countryRules('us')!;
    assert.deepEqual(us.requires, { region: true, postalCode: true });
    assert.equal(us.labels.postalCode, 'ZIP code');
    assert.equal(us.labels.region, 'State');
    assert.ok(us.regions.some((region) => region.code === 'US-CA' && region.name === 'California'));
    const de = countryRules('DE')!;
    assert.deepEqual(de.requires, { region: false, postalCode: true });
    assert.equal(de.uses.region, false);
    assert.deepEqual(de.regions, []);
  });

  test('Canada has provinces, Australia states, Ireland an Eircode; Hong Kong no postal code', () => {
    assert.ok(countryRules('CA')!.regions.some((region) => region.code === 'CA-ON'));
    assert.ok(countryRules('AU')!.regions.some((region) => region.code === 'AU-NSW'));
    assert.equal(countryRules('IE')!.labels.postalCode, 'Eircode');
    assert.equal(countryRules('HK')!.requires.postalCode, false);
  });

  test('unknown codes have no rules; the data set knows about 250 countries', () => {
    assert.equal(countryRules('XX'), null);
    assert.equal(countryRules('USA'), null);
    const known = knownCountries();
    assert.ok(known.length > 240, String(known.length));
    assert.ok(known.includes('DE') && known.includes('JP'));
  });
});

describe('checkAddress', () => {
  test('good addresses pass and come back cleaned up', () => {
    assert.deepEqual(checkAddress(US).problems, []);
    assert.deepEqual(checkAddress(DE).problems, []);
    const { address, problems } = checkAddress({
      ...US,
      name: '  Ada Lovelace ',
      region: 'ca',
      postalCode: ' 95014-2083 ',
      country: 'us',
      line2: '   ',
    });
    assert.deepEqual(problems, []);
    assert.equal(address.name, 'Ada Lovelace');
    assert.equal(address.region, 'US-CA', 'a bare subdivision code becomes its ISO 3166-2 code');
    assert.equal(address.country, 'US');
    assert.equal(address.postalCode, '95014-2083');
    assert.equal(address.line2, null, 'an empty optional field is null');
  });

  test('a bad postal code points at its field, below the given base', () => {
    assert.deepEqual(pointers({ ...DE, postalCode: '1011' }), ['/shippingAddress/postalCode']);
    assert.deepEqual(pointers({ ...US, postalCode: 'ABCDE' }), ['/shippingAddress/postalCode']);
    const [problem] = checkAddress({ ...DE, postalCode: 'X' }, '/billingAddress').problems;
    assert.equal(problem?.pointer, '/billingAddress/postalCode');
    assert.match(problem.detail, /postal code for DE/i);
  });

  test('a ZIP code must belong to its state; a Canadian postal code has its format', () => {
    const problems = checkAddress({ ...US, region: 'US-NY' }).problems;
    assert.deepEqual(
      problems.map((problem) => problem.pointer),
      ['/postalCode'],
    );
    assert.match(problems[0]!.detail, /New York/);
    const ottawa = { name: 'A', line1: '111 Wellington St', city: 'Ottawa', region: 'CA-ON', country: 'CA' };
    assert.deepEqual(checkAddress({ ...ottawa, postalCode: 'k1a 0a9' }).problems, []);
    assert.deepEqual(pointers({ ...ottawa, postalCode: '12345' }, ''), ['/postalCode']);
  });

  test('required fields follow the country: the US state and ZIP, Germany a postal code, Hong Kong an area', () => {
    assert.deepEqual(pointers({ ...US, region: null, postalCode: null }), [
      '/shippingAddress/region',
      '/shippingAddress/postalCode',
    ]);
    assert.deepEqual(pointers({ ...DE, postalCode: null }), ['/shippingAddress/postalCode']);
    // Hong Kong: no postal code; its area is required (the data set's areas are not ISO codes).
    const hk = { name: 'A', line1: '1 Queen’s Road', city: 'Central', country: 'HK' };
    assert.deepEqual(pointers(hk), ['/shippingAddress/region']);
    assert.equal(checkAddress({ ...hk, region: 'hong kong island' }).address.region, 'HK-Hong Kong Island');
  });

  test('name, street and city are always required; a region that is not one of the country’s is refused', () => {
    assert.deepEqual(pointers({ country: 'DE', postalCode: '10117' }), [
      '/shippingAddress/name',
      '/shippingAddress/line1',
      '/shippingAddress/city',
    ]);
    assert.deepEqual(pointers({ ...US, region: 'US-XX' }), ['/shippingAddress/region']);
    assert.deepEqual(pointers({ ...US, region: 'CA-ON' }), ['/shippingAddress/region']);
  });

  test('an unknown country, an overlong field and a phone that is not one are refused', () => {
    assert.deepEqual(pointers({ ...DE, country: 'XX' }), ['/shippingAddress/country']);
    assert.deepEqual(pointers({ ...DE, country: '' }), ['/shippingAddress/country']);
    assert.deepEqual(pointers({ ...DE, line1: 'x'.repeat(201) }), ['/shippingAddress/line1']);
    assert.deepEqual(pointers({ ...DE, phone: 'call me' }), ['/shippingAddress/phone']);
    assert.deepEqual(pointers({ ...DE, phone: '+49 30 1234567' }), []);
  });
});

describe('formatAddress', () => {
  test('each country’s own layout: city, state and ZIP in the US; postal code first in Germany', () => {
    assert.deepEqual(
      formatAddress({
        name: 'Ada Lovelace',
        company: 'Engines Inc.',
        line1: '1 Main St',
        line2: 'Suite 4',
        city: 'Boston',
        region: 'US-MA',
        postalCode: '02108',
        country: 'US',
      }),
      ['Ada Lovelace', 'Engines Inc.', '1 Main St', 'Suite 4', 'Boston, MA 02108', 'United States'],
    );
    assert.deepEqual(
      formatAddress({
        name: 'Max Muster',
        line1: 'Unter den Linden 1',
        city: 'Berlin',
        postalCode: '10117',
        country: 'DE',
      }),
      ['Max Muster', 'Unter den Linden 1', '10117 Berlin', 'Germany'],
    );
  });
});
