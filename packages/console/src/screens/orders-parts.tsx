/**
 * Shared by the home, orders and pricing screens: countries, what an order can still refund, and its
 * timeline. (Rates in basis points are parsed and shown with money, in ui/money.ts.)
 */
import type { AdminOrder } from '@storefront/client';
import { useId, useMemo } from 'react';
import { FieldShell } from '../ui/components.tsx';
import { formatDateTime } from '../ui/dates.ts';
import { formatMoney } from '../ui/money.ts';

// ---- Countries (ISO 3166-1 alpha-2, named in the browser's language) ----

/** Codes Intl names but ISO 3166-1 does not assign (the server refuses them too). */
const NOT_ISO = new Set([
  'AC',
  'CP',
  'DG',
  'EA',
  'EU',
  'EZ',
  'IC',
  'QO',
  'TA',
  'UK',
  'UN',
  'XA',
  'XB',
  'XK',
  'ZZ',
]);

let countryCache: { code: string; name: string }[] | null = null;

/** Every country the browser can name, by name. */
export function countries(): { code: string; name: string }[] {
  if (countryCache) return countryCache;
  const names = new Intl.DisplayNames(undefined, { type: 'region', fallback: 'none' });
  const english = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
  const list: { code: string; name: string }[] = [];
  const A = 'A'.charCodeAt(0);
  for (let i = 0; i < 26; i += 1) {
    for (let j = 0; j < 26; j += 1) {
      const code = String.fromCharCode(A + i, A + j);
      if (NOT_ISO.has(code)) continue;
      const known = english.of(code);
      if (!known || known === code || known === 'Unknown Region') continue;
      list.push({ code, name: names.of(code) ?? known });
    }
  }
  countryCache = list.sort((a, b) => a.name.localeCompare(b.name));
  return countryCache;
}

export function countryName(code: string): string {
  try {
    return new Intl.DisplayNames(undefined, { type: 'region', fallback: 'code' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** A country picker: a native select of every country, by name. */
export function CountrySelect({
  label,
  value,
  onChange,
  error,
  hint,
  disabled,
}: {
  label: string;
  value: string;
  onChange: (code: string) => void;
  error?: string | undefined;
  hint?: string;
  disabled?: boolean;
}) {
  const list = useMemo(countries, []);
  return (
    <FieldShell label={label} error={error} hint={hint}>
      {({ id, describedBy, invalid }) => (
        <select
          id={id}
          value={value}
          disabled={disabled}
          aria-describedby={describedBy}
          aria-invalid={invalid || undefined}
          onChange={(event) => onChange(event.target.value)}
        >
          <option value="">Choose a country…</option>
          {list.map((country) => (
            <option key={country.code} value={country.code}>
              {country.name} ({country.code})
            </option>
          ))}
        </select>
      )}
    </FieldShell>
  );
}

// ---- Refunds ----

/**
 * What can still be refunded on an order: the captured payment minus refunds made or pending (the
 * server's rule, D24). Zero when no payment was captured.
 */
export function refundableAmount(order: AdminOrder): number {
  const captured = order.payments
    .filter((payment) => payment.status === 'succeeded')
    .reduce((sum, payment) => sum + payment.amount.amount, 0);
  if (captured === 0) return 0;
  const held = order.refunds
    .filter((refund) => refund.status === 'pending' || refund.status === 'succeeded')
    .reduce((sum, refund) => sum + refund.amount.amount, 0);
  return Math.max(0, captured - held);
}

/** The badges of an order in lists and its header: status, refunds, oversold. */
export function orderBadges(order: Pick<AdminOrder, 'status' | 'oversold' | 'refunded' | 'total'>): string[] {
  const badges: string[] = [order.status];
  if (order.refunded.amount > 0) {
    badges.push(order.refunded.amount >= order.total.amount ? 'refunded' : 'partially_refunded');
  }
  if (order.oversold) badges.push('oversold');
  return badges;
}

// ---- Timeline ----

export interface TimelineEntry {
  at: string;
  title: string;
  detail?: string | undefined;
  tone?: 'ok' | 'warn' | 'bad' | undefined;
  /** In the future (the deadline of a pending order). */
  upcoming?: boolean;
}

const REFUND_REASONS: Record<string, string> = {
  merchant: 'by staff',
  expired_out_of_stock: 'automatically: paid after the order expired and the stock was gone',
};

/** What happened to an order, newest first, from its own data. */
export function orderTimeline(order: AdminOrder): TimelineEntry[] {
  const money = (amount: number) => formatMoney(amount, order.total.currency);
  const entries: TimelineEntry[] = [
    {
      at: order.createdAt,
      title: `Order placed by ${order.email}`,
      detail: `${money(order.total.amount)}${order.discountCode ? `, discount code ${order.discountCode}` : ''}`,
    },
  ];
  for (const payment of order.payments) {
    if (payment.status === 'failed' || payment.status === 'canceled') {
      entries.push({
        at: payment.createdAt,
        title: `Payment ${payment.status === 'failed' ? 'failed' : 'canceled'}`,
        detail: `${payment.provider} ${payment.ref}`,
        tone: 'bad',
      });
    }
  }
  if (order.paidAt) {
    entries.push({
      at: order.paidAt,
      title: 'Payment captured: order paid',
      detail: order.oversold
        ? `${money(order.total.amount)}; stock was short when it was paid (oversold)`
        : money(order.total.amount),
      tone: order.oversold ? 'warn' : 'ok',
    });
  }
  if (order.status === 'expired') {
    entries.push({
      at: order.expiresAt,
      title: 'Expired unpaid',
      detail: 'Its reserved stock was released.',
      tone: 'warn',
    });
  } else if (order.status === 'pending') {
    entries.push({
      at: order.expiresAt,
      title: 'Expires unless paid by then',
      detail: 'Its stock is reserved until then.',
      upcoming: true,
    });
  }
  for (const refund of order.refunds) {
    const how = refund.reason ? REFUND_REASONS[refund.reason] : undefined;
    entries.push({
      at: refund.createdAt,
      title: `Refund of ${money(refund.amount.amount)} requested${how ? ` ${how}` : ''}`,
      detail: refund.note ? `Reason: ${refund.note}` : undefined,
    });
    if (refund.settledAt) {
      entries.push({
        at: refund.settledAt,
        title:
          refund.status === 'succeeded'
            ? `Refund of ${money(refund.amount.amount)} succeeded`
            : `Refund of ${money(refund.amount.amount)} failed`,
        detail: refund.status === 'failed' ? (refund.lastError ?? undefined) : undefined,
        tone: refund.status === 'succeeded' ? 'ok' : 'bad',
      });
    }
  }
  return entries.sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
}

export function Timeline({ entries }: { entries: TimelineEntry[] }) {
  const id = useId();
  return (
    <section className="panel orders-panel" aria-labelledby={id}>
      <h2 id={id}>Timeline</h2>
      <ol className="timeline">
        {entries.map((entry, index) => (
          <li key={`${entry.at}-${index}`} className={entry.tone ? `tone-${entry.tone}` : undefined}>
            <p className="timeline-title">{entry.title}</p>
            {entry.detail ? <p className="muted">{entry.detail}</p> : null}
            <p className="muted">
              <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
              {entry.upcoming ? ' (upcoming)' : null}
            </p>
          </li>
        ))}
      </ol>
    </section>
  );
}
