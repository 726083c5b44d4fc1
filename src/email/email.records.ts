import type { DnsRecordType } from './email.tables.ts';

/**
 * The five DNS records a merchant publishes for a sending domain (spec 2.14):
 *   - three CNAMEs `<token>._domainkey.<domain>` → `<token>.dkim.<platform>`: DKIM signature alignment;
 *   - an MX on `mail.<domain>` → the platform's feedback host: bounces and complaints come back;
 *   - an SPF TXT on `mail.<domain>` that includes the platform: envelope (Return-Path) alignment.
 * With both, mail from `<local>@<domain>` passes DMARC as the merchant's own.
 */

export interface ExpectedRecord {
  position: number;
  type: DnsRecordType;
  name: string;
  value: string;
  /** MX only. */
  priority: number | null;
}

export const MX_PRIORITY = 10;

/** The subdomain used as envelope sender (Return-Path) domain. */
export function mailFromDomain(domain: string): string {
  return `mail.${domain}`;
}

/** The envelope sender of store mail from a verified domain; bounces reach the platform via the MX. */
export function bounceAddress(domain: string): string {
  return `bounce@${mailFromDomain(domain)}`;
}

export function feedbackHost(platformMailDomain: string): string {
  return `feedback-smtp.${platformMailDomain}`;
}

export function spfValue(platformMailDomain: string): string {
  return `v=spf1 include:${platformMailDomain} ~all`;
}

export function expectedRecords(
  domain: string,
  tokens: readonly string[],
  platformMailDomain: string,
): ExpectedRecord[] {
  return [
    ...tokens.map((token, position) => ({
      position,
      type: 'CNAME' as const,
      name: `${token}._domainkey.${domain}`,
      value: `${token}.dkim.${platformMailDomain}`,
      priority: null,
    })),
    {
      position: tokens.length,
      type: 'MX' as const,
      name: mailFromDomain(domain),
      value: feedbackHost(platformMailDomain),
      priority: MX_PRIORITY,
    },
    {
      position: tokens.length + 1,
      type: 'TXT' as const,
      name: mailFromDomain(domain),
      value: spfValue(platformMailDomain),
      priority: null,
    },
  ];
}
