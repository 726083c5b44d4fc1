/**
 * Products on the Admin API: their query keys, the reads (a page of the list with its search,
 * filters and sort; one product) and the changes (create, save with its options, images and
 * variants, restore an archived variant, delete).
 *
 * A product's change refreshes the product lists and the collections (their members follow a
 * product's tags, title and price). An order's change that moves stock (a cancellation, a return)
 * refreshes every product query (data/orders.ts): a product opened from an order shows the stock
 * after it.
 */
import type { components, QueryParams, RequestBody } from '@storefront/client';
import {
  keepPreviousData,
  useMutation,
  useQueries,
  useQuery,
  useQueryClient,
  type QueryClient,
} from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { isStatus } from '../ui/problems.ts';
import { FORM_RECORD } from '../ui/queries.tsx';
import { invalidate } from './cache.ts';
import { catalogKeys } from './catalog.ts';

export type AdminProduct = components['schemas']['AdminProduct'];
export type AdminVariant = components['schemas']['AdminVariant'];
export type ProductStatus = AdminProduct['status'];
export type ProductOption = components['schemas']['ProductOption'];

/** A product's image (decision `media-uploads`) as the admin reads show it: the media id, its path and size, the alt text. */
export type ProductImage = components['schemas']['ProductImage'];

/** Whether a variant is live (not archived, decision `product-options`): lists, prices and stock count only those. */
export const isLive = (variant: AdminVariant): boolean => !variant.archived;

/** A product's images in a request: media ids in order, with their alt text. */
export type ImageInput = components['schemas']['ProductImageInput'][];
export type NewVariantBody = RequestBody<'adminCreateVariant'>;
export type VariantChangeBody = RequestBody<'adminUpdateVariant'>;
export type NewProductBody = RequestBody<'adminCreateProduct'>;
export type ProductChangeBody = RequestBody<'adminUpdateProduct'>;

/** The list's orders (`sort`); the console shows newest first unless told otherwise. */
export const PRODUCT_SORTS = ['created_desc', 'created_asc', 'title_asc', 'price_asc', 'price_desc'] as const;
export type ProductSort = (typeof PRODUCT_SORTS)[number];

/** The list's stock filter (`stock`): sellable units summed over the variants. */
export const STOCK_FILTERS = ['in_stock', 'low', 'out'] as const;
export type StockFilter = (typeof STOCK_FILTERS)[number];

/** A product is low on stock at this many sellable units or fewer (the server's LOW_STOCK_THRESHOLD). */
export const LOW_STOCK = 5;

/**
 * The list's query. `collection`, `stock` and `sort` are spelled out here until the client's
 * generated types (`npm run client:types`) include them.
 */
export type ProductListQuery = QueryParams<'adminListProducts'> & {
  collection?: string;
  stock?: StockFilter;
  sort?: ProductSort;
};

export const productKeys = {
  all: catalogKeys.products(),
  lists: () => [...productKeys.all, 'list'] as const,
  list: (query: ProductListQuery) => [...productKeys.lists(), query] as const,
  details: () => [...productKeys.all, 'detail'] as const,
  detail: (id: string) => [...productKeys.details(), id] as const,
};

/** After a product changed: the lists that show it, and the collections that may hold it. */
function refreshLists(queryClient: QueryClient): Promise<void> {
  return invalidate(queryClient, productKeys.lists(), catalogKeys.collections());
}

/** A page of the list; the page shown stays while the next one (or another search) is read. */
export function useProducts(query: ProductListQuery) {
  const admin = useAdmin();
  return useQuery({
    queryKey: productKeys.list(query),
    queryFn: () => admin.products.list(query),
    placeholderData: keepPreviousData,
  });
}

/**
 * One product, for its form: read again on every visit (FORM_RECORD), even when a copy is cached
 * and fresh, since stock moves with every sale and another staff member may have saved.
 */
export function useProduct(id: string | undefined) {
  const admin = useAdmin();
  return useQuery({
    queryKey: productKeys.detail(id ?? ''),
    queryFn: () => admin.products.get(id!),
    enabled: id !== undefined,
    staleTime: 0,
    ...FORM_RECORD,
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The titles of the products `ids` names (a promotion's products), each read by its id (sharing the
 * product's cached copy; fresh for a minute): a map from id to title, null for a product that is
 * gone, absent while it is being read. Something that is no product id is never asked for.
 */
export function useProductTitles(ids: readonly string[]): ReadonlyMap<string, string | null> {
  const admin = useAdmin();
  const wanted = [...new Set(ids)].filter((id) => UUID.test(id));
  return useQueries({
    queries: wanted.map((id) => ({
      queryKey: productKeys.detail(id),
      queryFn: () => admin.products.get(id),
      staleTime: 60_000,
      retry: (failures: number, error: Error) => !isStatus(error, 404) && failures < 2,
    })),
    combine: (results) => {
      const titles = new Map<string, string | null>();
      results.forEach((result, index) => {
        if (result.data) titles.set(wanted[index]!, result.data.title);
        else if (isStatus(result.error, 404)) titles.set(wanted[index]!, null);
      });
      return titles;
    },
  });
}

/** Creates a product with its options, images and variants (201 AdminProduct), then the lists show it. */
export function useCreateProduct() {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: NewProductBody) => admin.products.create(body),
    onSuccess: async (created) => {
      await refreshLists(queryClient);
      queryClient.setQueryData(productKeys.detail(created.id), created);
    },
  });
}

/** Deletes a product (and its variants); it leaves the lists and its collections. */
export function useDeleteProduct() {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (product: AdminProduct) => admin.products.delete(product.id),
    onSuccess: async (_none, product) => {
      queryClient.removeQueries({ queryKey: productKeys.detail(product.id) });
      await refreshLists(queryClient);
    },
  });
}

