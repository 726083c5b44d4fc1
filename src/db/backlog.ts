import type { ExpressionBuilder } from 'kysely';

/** A queue's length and the age of its oldest item (the metrics of decision `metrics-off-until-readable`). */
export interface QueueBacklog {
  pending: number;
  oldestAgeSeconds: number;
}

/** The two aggregates every queue backlog reads: `count(*)` and `min(created_at)`. */
export function backlogColumns<DB, TB extends keyof DB & string>(eb: ExpressionBuilder<DB, TB>) {
  return [
    eb.fn.countAll<number | string>().as('pending'),
    eb.fn.min<Date | null>(eb.ref('created_at' as never)).as('oldest'),
  ] as const;
}

export function queueBacklog(
  row: { pending: number | string; oldest: Date | null } | undefined,
  now: Date,
): QueueBacklog {
  if (row === undefined || row.oldest === null)
    return { pending: Number(row?.pending ?? 0), oldestAgeSeconds: 0 };
  return {
    pending: Number(row.pending),
    oldestAgeSeconds: Math.max(0, (now.getTime() - new Date(row.oldest).getTime()) / 1000),
  };
}
