/**
 * Shipping on the Admin API (docs/shipping.md): zones and their methods, and the per-country tax
 * rates with their flat shipping, in one module because they show the same amounts: a country's
 * flat shipping is its default shipping method. A change of either refreshes both.
 */
import type { components, RequestBody, SuccessBody } from '@storefront/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { useChangeAndRefresh, type ListChangeOptions } from '../ui/queries.tsx';
import { invalidate } from './cache.ts';

export type ShippingZone = components['schemas']['ShippingZone'];
export type ZoneArea = ShippingZone['areas'][number];
export type ShippingMethod = components['schemas']['ShippingMethod'];
export type MethodKind = ShippingMethod['kind'];
export type ZoneBody = RequestBody<'adminCreateShippingZone'>;
export type MethodBody = RequestBody<'adminCreateShippingMethod'>;
export type TaxRate = SuccessBody<'adminListTaxRates'>['items'][number];

export const shippingKeys = {
  all: ['shipping'] as const,
  zones: () => [...shippingKeys.all, 'zones'] as const,
};

export const taxRateKeys = {
  all: ['tax-rates'] as const,
};

/** A store has at most 100 zones, the largest page: one page holds them all. */
const ZONES_PAGE = 100;

export function useShippingZones() {
  const admin = useAdmin();
  return useQuery({
    queryKey: shippingKeys.zones(),
    queryFn: () => admin.request('adminListShippingZones', { query: { limit: ZONES_PAGE } }),
  });
}

export function useTaxRates() {
  const admin = useAdmin();
  return useQuery({
    queryKey: taxRateKeys.all,
    queryFn: () => admin.request('adminListTaxRates'),
  });
}

/** Reads the zones and the rates again after a change of either. */
function useRefreshShipping() {
  const queryClient = useQueryClient();
  return () => invalidate(queryClient, shippingKeys.all, taxRateKeys.all);
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
  return useChangeAndRefresh({
    change: (zone: ShippingZone) => admin.request('adminDeleteShippingZone', { path: { id: zone.id } }),
    refresh: [shippingKeys.all, taxRateKeys.all],
  });
}

/** Deletes a method. */
export function useDeleteMethod() {
  const admin = useAdmin();
  return useChangeAndRefresh({
    change: (method: ShippingMethod) =>
      admin.request('adminDeleteShippingMethod', { path: { id: method.zoneId, methodId: method.id } }),
    refresh: [shippingKeys.all, taxRateKeys.all],
  });
}

/**
 * Sets a country's tax rates (standard and by class), whether shipping is taxed, and its flat shipping (its default shipping method, so the Shipping screen
 * shows it too). `onSaved` runs at once; both are read again meanwhile.
 */
export function useSetTaxRate(onSaved: (rate: SuccessBody<'adminSetTaxRate'>) => void) {
  const admin = useAdmin();
  const refresh = useRefreshShipping();
  return useMutation({
    mutationFn: ({ country, ...body }: { country: string } & RequestBody<'adminSetTaxRate'>) =>
      admin.request('adminSetTaxRate', { path: { country }, body }),
    onSuccess: (saved) => {
      void refresh();
      onSaved(saved);
    },
  });
}

/** Deletes a country's rate (and its flat shipping method). */
export function useDeleteTaxRate(options: ListChangeOptions<string>) {
  const admin = useAdmin();
  return useChangeAndRefresh({
    change: (country: string) => admin.request('adminDeleteTaxRate', { path: { country } }),
    refresh: [taxRateKeys.all, shippingKeys.all],
    ...options,
  });
}
