import type { Keyring } from '../lib/keyring.ts';
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/tables.ts';
import { effectiveStoreSender, type SenderMode } from '../mail/sender.ts';
import { DKIM_TOKENS_PER_DOMAIN, encryptPrivateKey, generateDkimKey, newDkimToken } from './email.dkim.ts';
import { isWithin, localPartError, normalizeDomain } from './email.names.ts';
import { expectedRecords } from './email.records.ts';
import {
  deleteSendingDomain,
  findRecords,
  findSendingDomain,
  insertClaim,
  insertDkimKeys,
  insertRecords,
  insertSendingDomain,
} from './email.repository.ts';
import type {
  DnsRecordType,
  DomainStatus,
  SendingDomainRecordRow,
  SendingDomainRow,
} from './email.tables.ts';
import { checkSendingDomain, type VerifierDeps } from './email.verifier.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError, notFound, validationFailed, type FieldError } from '../lib/errors.ts';

export interface DnsRecordView {
  type: DnsRecordType;
  name: string;
  value: string;
  priority?: number;
  status: DomainStatus;
}

export interface SendingDomainView {
  domain: string;
  status: DomainStatus;
  fromLocalPart: string;
  dnsRecords: DnsRecordView[];
  createdAt: string;
  lastCheckedAt: string | null;
  verifiedAt: string | null;
  failedAt: string | null;
}

export interface SenderStateView {
  mode: SenderMode;
  effectiveFrom: string;
  effectiveFromName: string;
  replyTo: string | null;
  domain?: SendingDomainView;
}

export function sendingDomainView(
  row: SendingDomainRow,
  records: readonly SendingDomainRecordRow[],
): SendingDomainView {
  return {
    domain: row.domain,
    status: row.status,
    fromLocalPart: row.from_local_part,
    dnsRecords: records.map((record) => ({
      type: record.type,
      name: record.name,
      value: record.value,
      ...(record.priority === null ? {} : { priority: record.priority }),
      status: record.status,
    })),
    createdAt: row.created_at.toISOString(),
    lastCheckedAt: row.last_checked_at?.toISOString() ?? null,
    verifiedAt: row.verified_at?.toISOString() ?? null,
    failedAt: row.failed_at?.toISOString() ?? null,
  };
}

const domainUnavailable = () =>
  new AppError('domain_unavailable', 409, 'This domain cannot be registered: it is already in use.', {
    errors: [{ pointer: '/domain', detail: 'is already in use', in: 'body' }],
  });

const domainExists = (domain?: string) =>
  new AppError(
    'sending_domain_exists',
    409,
    `This store already has a sending domain${domain ? ` (${domain})` : ''}; delete it before registering another.`,
  );

export interface RegisterDeps {
  db: Kysely<Database>;
  config: Pick<Config, 'platformMailDomain' | 'emailIdentity'>;
  clock: Clock;
  /** Seals the DKIM private keys. */
  keyring: Keyring;
}

/**
 * Registers the store's sending domain: validates and normalises it, generates one DKIM key per
 * token, and claims the domain. The claim's primary key decides between concurrent registrations.
 */
