/**
 * Staff on the Admin API: their query keys, the signed-in member's own session (their role, shared
 * by every screen), the members list, and add, change a role, remove. A change of one's own role
 * refreshes the session too.
 */
import type { RequestBody, SuccessBody } from '@storefront/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { invalidate, type ChangeCallbacks } from './cache.ts';

export type StaffMember = SuccessBody<'adminListStaff'>['items'][number];
export type StaffRole = RequestBody<'adminAddStaffMember'>['role'];

export const staffKeys = {
  all: ['staff'] as const,
  lists: () => [...staffKeys.all, 'list'] as const,
  list: (cursor: string | undefined) => [...staffKeys.lists(), { cursor }] as const,
  /** The signed-in member's session. */
  session: () => [...staffKeys.all, 'session'] as const,
};

/** The signed-in staff member and their role. */
export function useStaffSession() {
  const admin = useAdmin();
  return useQuery({
    queryKey: staffKeys.session(),
    queryFn: () => admin.request('adminGetSession'),
    staleTime: 60_000,
  });
}

export function useStaff(cursor: string | undefined) {
  const admin = useAdmin();
  return useQuery({
    queryKey: staffKeys.list(cursor),
    queryFn: () => admin.request('adminListStaff', { query: { limit: 50, ...(cursor ? { cursor } : {}) } }),
  });
}

/** Adds a member; `onSuccess` runs once the list is read again. */
export function useAddStaffMember(
  callbacks: ChangeCallbacks<StaffMember, RequestBody<'adminAddStaffMember'>> = {},
) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: RequestBody<'adminAddStaffMember'>) => admin.request('adminAddStaffMember', { body }),
    onSuccess: async (member, body) => {
      await invalidate(queryClient, staffKeys.lists());
      await callbacks.onSuccess?.(member, body);
    },
  });
}

/** Changes a member's role; when it is the signed-in member's own, their session is read again. */
export function useChangeStaffRole() {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ member, role }: { member: StaffMember; role: StaffRole; isYou: boolean }) =>
      admin.request('adminUpdateStaffMember', { path: { id: member.id }, body: { role } }),
    onSuccess: async (_member, { isYou }) => {
      await invalidate(queryClient, staffKeys.lists());
      if (isYou) await invalidate(queryClient, staffKeys.session());
    },
  });
}

/**
 * Removes a member (their sessions end). Removing oneself reads nothing again (the session is
 * over: `onSuccess` signs out); otherwise `onSuccess` runs once the list is read again.
 */
export function useRemoveStaffMember(
  callbacks: ChangeCallbacks<void, { member: StaffMember; isYou: boolean }> = {},
) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ member }: { member: StaffMember; isYou: boolean }) =>
      admin.request('adminRemoveStaffMember', { path: { id: member.id } }),
    onSuccess: async (_none, removal) => {
      if (!removal.isYou) await invalidate(queryClient, staffKeys.lists());
      await callbacks.onSuccess?.(undefined, removal);
    },
  });
}
