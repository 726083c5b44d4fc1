/**
 * Markets on the Admin API (docs/markets.md, decision `markets`): the countries a store sells to in
 * each currency, with its exchange rate and rounding. Their key is under the settings' root: the
 * default market's tax setting is the store's, so a change of either refreshes both (a settings
 * change marks the markets stale in settings.ts; a market's change reads the settings again here).
 */
import type { RequestBody, SuccessBody } from '@storefront/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { useChangeAndRefresh, type ListChangeOptions } from '../ui/queries.tsx';
import { invalidate } from './cache.ts';
import { settingsKeys } from './settings.ts';

export type Market = SuccessBody<'adminGetMarket'>;
export type Rounding = Market['rounding'];
export type NewMarketBody = RequestBody<'adminCreateMarket'>;
export type MarketPatch = RequestBody<'adminUpdateMarket'>;

export const marketKeys = {
  all: settingsKeys.markets(),
};

/** The store's markets, the default first (one list: a store has few). */
export function useMarkets() {
  const admin = useAdmin();
  return useQuery({
    queryKey: marketKeys.all,
    queryFn: () => admin.request('adminListMarkets'),
    staleTime: 30_000,
  });
}

export type MarketSave = { id: null; body: NewMarketBody } | { id: string; body: MarketPatch };

/**
 * Creates a market, or changes the one `id` names; a country another market holds is 409
 * `market_conflict`, its `errors` pointing at `/countries`. Then the markets and the settings
 * (the default market's tax setting) are read again.
 */
export function useSaveMarket(onSaved: (market: Market) => void) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (save: MarketSave) =>
      save.id === null
        ? admin.request('adminCreateMarket', { body: save.body })
        : admin.request('adminUpdateMarket', { path: { id: save.id }, body: save.body }),
    onSuccess: async (market) => {
      await invalidate(queryClient, settingsKeys.all);
      onSaved(market);
    },
  });
}

/** Deletes a market (not the default: 409 `market_is_default`); its countries join the default market. */
export function useDeleteMarket(options: ListChangeOptions<Market>) {
  const admin = useAdmin();
  return useChangeAndRefresh({
    change: (market: Market) => admin.request('adminDeleteMarket', { path: { id: market.id } }),
    refresh: [marketKeys.all],
    ...options,
  });
}
