/**
 * The store's email sender on the Admin API: its query keys, the sender's state (who store mail
 * goes from and why, the sending domain and its DNS records), and register, verify, delete the
 * domain. The reply-to address is a store setting (data/settings.ts), whose change refreshes the
 * sender's state too.
 */
import type { SuccessBody } from '@storefront/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { invalidate, type ChangeCallbacks } from './cache.ts';

export type SenderState = SuccessBody<'adminGetSenderState'>;
export type SendingDomain = SuccessBody<'adminGetSendingDomain'>;

export const emailKeys = {
  all: ['email'] as const,
  sender: () => [...emailKeys.all, 'sender'] as const,
};

export function useSender() {
  const admin = useAdmin();
  return useQuery({
    queryKey: emailKeys.sender(),
    queryFn: () => admin.request('adminGetSenderState'),
  });
}

/** Registers a sending domain and the local part mail goes from; its DNS records come back. */
export function useRegisterDomain() {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { domain: string; fromLocalPart: string }) =>
      admin.request('adminRegisterSendingDomain', { body }),
    onSuccess: () => invalidate(queryClient, emailKeys.all),
  });
}

/**
 * Checks the domain's DNS records now. `onSuccess` runs once the sender's state is read again, so a
 * message about the check never shows beside the state it replaces.
 */
export function useVerifyDomain(callbacks: ChangeCallbacks<SendingDomain, void> = {}) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => admin.request('adminVerifySendingDomain'),
    onSuccess: async (domain) => {
      await invalidate(queryClient, emailKeys.all);
      await callbacks.onSuccess?.(domain);
    },
  });
}

/** Removes the sending domain: store mail goes from the platform's address again. */
export function useDeleteDomain() {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => admin.request('adminDeleteSendingDomain'),
    onSuccess: () => invalidate(queryClient, emailKeys.all),
  });
}
