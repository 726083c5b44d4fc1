/**
 * Which shipping methods a parcel can take and what each costs (decision `shipping-zones-and-methods`): pure functions of a store's
 * zones, the destination and the parcel, shared by the cart's options, its totals and checkout.
 */
import type { ShippingMethodKind, WeightTier, ZoneArea } from './shipping.tables.ts';

/** Where a parcel goes; the region is an ISO 3166-2 code, the postal code normalised (upper case). */
export interface Destination {
  country: string;
  region?: string | null;
  postalCode?: string | null;
}

/** What the parcel holds, as the methods price it. */
export interface Parcel {
  /** The goods' amount after discounts, in minor units (free_over compares with it). */
  subtotal: number;
  /** The lines' weight in grams (lines of variants without a weight count as 0). */
  weightGrams: number;
}

export interface RatedZone<M> {
  id: string;
  areas: readonly ZoneArea[];
  methods: readonly M[];
}

export interface RatedMethod {
  kind: ShippingMethodKind;
  amount: number | null;
  freeOverAmount: number | null;
  weightTiers: readonly WeightTier[] | null;
  active: boolean;
}

/**
 * How specifically an area matches a destination: a postal-code prefix (longer is more specific),
 * then a region, then the whole country, then `*`; -1 when it does not match.
 */
export function areaSpecificity(area: ZoneArea, to: Destination): number {
  if (area.country === '*') return 0;
  if (area.country !== to.country) return -1;
  if (area.postalCodePrefixes.length > 0) {
    const postal = (to.postalCode ?? '').toUpperCase();
    const longest = Math.max(
      -1,
      ...area.postalCodePrefixes.filter((prefix) => postal.startsWith(prefix)).map((prefix) => prefix.length),
    );
    return longest < 0 ? -1 : 1000 + longest;
  }
  if (area.regions.length > 0) return to.region && area.regions.includes(to.region) ? 100 : -1;
  return 10;
}

/** The zone a destination belongs to: the one with the most specific matching area, or null. */
export function zoneFor<Z extends RatedZone<unknown>>(zones: readonly Z[], to: Destination): Z | null {
  let best: Z | null = null;
  let bestScore = -1;
  for (const zone of zones) {
    const score = Math.max(-1, ...zone.areas.map((area) => areaSpecificity(area, to)));
    if (score > bestScore) {
      best = zone;
      bestScore = score;
    }
  }
  return best;
}

/** What a method charges for a parcel, or null when it cannot carry it (inactive, too heavy). */
export function methodAmount(method: RatedMethod, parcel: Parcel): number | null {
  if (!method.active) return null;
  switch (method.kind) {
    case 'flat':
    case 'pickup':
      return method.amount ?? 0;
    case 'free_over':
      return method.freeOverAmount !== null && parcel.subtotal >= method.freeOverAmount
        ? 0
        : (method.amount ?? 0);
    case 'weight': {
      const tier = [...(method.weightTiers ?? [])]
        .sort((a, b) => a.upToGrams - b.upToGrams)
        .find((candidate) => parcel.weightGrams <= candidate.upToGrams);
      return tier ? tier.amount : null;
    }
  }
}

/** The methods a parcel to a destination can take, each with its amount, cheapest first. */
export function ratedMethods<M extends RatedMethod & { name: string }>(
  zones: readonly RatedZone<M>[],
  to: Destination,
  parcel: Parcel,
): { method: M; amount: number }[] {
  const zone = zoneFor(zones, to);
  if (!zone) return [];
  return zone.methods
    .map((method) => ({ method, amount: methodAmount(method, parcel) }))
    .filter((rated): rated is { method: M; amount: number } => rated.amount !== null)
    .sort((a, b) => a.amount - b.amount || a.method.name.localeCompare(b.method.name));
}
