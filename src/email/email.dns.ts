import { Resolver } from 'node:dns/promises';
import { clientSpan, internalSpan } from '../telemetry/spans.ts';
import type { EmailIdentityConfig } from './email.config.ts';
import type { DnsRecordType } from './email.tables.ts';

/**
 * DNS lookups of a sending domain's records with `node:dns` (DNS_SERVERS, else the system's
 * resolvers). Each record is looked up on its own, and every answer is classified:
 *   - `verified`: the record is there with the expected value;
 *   - `wrong`: the name answers, but not with the expected value (a typo, another provider's MX);
 *   - `missing`: no such name, or no record of that type (NXDOMAIN / NODATA);
 *   - `inconclusive`: timeout, SERVFAIL, refused…: nothing is known, so nothing may change
 *     because of it ("not yet", never a failure by itself).
 */

export type LookupOutcome = 'verified' | 'wrong' | 'missing' | 'inconclusive';

export interface LookupResult {
  outcome: LookupOutcome;
  /** What was found, in words. */
  detail: string;
}

export interface RecordToCheck {
  type: DnsRecordType;
  name: string;
  value: string;
}

const ABSENT = new Set(['ENOTFOUND', 'ENODATA']);

const canonical = (name: string): string => name.trim().toLowerCase().replace(/\.$/, '');

function failure(type: DnsRecordType, error: unknown): LookupResult {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && ABSENT.has(code)) {
    return { outcome: 'missing', detail: `no ${type} record found` };
  }
  return {
    outcome: 'inconclusive',
    detail: `the lookup failed (${typeof code === 'string' ? code : 'error'}); it is retried`,
  };
}

/** `include:` terms of an SPF value, lower-cased. */
function includesOf(spf: string): string[] {
  return spf
    .toLowerCase()
    .split(/\s+/)
    .filter((term) => /^[+?~-]?include:/.test(term))
    .map((term) => term.replace(/^[+?~-]/, ''));
}

/** One record's lookup, in a client span when tracing is on (its outcome, a failure's DNS code). */
function check(resolver: Resolver, record: RecordToCheck): Promise<LookupResult> {
  return clientSpan(`DNS ${record.type}`, { 'dns.question.name': record.name }, async (span) => {
    const { code, ...result } = await lookUp(resolver, record);
    span.set({ 'storefront.dns.outcome': result.outcome });
    if (result.outcome === 'inconclusive') span.fail(code ?? 'inconclusive');
    return result;
  });
}

async function lookUp(resolver: Resolver, record: RecordToCheck): Promise<LookupResult & { code?: string }> {
  try {
    switch (record.type) {
      case 'CNAME': {
        const targets = (await resolver.resolveCname(record.name)).map(canonical);
        return targets.includes(canonical(record.value))
          ? { outcome: 'verified', detail: `CNAME points to ${record.value}` }
          : { outcome: 'wrong', detail: `CNAME points to ${targets.join(', ')}, not ${record.value}` };
      }
      case 'MX': {
        const exchanges = (await resolver.resolveMx(record.name)).map((mx) => canonical(mx.exchange));
        return exchanges.includes(canonical(record.value))
          ? { outcome: 'verified', detail: `MX points to ${record.value}` }
          : { outcome: 'wrong', detail: `MX points to ${exchanges.join(', ')}, not ${record.value}` };
      }
      case 'TXT': {
        const values = (await resolver.resolveTxt(record.name)).map((chunks) => chunks.join(''));
        const spf = values.filter((value) => /^v=spf1(\s|$)/i.test(value.trim()));
        if (spf.length === 0) return { outcome: 'missing', detail: 'no SPF record (v=spf1 …) found' };
        if (spf.length > 1) {
          return {
            outcome: 'wrong',
            detail: `${spf.length} SPF records found; receivers reject mail when there is more than one, so merge them`,
          };
        }
        const found = includesOf(spf[0]!);
        const missing = includesOf(record.value).filter((term) => !found.includes(term));
        return missing.length === 0
          ? { outcome: 'verified', detail: 'SPF record includes the platform' }
          : { outcome: 'wrong', detail: `the SPF record lacks ${missing.join(' ')}` };
      }
    }
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { ...failure(record.type, error), ...(typeof code === 'string' ? { code } : {}) };
  }
}

/** Looks up every record (in parallel, one fresh resolver per run so nothing stale is cached). */
export async function lookUpRecords(
  records: readonly RecordToCheck[],
  config: Pick<EmailIdentityConfig, 'dnsServers' | 'dnsTimeoutMs'>,
): Promise<LookupResult[]> {
  // One span groups a domain's lookups (from the verify loop, one trace per domain checked).
  return internalSpan('DNS verify records', { 'storefront.dns.records': records.length }, async () => {
    const resolver = new Resolver({ timeout: config.dnsTimeoutMs, tries: 2 });
    if (config.dnsServers.length > 0) resolver.setServers([...config.dnsServers]);
    try {
      return await Promise.all(records.map((record) => check(resolver, record)));
    } finally {
      resolver.cancel();
    }
  });
}
