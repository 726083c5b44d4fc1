import type { FulfillmentRow, ReturnRow } from './orders.tables.ts';

/** Counting an order's units: shipped by its fulfilments, back by its returns (decisions `fulfilments` and `returns`). */

/** Adds up units per variant. */
export function unitsByVariant(
  items: Iterable<{ variantId: string; quantity: number }>,
): Map<string, number> {
  const units = new Map<string, number>();
  for (const item of items) units.set(item.variantId, (units.get(item.variantId) ?? 0) + item.quantity);
  return units;
}

/** Units shipped per variant by the fulfilments that count (not cancelled). */
export function shippedUnits(
  fulfillments: readonly Pick<FulfillmentRow, 'status' | 'lines'>[],
): Map<string, number> {
  return unitsByVariant(fulfillments.filter((f) => f.status !== 'cancelled').flatMap((f) => f.lines));
}

/** Units returned per variant. */
export function returnedUnits(returns: readonly Pick<ReturnRow, 'lines'>[]): Map<string, number> {
  return unitsByVariant(returns.flatMap((r) => r.lines));
}
