import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import { isUniqueViolation } from '../db/errors.ts';
import type { Database } from '../db/tables.ts';
import { recordEvent } from '../events/events.ts';
import type { ProductRow, ProductStatus, VariantRow } from './catalog.tables.ts';
import { refreshSmartMembership } from './collections.service.ts';
import { available, setOnHand } from './inventory.ts';
import { AppError, notFound, validationFailed, type FieldError } from '../lib/errors.ts';

export const MAX_VARIANTS = 100;
export const MAX_TAGS = 50;

export interface VariantInput {
  sku?: string | null | undefined;
  label: string;
  priceAmount: number;
  compareAtAmount?: number | null | undefined;
  onHand: number;
}

export interface ProductInput {
  title: string;
  description?: string | undefined;
  status: ProductStatus;
  image?: string | null | undefined;
  tags?: string[] | undefined;
  variants: VariantInput[];
}

export interface ProductPatch {
  title?: string | undefined;
  description?: string | undefined;
  status?: ProductStatus | undefined;
  image?: string | null | undefined;
  tags?: string[] | undefined;
}

export interface VariantPatch {
  sku?: string | null | undefined;
  label?: string | undefined;
  priceAmount?: number | undefined;
  compareAtAmount?: number | null | undefined;
  onHand?: number | undefined;
}

export interface AdminVariant {
  id: string;
  productId: string;
  sku: string | null;
  label: string;
  priceAmount: number;
  compareAtAmount: number | null;
  onHand: number;
  reserved: number;
  available: number;
  createdAt: string;
  updatedAt: string;
}

export interface AdminProduct {
  id: string;
  title: string;
  description: string;
  status: ProductStatus;
  image: string | null;
  tags: string[];
  priceAmount: number | null;
  currency: string;
  variants: AdminVariant[];
  createdAt: string;
  updatedAt: string;
}

