import type { Static } from 'typebox';
import { AppError, notFound, validationFailed, type FieldError } from '../lib/errors.ts';
import { getStore } from '../stores/stores.service.ts';
import type { EmailDeps } from './email.deps.ts';
import { DKIM_TOKENS_PER_DOMAIN, encryptPrivateKey, generateDkimKey, newDkimToken } from './email.dkim.ts';
import { isWithin, localPartError, normalizeDomain } from './email.names.ts';
import { expectedRecords } from './email.records.ts';
import type { EmailIdentityConfig } from './email.config.ts';
import { formatDuration } from './email.notices.ts';
import {
  claimHolder,
  deleteDomainKeepingClock,
  findClock,
  findRecords,
  findSendingDomain,
  insertClaim,
  insertDkimKeys,
  insertRecords,
  insertSendingDomain,
  takeClock,
} from './email.repository.ts';
import type { SenderStateSchema, SendingDomainSchema } from './email.schemas.ts';
import { effectiveStoreSender } from './email.sender.ts';
import type { SendingDomainRecordRow, SendingDomainRow } from './email.tables.ts';
import { checkSendingDomain, type VerifierDeps } from './email.verifier.ts';

export type SendingDomain = Static<typeof SendingDomainSchema>;
export type SenderState = Static<typeof SenderStateSchema>;

export function sendingDomainView(
  row: SendingDomainRow,
  records: readonly SendingDomainRecordRow[],
  config: Pick<EmailIdentityConfig, 'releaseAfterMs'>,
): SendingDomain {
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
    releaseAt: releaseTime(row.unproven_since, config)?.toISOString() ?? null,
  };
}

const domainUnavailable = () =>
  new AppError('domain_unavailable', 409, 'This domain cannot be registered: it is already in use.', {
    errors: [{ pointer: '/domain', detail: 'is already in use', in: 'body' }],
  });

const notReclaimableYet = (domain: string, from: Date, config: Pick<EmailIdentityConfig, 'releaseAfterMs'>) =>
  new AppError(
    'domain_unavailable',
    409,
    `This store did not verify ${domain} within ${formatDuration(config.releaseAfterMs)} of registering it, so the name was released for others to claim; this store may register it again from ${from.toISOString()}.`,
    {
      errors: [
        { pointer: '/domain', detail: `may be registered again from ${from.toISOString()}`, in: 'body' },
      ],
    },
  );

const domainExists = (domain?: string) =>
  new AppError(
    'sending_domain_exists',
    409,
    `This store already has a sending domain${domain ? ` (${domain})` : ''}; delete it before registering another.`,
  );

/**
 * Registers the store's sending domain: validates and normalises it, generates one DKIM key per
 * token, and claims the domain. The claim's primary key decides between concurrent registrations.
 */
