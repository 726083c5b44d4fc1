import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import { sha256Hex } from '../lib/crypto.ts';
import { deleteCredentials, findCredential, insertCredential } from './credentials.repository.ts';
import type { CredentialKind } from './credentials.tables.ts';

/**
 * Bearer credentials (publishable keys, staff session tokens) are stored only as their SHA-256, in
 * one global table: `hash → (kind, store, subject)`. A credential carries no hint of its store, so
 * this is the one lookup not scoped by store; it is keyed by the hash.
 */

/** Records a credential (in the caller's transaction). */
export async function storeCredential(
  deps: { db: Kysely<Database> },
  credential: { secret: string; kind: CredentialKind; storeId: string; subjectId: string },
): Promise<void> {
  await insertCredential(deps.db, { ...credential, hash: sha256Hex(credential.secret) });
}

/** The store and subject a secret names, or null. */
export async function resolveCredential(
  deps: { db: Kysely<Database> },
  secret: string,
  kind: CredentialKind,
): Promise<{ storeId: string; subjectId: string } | null> {
  const row = await findCredential(deps.db, sha256Hex(secret), kind);
  return row ? { storeId: row.store_id, subjectId: row.subject_id } : null;
}

/** Forgets a subject's credential: its secret resolves to nothing from now on. */
export async function revokeCredentials(
  deps: { db: Kysely<Database> },
  storeId: string,
  subjectId: string,
  kind: CredentialKind,
): Promise<void> {
  await deleteCredentials(deps.db, storeId, subjectId, kind);
}
