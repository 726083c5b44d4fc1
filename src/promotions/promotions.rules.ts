import type { FieldError } from '../lib/errors.ts';
import type { Action, Conditions, Promotion } from './promotions.schemas.ts';
import type {
  CombinesWith,
  PromotionRow,
  StoredAction,
  StoredConditions,
  StoredUnits,
} from './promotions.tables.ts';

/**
 * Promotions between the wire and the table (decision `promotions-resource`): percentages are sent
 * as percent (`12.5`) and stored in basis points (1250), the engine's unit; conditions not set are
 * left out. Each check names the field it is about.
 */

/** A percentage sent (0.01–100 in steps of 0.01) in basis points; null when it is not one. */
export function percentToBps(value: number): number | null {
  const bps = Math.round(value * 100);
  if (Math.abs(value * 100 - bps) > 1e-6 || bps < 1 || bps > 10_000) return null;
  return bps;
}

const bpsToPercent = (bps: number): number => bps / 100;

const MAX_AMOUNT = 1_000_000_000_00;

function units<T extends { quantity: number; productIds?: string[]; collectionIds?: string[] }>(
  input: T,
): StoredUnits {
  return {
    quantity: input.quantity,
    ...(input.productIds?.length ? { productIds: input.productIds } : {}),
    ...(input.collectionIds?.length ? { collectionIds: input.collectionIds } : {}),
  };
}

/** The action to store, or the errors that stop it, each at its pointer under /action. */
export function storedAction(action: Action, errors: FieldError[]): StoredAction | null {
  const not = (field: keyof Action, detail: string) => {
    if (action[field] !== undefined) errors.push({ pointer: `/action/${field}`, detail });
  };
  const before = errors.length;
  const target = action.target ?? 'order';
  switch (action.kind) {
    case 'percent': {
      not('buy', 'is only for buy_x_get_y');
      not('get', 'is only for buy_x_get_y');
      const bps = action.value === undefined ? null : percentToBps(action.value);
      if (bps === null)
        errors.push({
          pointer: '/action/value',
          detail: 'must be a percentage from 0.01 to 100 in steps of 0.01',
        });
      return errors.length > before || bps === null ? null : { kind: 'percent', target, bps };
    }
    case 'amount': {
      not('buy', 'is only for buy_x_get_y');
      not('get', 'is only for buy_x_get_y');
      const amount = action.value;
      if (amount === undefined || !Number.isInteger(amount) || amount < 1 || amount > MAX_AMOUNT)
        errors.push({
          pointer: '/action/value',
          detail: `must be a whole amount in minor units, 1 to ${MAX_AMOUNT}`,
        });
      return errors.length > before || amount === undefined ? null : { kind: 'amount', target, amount };
    }
    case 'free_shipping':
      for (const field of ['value', 'target', 'buy', 'get'] as const) not(field, 'is not for free_shipping');
      return errors.length > before ? null : { kind: 'free_shipping' };
    case 'buy_x_get_y': {
      not('value', 'is not for buy_x_get_y: get.percent says what comes off');
      not('target', 'is not for buy_x_get_y');
      if (action.buy === undefined)
        errors.push({ pointer: '/action/buy', detail: 'is required for buy_x_get_y' });
      if (action.get === undefined)
        errors.push({ pointer: '/action/get', detail: 'is required for buy_x_get_y' });
      const bps = action.get?.percent === undefined ? null : percentToBps(action.get.percent);
      if (action.get !== undefined && bps === null)
        errors.push({
          pointer: '/action/get/percent',
          detail: 'must be a percentage from 0.01 to 100 in steps of 0.01 (100: free)',
        });
      if (errors.length > before || !action.buy || !action.get || bps === null) return null;
      return { kind: 'buy_x_get_y', buy: units(action.buy), get: { ...units(action.get), bps } };
    }
  }
}

export function actionView(action: StoredAction): Action {
  switch (action.kind) {
    case 'percent':
      return { kind: 'percent', target: action.target, value: bpsToPercent(action.bps) };
    case 'amount':
      return { kind: 'amount', target: action.target, value: action.amount };
    case 'free_shipping':
      return { kind: 'free_shipping' };
    case 'buy_x_get_y': {
      const { bps, ...get } = action.get;
      return { kind: 'buy_x_get_y', buy: action.buy, get: { ...get, percent: bpsToPercent(bps) } };
    }
  }
}

/** The conditions to store: those set (a list with ids, a minimum above zero, firstOrderOnly true). */
export function storedConditions(conditions: Conditions): StoredConditions {
  const stored: StoredConditions = {};
  if (conditions.minSubtotal) stored.minSubtotal = conditions.minSubtotal;
  if (conditions.minQuantity) stored.minQuantity = conditions.minQuantity;
  for (const list of ['productIds', 'collectionIds', 'customerGroupIds', 'marketIds'] as const) {
    const ids = conditions[list];
    if (ids?.length) stored[list] = ids;
  }
  if (conditions.firstOrderOnly) stored.firstOrderOnly = true;
  return stored;
}

/** The rules across fields: a code or automatic (not both), dates in order. */
export function checkShape(
  promotion: { code: string | null; automatic: boolean; startsAt: string | null; endsAt: string | null },
  errors: FieldError[],
): void {
  if (promotion.automatic && promotion.code !== null)
    errors.push({
      pointer: '/code',
      detail: 'an automatic promotion has no code (set code to null, or automatic to false)',
    });
  if (!promotion.automatic && promotion.code === null)
    errors.push({ pointer: '/code', detail: 'is required unless automatic is true' });
  if (
    promotion.startsAt &&
    promotion.endsAt &&
    Date.parse(promotion.endsAt) <= Date.parse(promotion.startsAt)
  )
    errors.push({ pointer: '/endsAt', detail: 'must be after startsAt' });
}

export function combinesWith(input: Partial<CombinesWith> | undefined): CombinesWith {
  return { order: input?.order ?? false, items: input?.items ?? false, shipping: input?.shipping ?? false };
}

export function promotionView(row: PromotionRow): Promotion {
  return {
    id: row.id,
    name: row.name,
    code: row.code,
    automatic: row.automatic,
    conditions: row.conditions,
    action: actionView(row.action),
    combinesWith: row.combines_with,
    startsAt: row.starts_at?.toISOString() ?? null,
    endsAt: row.ends_at?.toISOString() ?? null,
    usageLimit: row.usage_limit,
    perCustomerLimit: row.per_customer_limit,
    usedCount: row.used_count,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function normalizeCode(code: string): string {
  return code.trim().toUpperCase();
}
