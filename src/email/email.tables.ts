import type { ColumnType, Generated, Selectable } from 'kysely';
import type { CreatedAt, UpdatedAt, Time, NullableTime } from '../db/tables.ts';

/** Table types of sending domains and DKIM keys. Merged into `Database` in db/tables.ts. */

/** Verification state of a domain and of each of its DNS records (spec 3.1, decision `sending-domain-verification`). */
export type DomainStatus = 'pending' | 'verified' | 'failed';
export type DnsRecordType = 'CNAME' | 'MX' | 'TXT';

/**
 * Global: which store a domain name belongs to. The primary key on the normalised name is the
 * database constraint behind "a domain authorizes exactly one store": of two concurrent
 * registrations of one name, the second insert waits for the first and then finds it taken.
 */
export interface SendingDomainClaimTable {
  domain: string;
  store_id: string;
  created_at: CreatedAt;
}

/** A store's sending domain (at most one per store). Deleting its claim deletes it. */
export interface SendingDomainTable {
  store_id: string;
  id: Generated<string>;
  domain: string;
  from_local_part: string;
  status: ColumnType<DomainStatus, DomainStatus | undefined, DomainStatus>;
  /** Start of the current verification window (registration or the last verify-now). */
  window_started_at: Time;
  /** When the periodic checker looks next (also its lease while a check runs); null once failed. */
  next_check_at: NullableTime;
  last_checked_at: NullableTime;
  /** Set while verified: when the domain became verified. */
  verified_at: NullableTime;
  /** Set while failed: when verification gave up. */
  failed_at: NullableTime;
  /** A verified domain whose records vanished: when that was first seen (the admin notice went out then). */
  records_missing_since: NullableTime;
  /**
   * The release clock (decision `released-domain-deleted`): set exactly while not verified, from registration (or from when a
   * verified domain's records were first missing); verify-now never moves it, only verification
   * clears it. The domain is released DOMAIN_RELEASE_AFTER after it.
   */
  unproven_since: NullableTime;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type SendingDomainRow = Selectable<SendingDomainTable>;

/**
 * The release clock of a name the store no longer holds while it was unproven (deleted, or
 * released): registering the name again continues it, so deleting and registering anew never
 * restarts it. Dropped once it can no longer matter (see email.verifier.ts).
 */
export interface SendingDomainClockTable {
  store_id: string;
  domain: string;
  unproven_since: Time;
}
export type SendingDomainClockRow = Selectable<SendingDomainClockTable>;

/** The five DNS records of a domain (positions 0–2 the DKIM CNAMEs, 3 the MX, 4 the SPF TXT). */
export interface SendingDomainRecordTable {
  store_id: string;
  domain_id: string;
  position: number;
  type: DnsRecordType;
  name: string;
  value: string;
  /** MX only. */
  priority: number | null;
  status: ColumnType<DomainStatus, DomainStatus | undefined, DomainStatus>;
  /** What the last conclusive lookup found, in words (for logs and support). */
  detail: ColumnType<string | null, string | null | undefined, string | null>;
  checked_at: NullableTime;
}
export type SendingDomainRecordRow = Selectable<SendingDomainRecordTable>;

/**
 * One 2048-bit RSA key per DKIM token. `<token>._domainkey.<domain>` is a CNAME to
 * `<token>.dkim.<PLATFORM_MAIL_DOMAIN>`, where the platform publishes the public key; mail is
 * signed with the private key, which is stored only encrypted (AES-256-GCM, see email.dkim.ts).
 */
export interface DkimKeyTable {
  store_id: string;
  domain_id: string;
  token: string;
  /** 0 signs; 1 and 2 are published for rotation. */
  position: number;
  /** Base64 DER (SubjectPublicKeyInfo): the `p=` value of the DKIM TXT record. */
  public_key: string;
  private_key_ciphertext: string;
  created_at: CreatedAt;
}

export interface EmailIdentityTables {
  sending_domain_claims: SendingDomainClaimTable;
  sending_domains: SendingDomainTable;
  sending_domain_clocks: SendingDomainClockTable;
  sending_domain_records: SendingDomainRecordTable;
  dkim_keys: DkimKeyTable;
}

declare module '../db/tables.ts' {
  interface Database extends EmailIdentityTables {}
}
