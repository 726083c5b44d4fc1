import assert from 'node:assert/strict';
import type { TestApp, TestStore } from './harness.ts';

/** A variant a test needs: its price, and where it matters its weight and whether it ships. */
export interface VariantSpec {
  price: number;
  weightGrams?: number;
  requiresShipping?: boolean;
}

/**
 * Creates one active product with a variant per spec (labels V0, V1, …, 100 on hand each) through
 * the admin API; the variants' ids, in the specs' order.
 */
export async function createVariants(
  t: TestApp,
  store: TestStore,
  specs: readonly VariantSpec[],
): Promise<string[]> {
  const response = await t.admin(store).post('/products', {
    title: 'Things',
    status: 'active',
    variants: specs.map((spec, i) => ({
      label: `V${i}`,
      priceAmount: spec.price,
      onHand: 100,
      ...(spec.weightGrams === undefined ? {} : { weightGrams: spec.weightGrams }),
      ...(spec.requiresShipping === undefined ? {} : { requiresShipping: spec.requiresShipping }),
    })),
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ variants: { id: string }[] }>().variants.map((variant) => variant.id);
}
