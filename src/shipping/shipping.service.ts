import { countryRules, normalizePostalCode } from '@storefront/address';
import type { Insertable, Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import { lockScope } from '../db/advisory-lock.ts';
import { isForeignKeyViolation } from '../db/errors.ts';
import { byCreated } from '../db/keyset.ts';
import { storeSetting } from '../db/settings-cache.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import type { ListPage } from '../lib/cursors.ts';
import { AppError, notFound, validationFailed, type FieldError } from '../lib/errors.ts';
import {
  allZones,
  countMethods,
  countZones,
  deleteMethod,
  deleteZone,
  findMethod,
  findZone,
  insertMethod,
  insertZone,
  countryDefaultMethod,
  countryDefaultMethods,
  lockMethodForShare,
  methodsOfZones,
  zonesWithMethods,
  updateMethod,
  updateZone,
  zonesQuery,
} from './shipping.repository.ts';
import type {
  MethodBody,
  MethodPatch,
  ShippingMethod,
  ShippingOption,
  ShippingZone,
  ZoneBody,
  ZonePatch,
} from './shipping.schemas.ts';
import {
  methodAmount,
  ratedMethods,
  type Destination,
  type Parcel,
  type RatedMethod,
  type RatedZone,
} from './shipping.rates.ts';
import type { ShippingMethodRow, ShippingMethodTable, ShippingZoneRow, ZoneArea } from './shipping.tables.ts';

/** Shipping zones and their methods (decision `shipping-zones-and-methods`): the merchant's side. */

type Deps = Pick<ServiceDeps, 'db' | 'clock'>;

export const MAX_ZONES = 100;
export const MAX_METHODS_PER_ZONE = 20;

const zoneNotFound = () => notFound('No shipping zone with that id in this store.');
const methodNotFound = () => notFound('No shipping method with that id in this zone.');

export const methodView = (row: ShippingMethodRow): ShippingMethod => ({
  id: row.id,
  zoneId: row.zone_id,
  name: row.name,
  kind: row.kind,
  amount: row.amount,
  freeOverAmount: row.free_over_amount,
  weightTiers: row.weight_tiers,
  minDeliveryDays: row.min_delivery_days,
  maxDeliveryDays: row.max_delivery_days,
  active: row.active,
  taxClass: row.tax_class,
  countryDefault: row.country_default,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

const zoneView = (row: ShippingZoneRow, methods: readonly ShippingMethodRow[]): ShippingZone => ({
  id: row.id,
  name: row.name,
  areas: row.areas,
  methods: methods.filter((method) => method.zone_id === row.id).map(methodView),
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/** The places an area covers, one key per level a destination is matched at (decision `shipping-zones-and-methods`). */
function areaKeys(area: ZoneArea): string[] {
  if (area.country === '*') return ['*'];
  if (area.postalCodePrefixes.length > 0) return area.postalCodePrefixes.map((p) => `${area.country} ${p}…`);
  if (area.regions.length > 0) return area.regions;
  return [area.country];
}

/** The areas, checked against the address data and cleaned up: upper case, ISO region codes. */
function normalizeAreas(areas: ZoneBody['areas']): ZoneArea[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const normalized = areas.map((area, index): ZoneArea => {
    const at = `/areas/${index}`;
    const country = area.country.toUpperCase();
    const regions = area.regions ?? [];
    const prefixes = area.postalCodePrefixes ?? [];
    const result: ZoneArea = { country, regions: [], postalCodePrefixes: [] };
    if (country === '*') {
      if (regions.length > 0 || prefixes.length > 0)
        errors.push({
          pointer: at,
          detail: 'the rest of the world (*) takes no regions or postal-code prefixes',
        });
    } else {
      const rules = countryRules(country);
      if (!rules) {
        errors.push({ pointer: `${at}/country`, detail: 'must be an ISO 3166-1 alpha-2 country code, or *' });
        return result;
      }
      if (regions.length > 0 && prefixes.length > 0)
        errors.push({
          pointer: at,
          detail: 'narrow an area by regions or by postal-code prefixes, not both: use two areas',
        });
      result.regions = regions.map((region, position) => {
        const code = region.trim().toUpperCase();
        const wanted = code.startsWith(`${country}-`) ? code : `${country}-${code}`;
        const found = rules.regions.find((candidate) => candidate.code.toUpperCase() === wanted);
        if (!found)
          errors.push({
            pointer: `${at}/regions/${position}`,
            detail:
              rules.regions.length === 0
                ? `${country} has no regions to choose from: leave regions out`
                : `is not a ${rules.labels.region.toLowerCase()} of ${country} (use ISO 3166-2 codes, like ${rules.regions[0]!.code})`,
          });
        return found?.code ?? wanted;
      });
      result.postalCodePrefixes = prefixes.map((prefix, position) => {
        const value = normalizePostalCode(prefix);
        if (!/^[A-Z0-9][A-Z0-9 -]*$/.test(value))
          errors.push({
            pointer: `${at}/postalCodePrefixes/${position}`,
            detail: 'must be the start of a postal code',
          });
        return value;
      });
    }
    for (const key of areaKeys(result)) {
      if (seen.has(key))
        errors.push({ pointer: at, detail: `covers ${key}, which another area of this zone covers` });
      seen.add(key);
    }
    return result;
  });
  if (errors.length > 0) throw validationFailed('The zone’s areas are invalid.', errors);
  return normalized;
}

/** 409 when another zone covers one of these places at the same level: each belongs to one zone. */
function refuseOverlap(areas: readonly ZoneArea[], others: readonly ShippingZoneRow[]): void {
  const mine = new Set(areas.flatMap(areaKeys));
  for (const other of others) {
    const shared = other.areas.flatMap(areaKeys).find((key) => mine.has(key));
    if (shared !== undefined) {
      const place = shared === '*' ? 'the rest of the world (*)' : shared;
      throw new AppError(
        'shipping_zone_conflict',
        409,
        `${place} is in the zone "${other.name}" already. A place belongs to one zone; narrow it (by region or postal-code prefix) to make a more specific zone.`,
      );
    }
  }
}

export async function createZone(deps: Deps, storeId: string, body: ZoneBody): Promise<ShippingZone> {
  const areas = normalizeAreas(body.areas);
  return deps.db.transaction().execute(async (trx) => {
    await lockScope(trx, 'shipping-zones', storeId);
    if ((await countZones(trx, storeId)) >= MAX_ZONES)
      throw new AppError('limit_reached', 409, `A store can have at most ${MAX_ZONES} shipping zones.`);
    refuseOverlap(areas, await allZones(trx, storeId));
    const now = deps.clock.now();
    const row = await insertZone(trx, {
      store_id: storeId,
      name: body.name.trim(),
      areas: JSON.stringify(areas),
      created_at: now,
      updated_at: now,
    });
    return zoneView(row, []);
  });
}

export async function listZones(
  deps: Pick<ServiceDeps, 'db' | 'cursors'>,
  storeId: string,
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<ListPage<ShippingZone>> {
  const rows = await byCreated(
    deps.cursors,
    `${storeId}:shipping-zones`,
    zonesQuery(deps.db, storeId),
    page,
    (row) => row,
  );
  const methods = await methodsOfZones(
    deps.db,
    storeId,
    rows.items.map((row) => row.id),
  );
  return { items: rows.items.map((row) => zoneView(row, methods)), nextCursor: rows.nextCursor };
}

export async function getZone(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  zoneId: string,
): Promise<ShippingZone> {
  const row = await findZone(deps.db, storeId, zoneId);
  if (!row) throw zoneNotFound();
  return zoneView(row, await methodsOfZones(deps.db, storeId, [zoneId]));
}

export async function changeZone(
  deps: Deps,
  storeId: string,
  zoneId: string,
  patch: ZonePatch,
): Promise<ShippingZone> {
  const areas = patch.areas ? normalizeAreas(patch.areas) : undefined;
  return deps.db.transaction().execute(async (trx) => {
    await lockScope(trx, 'shipping-zones', storeId);
    if (areas)
      refuseOverlap(
        areas,
        (await allZones(trx, storeId)).filter((zone) => zone.id !== zoneId),
      );
    const row = await updateZone(trx, storeId, zoneId, {
      ...(patch.name === undefined ? {} : { name: patch.name.trim() }),
      ...(areas === undefined ? {} : { areas: JSON.stringify(areas) }),
      updated_at: deps.clock.now(),
    });
    if (!row) throw zoneNotFound();
    return zoneView(row, await methodsOfZones(trx, storeId, [zoneId]));
  });
}

export async function removeZone(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  zoneId: string,
): Promise<void> {
  if (!(await deleteZone(deps.db, storeId, zoneId))) throw zoneNotFound();
}

/** A method's fields as they will be stored, from its current state and the changes asked for. */
interface MethodState {
  name: string;
  kind: ShippingMethodRow['kind'];
  amount: number | null;
  free_over_amount: number | null;
  weight_tiers: ShippingMethodRow['weight_tiers'];
  min_delivery_days: number | null;
  max_delivery_days: number | null;
  active: boolean;
  tax_class: string | null;
}

/**
 * Each kind's fields (decision `shipping-zones-and-methods`): `flat` and `pickup` an amount, `free_over` an amount and the subtotal
 * from which it is free, `weight` its tiers (ascending, each up to a weight). A field the kind
 * does not use is refused when it is sent, and dropped when the kind changes.
 */
function methodState(current: MethodState | null, changes: MethodPatch): MethodState {
  const kind = changes.kind ?? current?.kind ?? 'flat';
  const kindChanged = current !== null && current.kind !== kind;
  const keep = <T>(sent: T | undefined, existing: T | null | undefined): T | null =>
    sent !== undefined ? sent : kindChanged ? null : (existing ?? null);
  const state: MethodState = {
    name: (changes.name ?? current?.name ?? '').trim(),
    kind,
    amount: keep(changes.amount, current?.amount),
    free_over_amount: keep(changes.freeOverAmount, current?.free_over_amount),
    weight_tiers: keep(changes.weightTiers, current?.weight_tiers),
    min_delivery_days:
      changes.minDeliveryDays !== undefined ? changes.minDeliveryDays : (current?.min_delivery_days ?? null),
    max_delivery_days:
      changes.maxDeliveryDays !== undefined ? changes.maxDeliveryDays : (current?.max_delivery_days ?? null),
    active: changes.active ?? current?.active ?? true,
    tax_class: changes.taxClass !== undefined ? changes.taxClass : (current?.tax_class ?? null),
  };
  const errors: FieldError[] = [];
  const unused = (pointer: string, value: unknown) => {
    if (value !== null && value !== undefined)
      errors.push({ pointer, detail: `is not used by ${kind} methods` });
    return null;
  };
  if (state.name === '') errors.push({ pointer: '/name', detail: 'is required' });
  if (kind === 'weight') {
    state.amount = unused('/amount', changes.amount);
    state.free_over_amount = unused('/freeOverAmount', changes.freeOverAmount);
    const tiers = state.weight_tiers ?? [];
    if (tiers.length === 0)
      errors.push({ pointer: '/weightTiers', detail: 'a weight method needs at least one tier' });
    tiers.forEach((tier, index) => {
      if (index > 0 && tier.upToGrams <= tiers[index - 1]!.upToGrams)
        errors.push({ pointer: `/weightTiers/${index}/upToGrams`, detail: 'tiers must go up in weight' });
    });
  } else {
    state.weight_tiers = unused('/weightTiers', changes.weightTiers);
    if (state.amount === null) errors.push({ pointer: '/amount', detail: `is required for ${kind} methods` });
    if (kind === 'free_over') {
      if (state.free_over_amount === null)
        errors.push({
          pointer: '/freeOverAmount',
          detail: 'is required for free_over methods: the subtotal from which shipping is free',
        });
    } else {
      state.free_over_amount = unused('/freeOverAmount', changes.freeOverAmount);
    }
  }
  if (
    state.min_delivery_days !== null &&
    state.max_delivery_days !== null &&
    state.min_delivery_days > state.max_delivery_days
  )
    errors.push({ pointer: '/maxDeliveryDays', detail: 'must not be less than minDeliveryDays' });
  if (errors.length > 0) throw validationFailed('The shipping method is invalid.', errors);
  return state;
}

const stored = (state: MethodState) => ({
  ...state,
  weight_tiers: state.weight_tiers === null ? null : JSON.stringify(state.weight_tiers),
});

/**
 * A write of a method, whose tax class the database refuses when the store has no such class
 * (decision `tax-classes`): 400 at `/taxClass`, nothing written.
 */
async function refusingUnknownTaxClass(write: Promise<ShippingMethod>): Promise<ShippingMethod> {
  try {
    return await write;
  } catch (error) {
    if (!isForeignKeyViolation(error, 'shipping_methods_tax_class_fkey')) throw error;
    throw validationFailed('Unknown tax class.', [
      {
        pointer: '/taxClass',
        detail: 'is not a tax class of this store (GET /admin/v1/tax-classes lists them)',
      },
    ]);
  }
}

export async function createMethod(
  deps: Deps,
  storeId: string,
  zoneId: string,
  body: MethodBody,
): Promise<ShippingMethod> {
  const state = methodState(null, body);
  return refusingUnknownTaxClass(
    deps.db.transaction().execute(async (trx) => {
      await lockScope(trx, 'shipping-zones', storeId);
      if (!(await findZone(trx, storeId, zoneId))) throw zoneNotFound();
      if ((await countMethods(trx, storeId, zoneId)) >= MAX_METHODS_PER_ZONE)
        throw new AppError(
          'limit_reached',
          409,
          `A zone can have at most ${MAX_METHODS_PER_ZONE} shipping methods.`,
        );
      const now = deps.clock.now();
      const values: Insertable<ShippingMethodTable> = {
        store_id: storeId,
        zone_id: zoneId,
        ...stored(state),
        created_at: now,
        updated_at: now,
      };
      return methodView(await insertMethod(trx, values));
    }),
  );
}

export async function changeMethod(
  deps: Deps,
  storeId: string,
  zoneId: string,
  methodId: string,
  patch: MethodPatch,
): Promise<ShippingMethod> {
  return refusingUnknownTaxClass(
    deps.db.transaction().execute(async (trx) => {
      const current = await findMethod(trx, storeId, zoneId, methodId);
      if (!current) throw methodNotFound();
      const state = methodState(current, patch);
      const row = await updateMethod(trx, storeId, methodId, {
        ...stored(state),
        updated_at: deps.clock.now(),
      });
      if (!row) throw methodNotFound();
      return methodView(row);
    }),
  );
}

export async function removeMethod(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  zoneId: string,
  methodId: string,
): Promise<void> {
  if (!(await deleteMethod(deps.db, storeId, zoneId, methodId))) throw methodNotFound();
}

export type { Destination, Parcel };

/** What shipping a parcel to a destination can take in a store (decisions `cart-shipping-and-totals` and `checkout-with-shipping`). */
export interface ShippingRates {
  /** Whether the store has any zone: one that never set up shipping charges none, as before decision `store-without-zones-ships-free`. */
  configured: boolean;
  /** The methods of the destination's zone (its most specific) that can carry the parcel, cheapest first. */
  options: ShippingOption[];
  /**
   * What a checkout that names no method is charged: the destination country's default method
   * when it is an option, else the cheapest option that is not a pickup, else none (decision
   * `the-method-of-a-checkout-that-names-none`).
   */
  automatic: ShippingOption | null;
  /** Decision `tax-classes`: each option's tax class, by method id; null: its shipping follows the goods. */
  taxClasses: ReadonlyMap<string, string | null>;
}

/**
 * The shipping a parcel to a destination can take in a store, with amounts in `currency`: one
 * statement (the zones with their methods), then pure rating. `convert` turns the store's amounts
 * (rates, tiers, free-over thresholds) into `currency` when the order is priced in another market's
 * (decision `market-prices`); the parcel's subtotal is in `currency` already.
 */
export async function shippingRates(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  currency: string,
  to: Destination,
  parcel: Parcel,
  convert?: (amount: number) => number,
): Promise<ShippingRates> {
  const rows = await storeSetting(deps.db, storeId, 'shipping-zones', () =>
    zonesWithMethods(deps.db, storeId),
  );
  const zones = new Map<string, RatedZone<RatedRow>>();
  for (const row of rows) {
    let zone = zones.get(row.zone_id);
    if (!zone) {
      zone = { id: row.zone_id, areas: row.areas, methods: [] };
      zones.set(row.zone_id, zone);
    }
    if (row.method) (zone.methods as RatedRow[]).push(inCurrency(ratedRow(row.method), convert));
  }
  const rated = ratedMethods([...zones.values()], to, parcel);
  const option = ({ method, amount }: { method: RatedRow; amount: number }): ShippingOption => ({
    id: method.id,
    name: method.name,
    amount: { amount, currency },
    minDeliveryDays: method.minDeliveryDays,
    maxDeliveryDays: method.maxDeliveryDays,
  });
  const automatic =
    rated.find(({ method }) => method.countryDefault === to.country) ??
    rated.find(({ method }) => method.kind !== 'pickup');
  return {
    configured: zones.size > 0,
    options: rated.map(option),
    automatic: automatic ? option(automatic) : null,
    taxClasses: new Map(rated.map(({ method }) => [method.id, method.taxClass])),
  };
}

/** A rated method with its amounts converted (`convert`), or as it is. */
function inCurrency(method: RatedRow, convert: ((amount: number) => number) | undefined): RatedRow {
  if (!convert) return method;
  return {
    ...method,
    amount: method.amount === null ? null : convert(method.amount),
    freeOverAmount: method.freeOverAmount === null ? null : convert(method.freeOverAmount),
    weightTiers: method.weightTiers?.map((tier) => ({ ...tier, amount: convert(tier.amount) })) ?? null,
  };
}

/** A method as rating reads it. */
interface RatedRow extends RatedMethod {
  id: string;
  name: string;
  minDeliveryDays: number | null;
  maxDeliveryDays: number | null;
  countryDefault: string | null;
  taxClass: string | null;
}

const ratedRow = (method: ShippingMethodRow): RatedRow => ({
  id: method.id,
  name: method.name,
  kind: method.kind,
  amount: method.amount,
  freeOverAmount: method.free_over_amount,
  weightTiers: method.weight_tiers,
  active: method.active,
  minDeliveryDays: method.min_delivery_days,
  maxDeliveryDays: method.max_delivery_days,
  countryDefault: method.country_default,
  taxClass: method.tax_class,
});

/**
 * What a shipping method charges a parcel now, read under a lock held until the caller's
 * transaction ends (decision `checkout-with-shipping`): checkout re-reads the amount it quoted this way, so a change of the
 * method waits for the order instead of slipping between the check and the commit. Null when the
 * method is gone or can no longer carry the parcel.
 */
export async function heldMethodAmount(
  deps: { db: Transaction<Database> },
  storeId: string,
  methodId: string,
  parcel: Parcel,
  /** As `shippingRates`: the store's amounts in the order's currency. */
  convert?: (amount: number) => number,
): Promise<number | null> {
  const row = await lockMethodForShare(deps.db, storeId, methodId);
  return row ? methodAmount(inCurrency(ratedRow(row), convert), parcel) : null;
}

/**
 * The flat shipping of a country as the legacy tax-rate API knows it (`shippingAmount`, decision `legacy-shipping-amount-is-a-method`): the
 * amount of the country's default method, by country; a country without one charges none.
 */
export async function countryShippingAmounts(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
): Promise<Map<string, number>> {
  const methods = await countryDefaultMethods(deps.db, storeId);
  return new Map([...methods].map(([country, method]) => [country, method.amount ?? 0]));
}

/**
 * Sets a country's flat shipping the legacy way (`PUT /admin/v1/tax-rates/{country}` with
 * `shippingAmount`, decision `legacy-shipping-amount-is-a-method`): the country's default method becomes a flat method of that amount,
 * active. Without one, it is made "Standard shipping" in the zone that covers the whole country,
 * or in a new zone named after the country. In the caller's transaction.
 */
export async function setCountryShipping(
  deps: { db: Transaction<Database>; clock: Deps['clock'] },
  storeId: string,
  country: string,
  amount: number,
): Promise<void> {
  await lockScope(deps.db, 'shipping-zones', storeId);
  const now = deps.clock.now();
  const current = await countryDefaultMethod(deps.db, storeId, country);
  const flat = {
    kind: 'flat' as const,
    amount,
    free_over_amount: null,
    weight_tiers: null,
    active: true,
    updated_at: now,
  };
  if (current) {
    await updateMethod(deps.db, storeId, current.id, flat);
    return;
  }
  const zones = await allZones(deps.db, storeId);
  let zone = zones.find((candidate) =>
    candidate.areas.some(
      (area) => area.country === country && area.regions.length === 0 && area.postalCodePrefixes.length === 0,
    ),
  );
  zone ??= await insertZone(deps.db, {
    store_id: storeId,
    name: new Intl.DisplayNames(['en'], { type: 'region' }).of(country) ?? country,
    areas: JSON.stringify([{ country, regions: [], postalCodePrefixes: [] }]),
    created_at: now,
    updated_at: now,
  });
  await insertMethod(deps.db, {
    store_id: storeId,
    zone_id: zone.id,
    name: 'Standard shipping',
    ...flat,
    min_delivery_days: null,
    max_delivery_days: null,
    country_default: country,
    created_at: now,
  });
}

/** Removes a country's default method (the legacy tax rate was deleted, decision `legacy-shipping-amount-is-a-method`). In the caller's transaction. */
export async function removeCountryShipping(
  deps: { db: Transaction<Database> },
  storeId: string,
  country: string,
): Promise<void> {
  await lockScope(deps.db, 'shipping-zones', storeId);
  const current = await countryDefaultMethod(deps.db, storeId, country);
  if (current) await deleteMethod(deps.db, storeId, current.zone_id, current.id);
}
