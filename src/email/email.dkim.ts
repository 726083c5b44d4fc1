import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { Keyring, SealedColumns, SealedValues } from '../lib/keyring.ts';
import { findStore } from '../stores/stores.service.ts';
import type { EmailSettings } from './email.config.ts';
import {
  allDkimPublicKeys,
  dkimPrivateKeyBatch,
  updateDkimPrivateKey,
  type DkimKeyRef,
} from './email.repository.ts';

/**
 * DKIM keys of sending domains. Each domain gets three tokens; the merchant publishes
 * `<token>._domainkey.<domain> CNAME <token>.dkim.<PLATFORM_MAIL_DOMAIN>` and the platform's own
 * zone publishes the public key at `<token>.dkim.<PLATFORM_MAIL_DOMAIN>` (`storefront dkim records`
 * prints those TXT records). Store mail is signed with d=<domain>, s=<token of position 0>; the
 * other two keys are published so a key can be rotated without a DNS change by the merchant.
 *
 * Private keys are stored only sealed by the keyring (AES-256-GCM under a key derived from the root
 * secret, decision `sealed-secrets`), with the store and token as associated data, so a ciphertext moved to another row
 * does not decrypt.
 */

export const DKIM_TOKENS_PER_DOMAIN = 3;
export const DKIM_KEY_BITS = 2048;

const generateKeyPairAsync = promisify(generateKeyPair);

/** A DNS label of 32 random lower-case hex characters (128 bits): unique across all stores. */
export function newDkimToken(): string {
  return randomBytes(16).toString('hex');
}

export interface DkimKeyMaterial {
  token: string;
  /** Base64 DER SubjectPublicKeyInfo: the `p=` value. */
  publicKey: string;
  /** PKCS #8 PEM, as nodemailer's DKIM option takes it. */
  privateKeyPem: string;
}

/** A 2048-bit RSA key pair (generated off the main thread: it takes tens to hundreds of ms). */
export async function generateDkimKey(token: string): Promise<DkimKeyMaterial> {
  const { publicKey, privateKey } = await generateKeyPairAsync('rsa', {
    modulusLength: DKIM_KEY_BITS,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { token, publicKey: publicKey.toString('base64'), privateKeyPem: privateKey };
}

const PURPOSE = 'dkim-private-keys';
const context = (storeId: string, token: string): string => `${storeId}:${token}`;
const legacyContext = (storeId: string, token: string): string => `dkim-key:${storeId}:${token}`;

export function encryptPrivateKey(keyring: Keyring, storeId: string, token: string, pem: string): string {
  return keyring.seal(PURPOSE, pem, context(storeId, token));
}

/** Throws SecretUnreadableError when no configured root secret opens it. */
export function decryptPrivateKey(keyring: Keyring, storeId: string, token: string, stored: string): string {
  return keyring.open(
    PURPOSE,
    stored,
    context(storeId, token),
    `The DKIM key ${token} of store ${storeId}`,
    legacyContext(storeId, token),
  );
}

/** Re-encrypts a stored key under the current root; null when it already is. */
export function resealPrivateKey(
  keyring: Keyring,
  storeId: string,
  token: string,
  stored: string,
): string | null {
  if (keyring.isCurrent(PURPOSE, stored)) return null;
  return encryptPrivateKey(keyring, storeId, token, decryptPrivateKey(keyring, storeId, token, stored));
}

/** Where the platform publishes a token's public key. */
export function dkimKeyHost(token: string, platformMailDomain: string): string {
  return `${token}.dkim.${platformMailDomain}`;
}

/** The TXT value of a DKIM key record (RFC 6376 section 3.6.1). */
export function dkimTxtValue(publicKey: string): string {
  return `v=DKIM1; k=rsa; p=${publicKey}`;
}

/** A TXT value as zone-file character-strings of at most 255 bytes each. */
export function quotedTxtStrings(value: string): string {
  const parts: string[] = [];
  for (let i = 0; i < value.length; i += 255) parts.push(`"${value.slice(i, i + 255)}"`);
  return parts.join(' ');
}

export interface PlatformDkimRecord {
  /** Fully qualified, without the trailing dot. */
  name: string;
  value: string;
  domain: string;
  storeSlug: string;
  status: string;
}

/** Every DKIM TXT record the platform's zone must publish, one per token of every sending domain. */
export async function platformDkimRecords(deps: {
  db: Kysely<Database>;
  config: Pick<EmailSettings, 'platformMailDomain'>;
}): Promise<PlatformDkimRecord[]> {
  const rows = await allDkimPublicKeys(deps.db);
  const slugs = new Map<string, string>();
  for (const storeId of new Set(rows.map((row) => row.store_id))) {
    slugs.set(storeId, (await findStore(deps, storeId))?.slug ?? '(deleted)');
  }
  return rows.map((row) => ({
    name: dkimKeyHost(row.token, deps.config.platformMailDomain),
    value: dkimTxtValue(row.public_key),
    domain: row.domain,
    storeSlug: slugs.get(row.store_id)!,
    status: row.status,
  }));
}

/** The records in zone-file syntax (what `storefront dkim records` prints). */
export function zoneFileLines(records: readonly PlatformDkimRecord[], platformMailDomain: string): string[] {
  const lines = [
    `; DKIM public keys to publish in the zone of ${platformMailDomain}: ${records.length} TXT record(s).`,
    '; Each merchant CNAMEs <token>._domainkey.<their domain> to the name on the left.',
  ];
  let domain: string | null = null;
  for (const record of records) {
    if (record.domain !== domain) {
      domain = record.domain;
      lines.push(`; ${record.domain} (store ${record.storeSlug}, ${record.status})`);
    }
    lines.push(`${record.name}. 3600 IN TXT ${quotedTxtStrings(record.value)}`);
  }
  return lines;
}

/** Where the private keys rest (for an archive's re-sealing). */
export const DKIM_KEY_COLUMNS: SealedColumns = {
  what: 'DKIM private keys',
  table: 'dkim_keys',
  purpose: PURPOSE,
  columns: ['private_key_ciphertext'],
  context: (row) => context(row.store_id!, row.token!),
  legacyContext: (row) => legacyContext(row.store_id!, row.token!),
};

/** Every DKIM private key, for `storefront secrets rotate`. */
export function dkimPrivateKeys(db: Kysely<Database>, keyring: Keyring): SealedValues<DkimKeyRef> {
  return {
    what: DKIM_KEY_COLUMNS.what,
    batch: (after, limit) => dkimPrivateKeyBatch(db, after, limit),
    async reseal(row, dryRun) {
      const resealed = resealPrivateKey(keyring, row.store_id, row.token, row.private_key_ciphertext);
      if (resealed === null) return false;
      if (!dryRun) await updateDkimPrivateKey(db, row, resealed);
      return true;
    },
  };
}
