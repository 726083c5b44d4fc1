import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { Keyring, SealedColumns, SealedValues } from '../lib/keyring.ts';
import { endpointSecretsAfter, writeEndpointSecrets } from './webhooks.repository.ts';

/**
 * Endpoint signing secrets. The service must sign with them, so they cannot be kept only as a
 * hash: they are sealed by the keyring (AES-256-GCM under a key derived from the root secret, decision `keyring`),
 * with the endpoint's (store, id) as associated data, so a ciphertext copied onto another row does
 * not decrypt. The plain secret leaves the service only in the create and rotate responses.
 */

export const SECRET_PREFIX = 'whsec_';

/**
 * `whsec_` + 32 random bytes in standard base64 (44 characters): the format of Standard Webhooks,
 * so its official verifiers read the secret as it is shown.
 */
export function generateEndpointSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

const PURPOSE = 'webhook-endpoint-secrets';
const context = (storeId: string, endpointId: string): string => `${storeId}:${endpointId}`;
/** The associated data of the format written before the keyring (v1). */
const legacyContext = (storeId: string, endpointId: string): string =>
  `webhook-endpoint:${storeId}:${endpointId}`;

export function encryptSecret(keyring: Keyring, storeId: string, endpointId: string, secret: string): string {
  return keyring.seal(PURPOSE, secret, context(storeId, endpointId));
}

/** Throws SecretUnreadableError when no configured root secret opens it. */
export function decryptSecret(keyring: Keyring, storeId: string, endpointId: string, stored: string): string {
  return keyring.open(
    PURPOSE,
    stored,
    context(storeId, endpointId),
    `The signing secret of webhook endpoint ${endpointId}`,
    legacyContext(storeId, endpointId),
  );
}

/** Re-encrypts a stored secret under the current root; null when it already is (or cannot be opened). */
export function resealSecret(
  keyring: Keyring,
  storeId: string,
  endpointId: string,
  stored: string,
): string | null {
  if (keyring.isCurrent(PURPOSE, stored)) return null;
  return encryptSecret(keyring, storeId, endpointId, decryptSecret(keyring, storeId, endpointId, stored));
}

/**
 * One signing secret ready to sign: the HMAC key objects of its two signatures, made once per
 * secret rather than once per request (decision `lean-relay`).
 */
export interface SigningKey {
  /** `x-webhook-signature`: keyed with the whole secret string (`whsec_…`), spec 6.2. */
  readonly raw: KeyObject;
  /** Standard Webhooks: keyed with the secret's base64 part, decoded. */
  readonly standard: KeyObject;
}