export function toAdminVariant(row: VariantRow): AdminVariant {
  return {
    id: row.id,
    productId: row.product_id,
    sku: row.sku,
    label: row.label,
    priceAmount: row.price_amount,
    compareAtAmount: row.compare_at_amount,
    onHand: row.on_hand,
    reserved: row.reserved,
    available: available(row),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** An image is an https URL (the storefront embeds it; http would be mixed content). */
export function checkImage(image: string | null | undefined, pointer = '/image'): FieldError[] {
  if (image === null || image === undefined) return [];
  try {
    const url = new URL(image);
    if (url.protocol === 'https:' && !url.username && !url.password && image.length <= 2048) return [];
  } catch {
    // fall through
  }
  return [{ pointer, detail: 'must be an https URL (or null)' }];
}

export function normalizeTags(tags: string[] | undefined, errors: FieldError[]): string[] | undefined {
  if (tags === undefined) return undefined;
  const out: string[] = [];
  const seen = new Set<string>();
  tags.forEach((tag, i) => {
    const trimmed = tag.trim();
    if (trimmed === '' || trimmed.length > 64)
      errors.push({ pointer: `/tags/${i}`, detail: 'must be 1 to 64 characters' });
    else if (!seen.has(trimmed.toLowerCase())) {
      seen.add(trimmed.toLowerCase());
      out.push(trimmed);
    }
  });
  if (tags.length > MAX_TAGS) errors.push({ pointer: '/tags', detail: `must have at most ${MAX_TAGS} tags` });
  return out;
}

function checkVariant(variant: VariantInput | VariantPatch, at: string, errors: FieldError[]): void {
  if (variant.label !== undefined && variant.label.trim() === '')
    errors.push({ pointer: `${at}/label`, detail: 'must not be blank' });
  if (variant.sku !== undefined && variant.sku !== null && variant.sku.trim() === '') {
    errors.push({ pointer: `${at}/sku`, detail: 'must not be blank (use null for no SKU)' });
  }
}

const skuTaken = (sku: string, pointer: string): AppError =>
  new AppError('sku_unavailable', 409, `The SKU "${sku}" is already used by another variant of this store.`, {
    errors: [{ pointer, detail: 'is already used in this store' }],
  });

async function assertSkusFree(
  trx: Transaction<Database>,
  storeId: string,
  skus: { sku: string; pointer: string }[],
  exceptVariantId?: string,
) {
  if (skus.length === 0) return;
  let query = trx
    .selectFrom('variants')
    .select('sku')
    .where('store_id', '=', storeId)
    .where(
      'sku',
      'in',
      skus.map((s) => s.sku),
    );
  if (exceptVariantId) query = query.where('id', '<>', exceptVariantId);
  const taken = await query.executeTakeFirst();
  if (taken?.sku) throw skuTaken(taken.sku, skus.find((s) => s.sku === taken.sku)!.pointer);
}

const isVisible = (status: ProductStatus): boolean => status === 'active';

/** Recomputes the card price (lowest variant price) after variants changed. */
async function refreshCardPrice(
  trx: Transaction<Database>,
  storeId: string,
  productId: string,
): Promise<number | null> {
  const row = await trx
    .updateTable('products')
    .set({
      price_amount: sql<
        number | null
      >`(SELECT min(v.price_amount) FROM variants v WHERE v.store_id = ${storeId}::uuid AND v.product_id = ${productId}::uuid)`,
    })
    .where('store_id', '=', storeId)
    .where('id', '=', productId)
    .returning('price_amount')
    .executeTakeFirstOrThrow();
  return row.price_amount;
}

export async function loadAdminProducts(
  db: Kysely<Database>,
  storeId: string,
  rows: ProductRow[],
): Promise<AdminProduct[]> {
  if (rows.length === 0) return [];
  const [variants, store] = await Promise.all([
    db
      .selectFrom('variants')
      .selectAll()
      .where('store_id', '=', storeId)
      .where(
        'product_id',
        'in',
        rows.map((r) => r.id),
      )
      .orderBy('product_id')
      .orderBy('position')
      .execute(),
    db.selectFrom('stores').select('currency').where('id', '=', storeId).executeTakeFirstOrThrow(),
  ]);
  const byProduct = new Map<string, AdminVariant[]>();
  for (const variant of variants) {
    const list = byProduct.get(variant.product_id) ?? [];
    list.push(toAdminVariant(variant));
    byProduct.set(variant.product_id, list);
  }
  return rows.map((row) => ({
    id: row.id,
    title: row.title,
    description: row.description,
    status: row.status,
    image: row.image,
    tags: row.tags,
    priceAmount: row.price_amount,
    currency: store.currency.trim(),
    variants: byProduct.get(row.id) ?? [],
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }));
}

export async function loadAdminProduct(
  db: Kysely<Database>,
  storeId: string,
  id: string,
): Promise<AdminProduct> {
  const row = await db
    .selectFrom('products')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound('No product with that id in this store.');
  return (await loadAdminProducts(db, storeId, [row]))[0]!;
}

/**
 * Creates a product with its variants. A product becomes visible (product.created) only when it
 * is active, and an active product needs at least one variant (D21).
 */
export async function createProduct(
  db: Kysely<Database>,
  storeId: string,
  input: ProductInput,
): Promise<AdminProduct> {
  const errors: FieldError[] = [...checkImage(input.image)];
  const tags = normalizeTags(input.tags, errors) ?? [];
  if (input.title.trim() === '') errors.push({ pointer: '/title', detail: 'must not be blank' });
  if (input.variants.length > MAX_VARIANTS)
    errors.push({ pointer: '/variants', detail: `must have at most ${MAX_VARIANTS} variants` });
  if (input.status === 'active' && input.variants.length === 0) {
    errors.push({ pointer: '/variants', detail: 'an active product needs at least one variant' });
  }
  const skus: { sku: string; pointer: string }[] = [];
  input.variants.forEach((variant, i) => {
    checkVariant(variant, `/variants/${i}`, errors);
    const sku = variant.sku?.trim();
    if (sku) {
      if (skus.some((s) => s.sku === sku))
        errors.push({ pointer: `/variants/${i}/sku`, detail: 'is repeated in this product' });
      skus.push({ sku, pointer: `/variants/${i}/sku` });
    }
  });
  if (errors.length > 0) throw validationFailed('The product is invalid.', errors);

  try {
    const id = await db.transaction().execute(async (trx) => {
      await assertSkusFree(trx, storeId, skus);
      const product = await trx
        .insertInto('products')
        .values({
          store_id: storeId,
          title: input.title.trim(),
          description: input.description ?? '',
          status: input.status,
          image: input.image ?? null,
          tags,
          price_amount:
            input.variants.length > 0 ? Math.min(...input.variants.map((v) => v.priceAmount)) : null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      if (input.variants.length > 0) {
        await trx
          .insertInto('variants')
          .values(
            input.variants.map((variant, position) => ({
              store_id: storeId,
              product_id: product.id,
              position,
              sku: variant.sku?.trim() || null,
              label: variant.label.trim(),
              price_amount: variant.priceAmount,
              compare_at_amount: variant.compareAtAmount ?? null,
              on_hand: variant.onHand,
            })),
          )
          .execute();
      }
      await refreshSmartMembership(trx, storeId, { productIds: [product.id] });
      if (isVisible(input.status)) {
        await recordEvent(trx, { storeId, type: 'product.created', data: { productId: product.id } });
      }
      return product.id;
    });
    return await loadAdminProduct(db, storeId, id);
  } catch (error) {
    if (isUniqueViolation(error)) throw skuTaken(skus[0]?.sku ?? '', skus[0]?.pointer ?? '/variants');
    throw error;
  }
}

async function lockProduct(
  trx: Transaction<Database>,
  storeId: string,
  productId: string,
): Promise<ProductRow> {
  const row = await trx
    .selectFrom('products')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', productId)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw notFound('No product with that id in this store.');
  return row;
}

/** Emits the storefront-visibility event of a product change (created, updated or deleted). */
async function recordVisibilityChange(
  trx: Transaction<Database>,
  storeId: string,
  productId: string,
  was: ProductStatus,
  now: ProductStatus,
  changed: boolean,
): Promise<void> {
  if (!isVisible(was) && isVisible(now)) {
    await recordEvent(trx, { storeId, type: 'product.created', data: { productId } });
  } else if (isVisible(was) && !isVisible(now)) {
    await recordEvent(trx, { storeId, type: 'product.deleted', data: { productId, reason: now } });
  } else if (isVisible(now) && changed) {
    await recordEvent(trx, { storeId, type: 'product.updated', data: { productId } });
  }
}

export async function updateProduct(
  db: Kysely<Database>,
  storeId: string,
  productId: string,
  patch: ProductPatch,
): Promise<AdminProduct> {
  const errors: FieldError[] = [...checkImage(patch.image)];
  const tags = normalizeTags(patch.tags, errors);
  if (patch.title !== undefined && patch.title.trim() === '')
    errors.push({ pointer: '/title', detail: 'must not be blank' });
  if (errors.length > 0) throw validationFailed('The product change is invalid.', errors);

  await db.transaction().execute(async (trx) => {
    const current = await lockProduct(trx, storeId, productId);
    const status = patch.status ?? current.status;
    if (status === 'active' && current.price_amount === null) {
      throw validationFailed('An active product needs at least one variant.', [
        { pointer: '/status', detail: 'add a variant before making the product active' },
      ]);
    }
    const next = {
      title: patch.title?.trim() ?? current.title,
      description: patch.description ?? current.description,
      status,
      image: patch.image !== undefined ? patch.image : current.image,
      tags: tags ?? current.tags,
    };
    const changed =
      next.title !== current.title ||
      next.description !== current.description ||
      next.image !== current.image ||
      JSON.stringify(next.tags) !== JSON.stringify(current.tags);
    if (!changed && status === current.status) return;
    await trx
      .updateTable('products')
      .set({ ...next, updated_at: new Date() })
      .where('store_id', '=', storeId)
      .where('id', '=', productId)
      .execute();
    await refreshSmartMembership(trx, storeId, { productIds: [productId] });
    await recordVisibilityChange(trx, storeId, productId, current.status, status, changed);
  });
  return loadAdminProduct(db, storeId, productId);
}

export async function deleteProduct(db: Kysely<Database>, storeId: string, productId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const current = await lockProduct(trx, storeId, productId);
    await trx.deleteFrom('products').where('store_id', '=', storeId).where('id', '=', productId).execute();
    if (isVisible(current.status)) {
      await recordEvent(trx, { storeId, type: 'product.deleted', data: { productId, reason: 'deleted' } });
    }
  });
}

async function findVariant(
  trx: Transaction<Database>,
  storeId: string,
  variantId: string,
): Promise<VariantRow> {
  const row = await trx
    .selectFrom('variants')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', variantId)
    .executeTakeFirst();
  if (!row) throw notFound('No variant with that id in this store.');
  return row;
}

export async function addVariant(
  db: Kysely<Database>,
  storeId: string,
  productId: string,
  input: VariantInput,
): Promise<AdminVariant> {
  const errors: FieldError[] = [];
  checkVariant(input, '', errors);
  if (errors.length > 0) throw validationFailed('The variant is invalid.', errors);
  const sku = input.sku?.trim() || null;
  try {
    return await db.transaction().execute(async (trx) => {
      const product = await lockProduct(trx, storeId, productId);
      if (sku) await assertSkusFree(trx, storeId, [{ sku, pointer: '/sku' }]);
      const last = await trx
        .selectFrom('variants')
        .select((eb) => [eb.fn.max<number>('position').as('position'), eb.fn.countAll<number>().as('n')])
        .where('store_id', '=', storeId)
        .where('product_id', '=', productId)
        .executeTakeFirstOrThrow();
      if (Number(last.n) >= MAX_VARIANTS) {
        throw new AppError('limit_reached', 409, `A product can have at most ${MAX_VARIANTS} variants.`);
      }
      const row = await trx
        .insertInto('variants')
        .values({
          store_id: storeId,
          product_id: productId,
          position: last.position === null ? 0 : Number(last.position) + 1,
          sku,
          label: input.label.trim(),
          price_amount: input.priceAmount,
          compare_at_amount: input.compareAtAmount ?? null,
          on_hand: input.onHand,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await refreshCardPrice(trx, storeId, productId);
      await refreshSmartMembership(trx, storeId, { productIds: [productId] });
      await recordVisibilityChange(trx, storeId, productId, product.status, product.status, true);
      return toAdminVariant(row);
    });
  } catch (error) {
    if (isUniqueViolation(error) && sku) throw skuTaken(sku, '/sku');
    throw error;
  }
}

/**
 * Changes a variant. Emits product.updated when the product is visible and a field changed, and
 * inventory.updated whenever the variant's sellable stock changed.
 */
export async function updateVariant(
  db: Kysely<Database>,
  storeId: string,
  variantId: string,
  patch: VariantPatch,
): Promise<AdminVariant> {
  const errors: FieldError[] = [];
  checkVariant(patch, '', errors);
  if (errors.length > 0) throw validationFailed('The variant change is invalid.', errors);
  const sku = patch.sku === undefined ? undefined : patch.sku?.trim() || null;
  try {
    return await db.transaction().execute(async (trx) => {
      const found = await findVariant(trx, storeId, variantId);
      const product = await lockProduct(trx, storeId, found.product_id);
      const current = await trx
        .selectFrom('variants')
        .selectAll()
        .where('store_id', '=', storeId)
        .where('id', '=', variantId)
        .forUpdate()
        .executeTakeFirstOrThrow();
      if (sku) await assertSkusFree(trx, storeId, [{ sku, pointer: '/sku' }], variantId);
      const now = new Date();
      const row = await trx
        .updateTable('variants')
        .set({
          updated_at: now,
          ...(sku !== undefined ? { sku } : {}),
          ...(patch.label !== undefined ? { label: patch.label.trim() } : {}),
          ...(patch.priceAmount !== undefined ? { price_amount: patch.priceAmount } : {}),
          ...(patch.compareAtAmount !== undefined ? { compare_at_amount: patch.compareAtAmount } : {}),
        })
        .where('store_id', '=', storeId)
        .where('id', '=', variantId)
        .returningAll()
        .executeTakeFirstOrThrow();
      const fieldsChanged =
        row.sku !== current.sku ||
        row.label !== current.label ||
        row.price_amount !== current.price_amount ||
        row.compare_at_amount !== current.compare_at_amount;
      const stockChanged =
        patch.onHand !== undefined &&
        available({ on_hand: patch.onHand, reserved: current.reserved }) !== available(current);
      if (row.price_amount !== current.price_amount) {
        await refreshCardPrice(trx, storeId, product.id);
        await refreshSmartMembership(trx, storeId, { productIds: [product.id] });
      }
      if (fieldsChanged || stockChanged) {
        await recordVisibilityChange(trx, storeId, product.id, product.status, product.status, true);
      }
      // Stock goes through the inventory module: 409 stock_reserved below what pending orders hold,
      // inventory.updated when the sellable count changed.
      const stocked =
        patch.onHand === undefined ? row : await setOnHand(trx, storeId, variantId, patch.onHand, now);
      return toAdminVariant(stocked ?? row);
    });
  } catch (error) {
    if (isUniqueViolation(error) && sku) throw skuTaken(sku, '/sku');
    throw error;
  }
}

export async function deleteVariant(db: Kysely<Database>, storeId: string, variantId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const found = await findVariant(trx, storeId, variantId);
    const product = await lockProduct(trx, storeId, found.product_id);
    if (product.status === 'active') {
      const siblings = await trx
        .selectFrom('variants')
        .select('id')
        .where('store_id', '=', storeId)
        .where('product_id', '=', product.id)
        .limit(2)
        .execute();
      if (siblings.length < 2) {
        throw validationFailed(
          'An active product needs at least one variant; archive the product or add a variant first.',
          [{ pointer: '/id', detail: 'is the last variant of an active product', in: 'path' }],
        );
      }
    }
    await trx.deleteFrom('variants').where('store_id', '=', storeId).where('id', '=', variantId).execute();
    await refreshCardPrice(trx, storeId, product.id);
    await refreshSmartMembership(trx, storeId, { productIds: [product.id] });
    await recordVisibilityChange(trx, storeId, product.id, product.status, product.status, true);
  });
}

export interface BulkProduct {
  title: string;
  description: string;
  image: string | null;
  tags: string[];
  createdAt: Date;
  variants: { label: string; sku: string; priceAmount: number; onHand: number }[];
}

/**
 * Inserts active products with their variants in one statement each, without events (the bench
 * seed: a benchmark store is not a merchant's, and its catalog is far too large for one event
 * per product). Card prices are the lowest variant price, as always.
 */
export async function importProducts(
  deps: { db: Kysely<Database> },
  storeId: string,
  products: readonly BulkProduct[],
): Promise<void> {
  const rows = products.map((product) => ({ product, id: randomUUID() }));
  await deps.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('products')
      .values(
        rows.map(({ product, id }) => ({
          store_id: storeId,
          id,
          title: product.title,
          description: product.description,
          status: 'active' as const,
          image: product.image,
          tags: product.tags,
          price_amount: Math.min(...product.variants.map((v) => v.priceAmount)),
          created_at: product.createdAt,
        })),
      )
      .execute();
    await trx
      .insertInto('variants')
      .values(
        rows.flatMap(({ product, id }) =>
          product.variants.map((variant, position) => ({
            store_id: storeId,
            product_id: id,
            position,
            sku: variant.sku,
            label: variant.label,
            price_amount: variant.priceAmount,
            compare_at_amount: null,
            on_hand: variant.onHand,
          })),
        ),
      )
      .execute();
  });
}
