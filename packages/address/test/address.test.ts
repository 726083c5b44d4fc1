import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  checkAddress,
  countryName,
  countryOptions,
  countryRules,
  formatAddress,
  isKnownCountry,
  knownCountries,
  regionLabel,
  regionOptions,
  type Address,
} from '@storefront/address';

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

describe('region names in Latin letters', () => {
  const region = (code: string) => {
    const found = countryRules(code.slice(0, 2))!.regions.find((candidate) => candidate.code === code);
    assert.ok(found, code);
    return found;
  };

  test('a Japanese prefecture in an English form: its Latin name with its own beside it; in a Japanese one, its own', () => {
    const tokyo = region('JP-13');
    assert.deepEqual(tokyo, { code: 'JP-13', name: '東京都', latinName: 'Tokyo' });
    assert.equal(regionLabel(tokyo, 'en'), 'Tokyo (東京都)');
    assert.equal(regionLabel(tokyo, 'en-GB'), 'Tokyo (東京都)');
    assert.equal(regionLabel(tokyo, 'de'), 'Tokyo (東京都)');
    assert.equal(regionLabel(tokyo, 'ja'), '東京都');
    assert.equal(regionLabel(tokyo, 'ja-JP'), '東京都');
    assert.equal(regionLabel(region('KR-11'), 'en'), 'Seoul (서울)');
    assert.equal(regionLabel(region('KR-11'), 'ko'), '서울');
    // A Chinese form shows Taiwan's own names (zh-Hant is Chinese too).
    assert.equal(regionLabel(region('TW-TPE'), 'zh-CN'), '台北市');
    assert.equal(regionLabel(region('TW-TPE'), 'en'), 'Taipei City (台北市)');
  });

  test('names in Latin letters already stay as they are, in any language', () => {
    assert.equal(region('US-CA').latinName, null);
    assert.equal(regionLabel(region('US-CA'), 'ja'), 'California');
    // Vietnam's and Indonesia's own names are Latin letters: no second name beside them.
    assert.equal(regionLabel(region('VN-44'), 'en'), 'An Giang');
    assert.equal(regionLabel(region('ID-BA'), 'en'), 'Bali');
  });

  test('every country whose regions have names in another script has a Latin name for each', () => {
    const otherScript = /(?=\p{L})\P{Script=Latin}/u;
    const countries: string[] = [];
    for (const country of knownCountries()) {
      const { regions } = countryRules(country)!;
      if (!regions.some((candidate) => otherScript.test(candidate.name))) continue;
      countries.push(country);
      for (const candidate of regions) {
        assert.ok(candidate.latinName, `${candidate.code} ${candidate.name} has a Latin name`);
        assert.doesNotMatch(candidate.latinName, otherScript, candidate.code);
        assert.equal(regionLabel(candidate, 'en'), `${candidate.latinName} (${candidate.name})`);
      }
    }
    assert.deepEqual(countries, [
      'AE',
      'AM',
      'CN',
      'EG',
      'HK',
      'IR',
      'JP',
      'KP',
      'KR',
      'RU',
      'TH',
      'TW',
      'UA',
    ]);
  });

  test('the options of a form: ISO 3166-2 codes as values, alphabetical by Latin name, or in the data’s order', () => {
    const english = regionOptions(countryRules('JP')!, 'en');
    assert.equal(english.length, 47);
    assert.deepEqual(english.slice(0, 3), [
      { code: 'JP-23', label: 'Aichi (愛知県)' },
      { code: 'JP-05', label: 'Akita (秋田県)' },
      { code: 'JP-02', label: 'Aomori (青森県)' },
    ]);
    assert.deepEqual(
      english.find((option) => option.code === 'JP-13'),
      { code: 'JP-13', label: 'Tokyo (東京都)' },
    );
    const japanese = regionOptions(countryRules('JP')!, 'ja');
    assert.deepEqual(japanese.slice(0, 2), [
      { code: 'JP-01', label: '北海道' },
      { code: 'JP-02', label: '青森県' },
    ]);
    // Names in Latin letters keep the data's order.
    const us = regionOptions(countryRules('US')!, 'en');
    assert.deepEqual(
      us.map((option) => option.code),
      countryRules('US')!.regions.map((candidate) => candidate.code),
    );
  });

  test('an address and a check in English name the prefecture in Latin letters', () => {
    const tokyo: Address = {
      name: 'Kei Tanaka',
      line1: '1-1 Marunouchi',
      city: 'Chiyoda-ku',
      region: 'JP-13',
      postalCode: '100-0001',
      country: 'JP',
    };
    assert.deepEqual(formatAddress(tokyo), ['Kei Tanaka', '1-1 Marunouchi, Tokyo', '100-0001', 'Japan']);
    assert.deepEqual(checkAddress(tokyo).problems, []);
    assert.deepEqual(checkAddress({ ...tokyo, postalCode: '060-0001' }).problems, [
      { pointer: '/postalCode', detail: 'does not belong to Tokyo (東京都)' },
    ]);
  });
});

test('one country list: the codes the data knows, named in a language and sorted by name', () => {
  const codes = knownCountries();
  assert.ok(codes.length > 240);
  assert.ok(isKnownCountry('DE') && isKnownCountry('XK'));
  for (const code of ['SU', 'YU', 'EU', 'UN', 'ZZ', 'de', 'DEU', ''])
    assert.equal(isKnownCountry(code), false, code);
  const english = countryOptions('en');
  assert.deepEqual(english.map((country) => country.code).sort(), codes);
  assert.equal(english.find((country) => country.code === 'DE')?.name, 'Germany');
  assert.equal(countryOptions('de').find((country) => country.code === 'DE')?.name, 'Deutschland');
  const names = english.map((country) => country.name);
  assert.deepEqual(
    names,
    [...names].sort((a, b) => a.localeCompare(b, 'en')),
  );
  assert.equal(countryName('JP', 'en'), 'Japan');
  assert.equal(countryName('??', 'en'), '??');
});
