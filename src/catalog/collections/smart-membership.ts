import type { Transaction } from 'kysely';
import type { Database } from '../../db/tables.ts';
import { refreshSmartMembership } from './collections.repository.ts';

/**
 * Smart collections follow their products: products/ and variants/ call this after a
 * product or its variants changed, in their transaction, so the membership commits with the change.
 */
export function productChanged(
  trx: Transaction<Database>,
  storeId: string,
  productId: string,
): Promise<void> {
  return refreshSmartMembership(trx, storeId, { productIds: [productId] });
}
