import type { Insertable, Kysely, SelectQueryBuilder, Transaction, Updateable } from 'kysely';
import type { Database } from '../db/tables.ts';
import type {
  ShippingMethodRow,
  ShippingMethodTable,
  ShippingZoneRow,
  ShippingZoneTable,
} from './shipping.tables.ts';

/** All SQL on shipping zones and methods. */

type Db = Kysely<Database> | Transaction<Database>;

export function zonesQuery(
  db: Db,
  storeId: string,
): SelectQueryBuilder<Database, 'shipping_zones', ShippingZoneRow> {
  return db.selectFrom('shipping_zones').selectAll().where('store_id', '=', storeId);
}

export function allZones(db: Db, storeId: string): Promise<ShippingZoneRow[]> {
  return zonesQuery(db, storeId).orderBy('created_at').orderBy('id').execute();
}

export function findZone(db: Db, storeId: string, zoneId: string): Promise<ShippingZoneRow | undefined> {
  return zonesQuery(db, storeId).where('id', '=', zoneId).executeTakeFirst();
}

export async function countZones(db: Db, storeId: string): Promise<number> {
  const row = await db
    .selectFrom('shipping_zones')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('store_id', '=', storeId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function insertZone(db: Db, values: Insertable<ShippingZoneTable>): Promise<ShippingZoneRow> {
  return db.insertInto('shipping_zones').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateZone(
  db: Db,
  storeId: string,
  zoneId: string,
  values: Updateable<ShippingZoneTable>,
): Promise<ShippingZoneRow | undefined> {
  return db
    .updateTable('shipping_zones')
    .set(values)
    .where('store_id', '=', storeId)
    .where('id', '=', zoneId)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteZone(db: Db, storeId: string, zoneId: string): Promise<boolean> {
  const deleted = await db
    .deleteFrom('shipping_zones')
    .where('store_id', '=', storeId)
    .where('id', '=', zoneId)
    .returning('id')
    .executeTakeFirst();
  return deleted !== undefined;
}

/** The store's shipping methods, every column. */
function methodsQuery(
  db: Db,
  storeId: string,
): SelectQueryBuilder<Database, 'shipping_methods', ShippingMethodRow> {
  return db.selectFrom('shipping_methods').selectAll().where('store_id', '=', storeId);
}

/** The methods of these zones, oldest first. */
export function methodsOfZones(
  db: Db,
  storeId: string,
  zoneIds: readonly string[],
): Promise<ShippingMethodRow[]> {
  if (zoneIds.length === 0) return Promise.resolve([]);
  return methodsQuery(db, storeId)
    .where('zone_id', 'in', zoneIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function findMethod(
  db: Db,
  storeId: string,
  zoneId: string,
  methodId: string,
): Promise<ShippingMethodRow | undefined> {
  return methodsQuery(db, storeId)
    .where('zone_id', '=', zoneId)
    .where('id', '=', methodId)
    .executeTakeFirst();
}

export async function countMethods(db: Db, storeId: string, zoneId: string): Promise<number> {
  const row = await db
    .selectFrom('shipping_methods')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('store_id', '=', storeId)
    .where('zone_id', '=', zoneId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function insertMethod(db: Db, values: Insertable<ShippingMethodTable>): Promise<ShippingMethodRow> {
  return db.insertInto('shipping_methods').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateMethod(
  db: Db,
  storeId: string,
  methodId: string,
  values: Updateable<ShippingMethodTable>,
): Promise<ShippingMethodRow | undefined> {
  return db
    .updateTable('shipping_methods')
    .set(values)
    .where('store_id', '=', storeId)
    .where('id', '=', methodId)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteMethod(
  db: Db,
  storeId: string,
  zoneId: string,
  methodId: string,
): Promise<boolean> {
  const deleted = await db
    .deleteFrom('shipping_methods')
    .where('store_id', '=', storeId)
    .where('zone_id', '=', zoneId)
    .where('id', '=', methodId)
    .returning('id')
    .executeTakeFirst();
  return deleted !== undefined;
}

/**
 * A method, its row locked until the transaction ends (a change of it waits): checkout charges it
 * as read. Undefined when it is gone.
 */
export function lockMethodForShare(
  db: Transaction<Database>,
  storeId: string,
  methodId: string,
): Promise<ShippingMethodRow | undefined> {
  return methodsQuery(db, storeId).where('id', '=', methodId).forShare().executeTakeFirst();
}

/** A zone's areas with one of its methods (method fields null for a zone without methods). */
export interface ZoneMethodRow {
  zone_id: string;
  areas: ShippingZoneRow['areas'];
  method: ShippingMethodRow | null;
}

/**
 * Every zone of a store with its methods, in one statement (a checkout prices shipping with it):
 * zones oldest first, each zone's methods oldest first.
 */
export async function zonesWithMethods(db: Db, storeId: string): Promise<ZoneMethodRow[]> {
  const rows = await db
    .selectFrom('shipping_zones as z')
    .leftJoin('shipping_methods as m', (join) =>
      join.onRef('m.store_id', '=', 'z.store_id').onRef('m.zone_id', '=', 'z.id'),
    )
    .select(['z.id as zone_id', 'z.areas as zone_areas'])
    .selectAll('m')
    .where('z.store_id', '=', storeId)
    .orderBy('z.created_at')
    .orderBy('z.id')
    .orderBy('m.created_at')
    .orderBy('m.id')
    .execute();
  return rows.map(({ zone_id, zone_areas, ...method }) => ({
    zone_id,
    areas: zone_areas,
    method: method.id === null ? null : (method as ShippingMethodRow),
  }));
}

/** The method a country's checkouts without a chosen method are charged (decision `the-method-of-a-checkout-that-names-none`), if any. */
export function countryDefaultMethod(
  db: Db,
  storeId: string,
  country: string,
): Promise<ShippingMethodRow | undefined> {
  return methodsQuery(db, storeId).where('country_default', '=', country).executeTakeFirst();
}

/** The default methods of a store's countries (decision `the-method-of-a-checkout-that-names-none`), by country. */
export async function countryDefaultMethods(
  db: Db,
  storeId: string,
): Promise<Map<string, ShippingMethodRow>> {
  const rows = await methodsQuery(db, storeId).where('country_default', 'is not', null).execute();
  return new Map(rows.map((row) => [row.country_default!, row]));
}
