/**
 * Price lists on the Admin API (docs/markets.md "Price lists", decision `price-lists`): sales and
 * overrides of variants' prices for a while, in some markets, for some customer groups. The list
 * (every page: each with its `priceCount`), one list with its prices, save and delete; the catalog's
 * variants a form names, by id and by SKU (a list's prices name variants by id, a pasted CSV by SKU:
 * `GET /variants?sku=&id=` finds just those); and
 * `GET /variants/{id}/price`, which explains which price wins for a buyer.
 *
 * A list's change moves the prices shops show, not the admin's product records (their own prices),
 * so only the price lists and the explanations under their key are read again.
 */
import type { QueryParams, RequestBody, SuccessBody } from '@storefront/client';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { useChangeAndRefresh, type ListChangeOptions } from '../ui/queries.tsx';
import { useDebounced } from '../ui/search.tsx';
import { invalidate } from './cache.ts';
import { productKeys } from './products.ts';
import type { CatalogVariant } from './catalog-variant.ts';

export type { CatalogVariant } from './catalog-variant.ts';

export type PriceListSummary = SuccessBody<'adminListPriceLists'>['items'][number];
export type PriceList = SuccessBody<'adminGetPriceList'>;
export type PriceListKind = PriceList['kind'];
export type PriceListPrice = PriceList['prices'][number];
export type NewPriceListBody = RequestBody<'adminCreatePriceList'>;
export type PriceListPatch = RequestBody<'adminUpdatePriceList'>;
export type PriceExplanation = SuccessBody<'adminExplainVariantPrice'>;
export type ExplainQuery = QueryParams<'adminExplainVariantPrice'>;

export interface VariantIndex {
  byId: ReadonlyMap<string, CatalogVariant>;
  bySku: ReadonlyMap<string, CatalogVariant>;
}

export const priceListKeys = {
  all: ['price-lists'] as const,
  list: () => [...priceListKeys.all, 'list'] as const,
  detail: (id: string) => [...priceListKeys.all, 'detail', id] as const,
  explain: (variantId: string, query: ExplainQuery) =>
    [...priceListKeys.all, 'explain', variantId, query] as const,
};

/** Every price list, oldest first, without their prices (each says how many it has). */
export function usePriceLists() {
  const admin = useAdmin();
  return useQuery({
    queryKey: priceListKeys.list(),
    queryFn: async () => {
      const items: PriceListSummary[] = [];
      for await (const list of admin.list('adminListPriceLists', { query: { limit: 100 } })) items.push(list);
      return { items };
    },
  });
}

/** One list with every price (for its form and its table of prices). */
export function usePriceList(id: string | null) {
  const admin = useAdmin();
  return useQuery({
    queryKey: priceListKeys.detail(id ?? ''),
    queryFn: () => admin.request('adminGetPriceList', { path: { id: id! } }),
    enabled: id !== null,
    refetchOnMount: 'always',
  });
}

/** At most this many SKUs or ids in one lookup (the API's bound). */
const LOOKUP_BATCH = 100;

/**
 * The variants a price list's form names: the SKUs pasted and the ids of its current prices, looked
 * up by `GET /variants?sku=&id=` in batches of 100 (never the whole catalog), by id and by exact
 * SKU. The SKUs are those of the paste as it was 300 ms ago, so typing does not ask on every key.
 */
export function useVariantIndex(skus: readonly string[], ids: readonly string[]) {
  const admin = useAdmin();
  const current = [...new Set(skus)].sort().join('\n');
  const wanted = useDebounced(current, 300);
  const idKey = [...new Set(ids)].sort().join('\n');
  const query = useQuery({
    queryKey: [...productKeys.lists(), 'variant-index', wanted, idKey],
    queryFn: async ({ signal }): Promise<VariantIndex> => {
      const byId = new Map<string, CatalogVariant>();
      const bySku = new Map<string, CatalogVariant>();
      const skuList = wanted === '' ? [] : wanted.split('\n');
      const idList = idKey === '' ? [] : idKey.split('\n');
      const batches = Math.max(
        Math.ceil(skuList.length / LOOKUP_BATCH),
        Math.ceil(idList.length / LOOKUP_BATCH),
      );
      for (let n = 0; n < batches; n++) {
        const found = await admin.request('adminLookupVariants', {
          query: {
            sku: skuList.slice(n * LOOKUP_BATCH, (n + 1) * LOOKUP_BATCH),
            id: idList.slice(n * LOOKUP_BATCH, (n + 1) * LOOKUP_BATCH),
          },
          signal,
        });
        for (const variant of found.items) {
          byId.set(variant.id, variant);
          if (variant.sku) bySku.set(variant.sku, variant);
        }
      }
      return { byId, bySku };
    },
    placeholderData: keepPreviousData,
    staleTime: 60_000,
  });
  // The pasted SKUs are not all looked up yet (typing has not paused, or the lookup is running):
  // the lines resolved so far are not final.
  return { ...query, settling: current !== wanted || query.isFetching };
}

export type PriceListSave = { id: null; body: NewPriceListBody } | { id: string; body: PriceListPatch };

/**
 * Creates a list, or changes the one `id` names (the fields given; `prices` replaces the list's).
 * Then the lists and that list are read again.
 */
export function useSavePriceList(onSaved: (list: PriceList) => void) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (save: PriceListSave) =>
      save.id === null
        ? admin.request('adminCreatePriceList', { body: save.body })
        : admin.request('adminUpdatePriceList', { path: { id: save.id }, body: save.body }),
    onSuccess: async (list) => {
      await invalidate(queryClient, priceListKeys.all);
      onSaved(list);
    },
  });
}

/** Deletes a list; the lists are read again. */
export function useDeletePriceList(options: ListChangeOptions<PriceListSummary>) {
  const admin = useAdmin();
  return useChangeAndRefresh({
    change: (list: PriceListSummary) => admin.request('adminDeletePriceList', { path: { id: list.id } }),
    refresh: [priceListKeys.all],
    forget: (list) => priceListKeys.detail(list.id),
    ...options,
  });
}

/**
 * Why a variant costs what it costs for a buyer (their country's market, a group they are in, a
 * time): the winning price, the market's price and every list that applied. Asked when `query` is
 * given (the form's "Explain"), not before; the answer shown stays while another is asked.
 */
export function usePriceExplanation(variantId: string, query: ExplainQuery | null) {
  const admin = useAdmin();
  return useQuery({
    queryKey: priceListKeys.explain(variantId, query ?? {}),
    queryFn: ({ signal }) =>
      admin.request('adminExplainVariantPrice', { path: { id: variantId }, query: query ?? {}, signal }),
    enabled: query !== null,
    staleTime: 0,
    placeholderData: keepPreviousData,
  });
}
