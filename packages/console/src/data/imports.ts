/**
 * CSV imports and exports on the Admin API (docs/import-export.md, decisions `csv-imports` and
 * `csv-exports`): a page of the imports (newest first), one import followed while it runs (read
 * again every second until it has completed or failed), uploading a file as a new import, and an
 * export's CSV as a Blob to save.
 *
 * The upload and the export use `fetch` with the staff token rather than the typed client, which
 * sends and reads JSON only: the upload is a multipart form, the export a CSV attachment. Their
 * refusals (problem+json) become the client's StorefrontError, so screens show them as any other;
 * a 401 ends the session as the client's calls do.
 */
import {
  StorefrontError,
  StorefrontNetworkError,
  type Problem,
  type QueryParams,
  type SuccessBody,
} from '@storefront/client';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { EXPIRED_NOTICE, useAdmin, useSession } from '../session.tsx';
import { invalidate } from './cache.ts';

export type ImportJob = SuccessBody<'adminGetImport'>;
type ImportList = SuccessBody<'adminListImports'>;
export type ImportListItem = ImportList['items'][number];
export type ImportKind = ImportJob['kind'];
export type ImportStatus = ImportJob['status'];
export type ImportRowError = ImportJob['errors'][number];
/** What an export holds: `products`, `orders` or `customers`. */
export type ExportKind = QueryParams<'adminExport'>['kind'];

export const IMPORTS_PAGE_SIZE = 20;
/** How often a running import is read again, in milliseconds. */
export const IMPORT_POLL_MS = 1000;

export const importKeys = {
  all: ['imports'] as const,
  lists: () => [...importKeys.all, 'list'] as const,
  list: (cursor: string | undefined) => [...importKeys.lists(), { cursor }] as const,
  detail: (id: string) => [...importKeys.all, 'detail', id] as const,
};

/** Whether an import is still to finish (queued, checking or running). */
export function isUnfinished(job: { status: ImportStatus }): boolean {
  return job.status === 'queued' || job.status === 'checking' || job.status === 'running';
}

/** A page of the imports, newest first; read again every second while one on it is unfinished. */
export function useImports(cursor: string | undefined) {
  const admin = useAdmin();
  return useQuery({
    queryKey: importKeys.list(cursor),
    queryFn: ({ signal }) =>
      admin.request('adminListImports', {
        query: { limit: IMPORTS_PAGE_SIZE, ...(cursor ? { cursor } : {}) },
        signal,
      }),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (query.state.data?.items.some(isUnfinished) ? IMPORT_POLL_MS : false),
  });
}

/** One import with its bad rows; read again every second until it has completed or failed. */
export function useImport(id: string) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: importKeys.detail(id),
    queryFn: async ({ signal }) => {
      const job = await admin.request('adminGetImport', { path: { id }, signal });
      if (!isUnfinished(job)) {
        // Finished: the lists' copies (status, counts) are brought up to date at once, so going
        // back to the list never shows it still queued while the list is read again.
        const { errors: _errors, ...item } = job;
        queryClient.setQueriesData<ImportList>({ queryKey: importKeys.lists() }, (list) =>
          list === undefined
            ? list
            : { ...list, items: list.items.map((each) => (each.id === job.id ? item : each)) },
        );
        void invalidate(queryClient, importKeys.lists());
      }
      return job;
    },
    refetchInterval: (query) => {
      const job = query.state.data;
      return job === undefined || isUnfinished(job) ? IMPORT_POLL_MS : false;
    },
    refetchOnMount: 'always',
  });
}

/** The problem+json body of a refused request, or one made up when the body is something else. */
async function problemOf(response: Response): Promise<Problem> {
  const body = (await response.json().catch(() => null)) as Partial<Problem> | null;
  if (body && typeof body.title === 'string') {
    return {
      ...body,
      title: body.title,
      type: typeof body.type === 'string' ? body.type : 'about:blank',
      status: typeof body.status === 'number' ? body.status : response.status,
      detail: typeof body.detail === 'string' ? body.detail : '',
    };
  }
  return {
    type: 'about:blank',
    title: 'unexpected_response',
    status: response.status,
    detail: `HTTP ${response.status} ${response.statusText}`,
  };
}

/**
 * `fetch` with the staff token; a refusal is thrown as a StorefrontError (a 401 ends the session
 * first), no answer at all as a StorefrontNetworkError.
 */
function useTokenFetch() {
  const { session, signOut } = useSession();
  return async (url: string, init: RequestInit & { method: string }): Promise<Response> => {
    const info = { method: init.method, url };
    let response: Response;
    try {
      response = await fetch(url, {
        ...init,
        headers: {
          ...(init.headers as Record<string, string>),
          authorization: `Bearer ${session?.token ?? ''}`,
        },
      });
    } catch (error) {
      throw new StorefrontNetworkError(error, info);
    }
    if (response.ok) return response;
    if (response.status === 401) signOut(EXPIRED_NOTICE);
    const retryAfter = Number(response.headers.get('retry-after'));
    throw new StorefrontError(
      await problemOf(response),
      {
        status: response.status,
        requestId: response.headers.get('x-request-id'),
        retryAfter: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
      },
      info,
    );
  };
}

export interface NewImport {
  kind: ImportKind;
  /** Check every row and write nothing. */
  dryRun: boolean;
  file: File;
}

/**
 * Uploads a file as a new import (202, queued); `onCreated` gets the job. It is cached as the job's
 * copy and the list is read again. A file over IMPORT_MAX_MB is 413 `file_too_large`.
 */
export function useCreateImport(onCreated: (job: ImportJob) => void) {
  const tokenFetch = useTokenFetch();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ kind, dryRun, file }: NewImport): Promise<ImportJob> => {
      const form = new FormData();
      form.append('kind', kind);
      form.append('dryRun', dryRun ? 'true' : 'false');
      form.append('file', file, file.name);
      const response = await tokenFetch('/admin/v1/imports', {
        method: 'POST',
        headers: { accept: 'application/json' },
        body: form,
      });
      return (await response.json()) as ImportJob;
    },
    onSuccess: async (job) => {
      queryClient.setQueryData(importKeys.detail(job.id), job);
      await invalidate(queryClient, importKeys.lists());
      onCreated(job);
    },
  });
}

export interface ExportFile {
  blob: Blob;
  /** From the answer's Content-Disposition (`products-2026-11-30.csv`), else `<kind>.csv`. */
  fileName: string;
}

/** The file name a Content-Disposition header gives, if any. */
export function attachmentName(disposition: string | null): string | null {
  if (!disposition) return null;
  const encoded = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(disposition);
  if (encoded) {
    try {
      return decodeURIComponent(encoded[1]!.trim());
    } catch {
      // fall through to the plain name
    }
  }
  const plain = /filename\s*=\s*"([^"]*)"|filename\s*=\s*([^;\s]+)/i.exec(disposition);
  const name = plain?.[1] ?? plain?.[2];
  return name ? name : null;
}

/** Downloads `GET /admin/v1/exports?kind=…`: the whole CSV as a Blob and its file name. */
export function useExportCsv(kind: ExportKind) {
  const tokenFetch = useTokenFetch();
  return useMutation({
    mutationFn: async (): Promise<ExportFile> => {
      const response = await tokenFetch(`/admin/v1/exports?kind=${kind}`, {
        method: 'GET',
        headers: { accept: 'text/csv' },
      });
      const blob = await response.blob();
      return { blob, fileName: attachmentName(response.headers.get('content-disposition')) ?? `${kind}.csv` };
    },
  });
}