export function signingKey(secret: string): SigningKey {
  return {
    raw: createSecretKey(Buffer.from(secret, 'utf8')),
    // Node's base64 decoder also reads the URL-safe alphabet of secrets made before decision `webhook-signatures`.
    standard: createSecretKey(Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')),
  };
}

/** Lowercase hex HMAC-SHA-256 of the exact raw body, keyed with the whole secret string (`whsec_…`). */
export function signBody(key: SigningKey, rawBody: string | Buffer): string {
  return createHmac('sha256', key.raw).update(rawBody).digest('hex');
}

/**
 * The Standard Webhooks signature (https://www.standardwebhooks.com): `v1,<base64 HMAC-SHA-256>`
 * of `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the secret's base64 part decoded
 * (`whsec_<base64>`), one per secret, space-separated (both during a rotation).
 */
export function standardSignature(
  keys: readonly SigningKey[],
  messageId: string,
  timestamp: number,
  rawBody: string,
): string {
  return keys
    .map((key) => {
      const mac = createHmac('sha256', key.standard)
        .update(`${messageId}.${timestamp}.${rawBody}`)
        .digest('base64');
      return `v1,${mac}`;
    })
    .join(' ');
}

/** The encrypted secrets of one endpoint, as the relay and the test send read them. */
export interface EndpointSecrets {
  storeId: string;
  endpointId: string;
  secretCiphertext: string;
  previousSecretCiphertext: string | null;
  previousSecretExpiresAt: Date | null;
}

/** The secrets that sign a request now: the current one, and the previous one until it expires. */
export function signingSecrets(keyring: Keyring, endpoint: EndpointSecrets, now: Date): string[] {
  const secrets = [decryptSecret(keyring, endpoint.storeId, endpoint.endpointId, endpoint.secretCiphertext)];
  if (
    endpoint.previousSecretCiphertext !== null &&
    endpoint.previousSecretExpiresAt !== null &&
    endpoint.previousSecretExpiresAt > now
  ) {
    secrets.push(
      decryptSecret(keyring, endpoint.storeId, endpoint.endpointId, endpoint.previousSecretCiphertext),
    );
  }
  return secrets;
}

/** Opened secrets kept at most (a relay signs for every endpoint of every store it serves). */
const CACHED_SECRETS = 1000;

/**
 * The relay's signing keys per endpoint secret, so that a delivery costs no decryption and no key
 * import: keyed by the endpoint and the sealed value itself, so a rotation (a new ciphertext) or a
 * ciphertext copied onto another endpoint never reuses an entry, and a value that does not open is
 * never cached (it throws each time, as signingSecrets does). Bounded: when full it starts over.
 */
export class SigningKeyCache {
  readonly #keys = new Map<string, SigningKey>();

  #open(keyring: Keyring, endpoint: EndpointSecrets, sealed: string): SigningKey {
    const cacheKey = `${endpoint.storeId}:${endpoint.endpointId}:${sealed}`;
    let key = this.#keys.get(cacheKey);
    if (!key) {
      key = signingKey(decryptSecret(keyring, endpoint.storeId, endpoint.endpointId, sealed));
      if (this.#keys.size >= CACHED_SECRETS) this.#keys.clear();
      this.#keys.set(cacheKey, key);
    }
    return key;
  }

  /** The keys that sign a request now: the current secret's, and the previous one's until it expires. */
  keysFor(keyring: Keyring, endpoint: EndpointSecrets, now: Date): SigningKey[] {
    const keys = [this.#open(keyring, endpoint, endpoint.secretCiphertext)];
    if (
      endpoint.previousSecretCiphertext !== null &&
      endpoint.previousSecretExpiresAt !== null &&
      endpoint.previousSecretExpiresAt > now
    ) {
      keys.push(this.#open(keyring, endpoint, endpoint.previousSecretCiphertext));
    }
    return keys;
  }
}

interface EndpointSecretRow {
  store_id: string;
  id: string;
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
}

/** Where the signing secrets rest (for an archive's re-sealing). */
export const ENDPOINT_SECRET_COLUMNS: SealedColumns = {
  what: 'webhook endpoint signing secrets',
  table: 'webhook_endpoints',
  purpose: PURPOSE,
  columns: ['secret_ciphertext', 'previous_secret_ciphertext'],
  context: (row) => context(row.store_id!, row.id!),
  legacyContext: (row) => legacyContext(row.store_id!, row.id!),
};

/** Every endpoint's signing secrets (current and previous), for `storefront secrets rotate`. */
export function endpointSecrets(db: Kysely<Database>, keyring: Keyring): SealedValues<EndpointSecretRow> {
  return {
    what: ENDPOINT_SECRET_COLUMNS.what,
    batch: (after, limit) => endpointSecretsAfter(db, after, limit),
    async reseal(row, dryRun) {
      const secret = resealSecret(keyring, row.store_id, row.id, row.secret_ciphertext);
      const previous =
        row.previous_secret_ciphertext === null
          ? null
          : resealSecret(keyring, row.store_id, row.id, row.previous_secret_ciphertext);
      if (secret === null && previous === null) return false;
      if (!dryRun) {
        await writeEndpointSecrets(db, row, {
          ...(secret === null ? {} : { secret_ciphertext: secret }),
          ...(previous === null ? {} : { previous_secret_ciphertext: previous }),
        });
      }
      return true;
    },
  };
}
