import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../db/tables.ts';
import { ArchiveError } from './archive.format.ts';

/**
 * What an archive carries of each table (decision `archive-tables`). Every table of the schema is
 * named here: a new table fails src/archive/archive.test.ts (and `storefront export` refuses to run)
 * until it says whether archives carry it, and which rows belong to a store for `--store`.
 *
 * - `store`: the rows whose `store_id` is the store's (every tenant table, and the global ones that
 *   record a store: credentials, sending-domain claims).
 * - `through`: the rows whose `column` is among the store's `parent.parentColumn` values (the
 *   sandbox provider's records, which are the provider's, not a store's, and name no store).
 * - `skip`: never carried, with the reason.
 *
 * `leaveOut` drops rows that must not travel even when the table does.
 */
export type TableRule =
  | { carry: 'store'; column: string; leaveOut?: { where: RawBuilder<unknown>; why: string } }
  | { carry: 'through'; column: string; parent: string; parentColumn: string }
  | { skip: string };

const STORE = { carry: 'store', column: 'store_id' } as const;
const THE_STORE = { carry: 'store', column: 'id' } as const;

/**
 * Sign-in codes are not carried (see `skip` below), so neither is the mail that would deliver one,
 * pending or failed (sent ones are erased). The other sealed mail, a gift card's codes waiting to be
 * sent (decision `gift-card-products`), travels re-sealed like every secret: the codes exist nowhere
 * else.
 */
const UNSENT_SIGN_IN_MAIL = sql`kind IN ('sign_in_code', 'customer_sign_in_code') AND status <> 'sent'`;

export const TABLE_RULES: Record<string, TableRule> = {
  // The store and its people.
  stores: THE_STORE,
  staff_members: STORE,
  staff_sessions: STORE,
  credentials: STORE,
  storefront_keys: STORE,
  customers: STORE,
  customer_addresses: STORE,
  customer_sessions: STORE,
  customer_groups: STORE,
  customer_group_members: STORE,
  privacy_log: STORE,
  // Tax classes before the products and shipping methods that name them; `standard` is made with
  // its store (a trigger), so it does not travel.
  tax_classes: {
    ...STORE,
    leaveOut: { where: sql`code = 'standard'`, why: 'made with its store on import' },
  },
  // Markets before the prices and orders that name them; the default market is made with its store
  // (a trigger, from the store's `default_market_name`), so it does not travel.
  markets: { ...STORE, leaveOut: { where: sql`is_default`, why: 'made with its store on import' } },
  market_countries: STORE,
  // Catalog and content.
  products: STORE,
  variants: STORE,
  variant_prices: STORE,
  market_card_prices: STORE,
  price_history: STORE,
  price_lists: STORE,
  price_list_markets: STORE,
  price_list_groups: STORE,
  price_list_prices: STORE,
  product_images: STORE,
  product_handle_redirects: STORE,
  media: STORE,
  collections: STORE,
  collection_products: STORE,
  menus: STORE,
  pages: STORE,
  regions: STORE,
  themes: STORE,
  apps: STORE,
  // Selling.
  carts: STORE,
  cart_lines: STORE,
  promotions: STORE,
  // Gift cards travel with their codes' SHA-256 (decision `gift-card-codes`): 80-bit codes, out of
  // reach of a search even with the hashes in hand, and the cards must keep paying after the move.
  // A card an order sold names it (decision `gift-card-products`): loaded after the orders.
  gift_cards: STORE,
  gift_card_ledger: STORE,
  tax_rates: STORE,
  tax_services: STORE,
  shipping_zones: STORE,
  shipping_methods: STORE,
  orders: STORE,
  order_lines: STORE,
  order_counters: STORE,
  payments: STORE,
  refunds: STORE,
  returns: STORE,
  fulfillments: STORE,
  idempotency_keys: STORE,
  provider_events: STORE,
  // Draft orders (decision `draft-orders`): after their customers; their orders name them by id.
  draft_orders: STORE,
  draft_order_lines: STORE,
  sandbox_intents: { carry: 'through', column: 'ref', parent: 'payments', parentColumn: 'ref' },
  sandbox_refunds: { carry: 'through', column: 'intent_ref', parent: 'payments', parentColumn: 'ref' },
  sandbox_webhooks: {
    skip: "the sandbox's webhooks: what they report is in the intents carried (an order whose webhook was still due is settled when expiry asks the provider)",
  },
  // Events, webhooks, mail.
  events: STORE,
  webhook_endpoints: STORE,
  webhook_deliveries: STORE,
  mail_outbox: {
    ...STORE,
    leaveOut: { where: UNSENT_SIGN_IN_MAIL, why: 'a code that is not carried' },
  },
  sending_domains: STORE,
  sending_domain_claims: STORE,
  sending_domain_clocks: STORE,
  sending_domain_records: STORE,
  dkim_keys: STORE,
  // Secrets.
  platform_secrets: {
    skip: 'the root generated when SECRET_KEY is unset: an archive never carries a root secret; its sealed values travel sealed under the archive key (decision `archive-secrets`)',
  },
  // Not carried.
  sign_in_codes: {
    skip: 'one-time codes (10 minutes) kept as HMACs under the source root: ask for a new code after the move',
  },
  customer_sign_in_codes: {
    skip: 'one-time codes (10 minutes) kept as HMACs under the source root: ask for a new code after the move',
  },
  search_words: {
    skip: "the search dictionary: derived from the products, and rebuilt by the import's own inserts",
  },
  read_versions: {
    skip: "the read cache's version counters: derived, and restarted by the import's own inserts",
  },
  imports: {
    skip: "jobs of this database: a finished import's file is gone, and an unfinished one runs where it was uploaded",
  },
  import_chunks: { skip: 'the files of unfinished imports (see imports)' },
  kysely_migration: { skip: 'the schema version: the manifest names it' },
  kysely_migration_lock: { skip: "the migrator's lock" },
};

