import { isKnownCountry } from '@storefront/address';
import { lockScope } from '../db/advisory-lock.ts';
import { withLongBound } from '../db/bounds.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import { storeSetting } from '../db/settings-cache.ts';
import { AppError, notFound, validationFailed, type FieldError } from '../lib/errors.ts';
import {
  changeStoreSettings,
  findStore,
  setDefaultMarketName,
  storeCurrency,
} from '../stores/stores.service.ts';
import type { Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import { convert, isExchangeRate } from './conversion.ts';
import { currencyDigits } from './currencies.ts';
import {
  countriesTaken,
  normalRate,
  deleteMarketRow,
  insertMarket,
  lockMarket,
  marketRows,
  replaceCountries,
  updateMarketRow,
  type MarketWithCountries,
} from './markets.repository.ts';
import type { Market as MarketView, MarketBody, MarketPatch, StorefrontMarkets } from './markets.schemas.ts';
import type { Rounding } from './markets.tables.ts';

/**
 * Markets (decision `markets`, docs/decisions/markets.md): a store sells to groups of countries,
 * each in its currency, with its rounding rule and whether its prices include tax. The default
 * market (the store's currency, every country no other market names) is made with the store and
 * cannot go; its id is the store's.
 */

type Deps = Pick<ServiceDeps, 'db' | 'clock'>;

/**
 * The bound of a market's creation or re-pricing, which prices every product of the store in one
 * transaction (100,000 products: about 40 s on PostgreSQL, bench/RESULTS.md); the same as the
 * statement timeout its transaction sets.
 */
const CATALOG_WORK_MS = 10 * 60_000;

/**
 * What a market's writes need besides the database: the catalog's recomputation of its card prices
 * in markets whose prices changed (given by the composition: the catalog prices in markets, so
 * markets cannot call it).
 */
export type MarketsDeps = Deps & {
  refreshMarketCards: (
    trx: Transaction<Database>,
    storeId: string,
    markets: MarketPricing[],
  ) => Promise<void>;
};

/** What a read in a market converts with (null on the default market, which converts nothing). */
export interface MarketPricing {
  marketId: string;
  currency: string;
  /** The merchant's decimal rate from the store's currency. */
  rate: string;
  /** ISO 4217 minor units of the market's currency and of the store's. */
  digits: number;
  baseDigits: number;
  rounding: Rounding;
}

const pricingOf = (
  row: Pick<MarketWithCountries, 'id' | 'currency' | 'exchange_rate' | 'digits' | 'base_digits' | 'rounding'>,
): MarketPricing => ({
  marketId: row.id,
  currency: row.currency,
  rate: row.exchange_rate,
  digits: row.digits!,
  baseDigits: row.base_digits!,
  rounding: row.rounding,
});

/** A market as the rest of the service prices with it. */
export interface Market {
  id: string;
  name: string;
  isDefault: boolean;
  currency: string;
  countries: string[];
  pricesIncludeTax: boolean;
  exchangeRate: string;
  rounding: Rounding;
  /** How its prices are made from the store's (null: the default market's are the variants' own). */
  pricing: MarketPricing | null;
}

function toMarket(row: MarketWithCountries, storePricesIncludeTax: boolean): Market {
  return {
    id: row.id,
    name: row.name,
    isDefault: row.is_default,
    currency: row.currency,
    countries: row.countries,
    pricesIncludeTax: row.is_default ? storePricesIncludeTax : row.prices_include_tax,
    exchangeRate: row.is_default ? '1' : row.exchange_rate,
    rounding: row.is_default ? 'none' : row.rounding,
    pricing: row.is_default ? null : pricingOf(row),
  };
}

const view = (market: Market, row: MarketWithCountries): MarketView => ({
  id: market.id,
  name: market.name,
  default: market.isDefault,
  countries: market.countries,
  currency: market.currency,
  pricesIncludeTax: market.pricesIncludeTax,
  exchangeRate: market.exchangeRate,
  rounding: market.rounding,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

async function loadMarkets(deps: Pick<ServiceDeps, 'db'>, storeId: string) {
  const [rows, store] = await Promise.all([marketRows(deps.db, storeId), findStore(deps, storeId)]);
  return rows.map((row) => ({ row, market: toMarket(row, store?.pricesIncludeTax ?? false) }));
}

/**
 * The store's markets, from the API process's settings cache (dropped at every change of a market,
 * its countries or the store: decision `settings-cache`).
 */
export async function storeMarkets(deps: Pick<ServiceDeps, 'db'>, storeId: string): Promise<Market[]> {
  const loaded = await storeSetting(deps.db, storeId, 'markets', () => loadMarkets(deps, storeId));
  return loaded.map((entry) => entry.market);
}

/** The store's markets as a shop shows them (its country selector): the default first. */
export async function storefrontMarkets(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
): Promise<StorefrontMarkets> {
  const markets = await storeMarkets(deps, storeId);
  return {
    items: markets.map((market) => ({
      countries: market.countries,
      currency: market.currency,
      pricesIncludeTax: market.pricesIncludeTax,
      default: market.isDefault,
    })),
  };
}

/** The market a country is in: the one that names it, else the default market. */
export async function marketOfCountry(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  country: string | null | undefined,
): Promise<Market> {
  const markets = await storeMarkets(deps, storeId);
  const upper = country?.toUpperCase();
  const named = upper ? markets.find((market) => market.countries.includes(upper)) : undefined;
  const found = named ?? markets.find((market) => market.isDefault);
  if (!found) throw notFound('The store no longer exists.');
  return found;
}

/**
 * Decision `market-prices`: turns an amount the store set in its own currency (a flat rate, a
 * threshold, a fixed discount) into the market's, at its rate, half up; undefined in the default
 * market (nothing to convert).
 */
export function storeAmountsIn(market: Market): ((amount: number) => number) | undefined {
  const pricing = market.pricing;
  if (pricing === null) return undefined;
  const conversion = {
    rate: pricing.rate,
    digits: pricing.digits,
    baseDigits: pricing.baseDigits,
    rounding: 'none' as const,
  };
  return (amount) => convert(amount, conversion);
}

/** The market with that id, or undefined. */
export async function marketById(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  marketId: string,
): Promise<Market | undefined> {
  return (await storeMarkets(deps, storeId)).find((market) => market.id === marketId);
}

// Admin

const noMarket = () => notFound('No market with that id in this store.');

export async function listMarkets(deps: Pick<ServiceDeps, 'db'>, storeId: string): Promise<MarketView[]> {
  return (await loadMarkets(deps, storeId)).map(({ row, market }) => view(market, row));
}

export async function getMarket(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  marketId: string,
): Promise<MarketView> {
  const found = (await loadMarkets(deps, storeId)).find((entry) => entry.row.id === marketId);
  if (!found) throw noMarket();
  return view(found.market, found.row);
}

/** Upper-cased, deduplicated countries, each an ISO 3166-1 alpha-2 code (400 at its index otherwise). */
function checkCountries(countries: readonly string[], errors: FieldError[]): string[] {
  const out: string[] = [];
  countries.forEach((raw, i) => {
    const country = raw.trim().toUpperCase();
    if (!/^[A-Z]{2}$/.test(country) || !isKnownCountry(country))
      errors.push({
        pointer: `/countries/${i}`,
        detail: 'must be an ISO 3166-1 alpha-2 country code such as DE',
      });
    else if (!out.includes(country)) out.push(country);
  });
  return out.sort();
}

function checkCurrency(raw: string, errors: FieldError[]): { currency: string; digits: number } | null {
  const currency = raw.trim().toUpperCase();
  const digits = currencyDigits(currency);
  if (digits === undefined) {
    errors.push({ pointer: '/currency', detail: 'must be an ISO 4217 currency code such as EUR' });
    return null;
  }
  return { currency, digits };
}

function checkRate(rate: string | undefined, errors: FieldError[]): void {
  if (rate !== undefined && !isExchangeRate(rate))
    errors.push({
      pointer: '/exchangeRate',
      detail: 'must be a positive decimal such as "0.92" (at most 6 digits before the point and 12 after)',
    });
}

const conflict = (taken: readonly { country: string; name: string }[]) =>
  new AppError(
    'market_conflict',
    409,
    `A country is in one market at most: ${taken.map((t) => `${t.country} is in ${t.name}`).join(', ')}. Take it out there first.`,
    {
      errors: taken.map((t) => ({
        pointer: '/countries',
        detail: `${t.country} is in the market ${t.name}`,
      })),
    },
  );

/**
 * A country a concurrent write gave another market (the primary key of market_countries refused
 * it): the same 409 as the check's.
 */
async function countryConflict(deps: Deps, storeId: string, marketId: string | null, countries: string[]) {
  return conflict(await countriesTaken(deps.db, storeId, marketId, countries));
}

export async function createMarket(
  deps: MarketsDeps,
  storeId: string,
  body: MarketBody,
): Promise<MarketView> {
  const errors: FieldError[] = [];
  const countries = checkCountries(body.countries, errors);
  const currency = checkCurrency(body.currency, errors);
  checkRate(body.exchangeRate, errors);
  const base = await storeCurrency(deps, storeId);
  if (currency && currency.currency !== base && body.exchangeRate === undefined)
    errors.push({
      pointer: '/exchangeRate',
      detail: `is needed: prices without an explicit ${currency.currency} price are converted from ${base} with it`,
    });
  if (errors.length > 0 || !currency) throw validationFailed('The market is invalid.', errors);
  const now = deps.clock.now();
  try {
    // Its cards are every product's: a large catalog's take longer than a request's usual bound.
    const id = await withLongBound(CATALOG_WORK_MS, () =>
      deps.db.transaction().execute(async (trx) => {
        await lockScope(trx, 'markets', storeId);
        const taken = await countriesTaken(trx, storeId, null, countries);
        if (taken.length > 0) throw conflict(taken);
        const row = await insertMarket(trx, {
          store_id: storeId,
          name: body.name.trim(),
          currency: currency.currency,
          digits: currency.digits,
          base_digits: currencyDigits(base) ?? 2,
          exchange_rate: body.exchangeRate ?? '1',
          rounding: body.rounding ?? 'none',
          prices_include_tax: body.pricesIncludeTax ?? false,
          created_at: now,
          updated_at: now,
        });
        await replaceCountries(trx, storeId, row.id, countries);
        await deps.refreshMarketCards(trx, storeId, [pricingOf(row)]);
        return row.id;
      }),
    );
    return await getMarket(deps, storeId, id);
  } catch (error) {
    if (isUniqueViolation(error)) throw await countryConflict(deps, storeId, null, countries);
    throw error;
  }
}

export async function updateMarket(
  deps: MarketsDeps,
  storeId: string,
  marketId: string,
  patch: MarketPatch,
): Promise<MarketView> {
  const errors: FieldError[] = [];
  const countries = patch.countries === undefined ? undefined : checkCountries(patch.countries, errors);
  const currency = patch.currency === undefined ? undefined : checkCurrency(patch.currency, errors);
  checkRate(patch.exchangeRate, errors);
  if (errors.length > 0) throw validationFailed('The market change is invalid.', errors);
  const now = deps.clock.now();
  try {
    // A new rate, rounding or currency prices every product again (see createMarket).
    await withLongBound(CATALOG_WORK_MS, () =>
      deps.db.transaction().execute(async (trx) => {
        await lockScope(trx, 'markets', storeId);
        const row = await lockMarket(trx, storeId, marketId);
        if (!row) throw noMarket();
        if (row.is_default) {
          const fixed: FieldError[] = [];
          if (countries !== undefined)
            fixed.push({
              pointer: '/countries',
              detail: 'the default market holds every country no other market names',
            });
          if (currency !== undefined && currency?.currency !== row.currency)
            fixed.push({
              pointer: '/currency',
              detail: 'the default market’s currency is the store’s, which never changes',
            });
          if (patch.exchangeRate !== undefined && Number(patch.exchangeRate) !== 1)
            fixed.push({
              pointer: '/exchangeRate',
              detail: 'the default market’s prices are the variants’ own',
            });
          if (patch.rounding !== undefined && patch.rounding !== 'none')
            fixed.push({ pointer: '/rounding', detail: 'the default market’s prices are the variants’ own' });
          if (fixed.length > 0) throw validationFailed('The default market cannot change that.', fixed);
          if (patch.name !== undefined) {
            await setDefaultMarketName({ db: trx }, storeId, patch.name.trim());
            await updateMarketRow(trx, storeId, marketId, { name: patch.name.trim(), updated_at: now });
          }
          if (patch.pricesIncludeTax !== undefined)
            await changeStoreSettings({ db: trx, clock: deps.clock }, storeId, {
              pricesIncludeTax: patch.pricesIncludeTax,
            });
          return;
        }
        if (countries !== undefined) {
          const taken = await countriesTaken(trx, storeId, marketId, countries);
          if (taken.length > 0) throw conflict(taken);
          await replaceCountries(trx, storeId, marketId, countries);
        }
        const base = await storeCurrency(deps, storeId);
        const nextCurrency = currency?.currency ?? row.currency;
        const nextRate = patch.exchangeRate ?? row.exchange_rate;
        if (
          currency &&
          currency.currency !== base &&
          currency.currency !== row.currency &&
          patch.exchangeRate === undefined
        )
          throw validationFailed('The market change is invalid.', [
            {
              pointer: '/exchangeRate',
              detail: `is needed with a new currency: prices are converted from ${base} with it`,
            },
          ]);
        await updateMarketRow(trx, storeId, marketId, {
          updated_at: now,
          ...(patch.name !== undefined ? { name: patch.name.trim() } : {}),
          ...(currency ? { currency: nextCurrency, digits: currency.digits } : {}),
          ...(patch.exchangeRate !== undefined ? { exchange_rate: nextRate } : {}),
          ...(patch.rounding !== undefined ? { rounding: patch.rounding } : {}),
          ...(patch.pricesIncludeTax !== undefined ? { prices_include_tax: patch.pricesIncludeTax } : {}),
        });
        if (currency !== undefined || patch.exchangeRate !== undefined || patch.rounding !== undefined) {
          const changed = await lockMarket(trx, storeId, marketId);
          await deps.refreshMarketCards(trx, storeId, [
            pricingOf({ ...changed!, exchange_rate: normalRate(changed!.exchange_rate) }),
          ]);
        }
      }),
    );
  } catch (error) {
    if (isUniqueViolation(error)) throw await countryConflict(deps, storeId, marketId, countries ?? []);
    throw error;
  }
  return getMarket(deps, storeId, marketId);
}

export async function deleteMarket(deps: Deps, storeId: string, marketId: string): Promise<void> {
  if (marketId === storeId)
    throw new AppError(
      'market_is_default',
      409,
      'The default market cannot be deleted: it holds every country no other market names.',
    );
  // Under the markets' lock: a product priced meanwhile has either seen the market, and its card
  // rows go with it, or waits and does not see it.
  const deleted = await deps.db.transaction().execute(async (trx) => {
    await lockScope(trx, 'markets', storeId);
    return deleteMarketRow(trx, storeId, marketId);
  });
  if (!deleted) throw noMarket();
}
