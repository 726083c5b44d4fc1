import type { EmittedData } from '../../events/events.schemas.ts';
import type { CollectionUpdatedData } from '../catalog.events.ts';
import type { Kysely } from 'kysely';
import { byCreated, keysetPage } from '../../db/keyset.ts';
import type { Database } from '../../db/tables.ts';
import { recordEvent } from '../../events/events.ts';
import type { ListPage } from '../../lib/cursors.ts';
import { AppError, notFound, validationFailed, type FieldError } from '../../lib/errors.ts';
import type { AdminProduct } from '../catalog.schemas.ts';
import type {
  AdminCollection,
  CollectionInput,
  CollectionPatch,
  CollectionPreview,
  CollectionPreviewInput,
  Rules,
} from './collection.schemas.ts';
import type { ServiceDeps } from '../../db/service-deps.ts';
import type { CollectionKind, CollectionRow } from '../catalog.tables.ts';
import {
  collectionsQuery,
  countProductsMatching,
  countSmartCollections,
  deleteCollectionRow,
  findCollection,
  insertCollection,
  lockCollection,
  findCollectionBySlug,
  memberIds,
  memberProductsQuery,
  productsMatchingQuery,
  refreshSmartMembership,
  replaceMembers,
  updateCollectionRow,
  collectionsOfProducts,
} from './collections.repository.ts';
import { toAdminProducts } from '../products/admin-products.ts';
import { existingProductIds } from '../products/products.service.ts';

export const MAX_MANUAL_PRODUCTS = 1000;
export const MAX_CONDITIONS = 20;
export const MAX_SMART_COLLECTIONS = 200;

/** Checks the operator and value type each field allows; 400 with a pointer per bad condition. */
export function validateRules(rules: Rules, pointer = '/rules'): void {
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

async function assertProductsExist(
  db: Kysely<Database>,
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
    const existing = new Set(await existingProductIds({ db }, storeId, productIds));
    productIds.forEach((id, i) => {
      if (!existing.has(id))
        errors.push({ pointer: `/productIds/${i}`, detail: 'is not a product of this store' });
    });
  }
  if (errors.length > 0) throw validationFailed('productIds lists unknown or repeated products.', errors);
}

async function setManualProducts(
  db: Kysely<Database>,
  storeId: string,
  collectionId: string,
  productIds: string[],
): Promise<void> {
  await assertProductsExist(db, storeId, productIds);
  await replaceMembers(db, storeId, collectionId, productIds);
}

