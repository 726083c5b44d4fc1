import type { Transaction } from 'kysely';
import { storeSetting } from '../db/settings-cache.ts';
import type { Database } from '../db/tables.ts';
import { countryRules, isKnownCountry } from '@storefront/address';
import {
  countryShippingAmounts,
  removeCountryShipping,
  setCountryShipping,
} from '../shipping/shipping.service.ts';
import type { ListPage } from '../lib/cursors.ts';
import { AppError, notFound, validationFailed } from '../lib/errors.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import { assertRatedClasses } from './tax-classes.service.ts';
import { adjustOrderUses, discountInvalid } from '../promotions/offer.ts';
import type { Discount, DiscountBody, TaxRate, TaxRateBody } from './pricing.schemas.ts';
import type { DiscountKind, ShippingTaxKind, TaxRateRow } from './pricing.tables.ts';
import {
  createDiscountCode,
  deleteDiscountCode,
  listDiscountCodes,
  normalizeDiscountCode,
  type DiscountCode,
} from '../promotions/discount-codes.ts';
import { deleteTaxRate, taxRates, upsertTaxRate } from './pricing.repository.ts';

export type { DiscountKind };
export { normalizeDiscountCode };

/** Discount codes and tax rates by country and region: what checkout prices an order with. */

type Deps = Pick<ServiceDeps, 'db' | 'clock'>;

/** What an order carries of its discount (the code it was bought with). */
interface DiscountedOrder {
  store_id: string;
  /** What it applied (decision `cart-promotions`). */
  promotions: readonly { id: string }[];
}

export const discountView = (row: DiscountCode): Discount => ({
  id: row.id,
  code: row.code,
  kind: row.kind,
  value: row.value,
  startsAt: row.starts_at?.toISOString() ?? null,
  endsAt: row.ends_at?.toISOString() ?? null,
  usageLimit: row.usage_limit,
  usedCount: row.used_count,
  createdAt: row.created_at.toISOString(),
});

export const taxRateView = (row: TaxRateRow, shippingAmount: number): TaxRate => ({
  country: row.country.trim(),
  taxRateBps: row.tax_rate_bps,
  classRates: row.class_rates,
  shippingTax: row.shipping_tax,
  shippingAmount,
  updatedAt: row.updated_at.toISOString(),
});

export { discountInvalid };

/**
 * An unpaid order gives its promotions' uses back when it expires or is cancelled (decision
 * `discount-use-given-back`: a use is reserved at checkout like stock, so checkouts nobody pays
 * cannot use a limited code up).
 */
export async function giveBackDiscountUse(
  deps: { db: Transaction<Database> },
  order: DiscountedOrder,
  now: Date,
): Promise<void> {
  await adjustOrderUses(deps.db, order.store_id, order.promotions, -1, now);
}

/**
 * A late payment revives an expired order (decision `order-states`): its promotions' uses count
 * again, past their limits if need be, since the buyer has paid the discounted price.
 */
export async function countRevivedDiscountUse(
  deps: { db: Transaction<Database> },
  order: DiscountedOrder,
  now: Date,
): Promise<void> {
  await adjustOrderUses(deps.db, order.store_id, order.promotions, 1, now);
}

/**
 * The tax of a destination (decisions `tax-classes` and `shipping-tax`): the rates of the area that
 * applies (the address's region where the store has a rate for it, else its country), or null where
 * the store has none (no tax there).
 */
export interface TaxArea {
  country: string;
  /** The region whose rate applies (`US-CA`); null when it is the country's. */
  region: string | null;
  /** The `standard` class's rate, and any class's without one of its own, in basis points. */
  standardBps: number;
  classRates: Readonly<Record<string, number>>;
  shippingTax: ShippingTaxKind;
}

/** A class's rate in an area (its own, else the standard rate); 0 where the store has no rate. */
export function classRate(area: TaxArea | null, taxClass: string): number {
  if (area === null) return 0;
  return area.classRates[taxClass] ?? area.standardBps;
}

/** The tax area of a destination, from the process's settings cache of the store's rates. */
export async function taxAreaFor(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  country: string | undefined,
  region?: string | null,
): Promise<TaxArea | null> {
  if (!country) return null;
  // Every rate of the store, from the process's settings cache (a store has a few dozen at most).
  const rates = await storeSetting(deps.db, storeId, 'tax-rates', () => taxRates(deps.db, storeId));
  const keys = region && region.startsWith(`${country}-`) ? [region, country] : [country];
  for (const key of keys) {
    const rate = rates.find((row) => row.country === key);
    if (rate)
      return {
        country,
        region: key === country ? null : key,
        standardBps: rate.tax_rate_bps,
        classRates: rate.class_rates,
        shippingTax: rate.shipping_tax,
      };
  }
  return null;
}

