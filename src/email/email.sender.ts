import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { Keyring } from '../lib/keyring.ts';
import type { MailTier } from '../mail/outbox.ts';
import type { Sender } from '../mail/transport.ts';
import { getStore } from '../stores/stores.service.ts';
import type { EmailSettings } from './email.config.ts';
import { decryptPrivateKey } from './email.dkim.ts';
import { bounceAddress } from './email.records.ts';
import { findVerifiedSigningKey } from './email.repository.ts';

export const PLATFORM_SENDER_NAME = 'Storefront';

/** The fixed no-reply address on the platform domain (platform mail, and store mail until a domain is verified). */
export function platformNoReply(platformMailDomain: string): string {
  return `no-reply@${platformMailDomain}`;
}

/** Platform mail (sign-in codes, admin notices, billing): never from a store's domain. */
export function platformSender(config: Pick<EmailSettings, 'platformMailDomain'>): Sender {
  return { from: { name: PLATFORM_SENDER_NAME, address: platformNoReply(config.platformMailDomain) } };
}

export type SenderMode = 'platform-fallback' | 'custom-domain';

export interface EffectiveSender {
  mode: SenderMode;
  from: { name: string; address: string };
  replyTo: string | null;
}

/**
 * Who store mail is from (spec 2.15): `<fromLocalPart>@<domain>` once the domain is verified, else
 * the platform's no-reply address; the store name as display name and the store's reply-to either way.
 */
export function effectiveStoreSender(
  store: { name: string; replyToEmail: string | null },
  verified: { domain: string; fromLocalPart: string } | null,
  platformMailDomain: string,
): EffectiveSender {
  return {
    mode: verified ? 'custom-domain' : 'platform-fallback',
    from: {
      name: store.name,
      address: verified
        ? `${verified.fromLocalPart}@${verified.domain}`
        : platformNoReply(platformMailDomain),
    },
    replyTo: store.replyToEmail,
  };
}

export interface SenderDeps {
  db: Kysely<Database>;
  config: Pick<EmailSettings, 'platformMailDomain'>;
  /** Opens the DKIM private key. */
  keyring: Keyring;
}

/**
 * Store mail (customer-facing): the one path every store mail takes (the mail worker asks for each
 * `store` tier outbox row). Resolved from the database at send time, so a domain verified, failed
 * or deleted by any process applies to every mail not yet sent, with no restart.
 *
 * From a verified domain the mail is DKIM-signed (d=<domain>, s=<token>) and its envelope sender
 * is `bounce@mail.<domain>` (SPF and the feedback MX live on `mail.<domain>`); the keyring opens
 * the DKIM key (SecretUnreadableError when it cannot).
 */
export async function storeSender(deps: SenderDeps, storeId: string): Promise<Sender> {
  const store = await getStore(deps, storeId);
  const key = await findVerifiedSigningKey(deps.db, storeId);
  const verified = key ? { domain: key.domain, fromLocalPart: key.from_local_part } : null;
  const sender = effectiveStoreSender(store, verified, deps.config.platformMailDomain);
  const replyTo = sender.replyTo ?? undefined;
  if (!key) return { from: sender.from, replyTo };
  return {
    from: sender.from,
    replyTo,
    envelopeFrom: bounceAddress(key.domain),
    dkim: {
      domainName: key.domain,
      keySelector: key.token,
      privateKey: decryptPrivateKey(deps.keyring, storeId, key.token, key.private_key_ciphertext),
    },
  };
}

/** The mail worker's `senderOf`: platform mail from the platform, store mail from the store. */
export function mailSenders(deps: SenderDeps): (tier: MailTier, storeId: string) => Promise<Sender> {
  return async (tier, storeId) =>
    tier === 'platform' ? platformSender(deps.config) : storeSender(deps, storeId);
}