async function toAdminCollection(db: Kysely<Database>, row: CollectionRow): Promise<AdminCollection> {
  const productIds = row.kind === 'manual' ? await memberIds(db, row.store_id, row.id) : null;
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

const noCollection = () => notFound('No collection with that id in this store.');

export async function listCollections(
  deps: Pick<ServiceDeps, 'db' | 'cursors'>,
  storeId: string,
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<ListPage<AdminCollection>> {
  const rows = await byCreated(
    deps.cursors,
    `${storeId}:admin-collections`,
    collectionsQuery(deps.db, storeId),
    page,
    (row) => row,
  );
  return {
    items: await Promise.all(rows.items.map((row) => toAdminCollection(deps.db, row))),
    nextCursor: rows.nextCursor,
  };
}

export async function getCollection(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  collectionId: string,
): Promise<AdminCollection> {
  const row = await findCollection(deps.db, storeId, collectionId);
  if (!row) throw noCollection();
  return toAdminCollection(deps.db, row);
}

const slugTaken = (slug: string) =>
  new AppError('slug_unavailable', 409, `A collection with the slug "${slug}" exists already.`);

function checkKindFields(
  kind: CollectionKind,
  input: { productIds?: string[] | undefined; rules?: Rules | undefined },
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

export async function createCollection(
  deps: Pick<ServiceDeps, 'db' | 'clock'>,
  storeId: string,
  input: CollectionInput,
): Promise<AdminCollection> {
  checkKindFields(input.kind, input);
  if (input.kind === 'smart' && !input.rules) {
    throw validationFailed('A smart collection needs rules.', [
      { pointer: '/rules', detail: 'is required for a smart collection' },
    ]);
  }
  const id = await deps.db.transaction().execute(async (trx) => {
    if (input.kind === 'smart' && (await countSmartCollections(trx, storeId)) >= MAX_SMART_COLLECTIONS) {
      throw new AppError(
        'limit_reached',
        409,
        `A store can have at most ${MAX_SMART_COLLECTIONS} smart collections.`,
      );
    }
    const row = await insertCollection(trx, {
      storeId,
      title: input.title.trim(),
      slug: input.slug,
      kind: input.kind,
      rules: input.kind === 'smart' ? (input.rules ?? null) : null,
      now: deps.clock.now(),
    });
    if (!row) throw slugTaken(input.slug);
    if (input.kind === 'manual') await setManualProducts(trx, storeId, row.id, input.productIds ?? []);
    else await refreshSmartMembership(trx, storeId, { collectionId: row.id });
    await recordEvent(trx, {
      storeId,
      type: 'content.updated',
      resource: `content:collection:${row.id}`,
      data: { kind: 'collection', slug: input.slug, collectionId: row.id } satisfies EmittedData<
        typeof CollectionUpdatedData
      >,
    });
    return row.id;
  });
  return getCollection(deps, storeId, id);
}

export async function updateCollection(
  deps: Pick<ServiceDeps, 'db' | 'clock'>,
  storeId: string,
  collectionId: string,
  patch: CollectionPatch,
): Promise<AdminCollection> {
  await deps.db.transaction().execute(async (trx) => {
    const current = await lockCollection(trx, storeId, collectionId);
    if (!current) throw noCollection();
    checkKindFields(current.kind, patch);
    if (patch.slug !== undefined && patch.slug !== current.slug) {
      if (await findCollectionBySlug(trx, storeId, patch.slug)) throw slugTaken(patch.slug);
    }
    await updateCollectionRow(trx, storeId, collectionId, {
      updated_at: deps.clock.now(),
      ...(patch.title !== undefined ? { title: patch.title.trim() } : {}),
      ...(patch.slug !== undefined ? { slug: patch.slug } : {}),
      ...(patch.rules !== undefined ? { rules: patch.rules } : {}),
    });
    if (patch.productIds !== undefined) await setManualProducts(trx, storeId, collectionId, patch.productIds);
    if (patch.rules !== undefined) await refreshSmartMembership(trx, storeId, { collectionId });
    await recordEvent(trx, {
      storeId,
      type: 'content.updated',
      resource: `content:collection:${collectionId}`,
      data: {
        kind: 'collection',
        slug: patch.slug ?? current.slug,
        collectionId,
        ...(patch.slug && patch.slug !== current.slug ? { previousSlug: current.slug } : {}),
      } satisfies EmittedData<typeof CollectionUpdatedData>,
    });
  });
  return getCollection(deps, storeId, collectionId);
}

export async function deleteCollection(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  collectionId: string,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const slug = await deleteCollectionRow(trx, storeId, collectionId);
    if (slug === undefined) throw noCollection();
    await recordEvent(trx, {
      storeId,
      type: 'content.updated',
      resource: `content:collection:${collectionId}`,
      data: { kind: 'collection', slug, collectionId, deleted: true } satisfies EmittedData<
        typeof CollectionUpdatedData
      >,
    });
  });
}

/**
 * A collection's products of any status in its order (manual: the merchant's; smart: by creation
 * time), in the admin shape: what the console lists and reorders.
 */
export async function listCollectionProducts(
  deps: Pick<ServiceDeps, 'db' | 'cursors'>,
  storeId: string,
  collectionId: string,
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<ListPage<AdminProduct>> {
  if (!(await findCollection(deps.db, storeId, collectionId))) throw noCollection();
  const rows = await keysetPage({
    cursors: deps.cursors,
    scope: `${storeId}:admin-collection:${collectionId}`,
    query: memberProductsQuery(deps.db, storeId, collectionId),
    columns: ['cp.position', 'cp.product_id'],
    position: (row) => [row.position, row.id],
    page,
    toItem: (row) => row,
  });
  return { items: await toAdminProducts(deps, storeId, rows.items), nextCursor: rows.nextCursor };
}

export const DEFAULT_PREVIEW_SIZE = 20;

/**
 * What a smart collection with these rules would hold now: the first matching products (any
 * status, by creation time, as the collection orders them) and how many match. The rules are the
 * ones `createCollection` accepts, checked and matched by the same code (validateRules, rulesSql).
 */
export async function previewRules(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  input: CollectionPreviewInput,
): Promise<CollectionPreview> {
  validateRules(input.rules);
  const [rows, total] = await Promise.all([
    productsMatchingQuery(deps.db, storeId, input.rules)
      .orderBy('p.created_at')
      .orderBy('p.id')
      .limit(input.limit ?? DEFAULT_PREVIEW_SIZE)
      .execute(),
    countProductsMatching(deps.db, storeId, input.rules),
  ]);
  return { items: await toAdminProducts(deps, storeId, rows), total };
}

/** The collections each of some products is in (the promotions' collection conditions ask it). */
export function productCollections(
  db: Kysely<Database>,
  storeId: string,
  productIds: readonly string[],
): Promise<Map<string, string[]>> {
  return collectionsOfProducts(db, storeId, productIds);
}