export async function createDiscount(deps: Deps, storeId: string, body: DiscountBody): Promise<Discount> {
  if (body.kind === 'percent' && body.value > 100)
    throw validationFailed('A percent discount is 1 to 100.', [
      { pointer: '/value', detail: 'must be 1 to 100 for a percent discount' },
    ]);
  if (body.startsAt && body.endsAt && Date.parse(body.endsAt) <= Date.parse(body.startsAt)) {
    throw validationFailed('endsAt must be after startsAt.', [
      { pointer: '/endsAt', detail: 'must be after startsAt' },
    ]);
  }
  const row = await createDiscountCode(deps, storeId, {
    code: body.code,
    kind: body.kind,
    value: body.value,
    startsAt: body.startsAt ?? null,
    endsAt: body.endsAt ?? null,
    usageLimit: body.usageLimit ?? null,
  });
  if (!row)
    throw new AppError(
      'discount_exists',
      409,
      `The code ${normalizeDiscountCode(body.code)} exists already.`,
    );
  return discountView(row);
}

export function listDiscounts(
  deps: Pick<ServiceDeps, 'db' | 'cursors'>,
  storeId: string,
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<ListPage<Discount>> {
  return listDiscountCodes(deps, storeId, page, discountView);
}

export async function removeDiscount(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  discountId: string,
): Promise<void> {
  await deleteDiscountCode(deps, storeId, discountId, () =>
    notFound('No discount with that id in this store.'),
  );
}

/** A tax rate's key: an ISO 3166-1 country (`DE`) or an ISO 3166-2 region of one (`US-CA`). */
function taxRateKey(param: string): { code: string; region: boolean } {
  const code = param.toUpperCase();
  const [country, subdivision] = code.split('-') as [string, string | undefined];
  const rules = isKnownCountry(country) ? countryRules(country) : undefined;
  if (!rules)
    throw validationFailed('Unknown country code.', [
      {
        pointer: '/country',
        detail: 'must be an ISO 3166-1 alpha-2 code, or an ISO 3166-2 region code',
        in: 'path',
      },
    ]);
  if (subdivision !== undefined && !rules.regions.some((region) => region.code.toUpperCase() === code))
    throw validationFailed('Unknown region code.', [
      {
        pointer: '/country',
        detail:
          rules.regions.length === 0
            ? `${country} has no regions: use the country code`
            : `is not a region of ${country} (ISO 3166-2, like ${rules.regions[0]!.code})`,
        in: 'path',
      },
    ]);
  return { code, region: subdivision !== undefined };
}

/**
 * Sets the tax rate of a country or region, and the legacy flat shipping of a country (decision `legacy-shipping-amount-is-a-method`): the
 * amount of the country's default shipping method, which this writes. Leaving `shippingAmount` out
 * keeps the country's shipping as it is; a region takes tax only (its shipping is the zones').
 */
export async function setTaxRate(
  deps: Deps,
  storeId: string,
  country: string,
  body: TaxRateBody,
): Promise<TaxRate> {
  const key = taxRateKey(country);
  if (key.region && body.shippingAmount !== undefined)
    throw validationFailed('A region’s rate takes tax only.', [
      {
        pointer: '/shippingAmount',
        detail: 'a region takes tax only: set its shipping with a shipping zone (/admin/v1/shipping/zones)',
      },
    ]);
  return deps.db.transaction().execute(async (trx) => {
    if (body.classRates !== undefined) await assertRatedClasses(trx, storeId, body.classRates);
    const row = await upsertTaxRate(trx, storeId, key.code, {
      tax_rate_bps: body.taxRateBps,
      ...(body.classRates !== undefined ? { class_rates: JSON.stringify(body.classRates) } : {}),
      ...(body.shippingTax !== undefined ? { shipping_tax: body.shippingTax } : {}),
      updated_at: deps.clock.now(),
    });
    if (body.shippingAmount !== undefined)
      await setCountryShipping({ db: trx, clock: deps.clock }, storeId, key.code, body.shippingAmount);
    const amounts = key.region
      ? new Map<string, number>()
      : await countryShippingAmounts({ db: trx }, storeId);
    return taxRateView(row, amounts.get(key.code) ?? 0);
  });
}

export async function listTaxRates(deps: Pick<ServiceDeps, 'db'>, storeId: string): Promise<TaxRate[]> {
  const [rows, amounts] = await Promise.all([
    taxRates(deps.db, storeId),
    countryShippingAmounts(deps, storeId),
  ]);
  return rows.map((row) => taxRateView(row, amounts.get(row.country) ?? 0));
}

/** Removes a rate; a country's legacy flat shipping goes with it, as it always did. */
export async function removeTaxRate(deps: Deps, storeId: string, country: string): Promise<void> {
  const key = taxRateKey(country);
  await deps.db.transaction().execute(async (trx) => {
    if (!(await deleteTaxRate(trx, storeId, key.code))) throw notFound('No rate for that country or region.');
    if (!key.region) await removeCountryShipping({ db: trx }, storeId, key.code);
  });
}
