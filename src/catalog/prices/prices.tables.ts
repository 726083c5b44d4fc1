/** Prices in markets (decision `market-prices`): explicit prices per currency, card prices per market. */

/** A variant's explicit price in a currency other than its store's. */
export interface VariantPriceTable {
  store_id: string;
  variant_id: string;
  currency: string;
  amount: number;
  compare_at_amount: number | null;
}

/** A product's card price in a market other than the default (kept like products.price_amount). */
export interface MarketCardPriceTable {
  store_id: string;
  market_id: string;
  product_id: string;
  price_amount: number | null;
  compare_at_amount: number | null;
}

/** What a variant cost in a market from `recorded_at` on (decision `prior-price`). */
export interface PriceHistoryTable {
  store_id: string;
  variant_id: string;
  market_id: string;
  recorded_at: Date;
  amount: number;
  compare_at_amount: number | null;
}

export interface PriceTables {
  variant_prices: VariantPriceTable;
  market_card_prices: MarketCardPriceTable;
  price_history: PriceHistoryTable;
}

declare module '../../db/tables.ts' {
  interface Database extends PriceTables {}
}
