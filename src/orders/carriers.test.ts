import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CARRIERS, knownCarrier, trackingUrlOf } from './carriers.ts';

/** Each carrier's page for a number, as its own site links it (decision `fulfilments`). */
const EXPECTED: Record<string, [string, string]> = {
  UPS: ['1Z999AA10123456784', 'https://www.ups.com/track?tracknum=1Z999AA10123456784'],
  USPS: [
    '9400100000000000000000',
    'https://tools.usps.com/go/TrackConfirmAction?tLabels=9400100000000000000000',
  ],
  FedEx: ['123456789012', 'https://www.fedex.com/fedextrack/?trknbr=123456789012'],
  DHL: [
    '1234567890',
    'https://www.dhl.com/global-en/home/tracking/tracking-express.html?submit=1&tracking-id=1234567890',
  ],
  'Royal Mail': [
    'AB123456789GB',
    'https://www.royalmail.com/track-your-item#/tracking-results/AB123456789GB',
  ],
  'Canada Post': [
    '1234567890123456',
    'https://www.canadapost-postescanada.ca/track-reperage/en#/search?searchFor=1234567890123456',
  ],
  'Australia Post': ['33AB123456789', 'https://auspost.com.au/mypost/track/details/33AB123456789'],
  PostNL: ['3SABCD1234567', 'https://jouw.postnl.nl/track-and-trace/3SABCD1234567'],
  'La Poste': ['6A12345678901', 'https://www.laposte.fr/outils/suivre-vos-envois?code=6A12345678901'],
  'Deutsche Post': [
    '00340434161234567890',
    'https://www.deutschepost.de/de/s/sendungsverfolgung.html?piececode=00340434161234567890',
  ],
};

describe('carriers (decision `fulfilments`)', () => {
  for (const carrier of CARRIERS) {
    test(`${carrier.name}: the tracking page of a number`, () => {
      const [number, url] = EXPECTED[carrier.name]!;
      assert.equal(trackingUrlOf(carrier.name, number), url);
    });
  }

  test('every carrier of decision `fulfilments` is known, by its name or a way a merchant writes it', () => {
    assert.deepEqual(Object.keys(EXPECTED).sort(), CARRIERS.map((carrier) => carrier.name).sort());
    for (const [written, name] of [
      ['ups', 'UPS'],
      ['royal-mail', 'Royal Mail'],
      ['CANADA POST', 'Canada Post'],
      ['colissimo', 'La Poste'],
      ['DHL Paket', 'Deutsche Post'],
    ] as const)
      assert.equal(knownCarrier(written)?.name, name, written);
  });

  test('an unknown carrier has no link; a number is encoded, never spliced into the URL', () => {
    assert.equal(trackingUrlOf('Pony Express', '123'), null);
    assert.equal(
      trackingUrlOf('UPS', ' 1Z 99&x=<y> '),
      'https://www.ups.com/track?tracknum=1Z%2099%26x%3D%3Cy%3E',
    );
  });
});
