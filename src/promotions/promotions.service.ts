import type { Transaction } from 'kysely';
import { isUniqueViolation } from '../db/errors.ts';
import { byCreated } from '../db/keyset.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import type { Database } from '../db/tables.ts';
import { recordEvent, type EventType } from '../events/events.ts';
import type { EmittedData } from '../events/events.schemas.ts';
import type { ListPage } from '../lib/cursors.ts';
import { AppError, notFound, validationFailed, type FieldError } from '../lib/errors.ts';
import type { PromotionCreatedData } from './promotions.events.ts';
import {
  deletePromotionRow,
  findPromotion,
  insertPromotion,
  lockPromotion,
  promotionsQuery,
  updatePromotionRow,
} from './promotions.repository.ts';
import {
  checkShape,
  combinesWith,
  normalizeCode,
  promotionView,
  storedAction,
  storedConditions,
} from './promotions.rules.ts';
import type { Promotion, PromotionBody, PromotionPatch } from './promotions.schemas.ts';
import type { PromotionFields, PromotionRow } from './promotions.tables.ts';

/**
 * Promotions (decision `promotions-resource`): what a store takes off an order, with a
 * code or automatically. Every write records its event in its transaction.
 */

type Deps = Pick<ServiceDeps, 'db' | 'clock'>;

const noPromotion = () => notFound('No promotion with that id in this store.');

export const codeTaken = (code: string): AppError =>
  new AppError('promotion_code_exists', 409, `Another promotion of this store has the code ${code}.`, {
    errors: [
      { pointer: '/code', detail: 'is the code of another promotion of this store (whatever its case)' },
    ],
  });

/** Records promotion.created/updated/deleted for a row in the caller's transaction. */
export async function recordPromotionEvent(
  trx: Transaction<Database>,
  type: Extract<EventType, `promotion.${string}`>,
  storeId: string,
  promotion: Pick<PromotionRow, 'id' | 'code'>,
): Promise<void> {
  await recordEvent(trx, {
    storeId,
    type,
    resource: `promotion:${promotion.id}`,
    data: { promotionId: promotion.id, code: promotion.code } satisfies EmittedData<
      typeof PromotionCreatedData
    >,
  });
}

type Fields = PromotionFields;

/** The whole promotion a body (merged onto the current one for a change) stores; 400 with every bad field. */
function fieldsOf(body: PromotionBody): Fields {
  const errors: FieldError[] = [];
  const code = body.code === undefined || body.code === null ? null : normalizeCode(body.code);
  const automatic = body.automatic ?? false;
  const action = storedAction(body.action, errors);
  checkShape({ code, automatic, startsAt: body.startsAt ?? null, endsAt: body.endsAt ?? null }, errors);
  if (errors.length > 0 || action === null) throw validationFailed('The promotion is not valid.', errors);
  return {
    name: body.name.trim(),
    code,
    automatic,
    conditions: JSON.stringify(storedConditions(body.conditions ?? {})),
    action: JSON.stringify(action),
    combines_with: JSON.stringify(combinesWith(body.combinesWith)),
    starts_at: body.startsAt ?? null,
    ends_at: body.endsAt ?? null,
    usage_limit: body.usageLimit ?? null,
    per_customer_limit: body.perCustomerLimit ?? null,
  };
}

/** Inserts a promotion and records promotion.created; 409 when its code is taken. */
export async function insertPromotionWithEvent(
  deps: Deps,
  storeId: string,
  fields: Fields,
): Promise<PromotionRow | null> {
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx) => {
    const row = await insertPromotion(trx, {
      store_id: storeId,
      ...fields,
      created_at: now,
      updated_at: now,
    });
    if (!row) return null;
    await recordPromotionEvent(trx, 'promotion.created', storeId, row);
    return row;
  });
}

export async function createPromotion(deps: Deps, storeId: string, body: PromotionBody): Promise<Promotion> {
  const fields = fieldsOf(body);
  const row = await insertPromotionWithEvent(deps, storeId, fields);
  if (!row) throw codeTaken(fields.code ?? '');
  return promotionView(row);
}

export function listPromotions(
  deps: Pick<ServiceDeps, 'db' | 'cursors'>,
  storeId: string,
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<ListPage<Promotion>> {
  return byCreated(
    deps.cursors,
    `${storeId}:promotions`,
    promotionsQuery(deps.db, storeId),
    page,
    promotionView,
  );
}

export async function getPromotion(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  id: string,
): Promise<Promotion> {
  const row = await findPromotion(deps.db, storeId, id);
  if (!row) throw noPromotion();
  return promotionView(row);
}

/** The body a promotion's row would be created with: what a change is merged onto. */
function bodyOf(row: PromotionRow): PromotionBody {
  const view = promotionView(row);
  return {
    name: view.name,
    code: view.code,
    automatic: view.automatic,
    conditions: view.conditions,
    action: view.action,
    combinesWith: view.combinesWith,
    startsAt: view.startsAt,
    endsAt: view.endsAt,
    usageLimit: view.usageLimit,
    perCustomerLimit: view.perCustomerLimit,
  };
}

export async function updatePromotion(
  deps: Deps,
  storeId: string,
  id: string,
  patch: PromotionPatch,
): Promise<Promotion> {
  const updated = await deps.db.transaction().execute(async (trx) => {
    const row = await lockPromotion(trx, storeId, id);
    if (!row) throw noPromotion();
    const merged = { ...bodyOf(row), ...patch };
    // Making a code promotion automatic drops its code unless the change names one.
    if (patch.automatic === true && patch.code === undefined) merged.code = null;
    const fields = fieldsOf(merged);
    const next = await updatePromotionRow(trx, storeId, id, {
      ...fields,
      updated_at: deps.clock.now(),
    }).catch((error: unknown) => {
      throw isUniqueViolation(error, 'promotions_code_key') ? codeTaken(fields.code ?? '') : error;
    });
    await recordPromotionEvent(trx, 'promotion.updated', storeId, next);
    return next;
  });
  return promotionView(updated);
}

/** Deletes a promotion (with `discountCodeOnly`, only one the old endpoints list) and records promotion.deleted. */
export async function deletePromotion(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  id: string,
  options: { discountCodeOnly?: boolean; notFound?: () => AppError } = {},
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const deleted = await deletePromotionRow(trx, storeId, id, options.discountCodeOnly);
    if (!deleted) throw (options.notFound ?? noPromotion)();
    await recordPromotionEvent(trx, 'promotion.deleted', storeId, deleted);
  });
}
