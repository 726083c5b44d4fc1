import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/tables.ts';
import { Keyring, type RootSecret } from '../lib/keyring.ts';

const GENERATED = 'root';

/**
 * The deployment's keyring (D28). With SECRET_KEY: it encrypts, SECRET_KEY_PREVIOUS and (until
 * `secrets rotate` removes it) the root generated before SECRET_KEY was set still decrypt, so
 * setting SECRET_KEY for the first time loses nothing. Without SECRET_KEY: a root is generated on
 * first use and kept in the database, so every process of a deployment shares it.
 */
export async function loadKeyring(
  db: Kysely<Database>,
  config: Pick<Config, 'secretKey' | 'secretKeyPrevious'>,
): Promise<Keyring> {
  const previous: RootSecret[] = config.secretKeyPrevious.map((secret, i) => ({
    name: `SECRET_KEY_PREVIOUS[${i + 1}]`,
    secret: Buffer.from(secret, 'utf8'),
  }));
  if (config.secretKey !== null) {
    const generated = await readGeneratedRoot(db);
    return new Keyring([
      { name: 'SECRET_KEY', secret: Buffer.from(config.secretKey, 'utf8') },
      ...previous,
      ...(generated ? [{ name: 'generated root', secret: generated }] : []),
    ]);
  }
  await db
    .insertInto('platform_secrets')
    .values({ name: GENERATED, value: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  return new Keyring([{ name: 'generated root', secret: (await readGeneratedRoot(db))! }, ...previous]);
}

async function readGeneratedRoot(db: Kysely<Database>): Promise<Buffer | null> {
  const row = await db
    .selectFrom('platform_secrets')
    .select('value')
    .where('name', '=', GENERATED)
    .executeTakeFirst();
  return row ? Buffer.from(row.value, 'base64url') : null;
}

/** Deletes the generated root (once SECRET_KEY is set and nothing needs it): no key rests in the database. */
export async function dropGeneratedRoot(db: Kysely<Database>): Promise<boolean> {
  const result = await db.deleteFrom('platform_secrets').where('name', '=', GENERATED).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
