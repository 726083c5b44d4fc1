/**
 * Media on the Admin API (decision `media-uploads`): uploading an image (`POST /admin/v1/media`, multipart with one file
 * part) and its query keys. Products name their images by the uploaded media's id
 * (data/products.ts).
 *
 * The upload is an XMLHttpRequest rather than the typed client's fetch: the client sends JSON only,
 * and a request's upload progress is only reported to an XMLHttpRequest. Its refusals (400, 413, 415
 * problem+json) become the client's StorefrontError, so screens show them as any other; a 401 ends
 * the session as the client's calls do.
 *
 * An upload changes no product: it is cached as the media's record and nothing else is read again.
 */
import { StorefrontError, StorefrontNetworkError, type components, type Problem } from '@storefront/client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { EXPIRED_NOTICE, useSession } from '../session.tsx';

/** An uploaded image: its id, its path (`/media/<store>/<sha256>.<ext>`, `?w=` resizes), size and type. */
export type Media = components['schemas']['Media'];

/** The most an upload may weigh (the server's MEDIA_MAX_MB default, 10 MiB). */
export const MEDIA_MAX_BYTES = 10 * 1024 * 1024;

export const mediaKeys = {
  all: ['media'] as const,
  detail: (id: string) => [...mediaKeys.all, id] as const,
};

const UPLOAD_URL = '/admin/v1/media';

/** The problem+json body of a refused upload, or one made up when the body is something else. */
function problemOf(request: XMLHttpRequest): Problem {
  try {
    const body = JSON.parse(request.responseText) as Partial<Problem> | null;
    if (body && typeof body.title === 'string') {
      return {
        ...body,
        title: body.title,
        type: typeof body.type === 'string' ? body.type : 'about:blank',
        status: typeof body.status === 'number' ? body.status : request.status,
        detail: typeof body.detail === 'string' ? body.detail : '',
      };
    }
  } catch {
    // not JSON: described below
  }
  return {
    type: 'about:blank',
    title: 'unexpected_response',
    status: request.status,
    detail: `HTTP ${request.status} ${request.statusText}`,
  };
}

/**
 * Uploads one file as the form's only file part; `onProgress` hears the share sent (0 to 1).
 * Resolves with the media (201), or the same media when this file was uploaded before.
 */
export function uploadMedia(
  token: string,
  file: File,
  onProgress?: (sent: number) => void,
  signal?: AbortSignal,
): Promise<Media> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    const info = { method: 'POST', url: UPLOAD_URL };
    request.open('POST', UPLOAD_URL);
    request.setRequestHeader('authorization', `Bearer ${token}`);
    request.setRequestHeader('accept', 'application/json');
    request.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress?.(event.loaded / event.total);
    };
    request.onload = () => {
      if (request.status === 201 || request.status === 200) {
        try {
          resolve(JSON.parse(request.responseText) as Media);
        } catch (error) {
          reject(new StorefrontNetworkError(error, info));
        }
        return;
      }
      const retryAfter = Number(request.getResponseHeader('retry-after'));
      reject(
        new StorefrontError(
          problemOf(request),
          {
            status: request.status,
            requestId: request.getResponseHeader('x-request-id'),
            retryAfter: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
          },
          info,
        ),
      );
    };
    request.onerror = () => reject(new StorefrontNetworkError(new Error('the upload failed'), info));
    request.onabort = () => reject(new StorefrontNetworkError(new Error('the upload was cancelled'), info));
    signal?.addEventListener('abort', () => request.abort(), { once: true });
    const form = new FormData();
    form.append('file', file, file.name);
    request.send(form);
  });
}

/** Uploads an image: `mutateAsync({ file, onProgress })`; the answer is cached as the media's record. */
export function useUploadMedia() {
  const { session, signOut } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ file, onProgress }: { file: File; onProgress?: (sent: number) => void }) => {
      if (!session) throw new Error('Not signed in.');
      try {
        return await uploadMedia(session.token, file, onProgress);
      } catch (error) {
        if (error instanceof StorefrontError && error.status === 401) signOut(EXPIRED_NOTICE);
        throw error;
      }
    },
    onSuccess: (media) => {
      queryClient.setQueryData(mediaKeys.detail(media.id), media);
    },
  });
}