export interface CatalogColumn {
  name: string;
  /** `format_type` of the column: what a text value is cast to on insert. */
  type: string;
  /** GENERATED ALWAYS AS (…) STORED: computed again on insert, never carried. */
  generated: boolean;
  /** `a` for GENERATED ALWAYS AS IDENTITY, `d` for BY DEFAULT, '' otherwise. */
  identity: string;
}

export interface CatalogTable {
  name: string;
  /** Every column, generated ones included, in table order. */
  columns: CatalogColumn[];
  primaryKey: string[];
  /** The tables its foreign keys reference. */
  references: string[];
}

/** The tables of the current schema from the database's catalog, in load order (parents first). */
export async function readCatalog(db: Kysely<Database>): Promise<CatalogTable[]> {
  const names = (
    await sql<{ table_name: string }>`
      SELECT table_name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`.execute(db)
  ).rows.map((row) => row.table_name);
  const tables = new Map<string, CatalogTable>(
    names.map((name) => [name, { name, columns: [], primaryKey: [], references: [] }]),
  );
  const columns = await sql<{
    table: string;
    column: string;
    type: string;
    generated: boolean;
    identity: string;
  }>`
    SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type,
           a.attgenerated <> '' AS generated, a.attidentity::text AS identity
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'
      AND a.attnum > 0 AND NOT a.attisdropped
    ORDER BY c.relname, a.attnum`.execute(db);
  for (const row of columns.rows)
    tables.get(row.table)?.columns.push({
      name: row.column,
      type: row.type,
      generated: row.generated,
      identity: row.identity,
    });
  const keys = await sql<{ table: string; column: string }>`
    SELECT c.relname AS table, a.attname AS column
    FROM pg_index i
    JOIN pg_class c ON c.oid = i.indrelid
    CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
    WHERE i.indisprimary AND c.relnamespace = current_schema()::regnamespace
    ORDER BY c.relname, k.ord`.execute(db);
  for (const row of keys.rows) tables.get(row.table)?.primaryKey.push(row.column);
  const references = await sql<{ table: string; parent: string }>`
    SELECT DISTINCT c.relname AS table, p.relname AS parent
    FROM pg_constraint k
    JOIN pg_class c ON c.oid = k.conrelid
    JOIN pg_class p ON p.oid = k.confrelid
    WHERE k.contype = 'f' AND c.relnamespace = current_schema()::regnamespace`.execute(db);
  for (const row of references.rows) tables.get(row.table)?.references.push(row.parent);
  return loadOrder([...tables.values()]);
}

