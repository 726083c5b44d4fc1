/**
 * Storefront keys on the Admin API: their query keys, the list, and create, change, revoke. The
 * full key exists only in the create answer: the screen keeps it in its own state, never here.
 */
import type { StorefrontKey, StorefrontKeyWithSecret } from '@storefront/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { useChangeAndRefresh, type ListChangeOptions } from '../ui/queries.tsx';
import { invalidate, type ChangeCallbacks } from './cache.ts';

/** A key's settings as the forms send them (a budget of null: the platform default). */
export interface KeySettings {
  label: string;
  allowedOrigins: string[];
  publicRead: number | null;
  publicWrite: number | null;
}

/** A created key, and whether its budgets were saved too (the key exists either way). */
export interface CreatedKey {
  key: StorefrontKeyWithSecret;
  budgetsSaved: boolean;
}

export const storefrontKeyKeys = {
  all: ['storefront-keys'] as const,
  list: (cursor: string | undefined) => [...storefrontKeyKeys.all, { cursor }] as const,
};

export function useStorefrontKeys(cursor: string | undefined) {
  const admin = useAdmin();
  return useQuery({
    queryKey: storefrontKeyKeys.list(cursor),
    queryFn: () => admin.storefrontKeys.list({ limit: 50, ...(cursor ? { cursor } : {}) }),
  });
}

/**
 * Creates a key, then sets its budgets when any is given: a change of the new key, so when that
 * fails the key still exists and is answered (`budgetsSaved: false`). `onSuccess` runs at once.
 */
export function useCreateStorefrontKey(callbacks: ChangeCallbacks<CreatedKey, KeySettings> = {}) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (settings: KeySettings): Promise<CreatedKey> => {
      const key = await admin.storefrontKeys.create({
        label: settings.label,
        allowedOrigins: settings.allowedOrigins,
      });
      if (settings.publicRead === null && settings.publicWrite === null) return { key, budgetsSaved: true };
      try {
        const changed = await admin.storefrontKeys.update(key.id, {
          rateLimits: { publicRead: settings.publicRead, publicWrite: settings.publicWrite },
        });
        return { key: { ...key, ...changed, key: key.key }, budgetsSaved: true };
      } catch {
        return { key, budgetsSaved: false };
      }
    },
    onSuccess: (created, settings) => {
      void invalidate(queryClient, storefrontKeyKeys.all);
      return callbacks.onSuccess?.(created, settings);
    },
  });
}

/** Changes a key's label, origins and budgets; `onSuccess` runs once the list is read again. */
export function useUpdateStorefrontKey(
  id: string,
  callbacks: ChangeCallbacks<StorefrontKey, KeySettings> = {},
) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (settings: KeySettings) =>
      admin.storefrontKeys.update(id, {
        label: settings.label,
        allowedOrigins: settings.allowedOrigins,
        rateLimits: { publicRead: settings.publicRead, publicWrite: settings.publicWrite },
      }),
    onSuccess: async (key, settings) => {
      await invalidate(queryClient, storefrontKeyKeys.all);
      await callbacks.onSuccess?.(key, settings);
    },
  });
}

/** Revokes a key: it stops working within a second. */
export function useRevokeStorefrontKey(options: ListChangeOptions<StorefrontKey>) {
  const admin = useAdmin();
  return useChangeAndRefresh({
    change: (key: StorefrontKey) => admin.storefrontKeys.revoke(key.id),
    refresh: [storefrontKeyKeys.all],
    ...options,
  });
}