export async function registerSendingDomain(
  deps: RegisterDeps,
  storeId: string,
  input: { domain: string; fromLocalPart: string },
): Promise<SendingDomainView> {
  const errors: FieldError[] = [];
  const normalized = normalizeDomain(input.domain);
  if ('error' in normalized) errors.push({ pointer: '/domain', detail: normalized.error, in: 'body' });
  const localError = localPartError(input.fromLocalPart);
  if (localError !== null) errors.push({ pointer: '/fromLocalPart', detail: localError, in: 'body' });
  if (errors.length > 0 || !('domain' in normalized)) {
    throw validationFailed(
      errors.length === 1
        ? `${errors[0]!.pointer.slice(1)} ${errors[0]!.detail}.`
        : 'The sending domain is invalid.',
      errors,
    );
  }
  const domain = normalized.domain;
  const { db, config } = deps;
  // The platform's own domain (and names under it) belongs to no store.
  if (isWithin(domain, config.platformMailDomain)) throw domainUnavailable();

  // Cheap answers first (key generation takes a while); the transaction below decides races.
  const existing = await findSendingDomain(db, storeId);
  if (existing) throw domainExists(existing.domain);
  const holder = await db
    .selectFrom('sending_domain_claims')
    .select('store_id')
    .where('domain', '=', domain)
    .executeTakeFirst();
  if (holder) throw domainUnavailable();

  const tokens = Array.from({ length: DKIM_TOKENS_PER_DOMAIN }, newDkimToken);
  const keys = await Promise.all(tokens.map(generateDkimKey));

  const { row, records } = await db.transaction().execute(async (trx) => {
    if (!(await insertClaim(trx, storeId, domain))) {
      const claim = await trx
        .selectFrom('sending_domain_claims')
        .select('store_id')
        .where('domain', '=', domain)
        .executeTakeFirst();
      if (claim?.store_id === storeId) throw domainExists(domain);
      throw domainUnavailable();
    }
    const now = deps.clock.now();
    let row: SendingDomainRow;
    try {
      row = await insertSendingDomain(trx, {
        storeId,
        domain,
        fromLocalPart: input.fromLocalPart,
        now,
        nextCheckAt: new Date(now.getTime() + config.emailIdentity.verifyIntervalMs),
      });
    } catch (error) {
      // sending_domains_one_per_store: another registration of this store committed first.
      if ((error as { code?: unknown }).code === '23505') throw domainExists();
      throw error;
    }
    const records = await insertRecords(
      trx,
      storeId,
      row.id,
      expectedRecords(domain, tokens, config.platformMailDomain),
    );
    await insertDkimKeys(
      trx,
      storeId,
      row.id,
      keys.map((key) => ({
        token: key.token,
        publicKey: key.publicKey,
        ciphertext: encryptPrivateKey(deps.keyring, storeId, key.token, key.privateKeyPem),
      })),
    );
    return { row, records };
  });
  return sendingDomainView(row, records);
}

export async function getSendingDomain(
  db: Kysely<Database>,
  storeId: string,
): Promise<SendingDomainView | null> {
  const row = await findSendingDomain(db, storeId);
  if (!row) return null;
  return sendingDomainView(row, await findRecords(db, storeId, row.id));
}

const noDomain = () => notFound('This store has no sending domain. Register one first.');

/** Checks the DNS records now (restarting the window unless verified) and returns the result. */
export async function verifySendingDomainNow(
  deps: VerifierDeps,
  storeId: string,
): Promise<SendingDomainView> {
  const row = await findSendingDomain(deps.db, storeId);
  if (!row) throw noDomain();
  const checked = await checkSendingDomain(deps, storeId, row.id, 'verify-now');
  if (!checked) throw noDomain();
  return sendingDomainView(checked.domain, checked.records);
}

/** Removes the store's domain: store mail uses the fallback sender from the next send on. */
export async function removeSendingDomain(db: Kysely<Database>, storeId: string): Promise<string> {
  const domain = await deleteSendingDomain(db, storeId);
  if (domain === null) throw noDomain();
  return domain;
}

/** The sender state of spec 2.15. */
export async function senderState(
  db: Kysely<Database>,
  config: Pick<Config, 'platformMailDomain'>,
  storeId: string,
): Promise<SenderStateView> {
  const store = await db
    .selectFrom('stores')
    .select(['name', 'reply_to_email'])
    .where('id', '=', storeId)
    .executeTakeFirst();
  if (!store) throw notFound('The store no longer exists.');
  const domain = await getSendingDomain(db, storeId);
  const sender = effectiveStoreSender(
    { name: store.name, replyTo: store.reply_to_email },
    domain?.status === 'verified' ? { domain: domain.domain, fromLocalPart: domain.fromLocalPart } : null,
    config.platformMailDomain,
  );
  return {
    mode: sender.mode,
    effectiveFrom: sender.from.address,
    effectiveFromName: sender.from.name,
    replyTo: sender.replyTo,
    ...(domain ? { domain } : {}),
  };
}
