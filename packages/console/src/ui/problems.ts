/** API errors as people read them: the problem's detail, and each field's message by its JSON Pointer. */
import { StorefrontError, StorefrontNetworkError } from '@storefront/client';

export interface FieldMessage {
  pointer: string;
  detail: string;
}

/** A sentence for any error a call can end with. */
export function errorMessage(error: unknown): string {
  if (error instanceof StorefrontError) {
    if (error.status === 429) return 'Too many requests right now. Wait a moment and try again.';
    if (error.status >= 500) return `The server could not do this (${error.title}). Try again in a moment.`;
    return error.detail ?? error.title;
  }
  if (error instanceof StorefrontNetworkError)
    return 'The server cannot be reached. Check your connection and try again.';
  return error instanceof Error ? error.message : 'Something went wrong.';
}

/** The field errors of a 400/409/422 problem (`errors[]`), empty for any other error. */
export function fieldErrors(error: unknown): FieldMessage[] {
  if (!(error instanceof StorefrontError) || !error.errors) return [];
  return error.errors.map(({ pointer, detail }) => ({ pointer, detail }));
}

/** The message for one field: its pointer exactly (`/title`), or the first under it (`/variants/0/sku`). */
export function messageAt(error: unknown, pointer: string): string | undefined {
  const errors = fieldErrors(error);
  return (
    errors.find((e) => e.pointer === pointer)?.detail ??
    errors.find((e) => e.pointer.startsWith(`${pointer}/`))?.detail
  );
}

export function isStatus(error: unknown, status: number): boolean {
  return error instanceof StorefrontError && error.status === status;
}
