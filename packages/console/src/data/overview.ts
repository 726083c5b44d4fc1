/**
 * Home's figures (`GET /admin/v1/overview`): today's orders and revenue, low stock, failed webhook
 * deliveries, the sending domain. Changes elsewhere that move them (an order's refund, cancellation
 * or return) refresh them through `overviewKeys.all`.
 */
import { useQuery } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';

export const overviewKeys = {
  all: ['overview'] as const,
  since: (since: string) => [...overviewKeys.all, since] as const,
};

/** The figures since a moment (the start of today in the browser's time zone). */
export function useOverview(since: string) {
  const admin = useAdmin();
  return useQuery({
    queryKey: overviewKeys.since(since),
    queryFn: () => admin.request('adminGetOverview', { query: { since } }),
  });
}