/**
 * Parents before children (Kahn's algorithm), ties by name so the order is the same everywhere.
 * A table that references itself, or a cycle of references, cannot be loaded row by row in key
 * order: both are refused (the schema has neither; the test would show a new one).
 */
export function loadOrder(tables: CatalogTable[]): CatalogTable[] {
  const byName = new Map(tables.map((table) => [table.name, table]));
  const waiting = new Map<string, Set<string>>();
  for (const table of tables) {
    if (table.references.includes(table.name))
      throw new ArchiveError(`Table ${table.name} references itself: the archive cannot order its rows.`);
    waiting.set(table.name, new Set(table.references.filter((parent) => byName.has(parent))));
  }
  const ordered: CatalogTable[] = [];
  while (waiting.size > 0) {
    const ready = [...waiting.entries()]
      .filter(([, parents]) => parents.size === 0)
      .map(([name]) => name)
      .sort();
    if (ready.length === 0)
      throw new ArchiveError(
        `The tables ${[...waiting.keys()].sort().join(', ')} reference each other in a cycle: the archive cannot order them.`,
      );
    for (const name of ready) {
      ordered.push(byName.get(name)!);
      waiting.delete(name);
      for (const parents of waiting.values()) parents.delete(name);
    }
  }
  return ordered;
}

/** The tables of the catalog no rule names, and the rules whose table no longer exists. */
export function unclassified(catalog: readonly CatalogTable[]): { missing: string[]; gone: string[] } {
  const names = new Set(catalog.map((table) => table.name));
  return {
    missing: [...names].filter((name) => !(name in TABLE_RULES)).sort(),
    gone: Object.keys(TABLE_RULES)
      .filter((name) => !names.has(name))
      .sort(),
  };
}

/** The tables an archive carries, in load order, with their rules; refuses an unclassified table. */
export function carriedTables(catalog: readonly CatalogTable[]): { table: CatalogTable; rule: TableRule }[] {
  const { missing } = unclassified(catalog);
  if (missing.length > 0)
    throw new ArchiveError(
      `The schema has tables the archive does not know: ${missing.join(', ')}. Say in src/archive/tables.ts whether archives carry them.`,
    );
  return catalog
    .map((table) => ({ table, rule: TABLE_RULES[table.name]! }))
    .filter(({ rule }) => !('skip' in rule));
}

/** The SQL condition selecting the rows of a table an archive carries (of one store, or all). */
export function rowsCarried(rule: TableRule, storeId: string | null): RawBuilder<unknown> {
  if ('skip' in rule) return sql`FALSE`;
  const conditions: RawBuilder<unknown>[] = [];
  if (rule.carry === 'store') {
    if (storeId !== null) conditions.push(sql`${sql.ref(rule.column)} = ${storeId}::uuid`);
    if (rule.leaveOut) conditions.push(sql`NOT (${rule.leaveOut.where})`);
  } else if (rule.carry === 'through' && storeId !== null) {
    conditions.push(
      sql`${sql.ref(rule.column)} IN (SELECT ${sql.ref(rule.parentColumn)} FROM ${sql.table(rule.parent)} WHERE store_id = ${storeId}::uuid)`,
    );
  }
  return conditions.length === 0 ? sql`TRUE` : sql.join(conditions, sql` AND `);
}

/** Settings under which the text form of every value is the same on both sides of the trip. */
export async function textSettings(db: Kysely<Database>): Promise<void> {
  await sql`SELECT set_config('TimeZone', 'UTC', true), set_config('DateStyle', 'ISO, YMD', true),
    set_config('IntervalStyle', 'postgres', true), set_config('extra_float_digits', '3', true),
    set_config('bytea_output', 'hex', true)`.execute(db);
}
