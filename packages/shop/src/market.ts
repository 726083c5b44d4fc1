/**
 * The shopper's market (decision `markets`): the country chosen in the footer's selector, kept in
 * localStorage per store (it survives a reload, and every tab follows a choice made in one), and the
 * store's markets (`GET /storefront/v1/store/markets`), read once per visit. Catalog reads pass the
 * country (`?country=`), so cards, products and filters come in its market's currency; the cart is
 * made with it and moved when it changes (cart.ts). No country: the default market.
 */
import type { SuccessBody } from '@storefront/client';
import { useEffect, useState } from 'preact/hooks';
import { config, shopApi } from './api.ts';
import { useResource } from './data.ts';

export type StoreMarket = SuccessBody<'getStoreMarkets'>['items'][number];

/** Where the chosen country is kept: one entry per store (by its publishable key). */
export const COUNTRY_KEY = `storefront.country.${config.publishableKey ?? ''}`;

export interface MarketState {
  /**
   * The country the shop sells to (ISO 3166-1 alpha-2), or null: none chosen, or one no market
   * names any more ("Other", the default market).
   */
  country: string | null;
  /** The store's markets, the default first; null until read. */
  markets: readonly StoreMarket[] | null;
  /** The market of `country` (else the default); null until the markets are read. */
  market: StoreMarket | null;
}

function storedCountry(): string | null {
  try {
    const value = window.localStorage.getItem(COUNTRY_KEY);
    return value && /^[A-Z]{2}$/.test(value) ? value : null;
  } catch {
    return null;
  }
}

function storeCountry(country: string | null): void {
  try {
    if (country) window.localStorage.setItem(COUNTRY_KEY, country);
    else window.localStorage.removeItem(COUNTRY_KEY);
  } catch {
    // Storage refused (private mode): the choice lasts as long as the page.
  }
}

function stateOf(chosen: string | null, markets: readonly StoreMarket[] | null): MarketState {
  if (markets === null) return { country: chosen, markets, market: null };
  const named = chosen ? markets.find((market) => market.countries.includes(chosen)) : undefined;
  return {
    country: named ? chosen : null,
    markets,
    market: named ?? markets.find((market) => market.default) ?? null,
  };
}

class MarketStore {
  #chosen = storedCountry();
  #markets: readonly StoreMarket[] | null = null;
  #reading: Promise<void> | null = null;
  #state = stateOf(this.#chosen, null);
  readonly #listeners = new Set<(state: MarketState) => void>();

  constructor() {
    window.addEventListener('storage', (event) => {
      if (event.key === COUNTRY_KEY) this.#update(storedCountry());
    });
  }

  get state(): MarketState {
    return this.#state;
  }

  subscribe(listener: (state: MarketState) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  #update(chosen: string | null): void {
    this.#chosen = chosen;
    const next = stateOf(chosen, this.#markets);
    const same =
      next.country === this.#state.country &&
      next.market === this.#state.market &&
      next.markets === this.#state.markets;
    this.#state = next;
    if (!same) this.#listeners.forEach((listener) => listener(next));
  }

  /** Reads the store's markets once (again after a failure). */
  load(): Promise<void> {
    this.#reading ??= shopApi()
      .request('getStoreMarkets')
      .then(
        ({ items }) => {
          this.#markets = items;
          this.#update(this.#chosen);
        },
        (error: unknown) => {
          this.#reading = null;
          throw error;
        },
      );
    return this.#reading;
  }

  /** The shopper's choice: a country of a market, or null for "Other" (the default market). */
  choose(country: string | null): void {
    storeCountry(country);
    this.#update(country);
  }
}

export const marketStore = new MarketStore();

export function useMarket(): MarketState {
  const [state, setState] = useState(marketStore.state);
  useEffect(() => {
    const unsubscribe = marketStore.subscribe(setState);
    setState(marketStore.state);
    return unsubscribe;
  }, []);
  return state;
}

/** The query that reads in the shopper's market: `{country}`, or nothing for the default market. */
export function inCountry(country: string | null): { country?: string } {
  return country ? { country } : {};
}

/** A key of `useResource` for a read in a market: each market's answer is kept apart. */
export function marketKey(key: string, country: string | null): string {
  return country ? `${key}@${country}` : key;
}

/**
 * The currency the shopper's prices are in: their market's, or the store's while the markets are
 * not read (or cannot be) and no country is chosen; undefined while it is not known.
 */
export function useMarketCurrency(): string | undefined {
  const { country, market } = useMarket();
  const store = useResource('store', () => shopApi().store.get());
  return market?.currency ?? (country === null ? store.data?.currency : undefined);
}
