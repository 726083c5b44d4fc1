import { hkdfSync, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';

/**
 * The root secret for signing opaque values (cursors). From SECRET_KEY when set; otherwise one is
 * generated on first use and kept in the database, so every process of a deployment shares it.
 */
export async function loadRootSecret(db: Kysely<Database>, configured: string | null): Promise<Buffer> {
  if (configured !== null) return Buffer.from(configured, 'utf8');
  await db
    .insertInto('platform_secrets')
    .values({ name: 'root', value: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db
    .selectFrom('platform_secrets')
    .select('value')
    .where('name', '=', 'root')
    .executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'base64url');
}

/** A purpose-specific key derived from the root secret (HKDF-SHA-256). */
export function deriveKey(root: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), `storefront:${purpose}`, 32));
}
