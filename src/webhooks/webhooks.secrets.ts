import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import { deriveKey, loadRootSecret } from '../lib/secrets.ts';

/**
 * Endpoint signing secrets. The service must sign with them, so they cannot be kept only as a
 * hash: they are stored encrypted with AES-256-GCM under a key derived from the root secret, with
 * the endpoint's (store, id) as associated data, so a ciphertext copied onto another row does not
 * decrypt. The plain secret leaves the service only in the create and rotate responses.
 */

export const SECRET_PREFIX = 'whsec_';
const VERSION = 'v1';

/** `whsec_` + 32 random bytes in base64url (43 characters). */
export function generateEndpointSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/** The key that encrypts endpoint secrets, derived from the deployment's root secret. */
export async function loadSecretsKey(db: Kysely<Database>, configuredRoot: string | null): Promise<Buffer> {
  return deriveKey(await loadRootSecret(db, configuredRoot), 'webhook-endpoint-secrets');
}

function associatedData(storeId: string, endpointId: string): Buffer {
  return Buffer.from(`webhook-endpoint:${storeId}:${endpointId}`, 'utf8');
}

export function encryptSecret(key: Buffer, storeId: string, endpointId: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(associatedData(storeId, endpointId));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [
    VERSION,
    iv.toString('base64url'),
    tag.toString('base64url'),
    ciphertext.toString('base64url'),
  ].join('.');
}

export function decryptSecret(key: Buffer, storeId: string, endpointId: string, stored: string): string {
  const [version, iv, tag, ciphertext, extra] = stored.split('.');
  if (version !== VERSION || !iv || !tag || !ciphertext || extra !== undefined) {
    throw new Error('Unreadable webhook secret ciphertext.');
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(associatedData(storeId, endpointId));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString(
    'utf8',
  );
}

/** Lowercase hex HMAC-SHA-256 of the exact raw body, keyed with the whole secret string (`whsec_…`). */
export function signBody(secret: string, rawBody: string | Buffer): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/**
 * The `x-webhook-signature` value: the signature with the current secret, then (during the 24 h
 * after a rotation) the one with the previous secret, separated by ", ". Outside a rotation it is
 * exactly one hex string, as in the specification.
 */
export function signatureHeader(secrets: readonly string[], rawBody: string): string {
  return secrets.map((secret) => signBody(secret, rawBody)).join(', ');
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
export function signingSecrets(key: Buffer, endpoint: EndpointSecrets, now: Date): string[] {
  const secrets = [decryptSecret(key, endpoint.storeId, endpoint.endpointId, endpoint.secretCiphertext)];
  if (
    endpoint.previousSecretCiphertext !== null &&
    endpoint.previousSecretExpiresAt !== null &&
    endpoint.previousSecretExpiresAt > now
  ) {
    secrets.push(
      decryptSecret(key, endpoint.storeId, endpoint.endpointId, endpoint.previousSecretCiphertext),
    );
  }
  return secrets;
}
