import { sql, type Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationResultSet } from 'kysely/migration';
import * as foundation from './migrations/0001_foundation.ts';
import * as adminAccess from './migrations/0002_admin_access.ts';
import * as catalog from './migrations/0003_catalog.ts';
import * as content from './migrations/0004_content.ts';
import * as orders from './migrations/0005_orders.ts';
import * as webhooks from './migrations/0006_webhooks.ts';
import * as emailIdentity from './migrations/0007_email_identity.ts';
import * as refundReconciliation from './migrations/0008_refund_reconciliation.ts';
import * as moneyPath from './migrations/0009_money_path.ts';
import * as secretsAtRest from './migrations/0010_secrets_at_rest.ts';
import * as retention from './migrations/0011_retention.ts';
import * as eventResourceKeys from './migrations/0012_event_resource_keys.ts';
import * as refundNotes from './migrations/0013_refund_notes.ts';
import * as sealedStorefrontKeys from './migrations/0014_sealed_storefront_keys.ts';
import * as readVersions from './migrations/0015_read_versions.ts';
import * as pendingOrderLimits from './migrations/0016_pending_order_limits.ts';
import * as testDeliveries from './migrations/0017_test_deliveries.ts';
import * as signInClients from './migrations/0018_sign_in_clients.ts';
import * as domainReleaseClock from './migrations/0019_domain_release_clock.ts';
import * as shippingZones from './migrations/0020_shipping_zones.ts';
import * as variantShipping from './migrations/0021_variant_shipping.ts';
import * as cartShippingAddress from './migrations/0022_cart_shipping_address.ts';
import * as cartMethodAndCode from './migrations/0023_cart_method_and_code.ts';
import * as checkoutShipping from './migrations/0024_checkout_shipping.ts';
import * as fulfillments from './migrations/0025_fulfillments.ts';
import * as orderCancellation from './migrations/0026_order_cancellation.ts';
import * as returns from './migrations/0027_returns.ts';
import * as productHandles from './migrations/0028_product_handles.ts';
import * as productOptions from './migrations/0029_product_options.ts';
import * as productSearch from './migrations/0030_product_search.ts';
import * as media from './migrations/0031_media.ts';
import * as variantArchive from './migrations/0032_variant_archive.ts';
import * as customers from './migrations/0033_customers.ts';
import * as settingsNotify from './migrations/0034_settings_notify.ts';
import * as endpointEventWatermark from './migrations/0035_endpoint_event_watermark.ts';
import * as sandboxWebhookOutbox from './migrations/0036_sandbox_webhook_outbox.ts';
import * as ordersSignedIn from './migrations/0037_orders_signed_in.ts';
import * as searchWords from './migrations/0038_search_words.ts';
import * as taxClasses from './migrations/0039_tax_classes.ts';
import * as taxService from './migrations/0040_tax_service.ts';
import * as taxReportIndexes from './migrations/0041_tax_report_indexes.ts';
import * as markets from './migrations/0042_markets.ts';
import * as priceHistory from './migrations/0043_price_history.ts';
import * as customerGroupsPriceLists from './migrations/0044_customer_groups_price_lists.ts';
import * as priceFunction from './migrations/0045_price_function.ts';
import * as promotions from './migrations/0046_promotions.ts';
import * as giftCards from './migrations/0047_gift_cards.ts';
import * as cartCodesOrderPromotions from './migrations/0048_cart_codes_order_promotions.ts';
import * as giftCardProducts from './migrations/0049_gift_card_products.ts';
import * as giftCardTender from './migrations/0050_gift_card_tender.ts';
import * as imports from './migrations/0051_imports.ts';
import * as draftOrders from './migrations/0052_draft_orders.ts';
import * as priceSortIndexes from './migrations/0053_price_sort_indexes.ts';

