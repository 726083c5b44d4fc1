import type { ColumnType, Generated, Selectable } from 'kysely';
import type { CreatedAt, UpdatedAt } from '../db/tables.ts';

export type ProductStatus = 'draft' | 'active' | 'archived';

export interface ProductTable {
  store_id: string;
  id: Generated<string>;
  title: string;
  description: ColumnType<string, string | undefined, string>;
  status: ProductStatus;
  image: string | null;
  tags: ColumnType<string[], string[] | undefined, string[]>;
  /** Card price: the lowest variant price; null only while the product has no variants. */
  price_amount: number | null;
  /** Decision `product-handles`: unique per store; made from the title by a trigger when an insert gives none. */
  handle: ColumnType<string, string | undefined, string>;
  seo_title: ColumnType<string | null, string | null | undefined, string | null>;
  seo_description: ColumnType<string | null, string | null | undefined, string | null>;
  /** The card price's compare-at (of the cheapest variant) when higher than the price, else null. */
  compare_at_amount: ColumnType<number | null, number | null | undefined, number | null>;
  /** Decision `product-options`: up to three options with their values, in order; [] without options. */
  options: ColumnType<ProductOption[], string | undefined, string>;
  /** Decision `tax-classes`: the tax class of its variants; null: `standard`. */
  tax_class: ColumnType<string | null, string | null | undefined, string | null>;
  /** Decision `gift-card-products`: paying for it issues gift cards; its variants are not shipped. */
  gift_card: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type ProductRow = Selectable<ProductTable>;

/**
 * What a product card shows (decision `product-handles`: with its handle and compare-at price), as columns of `products as
 * p`: the storefront lists, search and collections select the same ones.
 */
export const CARD_COLUMNS = [
  'p.id',
  'p.title',
  'p.handle',
  'p.image',
  'p.price_amount',
  'p.compare_at_amount',
  'p.gift_card',
] as const;

/** The card columns but its prices, which a read in a market takes from market_card_prices. */
export const CARD_COLUMNS_BUT_PRICES = ['p.id', 'p.title', 'p.handle', 'p.image', 'p.gift_card'] as const;

/** An option of a product and its values, in the merchant's order (decision `product-options`). */
export interface ProductOption {
  name: string;
  values: string[];
}

/** A product's earlier handle, answering with a 301 to the current one (decision `product-handles`). */
export interface ProductHandleRedirectTable {
  store_id: string;
  handle: string;
  product_id: string;
  created_at: CreatedAt;
}

export interface VariantTable {
  store_id: string;
  id: Generated<string>;
  product_id: string;
  position: number;
  sku: string | null;
  label: string;
  price_amount: number;
  compare_at_amount: number | null;
  on_hand: number;
  /** Units held by pending orders; sellable stock is max(0, on_hand − reserved). */
  reserved: Generated<number>;
  /** Grams, for weight-based shipping methods; null: not given (weighs nothing to them). */
  weight_grams: ColumnType<number | null, number | null | undefined, number | null>;
  /** Whether the variant is shipped (false for gift cards, downloads): decision `shipping-zones-and-methods`. */
  requires_shipping: ColumnType<boolean, boolean | undefined, boolean>;
  /** Decision `product-options`: its value of each of its product's options ({} without options); unique per product. */
  options: ColumnType<Record<string, string>, string | undefined, string>;
  /** Decision `media-uploads`: the image it shows, one of its product's images (a media id); null: the product's. */
  image_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Decision `product-options`: set when archived (not sold, not on the storefront, its combination free); null while live. */
  archived_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Decision `tax-classes`: its own tax class; null: its product's. */
  tax_class: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type VariantRow = Selectable<VariantTable>;

/** A product's image (decision `media-uploads`): a media of the store, in the merchant's order, with its alt text. */
export interface ProductImageTable {
  store_id: string;
  product_id: string;
  media_id: string;
  position: number;
  alt: string | null;
}
export type ProductImageRow = Selectable<ProductImageTable>;

export type CollectionKind = 'manual' | 'smart';

export interface SmartRules {
  match: 'all' | 'any';
  conditions: {
    field: 'tag' | 'title' | 'priceAmount';
    op: 'eq' | 'contains' | 'gt' | 'lt';
    value: string | number;
  }[];
}

export interface CollectionTable {
  store_id: string;
  id: Generated<string>;
  title: string;
  slug: string;
  kind: CollectionKind;
  rules: ColumnType<SmartRules | null, string | null, string | null>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type CollectionRow = Selectable<CollectionTable>;

export interface CollectionProductTable {
  store_id: string;
  collection_id: string;
  product_id: string;
  /** Manual: the merchant's order (0, 1, 2, …). Smart: the product's creation time in ms. */
  position: number;
}

/** A word of the store's dictionary for typos (migration 0038): kept by triggers, read by search. */
export interface SearchWordTable {
  store_id: string;
  word: string;
  /** Active products whose title, tags or option values have the word. */
  products: number;
}

/** Table types of the catalog module (products, variants, collections). Merged into `Database`. */
export interface CatalogTables {
  products: ProductTable;
  product_handle_redirects: ProductHandleRedirectTable;
  variants: VariantTable;
  product_images: ProductImageTable;
  collections: CollectionTable;
  collection_products: CollectionProductTable;
  search_words: SearchWordTable;
}

declare module '../db/tables.ts' {
  interface Database extends CatalogTables {}
}
