/**
 * Shipping zones and their methods on the Admin API: the types, the query keys and the calls the
 * Shipping screen makes. A change of a method also changes the legacy per-country shipping amount
 * the tax rates show (docs/shipping.md), so the rates are read again after it.
 */
import type { components, RequestBody } from '@storefront/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { useChangeAndRefresh } from '../ui/queries.tsx';

export type ShippingZone = components['schemas']['ShippingZone'];
export type ZoneArea = ShippingZone['areas'][number];
export type ShippingMethod = components['schemas']['ShippingMethod'];
export type MethodKind = ShippingMethod['kind'];
export type ZoneBody = RequestBody<'adminCreateShippingZone'>;
export type MethodBody = RequestBody<'adminCreateShippingMethod'>;

export const shippingKeys = {
  all: ['shipping'] as const,
  zones: () => [...shippingKeys.all, 'zones'] as const,
};

/** What else shows shipping amounts: the tax rates' legacy `shippingAmount` (the pricing screen). */
const TAX_RATES = ['tax-rates'] as const;

/** A store has at most 100 zones, the largest page: one page holds them all. */
const ZONES_PAGE = 100;

export function useShippingZones() {
  const admin = useAdmin();
  return useQuery({
    queryKey: shippingKeys.zones(),
    queryFn: () => admin.request('adminListShippingZones', { query: { limit: ZONES_PAGE } }),
  });
}

/** Reads the zones (and the rates that show a method's amount) again after a change. */
function useRefreshShipping() {
  const queryClient = useQueryClient();
  return async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: shippingKeys.all }),
      queryClient.invalidateQueries({ queryKey: TAX_RATES }),
    ]);
  };
}

/** Creates a zone, or changes the one `id` names. */
export function useSaveZone(onSaved: (zone: ShippingZone) => void) {
  const admin = useAdmin();
  const refresh = useRefreshShipping();
  return useMutation({
    mutationFn: ({ id, body }: { id: string | null; body: ZoneBody }) =>
      id === null
        ? admin.request('adminCreateShippingZone', { body })
        : admin.request('adminUpdateShippingZone', { path: { id }, body }),
    onSuccess: async (zone) => {
      await refresh();
      onSaved(zone);
    },
  });
}

/** Creates a method in a zone, or changes the one `methodId` names. */
export function useSaveMethod(zoneId: string, onSaved: (method: ShippingMethod) => void) {
  const admin = useAdmin();
  const refresh = useRefreshShipping();
  return useMutation({
    mutationFn: ({ methodId, body }: { methodId: string | null; body: MethodBody }) =>
      methodId === null
        ? admin.request('adminCreateShippingMethod', { path: { id: zoneId }, body })
        : admin.request('adminUpdateShippingMethod', { path: { id: zoneId, methodId }, body }),
    onSuccess: async (method) => {
      await refresh();
      onSaved(method);
    },
  });
}

/** Deletes a zone (and its methods). */
export function useDeleteZone() {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useChangeAndRefresh({
    change: (zone: ShippingZone) => admin.request('adminDeleteShippingZone', { path: { id: zone.id } }),
    refresh: shippingKeys.all,
    onDone: () => queryClient.invalidateQueries({ queryKey: TAX_RATES }),
  });
}

/** Deletes a method. */
export function useDeleteMethod() {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useChangeAndRefresh({
    change: (method: ShippingMethod) =>
      admin.request('adminDeleteShippingMethod', { path: { id: method.zoneId, methodId: method.id } }),
    refresh: shippingKeys.all,
    onDone: () => queryClient.invalidateQueries({ queryKey: TAX_RATES }),
  });
}
