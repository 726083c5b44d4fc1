import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import { isCurrency, isEmail, isSlug } from '../lib/validate.ts';
import { findStoreBySlug } from './stores.repository.ts';
import { AppError, validationFailed, type FieldError } from '../lib/errors.ts';
import type { StoreRow } from './stores.tables.ts';

export interface Store {
  id: string;
  name: string;
  slug: string;
  currency: string;
  replyToEmail: string | null;
}

export function storeRowToStore(row: StoreRow): Store {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    currency: row.currency.trim(),
    replyToEmail: row.reply_to_email,
  };
}

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

/** Creates a store and its owner; the owner's address is the store's initial reply-to. */
export async function createStore(db: Kysely<Database>, input: CreateStoreInput): Promise<CreatedStore> {
  const name = input.name.trim();
  const slug = input.slug.trim().toLowerCase();
  const currency = input.currency.trim().toUpperCase();
  const ownerEmail = input.ownerEmail.trim().toLowerCase();
  const errors: FieldError[] = [];
  if (name.length < 1 || name.length > 200)
    errors.push({ pointer: '/name', detail: 'must be 1 to 200 characters' });
  if (!isSlug(slug))
    errors.push({ pointer: '/slug', detail: 'must be lower-case letters, digits and hyphens' });
  if (!isCurrency(currency))
    errors.push({ pointer: '/currency', detail: 'must be an ISO 4217 code such as USD' });
  if (!isEmail(ownerEmail)) errors.push({ pointer: '/ownerEmail', detail: 'must be an email address' });
  if (errors.length > 0) throw validationFailed('The store could not be created.', errors);

  if (await findStoreBySlug(db, slug)) {
    throw new AppError('slug_unavailable', 409, `The store slug "${slug}" is already taken.`);
  }
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('stores')
      .values({ name, slug, currency, reply_to_email: ownerEmail })
      .onConflict((oc) => oc.column('slug').doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new AppError('slug_unavailable', 409, `The store slug "${slug}" is already taken.`);
    const owner = await trx
      .insertInto('staff_members')
      .values({ store_id: row.id, email: ownerEmail, role: 'owner' })
      .returning(['id', 'email'])
      .executeTakeFirstOrThrow();
    return {
      store: storeRowToStore(row),
      owner: { id: owner.id, email: owner.email, role: 'owner' as const },
    };
  });
}
