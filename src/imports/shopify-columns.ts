/**
 * The columns of Shopify's product CSV that the importer reads and the exporter writes (decision
 * `shopify-product-csv`), with the store-specific ones: a `Price / …` column per market.
 */
export const COLUMNS = {
  handle: 'Handle',
  title: 'Title',
  body: 'Body (HTML)',
  vendor: 'Vendor',
  type: 'Type',
  tags: 'Tags',
  published: 'Published',
  optionName: (n: number) => `Option${n} Name`,
  optionValue: (n: number) => `Option${n} Value`,
  sku: 'Variant SKU',
  grams: 'Variant Grams',
  inventory: 'Variant Inventory Qty',
  price: 'Variant Price',
  compareAt: 'Variant Compare At Price',
  requiresShipping: 'Variant Requires Shipping',
  taxable: 'Variant Taxable',
  taxCode: 'Variant Tax Code',
  imageSrc: 'Image Src',
  imagePosition: 'Image Position',
  imageAlt: 'Image Alt Text',
  giftCard: 'Gift Card',
  seoTitle: 'SEO Title',
  seoDescription: 'SEO Description',
  variantImage: 'Variant Image',
  status: 'Status',
  // Ours, beside Shopify's: what a round trip needs that Shopify's columns do not carry.
  label: 'Variant Label',
  taxClass: 'Tax Class',
  /** An option's values in order, unused ones included, as a JSON array (`["S","M","L"]`). */
  optionValues: (n: number) => `Option${n} Values`,
} as const;

/** The columns an export writes, in order: Shopify's, then ours (prices per currency follow). */
export const EXPORT_COLUMNS: readonly string[] = [
  COLUMNS.handle,
  COLUMNS.title,
  COLUMNS.body,
  COLUMNS.vendor,
  COLUMNS.type,
  COLUMNS.tags,
  COLUMNS.published,
  ...[1, 2, 3].flatMap((n) => [COLUMNS.optionName(n), COLUMNS.optionValue(n)]),
  COLUMNS.sku,
  COLUMNS.grams,
  COLUMNS.inventory,
  COLUMNS.price,
  COLUMNS.compareAt,
  COLUMNS.requiresShipping,
  COLUMNS.taxable,
  COLUMNS.imageSrc,
  COLUMNS.imagePosition,
  COLUMNS.imageAlt,
  COLUMNS.giftCard,
  COLUMNS.seoTitle,
  COLUMNS.seoDescription,
  COLUMNS.variantImage,
  COLUMNS.taxCode,
  COLUMNS.status,
  COLUMNS.label,
  COLUMNS.taxClass,
  ...[1, 2, 3].map(COLUMNS.optionValues),
];

/** Shopify's per-market price columns ("Price / Germany"), read by a market's name or currency code. */
export const MARKET_PRICE = /^(Price|Compare At Price) \/ (.+)$/i;
export const priceColumn = (currency: string) => `Price / ${currency}`;
export const compareAtColumn = (currency: string) => `Compare At Price / ${currency}`;

/** What the importer knows of the store. */
export interface ProductContext {
  currency: string;
  digits: number;
  taxClasses: ReadonlySet<string>;
  /** The currency a "Price / …" column's suffix names (a market's name or currency), if any. */
  currencyOf(suffix: string): { currency: string; digits: number } | undefined;
}

/** Whether the importer reads a column (others are listed as ignored, never refused). */
export function readsColumn(name: string, context: ProductContext): boolean {
  const known = KNOWN.has(name.toLowerCase());
  if (known) return true;
  const market = MARKET_PRICE.exec(name);
  return market !== null && context.currencyOf(market[2]!.trim()) !== undefined;
}
const KNOWN = new Set(
  Object.values(COLUMNS)
    .flatMap((column) => (typeof column === 'string' ? [column] : [1, 2, 3].map(column)))
    .filter((name) => name !== COLUMNS.vendor && name !== COLUMNS.type)
    .map((name) => name.toLowerCase()),
);
