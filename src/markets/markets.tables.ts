import type { ColumnType, Generated, Selectable } from 'kysely';
import type { CreatedAt, UpdatedAt } from '../db/tables.ts';

/** How a converted price is rounded in its market's currency (decision `market-prices`). */
export type Rounding = 'none' | 'to_99' | 'to_whole';

export interface MarketTable {
  store_id: string;
  /** The default market's id is its store's. */
  id: Generated<string>;
  name: string;
  currency: string;
  /** ISO 4217 minor units of the market's currency and of the store's; null on the default market. */
  digits: number | null;
  base_digits: number | null;
  /** The merchant's rate from the store's currency, an exact decimal (numeric: read as a string). */
  exchange_rate: ColumnType<string, string | undefined, string>;
  rounding: ColumnType<Rounding, Rounding | undefined, Rounding>;
  /** Not read for the default market: the store's `prices_include_tax` is its setting. */
  prices_include_tax: Generated<boolean>;
  is_default: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type MarketRow = Selectable<MarketTable>;

export interface MarketCountryTable {
  store_id: string;
  /** ISO 3166-1 alpha-2; in one market at most (the primary key). */
  country: string;
  market_id: string;
}

export interface MarketTables {
  markets: MarketTable;
  market_countries: MarketCountryTable;
}

declare module '../db/tables.ts' {
  interface Database extends MarketTables {}
}
