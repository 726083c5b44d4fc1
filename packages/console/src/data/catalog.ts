/**
 * The catalog's query keys share one root, `['catalog']`: products (data/products.ts) and
 * collections (data/collections.ts) each own the keys under theirs. A product's change refreshes
 * the collections (a smart collection's members follow its tags, title and price; a deleted product
 * leaves its collections) and a collection's change refreshes the product lists (they filter by
 * collection), without either module importing the other's.
 */
export const catalogKeys = {
  all: ['catalog'] as const,
  products: () => [...catalogKeys.all, 'products'] as const,
  collections: () => [...catalogKeys.all, 'collections'] as const,
};