/** Migrations in order. A static list: no directory scanning, works the same everywhere. */
const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_admin_access': adminAccess,
  '0003_catalog': catalog,
  '0004_content': content,
  '0005_orders': orders,
  '0006_webhooks': webhooks,
  '0007_email_identity': emailIdentity,
  '0008_refund_reconciliation': refundReconciliation,
  '0009_money_path': moneyPath,
  '0010_secrets_at_rest': secretsAtRest,
  '0011_retention': retention,
  '0012_event_resource_keys': eventResourceKeys,
  '0013_refund_notes': refundNotes,
  '0014_sealed_storefront_keys': sealedStorefrontKeys,
  '0015_read_versions': readVersions,
  '0016_pending_order_limits': pendingOrderLimits,
  '0017_test_deliveries': testDeliveries,
  '0018_sign_in_clients': signInClients,
  '0019_domain_release_clock': domainReleaseClock,
  '0020_shipping_zones': shippingZones,
  '0021_variant_shipping': variantShipping,
  '0022_cart_shipping_address': cartShippingAddress,
  '0023_cart_method_and_code': cartMethodAndCode,
  '0024_checkout_shipping': checkoutShipping,
  '0025_fulfillments': fulfillments,
  '0026_order_cancellation': orderCancellation,
  '0027_returns': returns,
  '0028_product_handles': productHandles,
  '0029_product_options': productOptions,
  '0030_product_search': productSearch,
  '0031_media': media,
  '0032_variant_archive': variantArchive,
  '0033_customers': customers,
  '0034_settings_notify': settingsNotify,
  '0035_endpoint_event_watermark': endpointEventWatermark,
  '0036_sandbox_webhook_outbox': sandboxWebhookOutbox,
  '0037_orders_signed_in': ordersSignedIn,
  '0038_search_words': searchWords,
  '0039_tax_classes': taxClasses,
  '0040_tax_service': taxService,
  '0041_tax_report_indexes': taxReportIndexes,
  '0042_markets': markets,
  '0043_price_history': priceHistory,
  '0044_customer_groups_price_lists': customerGroupsPriceLists,
  '0045_price_function': priceFunction,
  '0046_promotions': promotions,
  '0047_gift_cards': giftCards,
  '0048_cart_codes_order_promotions': cartCodesOrderPromotions,
  '0049_gift_card_products': giftCardProducts,
  '0050_gift_card_tender': giftCardTender,
  '0051_imports': imports,
  '0052_draft_orders': draftOrders,
  '0053_price_sort_indexes': priceSortIndexes,
};

export class MigrationError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'MigrationError';
  }
}

/**
 * The database was migrated by a newer version of Storefront: it lists migrations this code does
 * not have. Going on would run old code on a schema it does not know (docs/operations.md,
 * "Upgrades"), so every command that opens the database stops with this message instead.
 */
export class DatabaseNewerError extends Error {
  /** The newest migration this version has. */
  readonly newestKnown: string;
  /** The migrations in the database this version does not have, in order. */
  readonly unknown: readonly string[];

  constructor(newestKnown: string, unknown: readonly string[]) {
    const found = unknown.at(-1) ?? '';
    super(
      `This database was migrated by a newer version of Storefront: it has migration ${found}` +
        `${unknown.length > 1 ? ` (and ${unknown.length - 1} more this version does not know)` : ''}, ` +
        `and the newest migration this version knows is ${newestKnown}. ` +
        'Run the newer version (upgrade this installation to it), or restore the backup taken before the upgrade ' +
        'to go back to this one (docs/operations.md, "Upgrades").',
    );
    this.name = 'DatabaseNewerError';
    this.newestKnown = newestKnown;
    this.unknown = unknown;
  }
}

export function migrationNames(): string[] {
  return Object.keys(migrations);
}

/** Applies every pending migration (Kysely's Migrator takes a lock, so concurrent callers are safe). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema may be migrated
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  // The common case at start-up: everything is applied. One read answers it without the
  // Migrator's table checks and lock (a few round trips, noticeable on the embedded database).
  const applied = await appliedMigrations(db);
  const known = migrationNames();
  const unknown = (applied ?? []).filter((name) => !(name in migrations));
  if (unknown.length > 0) throw new DatabaseNewerError(known.at(-1) ?? '', unknown);
  if (applied !== null && applied.length === known.length) return [];
  const migrator = new Migrator({ db, provider: { getMigrations: () => Promise.resolve(migrations) } });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    const reason = result.error instanceof Error ? result.error.message : JSON.stringify(result.error);
    throw new MigrationError(`Migration ${failed} failed: ${reason}`, { cause: result.error });
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Applies the migrations up to and including `name` (tests of a migration's data step). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema may be migrated
export async function migrateTo(db: Kysely<any>, name: string): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: () => Promise.resolve(migrations) } });
  const result = await migrator.migrateTo(name);
  if (result.error) throw new MigrationError(`Migrating to ${name} failed`, { cause: result.error });
}

/**
 * Whether the database's migrations differ from the known ones: some are to be applied, the
 * migration table cannot be read, or a newer version applied ones this version does not know
 * (`migrateToLatest` then says so).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema may be migrated
export async function migrationsPending(db: Kysely<any>): Promise<boolean> {
  const applied = await appliedMigrations(db);
  const known = migrationNames();
  return applied === null || applied.length !== known.length || applied.some((name, i) => name !== known[i]);
}

/** The migrations the database lists as applied, in order; null when it has no migration table yet. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema may be migrated
async function appliedMigrations(db: Kysely<any>): Promise<string[] | null> {
  try {
    const { rows } = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(db);
    return rows.map((row) => row.name);
  } catch {
    return null; // no migration table yet: a fresh database
  }
}
