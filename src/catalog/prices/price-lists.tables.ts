import type { ColumnType, Generated, Selectable } from 'kysely';
import type { CreatedAt, NullableTime, UpdatedAt } from '../../db/tables.ts';

/** Price lists (decision `price-lists`): sales and overrides of variants' prices. */

export type PriceListKind = 'sale' | 'override';

export interface PriceListTable {
  store_id: string;
  id: Generated<string>;
  name: string;
  kind: PriceListKind;
  /**
   * In every market, to every buyer. False once the list was given markets (groups), even after
   * every one of them was deleted: a list limited to groups that are gone applies to nobody.
   */
  all_markets: ColumnType<boolean, boolean | undefined, boolean>;
  all_groups: ColumnType<boolean, boolean | undefined, boolean>;
  /** In force from (null: always) until (null: forever); starts_at < ends_at. */
  starts_at: NullableTime;
  ends_at: NullableTime;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type PriceListRow = Selectable<PriceListTable>;

/** A market a list is limited to (cascades with the market). */
export interface PriceListMarketTable {
  store_id: string;
  price_list_id: string;
  market_id: string;
}

/** A customer group a list is limited to (cascades with the group). */
export interface PriceListGroupTable {
  store_id: string;
  price_list_id: string;
  group_id: string;
}

/** A list's price of a variant in a currency (minor units; cascades with the variant). */
export interface PriceListPriceTable {
  store_id: string;
  price_list_id: string;
  variant_id: string;
  currency: string;
  amount: number;
}

export interface PriceListTables {
  price_lists: PriceListTable;
  price_list_markets: PriceListMarketTable;
  price_list_groups: PriceListGroupTable;
  price_list_prices: PriceListPriceTable;
}

declare module '../../db/tables.ts' {
  interface Database extends PriceListTables {}
}
