import { sql, type Kysely, type RawBuilder, type SqlBool, type Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import { recordEvent } from '../events/events.ts';
import type { CollectionKind, CollectionRow, SmartRules } from './catalog.tables.ts';
import { AppError, notFound, validationFailed, type FieldError } from '../lib/errors.ts';

export const MAX_MANUAL_PRODUCTS = 1000;
export const MAX_CONDITIONS = 20;
export const MAX_SMART_COLLECTIONS = 200;

type Condition = SmartRules['conditions'][number];

export interface AdminCollection {
  id: string;
  title: string;
  slug: string;
  kind: CollectionKind;
  productIds: string[] | null;
  rules: SmartRules | null;
  createdAt: string;
  updatedAt: string;
}

/** Checks the operator and value type each field allows; 400 with a pointer per bad condition. */
export function validateRules(rules: SmartRules, pointer = '/rules'): void {
  const errors: FieldError[] = [];
  if (rules.conditions.length === 0)
    errors.push({ pointer: `${pointer}/conditions`, detail: 'needs at least one condition' });
  if (rules.conditions.length > MAX_CONDITIONS) {
    errors.push({
      pointer: `${pointer}/conditions`,
      detail: `must have at most ${MAX_CONDITIONS} conditions`,
    });
  }
  rules.conditions.forEach((condition, i) => {
    const at = `${pointer}/conditions/${i}`;
    if (condition.field === 'priceAmount') {
      if (!['eq', 'gt', 'lt'].includes(condition.op))
        errors.push({ pointer: `${at}/op`, detail: 'priceAmount takes eq, gt or lt' });
      if (!Number.isSafeInteger(condition.value) || (condition.value as number) < 0) {
        errors.push({ pointer: `${at}/value`, detail: 'must be an amount in minor units (integer ≥ 0)' });
      }
    } else {
      if (!['eq', 'contains'].includes(condition.op))
        errors.push({ pointer: `${at}/op`, detail: `${condition.field} takes eq or contains` });
      if (
        typeof condition.value !== 'string' ||
        condition.value.trim() === '' ||
        condition.value.length > 200
      ) {
        errors.push({
          pointer: `${at}/value`,
          detail: 'must be a non-empty string of at most 200 characters',
        });
      }
    }
  });
  if (errors.length > 0) throw validationFailed('The collection rules are invalid.', errors);
}

function conditionSql(condition: Condition): RawBuilder<SqlBool> {
  const value = condition.value;
  switch (condition.field) {
    case 'tag':
      return condition.op === 'eq'
        ? sql<SqlBool>`EXISTS (SELECT 1 FROM unnest(p.tags) AS t(tag) WHERE lower(t.tag) = lower(${String(value)}::text))`
        : sql<SqlBool>`EXISTS (SELECT 1 FROM unnest(p.tags) AS t(tag) WHERE strpos(lower(t.tag), lower(${String(value)}::text)) > 0)`;
    case 'title':
      return condition.op === 'eq'
        ? sql<SqlBool>`lower(p.title) = lower(${String(value)}::text)`
        : sql<SqlBool>`strpos(lower(p.title), lower(${String(value)}::text)) > 0`;
    case 'priceAmount': {
      const amount = sql`${Number(value)}::bigint`;
      if (condition.op === 'gt') return sql<SqlBool>`p.price_amount > ${amount}`;
      if (condition.op === 'lt') return sql<SqlBool>`p.price_amount < ${amount}`;
      return sql<SqlBool>`p.price_amount = ${amount}`;
    }
  }
}

/** The rules as one SQL predicate over `products p`. */
export function rulesSql(rules: SmartRules): RawBuilder<SqlBool> {
  const parts = rules.conditions.map(conditionSql);
  return sql<SqlBool>`(${sql.join(parts, rules.match === 'all' ? sql` AND ` : sql` OR `)})`;
}

/**
 * Recomputes smart-collection membership, for the given products (after a product or its variants
 * changed) or for every product (after the rules changed). Runs in the caller's transaction.
 */
export async function refreshSmartMembership(
  trx: Transaction<Database>,
  storeId: string,
  scope: { productIds: string[] } | { collectionId: string },
): Promise<void> {
  let collections = trx
    .selectFrom('collections')
    .select(['id', 'rules'])
    .where('store_id', '=', storeId)
    .where('kind', '=', 'smart');
  if ('collectionId' in scope) collections = collections.where('id', '=', scope.collectionId);
  const smart = await collections.execute();
  if (smart.length === 0) return;
  const productIds = 'productIds' in scope ? scope.productIds : null;
  if (productIds !== null && productIds.length === 0) return;

  for (const collection of smart) {
    let removal = trx
      .deleteFrom('collection_products')
      .where('store_id', '=', storeId)
      .where('collection_id', '=', collection.id);
    if (productIds) removal = removal.where('product_id', 'in', productIds);
    await removal.execute();
    const productFilter = productIds
      ? sql<SqlBool>`p.id IN (${sql.join(productIds.map((id) => sql`${id}::uuid`))})`
      : sql<SqlBool>`TRUE`;
    await sql`
      INSERT INTO collection_products (store_id, collection_id, product_id, position)
      SELECT p.store_id, ${collection.id}::uuid, p.id, (extract(epoch FROM p.created_at) * 1000)::bigint
      FROM products p
      WHERE p.store_id = ${storeId}::uuid AND ${productFilter} AND ${rulesSql(collection.rules!)}
      ON CONFLICT DO NOTHING`.execute(trx);
  }
}

async function assertProductsExist(
  trx: Transaction<Database>,
  storeId: string,
  productIds: string[],
): Promise<void> {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  productIds.forEach((id, i) => {
    if (seen.has(id)) errors.push({ pointer: `/productIds/${i}`, detail: 'is listed twice' });
    seen.add(id);
  });
  if (productIds.length > MAX_MANUAL_PRODUCTS) {
    errors.push({ pointer: '/productIds', detail: `must list at most ${MAX_MANUAL_PRODUCTS} products` });
  }
  if (productIds.length > 0 && errors.length === 0) {
    const found = await trx
      .selectFrom('products')
      .select('id')
      .where('store_id', '=', storeId)
      .where('id', 'in', productIds)
      .execute();
    const existing = new Set(found.map((row) => row.id));
    productIds.forEach((id, i) => {
      if (!existing.has(id))
        errors.push({ pointer: `/productIds/${i}`, detail: 'is not a product of this store' });
    });
  }
  if (errors.length > 0) throw validationFailed('productIds lists unknown or repeated products.', errors);
}

async function setManualProducts(
  trx: Transaction<Database>,
  storeId: string,
  collectionId: string,
  productIds: string[],
) {
  await assertProductsExist(trx, storeId, productIds);
  await trx
    .deleteFrom('collection_products')
    .where('store_id', '=', storeId)
    .where('collection_id', '=', collectionId)
    .execute();
  if (productIds.length > 0) {
    await trx
      .insertInto('collection_products')
      .values(
        productIds.map((productId, position) => ({
          store_id: storeId,
          collection_id: collectionId,
          product_id: productId,
          position,
        })),
      )
      .execute();
  }
}

export async function loadAdminCollection(
  db: Kysely<Database>,
  storeId: string,
  id: string,
): Promise<AdminCollection> {
  const row = await db
    .selectFrom('collections')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound('No collection with that id in this store.');
  return toAdminCollection(db, row);
}

export async function toAdminCollection(db: Kysely<Database>, row: CollectionRow): Promise<AdminCollection> {
  let productIds: string[] | null = null;
  if (row.kind === 'manual') {
    const members = await db
      .selectFrom('collection_products')
      .select('product_id')
      .where('store_id', '=', row.store_id)
      .where('collection_id', '=', row.id)
      .orderBy('position')
      .orderBy('product_id')
      .execute();
    productIds = members.map((m) => m.product_id);
  }
  return {
    id: row.id,
    title: row.title,
    slug: row.slug,
    kind: row.kind,
    productIds,
    rules: row.rules,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const slugTaken = (slug: string) =>
  new AppError('slug_unavailable', 409, `A collection with the slug "${slug}" exists already.`);

function checkKindFields(
  kind: CollectionKind,
  input: { productIds?: string[] | undefined; rules?: SmartRules | undefined },
) {
  if (kind === 'manual' && input.rules !== undefined) {
    throw validationFailed('A manual collection has no rules.', [
      { pointer: '/rules', detail: 'is only for smart collections' },
    ]);
  }
  if (kind === 'smart' && input.productIds !== undefined) {
    throw validationFailed('A smart collection picks its products by rules.', [
      { pointer: '/productIds', detail: 'is only for manual collections' },
    ]);
  }
  if (input.rules) validateRules(input.rules);
}

export interface CollectionInput {
  title: string;
  slug: string;
  kind: CollectionKind;
  productIds?: string[] | undefined;
  rules?: SmartRules | undefined;
}

export async function createCollection(
  db: Kysely<Database>,
  storeId: string,
  input: CollectionInput,
): Promise<AdminCollection> {
  checkKindFields(input.kind, input);
  if (input.kind === 'smart' && !input.rules) {
    throw validationFailed('A smart collection needs rules.', [
      { pointer: '/rules', detail: 'is required for a smart collection' },
    ]);
  }
  const id = await db.transaction().execute(async (trx) => {
    if (input.kind === 'smart') {
      const count = await trx
        .selectFrom('collections')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('store_id', '=', storeId)
        .where('kind', '=', 'smart')
        .executeTakeFirstOrThrow();
      if (Number(count.n) >= MAX_SMART_COLLECTIONS) {
        throw new AppError(
          'limit_reached',
          409,
          `A store can have at most ${MAX_SMART_COLLECTIONS} smart collections.`,
        );
      }
    }
    const row = await trx
      .insertInto('collections')
      .values({
        store_id: storeId,
        title: input.title.trim(),
        slug: input.slug,
        kind: input.kind,
        rules: input.kind === 'smart' ? JSON.stringify(input.rules) : null,
      })
      .onConflict((oc) => oc.columns(['store_id', 'slug']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!row) throw slugTaken(input.slug);
    if (input.kind === 'manual') await setManualProducts(trx, storeId, row.id, input.productIds ?? []);
    else await refreshSmartMembership(trx, storeId, { collectionId: row.id });
    await recordEvent(trx, {
      storeId,
      type: 'content.updated',
      data: { kind: 'collection', slug: input.slug, collectionId: row.id },
    });
    return row.id;
  });
  return loadAdminCollection(db, storeId, id);
}

export interface CollectionPatch {
  title?: string | undefined;
  slug?: string | undefined;
  productIds?: string[] | undefined;
  rules?: SmartRules | undefined;
}

export async function updateCollection(
  db: Kysely<Database>,
  storeId: string,
  id: string,
  patch: CollectionPatch,
): Promise<AdminCollection> {
  await db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('collections')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (!current) throw notFound('No collection with that id in this store.');
    checkKindFields(current.kind, patch);
    if (patch.slug !== undefined && patch.slug !== current.slug) {
      const clash = await trx
        .selectFrom('collections')
        .select('id')
        .where('store_id', '=', storeId)
        .where('slug', '=', patch.slug)
        .executeTakeFirst();
      if (clash) throw slugTaken(patch.slug);
    }
    await trx
      .updateTable('collections')
      .set({
        updated_at: new Date(),
        ...(patch.title !== undefined ? { title: patch.title.trim() } : {}),
        ...(patch.slug !== undefined ? { slug: patch.slug } : {}),
        ...(patch.rules !== undefined ? { rules: JSON.stringify(patch.rules) } : {}),
      })
      .where('store_id', '=', storeId)
      .where('id', '=', id)
      .execute();
    if (patch.productIds !== undefined) await setManualProducts(trx, storeId, id, patch.productIds);
    if (patch.rules !== undefined) await refreshSmartMembership(trx, storeId, { collectionId: id });
    await recordEvent(trx, {
      storeId,
      type: 'content.updated',
      data: {
        kind: 'collection',
        slug: patch.slug ?? current.slug,
        collectionId: id,
        ...(patch.slug && patch.slug !== current.slug ? { previousSlug: current.slug } : {}),
      },
    });
  });
  return loadAdminCollection(db, storeId, id);
}

export async function deleteCollection(db: Kysely<Database>, storeId: string, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const row = await trx
      .deleteFrom('collections')
      .where('store_id', '=', storeId)
      .where('id', '=', id)
      .returning('slug')
      .executeTakeFirst();
    if (!row) throw notFound('No collection with that id in this store.');
    await recordEvent(trx, {
      storeId,
      type: 'content.updated',
      data: { kind: 'collection', slug: row.slug, collectionId: id, deleted: true },
    });
  });
}
