import { isKnownCountry } from '@storefront/address';
import { readPricing, type ReadPricing } from '../catalog/inventory/sellable.ts';
import { validationFailed } from '../lib/errors.ts';
import { marketOfCountry, type Market } from '../markets/markets.service.ts';
import type { CartNotice } from './carts.schemas.ts';
import type { CartRow } from './carts.tables.ts';

/**
 * A cart's market (decision `markets`): the country it is priced for, the market that follows from
 * its address or country, how its buyer is priced there, and the notice of a move to another.
 */

/** The notice of a write that moved the cart to another market (none when it stayed). */
export function movedNotice(was: Market | null, now: Market | null): CartNotice[] {
  if (was === null || now === null || was.id === now.id) return [];
  return [
    {
      code: 'market_changed',
      detail: `The cart moved from the market ${was.name} (${was.currency}) to ${now.name} (${now.currency}): every line is priced there now.`,
    },
  ];
}

/** An ISO 3166-1 alpha-2 code, upper-cased; 400 otherwise. */
export function checkCountry(country: string): string {
  const upper = country.toUpperCase();
  if (!isKnownCountry(upper))
    throw validationFailed('The country is not one.', [
      { pointer: '/country', detail: 'must be an ISO 3166-1 alpha-2 country code such as DE' },
    ]);
  return upper;
}

/** How the cart's buyer is priced in a market: with the price lists of their groups. */
export function pricingFor(
  deps: Parameters<typeof readPricing>[0] & { groupIds?: readonly string[] | undefined },
  storeId: string,
  market: Market,
): Promise<ReadPricing | null> {
  return readPricing(deps, storeId, market, deps.groupIds ?? []);
}

/** The market a cart is priced in: its address's country's, else its own country's, else the default. */
export function marketOfCart(deps: Parameters<typeof marketOfCountry>[0], row: CartRow): Promise<Market> {
  return marketOfCountry(deps, row.store_id, row.shipping_address?.country ?? row.country);
}
