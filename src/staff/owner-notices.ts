import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import { enqueueMail } from '../mail/outbox.ts';
import { ownerAddresses } from './staff.repository.ts';

export interface OwnerNotice {
  /** The mail's kind in the outbox, e.g. `order_oversold`. */
  kind: string;
  subject: string;
  text: string;
}

/** The addresses of a store's owners, for notices built elsewhere. */
export function ownerEmails(deps: { db: Kysely<Database> }, storeId: string): Promise<string[]> {
  return ownerAddresses(deps.db, storeId);
}

/**
 * An admin notice: platform mail (never from the store's own domain) to every owner of the store,
 * queued in the caller's transaction, so it goes out exactly when the change it reports commits.
 * Returns how many owners it was queued for.
 */
export async function notifyOwners(
  deps: { db: Kysely<Database> },
  storeId: string,
  notice: OwnerNotice,
): Promise<number> {
  const owners = await ownerAddresses(deps.db, storeId);
  for (const to of owners) await enqueueMail(deps.db, { storeId, tier: 'platform', to, ...notice });
  return owners.length;
}
