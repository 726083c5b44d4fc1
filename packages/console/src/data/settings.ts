/**
 * The store's settings on the Admin API (name, currency, reply-to, whether checkout requires a
 * shipping address): their query key, the read every screen shares, and the change. A change is
 * the cached copy at once, and refreshes the email sender's state (it shows the reply-to) and the
 * markets (the default market's tax setting is the store's).
 */
import type { RequestBody, SuccessBody } from '@storefront/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { invalidate, type ChangeCallbacks } from './cache.ts';
import { emailKeys } from './email.ts';

export type StoreSettings = SuccessBody<'adminGetSettings'>;
export type SettingsChange = RequestBody<'adminUpdateSettings'>;

export const settingsKeys = {
  all: ['settings'] as const,
  /** The markets (data/markets.ts): the default market's tax setting is the store's. */
  markets: () => [...settingsKeys.all, 'markets'] as const,
};

/** The store's settings, shared by every screen (the name in the header, the currency of prices). */
export function useStoreSettings() {
  const admin = useAdmin();
  return useQuery({
    queryKey: settingsKeys.all,
    queryFn: () => admin.request('adminGetSettings'),
    staleTime: 60_000,
  });
}

/** The store currency once known ('USD' until then, for layout only). */
export function useCurrency(): string {
  return useStoreSettings().data?.currency ?? 'USD';
}

/**
 * Changes some settings. `onSuccess` runs at once; the sender's state and the markets (the default
 * market's tax setting) are read again before the change is done.
 */
export function useUpdateSettings(callbacks: ChangeCallbacks<StoreSettings, SettingsChange> = {}) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SettingsChange) => admin.request('adminUpdateSettings', { body }),
    onSuccess: async (settings, body) => {
      queryClient.setQueryData(settingsKeys.all, settings);
      await callbacks.onSuccess?.(settings, body);
      await invalidate(queryClient, emailKeys.all, settingsKeys.markets());
    },
  });
}
