/**
 * The carriers whose tracking page we can link from a tracking number alone (decision `fulfilments`), as data: a
 * merchant who types "UPS" and a number gets the link without pasting it. The names a merchant
 * may type are matched without case, spaces or punctuation ("royal-mail", "Royal Mail").
 */

export interface Carrier {
  /** The name shown to buyers. */
  name: string;
  /** Other ways a merchant writes it. */
  aliases: readonly string[];
  /** The tracking page, `{number}` standing for the URL-encoded tracking number. */
  trackingUrl: string;
}

export const CARRIERS: readonly Carrier[] = [
  {
    name: 'UPS',
    aliases: ['united parcel service'],
    trackingUrl: 'https://www.ups.com/track?tracknum={number}',
  },
  {
    name: 'USPS',
    aliases: ['us postal service', 'united states postal service'],
    trackingUrl: 'https://tools.usps.com/go/TrackConfirmAction?tLabels={number}',
  },
  {
    name: 'FedEx',
    aliases: ['federal express'],
    trackingUrl: 'https://www.fedex.com/fedextrack/?trknbr={number}',
  },
  {
    name: 'DHL',
    aliases: ['dhl express'],
    trackingUrl:
      'https://www.dhl.com/global-en/home/tracking/tracking-express.html?submit=1&tracking-id={number}',
  },
  {
    name: 'Royal Mail',
    aliases: [],
    trackingUrl: 'https://www.royalmail.com/track-your-item#/tracking-results/{number}',
  },
  {
    name: 'Canada Post',
    aliases: ['postes canada'],
    trackingUrl: 'https://www.canadapost-postescanada.ca/track-reperage/en#/search?searchFor={number}',
  },
  {
    name: 'Australia Post',
    aliases: ['auspost'],
    trackingUrl: 'https://auspost.com.au/mypost/track/details/{number}',
  },
  { name: 'PostNL', aliases: [], trackingUrl: 'https://jouw.postnl.nl/track-and-trace/{number}' },
  {
    name: 'La Poste',
    aliases: ['colissimo'],
    trackingUrl: 'https://www.laposte.fr/outils/suivre-vos-envois?code={number}',
  },
  {
    name: 'Deutsche Post',
    aliases: ['dhl paket', 'dhl parcel germany'],
    trackingUrl: 'https://www.deutschepost.de/de/s/sendungsverfolgung.html?piececode={number}',
  },
];

const key = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

const byKey = new Map<string, Carrier>(
  CARRIERS.flatMap((carrier) =>
    [carrier.name, ...carrier.aliases].map((name) => [key(name), carrier] as const),
  ),
);

/** The carrier a merchant's name for it means, or null for one we do not know. */
export function knownCarrier(name: string): Carrier | null {
  return byKey.get(key(name)) ?? null;
}

/** The tracking page of a number at a known carrier, or null. */
export function trackingUrlOf(carrier: string, trackingNumber: string): string | null {
  const known = knownCarrier(carrier);
  return known ? known.trackingUrl.replace('{number}', encodeURIComponent(trackingNumber.trim())) : null;
}
