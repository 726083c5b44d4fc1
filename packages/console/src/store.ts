/** The signed-in staff member's store (name, currency) and session, shared by every screen. */
import { useQuery } from '@tanstack/react-query';
import { useAdmin } from './session.tsx';

export function useStoreSettings() {
  const admin = useAdmin();
  return useQuery({
    queryKey: ['settings'],
    queryFn: () => admin.request('adminGetSettings'),
    staleTime: 60_000,
  });
}

/** The store currency once known ('USD' until then, for layout only). */
export function useCurrency(): string {
  return useStoreSettings().data?.currency ?? 'USD';
}

export function useStaffSession() {
  const admin = useAdmin();
  return useQuery({
    queryKey: ['session'],
    queryFn: () => admin.request('adminGetSession'),
    staleTime: 60_000,
  });
}
