/**
 * Tax on the Admin API (docs/tax-service.md, decisions tax-classes and tax-service): the store's tax
 * classes, its outside tax service (whose signing secret is shown once, on creation and rotation),
 * and the tax report (JSON through the typed client for the table, CSV for the download). A change of the classes refreshes
 * the rates too: a class's rates are listed with them.
 */
import type { components, SuccessBody } from '@storefront/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAdmin, useSession } from '../session.tsx';
import { isStatus } from '../ui/problems.ts';
import { useChangeAndRefresh, type ListChangeOptions } from '../ui/queries.tsx';
import { invalidate } from './cache.ts';
import { taxRateKeys } from './shipping.ts';

export type TaxClass = SuccessBody<'adminListTaxClasses'>['items'][number];
export type TaxService = SuccessBody<'adminGetTaxService'>;
export type TaxServiceWithSecret = SuccessBody<'adminRotateTaxServiceSecret'>;

export const taxKeys = {
  all: ['tax'] as const,
  classes: () => [...taxKeys.all, 'classes'] as const,
  service: () => [...taxKeys.all, 'service'] as const,
  report: (query: TaxReportQuery) => [...taxKeys.all, 'report', query] as const,
};

/** The store's classes, `standard` first. */
export function useTaxClasses() {
  const admin = useAdmin();
  return useQuery({
    queryKey: taxKeys.classes(),
    queryFn: () => admin.request('adminListTaxClasses'),
    staleTime: 30_000,
  });
}

export function useCreateTaxClass(onCreated: (created: TaxClass) => void) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { code: string; name: string }) => admin.request('adminCreateTaxClass', { body }),
    onSuccess: async (created) => {
      onCreated(created);
      await invalidate(queryClient, taxKeys.classes(), taxRateKeys.all);
    },
  });
}

/** Deletes a class; a class in use is 409 `tax_class_in_use`, its detail saying what uses it. */
export function useDeleteTaxClass(options: ListChangeOptions<string>) {
  const admin = useAdmin();
  return useChangeAndRefresh({
    change: (code: string) => admin.request('adminDeleteTaxClass', { path: { code } }),
    refresh: [taxKeys.classes(), taxRateKeys.all],
    ...options,
  });
}

/** The store's tax service, or null when it has none (404). */
export function useTaxService() {
  const admin = useAdmin();
  return useQuery({
    queryKey: taxKeys.service(),
    queryFn: async (): Promise<TaxService | null> => {
      try {
        return await admin.request('adminGetTaxService');
      } catch (error) {
        if (isStatus(error, 404)) return null;
        throw error;
      }
    },
  });
}

/**
 * Sets the service's URL and whether it is asked. The answer has `secret` only when the service was
 * created (201): `onSaved` gets it then, to show once.
 */
export function useSaveTaxService(onSaved: (saved: TaxService | TaxServiceWithSecret) => void) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { url: string; active: boolean }) => admin.request('adminPutTaxService', { body }),
    onSuccess: async (saved) => {
      onSaved(saved);
      await invalidate(queryClient, taxKeys.service());
    },
  });
}

/** A new signing secret, shown once; the old one stops signing at once. */
export function useRotateTaxServiceSecret(onRotated: (rotated: TaxServiceWithSecret) => void) {
  const admin = useAdmin();
  return useMutation({
    mutationFn: () => admin.request('adminRotateTaxServiceSecret'),
    onSuccess: onRotated,
  });
}

export function useDeleteTaxService(options: ListChangeOptions<void>) {
  const admin = useAdmin();
  return useChangeAndRefresh({
    change: () => admin.request('adminDeleteTaxService'),
    refresh: [taxKeys.service()],
    ...options,
  });
}

export interface TaxReportQuery {
  from: string;
  to: string;
  currency: string;
}

export type TaxReport = components['schemas']['TaxReport'];
/** One row of the tax report: an area, class and rate, in one currency. */
export type TaxReportRow = TaxReport['items'][number];

/** The report for a period and currency (the typed client's `adminGetTaxReport`); nothing is asked until `query` is given. */
export function useTaxReport(query: TaxReportQuery | null) {
  const admin = useAdmin();
  return useQuery({
    queryKey: taxKeys.report(query ?? { from: '', to: '', currency: '' }),
    enabled: query !== null,
    queryFn: async (): Promise<TaxReport> => {
      const report = await admin.request('adminGetTaxReport', { query: query! });
      // The client asks for JSON; the operation's CSV (a string) is the download's, below.
      if (typeof report === 'string') throw new Error('The tax report came back as text, not JSON.');
      return report;
    },
  });
}

/** The report's problem+json as an Error whose message is its detail (or title). */
async function reportProblem(response: Response): Promise<Error> {
  const problem = (await response.json().catch(() => null)) as { title?: string; detail?: string } | null;
  return new Error(problem?.detail ?? problem?.title ?? `The tax report failed (HTTP ${response.status}).`);
}

/**
 * The same report as CSV, as a Blob to save. The typed client reads every answer as JSON, so this
 * one asks with its own fetch (`Accept: text/csv`, the staff token).
 */
export function useTaxReportCsv() {
  const { session } = useSession();
  return useMutation({
    mutationFn: async (query: TaxReportQuery) => {
      const params = new URLSearchParams({ ...query });
      const response = await fetch(`/admin/v1/reports/tax?${params.toString()}`, {
        headers: { accept: 'text/csv', authorization: `Bearer ${session?.token ?? ''}` },
      });
      if (!response.ok) throw await reportProblem(response);
      return response.blob();
    },
  });
}
