import type { EmailIdentityConfig } from './email.config.ts';
import type { EmailDeps, EmailLog } from './email.deps.ts';
import { lookUpRecords, type LookupResult } from './email.dns.ts';
import { queueDomainNotice, type NoticeKind } from './email.notices.ts';
import {
  claimDueDomains,
  deleteDomainKeepingClock,
  findAbandonedDomains,
  findRecords,
  lockSendingDomain,
  purgeClocks,
  updateRecord,
  updateSendingDomain,
} from './email.repository.ts';
import type { DomainStatus, SendingDomainRecordRow, SendingDomainRow } from './email.tables.ts';
import { MAIL_LOOP } from '../mail/outbox.ts';
import { reportIfOutage } from '../db/errors.ts';

/**
 * The sending-domain verifier (decision `sending-domain-verification`). One check looks up the five records, then decides in
 * one transaction (on the locked domain row) what the answers mean:
 *
 *   pending  → verified   all five records found as expected;
 *   pending  → failed     the window (72 h from registration or the last verify-now) has passed and
 *                         at least one record is definitely absent or wrong; a timeout alone never
 *                         fails a domain, it only means "not yet";
 *   failed   → (verify-now) a new window: verified at once if everything is there, else pending;
 *   verified → verified   rechecked daily; when a record vanishes the owners get an admin notice
 *                         (once) and the domain keeps sending; if the record is still missing when
 *                         the window has passed again, the domain is failed and mail reverts to the
 *                         fallback sender (second notice).
 *
 * The sender reads the status from the database at send time, so a change is effective at once on
 * every process.
 *
 * The release clock (decision `released-domain-deleted`) is not the window: `unproven_since` is set at registration (or when a
 * verified domain's records are first seen missing), verify-now never moves it, and only a
 * verification clears it. A domain unproven for DOMAIN_RELEASE_AFTER is released, pending or failed.
 */

export type CheckTrigger = 'scheduled' | 'verify-now';

export interface VerifierDeps extends Pick<EmailDeps, 'db' | 'clock' | 'signals'> {
  config: Pick<EmailDeps['config'], 'emailIdentity'>;
  log: EmailLog;
}

type DomainChanges = Pick<
  SendingDomainRow,
  | 'status'
  | 'window_started_at'
  | 'next_check_at'
  | 'last_checked_at'
  | 'verified_at'
  | 'failed_at'
  | 'records_missing_since'
  | 'unproven_since'
  | 'updated_at'
>;

export interface Decision {
  checkedAt: Date;
  domain: DomainChanges;
  records: { position: number; status: DomainStatus; detail: string }[];
  /** What changed, for the log (and the notice to send, if any). */
  event: 'verified' | 'failed' | 'records_restored' | NoticeKind | null;
}

/** What one check's answers mean for the domain and each record (pure: no I/O). */
export function decide(
  row: SendingDomainRow,
  records: readonly SendingDomainRecordRow[],
  results: readonly LookupResult[],
  now: Date,
  config: Pick<EmailIdentityConfig, 'verifyWindowMs' | 'verifyIntervalMs' | 'recheckIntervalMs'>,
  trigger: CheckTrigger,
): Decision {
  const at = (ms: number) => new Date(now.getTime() + ms);
  const allVerified = results.every((result) => result.outcome === 'verified');
  const broken = results.some((result) => result.outcome === 'missing' || result.outcome === 'wrong');
  const restart = trigger === 'verify-now' && row.status !== 'verified';
  const windowStartedAt = restart ? now : row.window_started_at;
  const windowOver = now.getTime() - windowStartedAt.getTime() >= config.verifyWindowMs;

  let event: Decision['event'] = null;
  const domain: DomainChanges = {
    status: restart ? 'pending' : row.status,
    window_started_at: windowStartedAt,
    next_check_at: null,
    last_checked_at: now,
    verified_at: row.verified_at,
    failed_at: restart ? null : row.failed_at,
    records_missing_since: row.records_missing_since,
    unproven_since: row.unproven_since,
    updated_at: now,
  };

  if (domain.status === 'pending') {
    if (allVerified) {
      domain.status = 'verified';
      domain.verified_at = now;
      domain.unproven_since = null;
      domain.next_check_at = at(config.recheckIntervalMs);
      event = 'verified';
    } else if (broken && windowOver) {
      domain.status = 'failed';
      domain.failed_at = now;
      event = 'failed';
    } else {
      domain.next_check_at = at(config.verifyIntervalMs);
    }
  } else if (domain.status === 'verified') {
    if (allVerified) {
      if (row.records_missing_since !== null) event = 'records_restored';
      domain.records_missing_since = null;
      domain.next_check_at = at(config.recheckIntervalMs);
    } else if (broken) {
      const since = row.records_missing_since ?? now;
      if (now.getTime() - since.getTime() >= config.verifyWindowMs) {
        domain.status = 'failed';
        domain.failed_at = now;
        domain.verified_at = null;
        domain.records_missing_since = null;
        // Unproven since the records went missing, not since the window ran out.
        domain.unproven_since = since;
        event = 'reverted';
      } else {
        // Look again at the pending pace, so that a restored record is noticed soon.
        domain.records_missing_since = since;
        domain.next_check_at = at(config.verifyIntervalMs);
        if (row.records_missing_since === null) event = 'records_missing';
      }
    } else {
      domain.next_check_at = at(config.verifyIntervalMs);
    }
  }
  // A failed domain is looked at again only by verify-now (next_check_at stays null).

  return {
    checkedAt: now,
    domain,
    event,
    records: records.map((record, index) => {
      const result = results[index]!;
      const status: DomainStatus =
        result.outcome === 'verified'
          ? 'verified'
          : result.outcome === 'wrong'
            ? 'failed'
            : result.outcome === 'missing'
              ? domain.status === 'pending'
                ? 'pending'
                : 'failed'
              : record.status;
      return { position: record.position, status, detail: result.detail };
    }),
  };
}

