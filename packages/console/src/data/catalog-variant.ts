/** No React here: the CSV parsing (screens/price-lists/csv.ts) and its Node test use it. */

/** A variant as a price list shows it: its product, its label and SKU. */
export interface CatalogVariant {
  id: string;
  productId: string;
  productTitle: string;
  label: string;
  sku: string | null;
  archived: boolean;
}
