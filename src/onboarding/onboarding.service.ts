import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { Clock } from '../lib/clock.ts';
import { addStaffMember } from '../staff/staff.service.ts';
import { insertNewStore, type Store } from '../stores/stores.service.ts';

export interface CreateStoreInput {
  name: string;
  slug: string;
  currency: string;
  ownerEmail: string;
}

export interface CreatedStore {
  store: Store;
  owner: { id: string; email: string; role: 'owner' };
}

/**
 * Creates a store and its owner in one transaction; the owner's address is the store's first
 * reply-to. (The CLI's `stores create`, the demo and bench seeds, and the tests start here.)
 */
export async function createStore(
  deps: { db: Kysely<Database>; clock: Clock },
  input: CreateStoreInput,
): Promise<CreatedStore> {
  return deps.db.transaction().execute(async (trx) => {
    const inTrx = { db: trx, clock: deps.clock };
    const store = await insertNewStore(inTrx, { ...input, replyToEmail: input.ownerEmail });
    const owner = await addStaffMember(inTrx, store.id, { email: input.ownerEmail, role: 'owner' });
    return { store, owner: { id: owner.id, email: owner.email, role: 'owner' as const } };
  });
}