export interface CheckedDomain {
  domain: SendingDomainRow;
  records: SendingDomainRecordRow[];
  event: Decision['event'];
}

/**
 * Looks up a domain's records and records the outcome. Returns null when the domain was deleted
 * meanwhile. The DNS lookups run outside any transaction; the decision is made on the locked row.
 */
export async function checkSendingDomain(
  deps: VerifierDeps,
  storeId: string,
  domainId: string,
  trigger: CheckTrigger,
): Promise<CheckedDomain | null> {
  const before = await findRecords(deps.db, storeId, domainId);
  if (before.length === 0) return null;
  const results = await lookUpRecords(before, deps.config.emailIdentity);

  const checked = await deps.db.transaction().execute(async (trx) => {
    const row = await lockSendingDomain(trx, storeId, domainId);
    if (!row) return null;
    const decision = decide(row, before, results, deps.clock.now(), deps.config.emailIdentity, trigger);
    const domain = await updateSendingDomain(trx, storeId, domainId, decision.domain);
    for (const record of decision.records) {
      await updateRecord(trx, storeId, domainId, record.position, {
        status: record.status,
        detail: record.detail,
        checked_at: decision.checkedAt,
      });
    }
    const records = await findRecords(trx, storeId, domainId);
    let notified = 0;
    if (decision.event === 'records_missing' || decision.event === 'reverted') {
      notified = await queueDomainNotice(
        trx,
        decision.event,
        domain,
        records,
        deps.config.emailIdentity.verifyWindowMs,
      );
    }
    return { domain, records, event: decision.event, notified };
  });
  if (!checked) return null;

  const context = {
    storeId,
    domain: checked.domain.domain,
    status: checked.domain.status,
    trigger,
    records: checked.records.map((r) => `${r.type} ${r.name}: ${r.status}`),
  };
  if (checked.event === null) deps.log.info(context, 'sending domain checked');
  else if (checked.event === 'verified' || checked.event === 'records_restored') {
    deps.log.info({ ...context, event: checked.event }, `sending domain ${checked.event.replace('_', ' ')}`);
  } else {
    deps.log.warn(
      { ...context, event: checked.event, notified: checked.notified },
      `sending domain ${checked.event.replace('_', ' ')}`,
    );
  }
  if (checked.notified > 0) deps.signals?.wake(MAIL_LOOP);
  return { domain: checked.domain, records: checked.records, event: checked.event };
}

const BATCH = 20;
/** A claimed domain belongs to its checker this long (lookups of a batch run in parallel). */
const LEASE_MS = 5 * 60 * 1000;

/** Checks every domain whose check is due (pending: every interval; verified: every recheck interval). */
export async function checkDueDomains(deps: VerifierDeps, signal?: AbortSignal): Promise<number> {
  let total = 0;
  for (;;) {
    const now = deps.clock.now();
    const due = await claimDueDomains(deps.db, now, new Date(now.getTime() + LEASE_MS), BATCH);
    await Promise.all(
      due.map(async ({ store_id, id }) => {
        try {
          await checkSendingDomain(deps, store_id, id, 'scheduled');
        } catch (error) {
          if (!reportIfOutage(deps.log, error, { storeId: store_id, domainId: id }))
            deps.log.warn({ err: error, storeId: store_id, domainId: id }, 'sending domain check failed');
        }
      }),
    );
    total += due.length;
    if (due.length < BATCH || signal?.aborted) return total;
  }
}

/**
 * Releases sending domains unproven for DOMAIN_RELEASE_AFTER (decision `released-domain-deleted`), pending or failed: the domain
 * and its claim are deleted (its clock stays behind for the store, see email.service.ts), and the
 * store's owners get an admin notice, in one transaction per domain, so a domain cannot be held by
 * a store that never proves it owns it, however often it asks to verify now. Also forgets clocks
 * that can no longer matter.
 */
export async function releaseAbandonedDomains(deps: VerifierDeps): Promise<number> {
  const releaseAfterMs = deps.config.emailIdentity.releaseAfterMs;
  const now = deps.clock.now();
  const cutoff = new Date(now.getTime() - releaseAfterMs);
  let released = 0;
  for (const { store_id: storeId, id } of await findAbandonedDomains(deps.db, cutoff, 100)) {
    try {
      const domain = await deps.db.transaction().execute(async (trx) => {
        const row = await lockSendingDomain(trx, storeId, id);
        if (!row || row.unproven_since === null || row.unproven_since >= cutoff) return null;
        await queueDomainNotice(trx, 'released', row, [], releaseAfterMs);
        await deleteDomainKeepingClock(trx, row);
        return row.domain;
      });
      if (domain === null) continue;
      released += 1;
      deps.log.info({ storeId, domain }, 'sending domain released: not verified in time');
    } catch (error) {
      if (!reportIfOutage(deps.log, error, { storeId, domainId: id }))
        deps.log.warn({ err: error, storeId, domainId: id }, 'could not release an unproven sending domain');
    }
  }
  // A clock older than two release periods neither shortens a new registration nor refuses one.
  await purgeClocks(deps.db, new Date(now.getTime() - 2 * releaseAfterMs));
  if (released > 0) deps.signals?.wake(MAIL_LOOP);
  return released;
}
