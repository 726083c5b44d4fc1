/** Dates in the browser's locale and time zone; the wire carries ISO 8601 UTC. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleDateString(undefined, { dateStyle: 'medium' });
}

/** Midnight today in the browser's time zone, as ISO 8601. */
export function startOfToday(now = new Date()): string {
  return new Date(now.getFullYear(), now.getMonth(), now.getDate()).toISOString();
}

export type PeriodStatus = 'active' | 'scheduled' | 'ended';

/** Whether something with optional start and end (a price list, a promotion) is in force now, starts later, or has ended. */
export function periodStatus(
  period: { startsAt: string | null; endsAt: string | null },
  now = Date.now(),
): PeriodStatus {
  if (period.endsAt && Date.parse(period.endsAt) <= now) return 'ended';
  if (period.startsAt && Date.parse(period.startsAt) > now) return 'scheduled';
  return 'active';
}