export async function registerSendingDomain(
  deps: Pick<EmailDeps, 'db' | 'config' | 'clock' | 'keyring'>,
  storeId: string,
  input: { domain: string; fromLocalPart: string },
): Promise<SendingDomain> {
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
  if ((await claimHolder(db, domain)) !== null) throw domainUnavailable();
  const left = startingClock(await findClock(db, storeId, domain), deps.clock.now(), config.emailIdentity);
  if ('reclaimableFrom' in left) throw notReclaimableYet(domain, left.reclaimableFrom, config.emailIdentity);

  const tokens = Array.from({ length: DKIM_TOKENS_PER_DOMAIN }, newDkimToken);
  const keys = await Promise.all(tokens.map(generateDkimKey));

  const { row, records } = await db.transaction().execute(async (trx) => {
    if (!(await insertClaim(trx, storeId, domain))) {
      if ((await claimHolder(trx, domain)) === storeId) throw domainExists(domain);
      throw domainUnavailable();
    }
    const now = deps.clock.now();
    const clock = startingClock(await takeClock(trx, storeId, domain), now, config.emailIdentity);
    if ('reclaimableFrom' in clock)
      throw notReclaimableYet(domain, clock.reclaimableFrom, config.emailIdentity);
    let row: SendingDomainRow;
    try {
      row = await insertSendingDomain(trx, {
        storeId,
        domain,
        fromLocalPart: input.fromLocalPart,
        now,
        nextCheckAt: new Date(now.getTime() + config.emailIdentity.verifyIntervalMs),
        unprovenSince: clock.unprovenSince,
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
  return sendingDomainView(row, records, config.emailIdentity);
}

export async function findSendingDomainOf(
  deps: Pick<EmailDeps, 'db' | 'config'>,
  storeId: string,
): Promise<SendingDomain | null> {
  const row = await findSendingDomain(deps.db, storeId);
  if (!row) return null;
  return sendingDomainView(row, await findRecords(deps.db, storeId, row.id), deps.config.emailIdentity);
}

/** The store's domain name and status (the console's home figures), or null. */
export async function sendingDomainStatus(
  deps: Pick<EmailDeps, 'db'>,
  storeId: string,
): Promise<{ domain: string; status: SendingDomain['status'] } | null> {
  const row = await findSendingDomain(deps.db, storeId);
  return row ? { domain: row.domain, status: row.status } : null;
}

const noDomain = () => notFound('This store has no sending domain. Register one first.');

export async function getSendingDomain(
  deps: Pick<EmailDeps, 'db' | 'config'>,
  storeId: string,
): Promise<SendingDomain> {
  const domain = await findSendingDomainOf(deps, storeId);
  if (!domain) throw noDomain();
  return domain;
}

/**
 * Checks the DNS records now (restarting the verification window unless verified) and returns the
 * result. The release clock is not the window: verify-now never moves it (decision `released-domain-deleted`).
 */
export async function verifySendingDomainNow(deps: VerifierDeps, storeId: string): Promise<SendingDomain> {
  const row = await findSendingDomain(deps.db, storeId);
  if (!row) throw noDomain();
  const checked = await checkSendingDomain(deps, storeId, row.id, 'verify-now');
  if (!checked) throw noDomain();
  return sendingDomainView(checked.domain, checked.records, deps.config.emailIdentity);
}

/**
 * Removes the store's domain: store mail uses the fallback sender from the next send on. An
 * unproven domain's release clock stays behind, so registering it again does not restart it.
 */
export async function removeSendingDomain(deps: Pick<EmailDeps, 'db'>, storeId: string): Promise<string> {
  const domain = await deps.db.transaction().execute(async (trx) => {
    const row = await findSendingDomain(trx, storeId, { lock: true });
    if (!row) return null;
    await deleteDomainKeepingClock(trx, row);
    return row.domain;
  });
  if (domain === null) throw noDomain();
  return domain;
}

/**
 * The release time of an unproven domain (decision `released-domain-deleted`): DOMAIN_RELEASE_AFTER after it became unproven; null
 * while verified.
 */
export function releaseTime(
  unprovenSince: Date | null,
  config: Pick<EmailIdentityConfig, 'releaseAfterMs'>,
): Date | null {
  return unprovenSince === null ? null : new Date(unprovenSince.getTime() + config.releaseAfterMs);
}

/**
 * The release clock of a name the store registers: the one it left behind if that has not run out
 * (deleting and registering again never restarts it), a fresh one if none is left or it ran out a
 * whole DOMAIN_RELEASE_AFTER ago. In between the store may not claim the name: it had its chance,
 * and for that long the name is free for its real owner.
 */
function startingClock(
  left: Date | null,
  now: Date,
  config: Pick<EmailIdentityConfig, 'releaseAfterMs'>,
): { unprovenSince: Date } | { reclaimableFrom: Date } {
  const releasedAt = releaseTime(left, config);
  if (left === null || releasedAt === null) return { unprovenSince: now };
  if (now < releasedAt) return { unprovenSince: left };
  const reclaimableFrom = new Date(releasedAt.getTime() + config.releaseAfterMs);
  return now < reclaimableFrom ? { reclaimableFrom } : { unprovenSince: now };
}

/** The sender state of spec 2.15. */
export async function senderState(
  deps: Pick<EmailDeps, 'db' | 'config'>,
  storeId: string,
): Promise<SenderState> {
  const store = await getStore(deps, storeId);
  const domain = await findSendingDomainOf(deps, storeId);
  const sender = effectiveStoreSender(
    store,
    domain?.status === 'verified' ? { domain: domain.domain, fromLocalPart: domain.fromLocalPart } : null,
    deps.config.platformMailDomain,
  );
  return {
    mode: sender.mode,
    effectiveFrom: sender.from.address,
    effectiveFromName: sender.from.name,
    replyTo: sender.replyTo,
    ...(domain ? { domain } : {}),
  };
}
