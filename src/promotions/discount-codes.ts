import { byCreated } from '../db/keyset.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import type { AppError } from '../lib/errors.ts';
import type { ListPage } from '../lib/cursors.ts';
import { discountCodesQuery } from './promotions.repository.ts';
import { normalizeCode } from './promotions.rules.ts';
import { deletePromotion, insertPromotionWithEvent } from './promotions.service.ts';
import type { PromotionRow } from './promotions.tables.ts';

/**
 * Discount codes are promotions (decision `discount-codes-are-promotions`): the old endpoints read
 * and write code promotions that a discount code can say (a code, no condition, no
 * per-customer limit, a whole percentage or an amount off the order), in the old shape.
 */

export type DiscountCodeKind = 'percent' | 'fixed';

/** A discount code as the old endpoints show it and checkout prices with it. */
export interface DiscountCode {
  id: string;
  code: string;
  kind: DiscountCodeKind;
  /** percent: 1–100; fixed: minor units of the store currency. */
  value: number;
  starts_at: Date | null;
  ends_at: Date | null;
  usage_limit: number | null;
  used_count: number;
  created_at: Date;
}

/** A promotion the discount-code filter let through, in the old shape. */
function asDiscountCode(row: PromotionRow): DiscountCode {
  const action = row.action;
  if (row.code === null || (action.kind !== 'percent' && action.kind !== 'amount'))
    throw new Error(`promotion ${row.id} is not a discount code`);
  return {
    id: row.id,
    code: row.code,
    kind: action.kind === 'percent' ? 'percent' : 'fixed',
    value: action.kind === 'percent' ? action.bps / 100 : action.amount,
    starts_at: row.starts_at,
    ends_at: row.ends_at,
    usage_limit: row.usage_limit,
    used_count: row.used_count,
    created_at: row.created_at,
  };
}

export const normalizeDiscountCode = normalizeCode;

/** Creates a code promotion from a discount code (named by its code); null when the code is taken. */
export async function createDiscountCode(
  deps: Pick<ServiceDeps, 'db' | 'clock'>,
  storeId: string,
  input: {
    code: string;
    kind: DiscountCodeKind;
    value: number;
    startsAt: string | null;
    endsAt: string | null;
    usageLimit: number | null;
  },
): Promise<DiscountCode | null> {
  const code = normalizeCode(input.code);
  const action =
    input.kind === 'percent'
      ? { kind: 'percent', target: 'order', bps: input.value * 100 }
      : { kind: 'amount', target: 'order', amount: input.value };
  const row = await insertPromotionWithEvent(deps, storeId, {
    name: code,
    code,
    automatic: false,
    conditions: '{}',
    action: JSON.stringify(action),
    combines_with: JSON.stringify({ order: false, items: false, shipping: false }),
    starts_at: input.startsAt,
    ends_at: input.endsAt,
    usage_limit: input.usageLimit,
    per_customer_limit: null,
  });
  return row && asDiscountCode(row);
}

export function listDiscountCodes<Item>(
  deps: Pick<ServiceDeps, 'db' | 'cursors'>,
  storeId: string,
  page: { limit?: number | undefined; cursor?: string | undefined },
  toItem: (code: DiscountCode) => Item,
): Promise<ListPage<Item>> {
  return byCreated(deps.cursors, `${storeId}:discounts`, discountCodesQuery(deps.db, storeId), page, (row) =>
    toItem(asDiscountCode(row)),
  );
}

export function deleteDiscountCode(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  id: string,
  notFound: () => AppError,
): Promise<void> {
  return deletePromotion(deps, storeId, id, { discountCodeOnly: true, notFound });
}
