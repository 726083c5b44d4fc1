import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { CredentialKind } from './credentials.tables.ts';

export async function insertCredential(
  db: Kysely<Database>,
  row: { hash: string; kind: CredentialKind; storeId: string; subjectId: string },
): Promise<void> {
  await db
    .insertInto('credentials')
    .values({ hash: row.hash, kind: row.kind, store_id: row.storeId, subject_id: row.subjectId })
    .execute();
}

export async function deleteCredentials(
  db: Kysely<Database>,
  storeId: string,
  subjectId: string,
  kind: CredentialKind,
): Promise<void> {
  await db
    .deleteFrom('credentials')
    .where('store_id', '=', storeId)
    .where('subject_id', '=', subjectId)
    .where('kind', '=', kind)
    .execute();
}

export function findCredential(
  db: Kysely<Database>,
  hash: string,
  kind: CredentialKind,
): Promise<{ store_id: string; subject_id: string } | undefined> {
  return db
    .selectFrom('credentials')
    .select(['store_id', 'subject_id'])
    .where('hash', '=', hash)
    .where('kind', '=', kind)
    .executeTakeFirst();
}
