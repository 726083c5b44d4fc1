import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/tables.ts';
import { decryptPrivateKey } from '../email/email.dkim.ts';
import type { Keyring } from '../lib/keyring.ts';
import { bounceAddress } from '../email/email.records.ts';
import { senderIdentityOf } from '../email/email.repository.ts';
import type { OutgoingMail } from './transport.ts';

export type Sender = Pick<OutgoingMail, 'from' | 'replyTo' | 'envelopeFrom' | 'dkim'>;

export const PLATFORM_SENDER_NAME = 'Storefront';

/** The fixed no-reply address on the platform domain (platform mail, and store mail until a domain is verified). */
export function platformNoReply(platformMailDomain: string): string {
  return `no-reply@${platformMailDomain}`;
}

/** Platform mail (sign-in codes, admin notices, billing): never from a store's domain. */
export function platformSender(config: Pick<Config, 'platformMailDomain'>): Sender {
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
  store: { name: string; replyTo: string | null },
  verified: { domain: string; fromLocalPart: string } | null,
  platformMailDomain: string,
): EffectiveSender {
  return verified
    ? {
        mode: 'custom-domain',
        from: { name: store.name, address: `${verified.fromLocalPart}@${verified.domain}` },
        replyTo: store.replyTo,
      }
    : {
        mode: 'platform-fallback',
        from: { name: store.name, address: platformNoReply(platformMailDomain) },
        replyTo: store.replyTo,
      };
}

/**
 * Store mail (customer-facing): the one path every store mail takes (the mail worker calls this for
 * each `store` tier outbox row). Resolved from the database at send time, so a domain verified,
 * failed or deleted by any process applies to every mail not yet sent, with no restart.
 *
 * From a verified domain the mail is DKIM-signed (d=<domain>, s=<token>) and its envelope sender
 * is `bounce@mail.<domain>` (SPF and the feedback MX live on `mail.<domain>`); the keyring opens
 * the DKIM key (SecretUnreadableError when it cannot).
 */
export async function storeSender(
  db: Kysely<Database>,
  config: Pick<Config, 'platformMailDomain'>,
  keyring: Keyring,
  storeId: string,
): Promise<Sender> {
  const identity = await senderIdentityOf(db, storeId);
  const verified =
    identity.domain !== null &&
    identity.from_local_part !== null &&
    identity.token !== null &&
    identity.private_key_ciphertext !== null
      ? {
          domain: identity.domain,
          fromLocalPart: identity.from_local_part,
          token: identity.token,
          ciphertext: identity.private_key_ciphertext,
        }
      : null;
  const sender = effectiveStoreSender(
    { name: identity.name, replyTo: identity.reply_to_email },
    verified,
    config.platformMailDomain,
  );
  const replyTo = sender.replyTo ?? undefined;
  if (!verified) return { from: sender.from, replyTo };

  return {
    from: sender.from,
    replyTo,
    envelopeFrom: bounceAddress(verified.domain),
    dkim: {
      domainName: verified.domain,
      keySelector: verified.token,
      privateKey: decryptPrivateKey(keyring, storeId, verified.token, verified.ciphertext),
    },
  };
}
