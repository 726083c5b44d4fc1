import type { Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import { notifyOwners } from '../staff/owner-notices.ts';
import { getStore } from '../stores/stores.service.ts';
import type { SendingDomainRecordRow, SendingDomainRow } from './email.tables.ts';

/**
 * Admin notices about a sending domain: platform mail (never from the store's own domain) to the
 * store's owners, queued in the transaction that records the change.
 */

/** A window in words: "30 days", "72 hours", "90 minutes" (days from a week up). */
export function formatDuration(ms: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (ms >= 7 * 86_400_000 && ms % 86_400_000 === 0) return plural(ms / 86_400_000, 'day');
  if (ms % 3_600_000 === 0) return plural(ms / 3_600_000, 'hour');
  if (ms % 60_000 === 0) return plural(ms / 60_000, 'minute');
  return plural(Math.round(ms / 1000), 'second');
}

export type NoticeKind = 'records_missing' | 'reverted' | 'released';

function describe(record: SendingDomainRecordRow): string {
  const priority = record.priority === null ? '' : ` (priority ${record.priority})`;
  const found = record.detail ? `\n      found: ${record.detail}` : '';
  return `  ${record.type}  ${record.name}  →  ${record.value}${priority}${found}`;
}

export async function queueDomainNotice(
  trx: Transaction<Database>,
  kind: NoticeKind,
  domain: SendingDomainRow,
  records: readonly SendingDomainRecordRow[],
  windowMs: number,
): Promise<number> {
  const { name } = await getStore({ db: trx }, domain.store_id);
  const broken = records.filter((record) => record.status !== 'verified').map(describe);
  const from = `${domain.from_local_part}@${domain.domain}`;
  if (kind === 'released') {
    return queueReleaseNotice(trx, domain, name, windowMs);
  }
  const subject =
    kind === 'records_missing'
      ? `Action needed: DNS records of ${domain.domain} are missing`
      : `${domain.domain} is no longer verified: store mail uses the fallback sender`;
  const text =
    kind === 'records_missing'
      ? [
          `The daily DNS check of ${domain.domain}, the sending domain of your store ${name}, no longer finds these records:`,
          '',
          ...broken,
          '',
          `Customer mail still goes out from ${from} for now. Put the records back as shown above within ${formatDuration(windowMs)};`,
          "otherwise the store's mail reverts to the platform's no-reply sender (replies still reach your",
          'reply-to address) and the domain has to be verified again.',
        ].join('\n')
      : [
          `The DNS records of ${domain.domain}, the sending domain of your store ${name}, have been missing for ${formatDuration(windowMs)}:`,
          '',
          ...broken,
          '',
          `Customer mail now goes out from the platform's no-reply sender instead of ${from}; replies still reach`,
          'your reply-to address. Publish the records again, then choose "Verify now" in the admin',
          '(POST /admin/v1/email/sending-domain/verify) to switch back.',
        ].join('\n');
  return notifyOwners({ db: trx }, domain.store_id, { kind: `sending_domain_${kind}`, subject, text });
}

/** The domain was unproven for DOMAIN_RELEASE_AFTER and has been released (decision `released-domain-deleted`). */
async function queueReleaseNotice(
  trx: Transaction<Database>,
  domain: SendingDomainRow,
  name: string,
  releaseAfterMs: number,
): Promise<number> {
  return notifyOwners({ db: trx }, domain.store_id, {
    kind: 'sending_domain_released',
    subject: `${domain.domain} was released as the sending domain of ${name}`,
    text: [
      `${domain.domain} has not been verified as the sending domain of your store ${name} within`,
      `${formatDuration(releaseAfterMs)} (counted from its registration, or from when its DNS records went missing).`,
      'So that a domain cannot be held by a store that never proves it owns it, it has been released:',
      "your store's mail keeps going out from the platform's no-reply sender (replies still reach your",
      'reply-to address).',
      '',
      `Your store may register ${domain.domain} again after another ${formatDuration(releaseAfterMs)};`,
      'publish the DNS records shown then and verify it.',
    ].join('\n'),
  });
}
