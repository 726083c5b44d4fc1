import type { Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import { enqueueMail } from '../mail/outbox.ts';

export interface OwnerNotice {
  /** The mail's kind in the outbox, e.g. `order_oversold`. */
  kind: string;
  subject: string;
  text: string;
}

/**
 * An admin notice: platform mail (never from the store's own domain) to every owner of the store,
 * queued in the caller's transaction, so it goes out exactly when the change it reports commits.
 * Returns how many owners it was queued for.
 */
export async function notifyOwners(
  trx: Transaction<Database>,
  storeId: string,
  notice: OwnerNotice,
): Promise<number> {
  const owners = await trx
    .selectFrom('staff_members')
    .select('email')
    .where('store_id', '=', storeId)
    .where('role', '=', 'owner')
    .orderBy('email')
    .execute();
  for (const owner of owners) {
    await enqueueMail(trx, { storeId, tier: 'platform', to: owner.email, ...notice });
  }
  return owners.length;
}