/**
 * Where saving a product stopped: its own fields, its options, a variant (by its row in the form),
 * or removing variants.
 */
export type ProductSaveStep =
  { kind: 'product' } | { kind: 'options' } | { kind: 'variant'; index: number } | { kind: 'remove' };

/** A refused call of `useSaveProduct`, with the step it refused (so the form can place the problem). */
export class ProductSaveError extends Error {
  readonly step: ProductSaveStep;

  constructor(step: ProductSaveStep, cause: unknown) {
    super('Saving the product stopped at a refused call.', { cause });
    this.name = 'ProductSaveError';
    this.step = step;
  }
}

/** A saved product's changes, as the calls that make them. */
export interface ProductSave {
  productId: string;
  /** The product's own fields (without `status` when it becomes active: that is sent last). */
  fields: ProductChangeBody;
  /**
   * New options, sent after the fields (a product made a draft in the same save may then strand
   * every variant). `archive`: live variants they leave without values are archived, never deleted
   * (`strandedVariants: "archive"`); without it such a change is refused (409 option_in_use).
   */
  options?: { options: ProductOption[]; archive: boolean };
  /** An image address for a product whose images were all removed in this save (sent on its own: decision `media-uploads`). */
  imageAfter?: string;
  /**
   * Per variant row of the form, in order: a variant to add, a saved one's changes (a variant moved
   * to new option values is restored with them: `options` and `archived: false`), or nothing.
   */
  variants: ({ add: NewVariantBody } | { id: string; change: VariantChangeBody } | null)[];
  /** Saved variants to delete. */
  removed: readonly AdminVariant[];
  /** Makes the product active once its variants are saved (an active product needs one). */
  activate: boolean;
  /** The options are saved (a form forgets the variants it expected them to archive). */
  onOptionsSaved?: () => void;
  /** Each variant saved, as it is (a form keeps it: after a refusal, saving again sends only the rest). */
  onVariantSaved?: (index: number, variant: AdminVariant) => void;
  onVariantRemoved?: (variant: AdminVariant) => void;
}

/**
 * Saves an existing product as a series of calls: its fields (and images), its options (archiving
 * the variants they strand when told to), new and changed variants, removed variants, and a change
 * to active last. The first refusal stops it with a `ProductSaveError`; done or stopped part-way,
 * the lists are read again (part of it may be saved). Resolves with the product as the server has
 * it now.
 */
export function useSaveProduct() {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (save: ProductSave): Promise<AdminProduct> => {
      const step = async <T>(at: ProductSaveStep, call: () => Promise<T>): Promise<T> => {
        try {
          return await call();
        } catch (error) {
          throw new ProductSaveError(at, error);
        }
      };
      const update = (body: ProductChangeBody) => admin.products.update(save.productId, body);
      await step({ kind: 'product' }, () => update(save.fields));
      if (save.options) {
        const { options, archive } = save.options;
        await step({ kind: 'options' }, () =>
          update({ options, ...(archive ? { strandedVariants: 'archive' as const } : {}) }),
        );
        save.onOptionsSaved?.();
      }
      if (save.imageAfter !== undefined) {
        const image = save.imageAfter;
        await step({ kind: 'product' }, () => update({ image }));
      }
      for (const [index, row] of save.variants.entries()) {
        if (row === null) continue;
        const saved = await step({ kind: 'variant', index }, () =>
          'add' in row
            ? admin.products.addVariant(save.productId, row.add)
            : admin.products.updateVariant(row.id, row.change),
        );
        save.onVariantSaved?.(index, saved);
      }
      for (const variant of save.removed) {
        await step({ kind: 'remove' }, () =>
          admin.request('adminDeleteVariant', { path: { id: variant.id } }),
        );
        save.onVariantRemoved?.(variant);
      }
      if (save.activate) {
        await step({ kind: 'product' }, () => admin.products.update(save.productId, { status: 'active' }));
      }
      return admin.products.get(save.productId);
    },
    onSuccess: (fresh) => {
      queryClient.setQueryData(productKeys.detail(fresh.id), fresh);
    },
    onSettled: () => refreshLists(queryClient),
  });
}

/**
 * Brings an archived variant back (`PATCH /variants/:id {"archived": false}`): refused with 409
 * `option_in_use` when its values are no longer among the product's options, or
 * `option_combination_taken` when another variant has its combination. The product's cached copy
 * takes the variant as it is now, and the lists are read again (its price and stock count again).
 */
export function useRestoreVariant() {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (variant: AdminVariant) => admin.products.updateVariant(variant.id, { archived: false }),
    onSuccess: async (restored) => {
      queryClient.setQueryData<AdminProduct>(productKeys.detail(restored.productId), (product) =>
        product
          ? { ...product, variants: product.variants.map((v) => (v.id === restored.id ? restored : v)) }
          : product,
      );
      await refreshLists(queryClient);
    },
  });
}
