/**
 * API errors as people read them: the problem's detail, and each field's message by its JSON Pointer.
 * The one place that maps a problem+json `errors[]` to field messages, for every screen's forms.
 */
import { StorefrontError, StorefrontNetworkError } from '@storefront/client';

export interface FieldMessage {
  pointer: string;
  detail: string;
}

/**
 * A failed save as a form shows it: one sentence for the banner and each field's message at the
 * form's own pointer (a variant's `/onHand` answered by PATCH /variants/:id is the form's
 * `/variants/2/onHand`).
 */
export interface FormProblem {
  message: string;
  fields: FieldMessage[];
}

/** Where a field error points in the form: its pointer, and the part of the request (`body`, `path`…). */
export type PointerMap = (pointer: string, where: string) => string;

const asSent: PointerMap = (pointer) => pointer;

/**
 * Text the service cannot store (a NUL character, or half of an emoji's UTF-16 pair: decision `input-hygiene`) is
 * refused in words for API users; a merchant reads these instead.
 */
const UNSTORABLE_TEXT = 'must not contain a NUL character or an unpaired UTF-16 surrogate';
const UNSTORABLE_FIELD =
  'contains a character that can’t be saved (an incomplete emoji or symbol, or an invisible control character): retype it and save again';
const UNSTORABLE_MESSAGE =
  'The text contains a character that can’t be saved (an incomplete emoji or symbol, or an invisible control character). Retype it and save again.';

const inMerchantWords = (detail: string): string => (detail === UNSTORABLE_TEXT ? UNSTORABLE_FIELD : detail);

/** A sentence for any error a call can end with. */
export function errorMessage(error: unknown): string {
  if (error instanceof StorefrontError) {
    if (error.status === 429) return 'Too many requests right now. Wait a moment and try again.';
    if (error.status >= 500) return `The server could not do this (${error.title}). Try again in a moment.`;
    if (error.errors.length > 0 && error.errors.every((field) => field.detail === UNSTORABLE_TEXT)) {
      return UNSTORABLE_MESSAGE;
    }
    return error.detail ?? error.title;
  }
  if (error instanceof StorefrontNetworkError)
    return 'The server cannot be reached. Check your connection and try again.';
  return error instanceof Error ? error.message : 'Something went wrong.';
}

/**
 * The field errors of a 400/409/422 problem (`errors[]`), empty for any other error; `at` maps each
 * pointer to the form's own.
 */
export function fieldErrors(error: unknown, at: PointerMap = asSent): FieldMessage[] {
  if (!(error instanceof StorefrontError) || !error.errors) return [];
  return error.errors.map((field) => ({
    pointer: at(field.pointer, typeof field.in === 'string' ? field.in : 'body'),
    detail: inMerchantWords(field.detail),
  }));
}

/** The message for one field: its pointer exactly (`/title`), or the first under it (`/variants/0/sku`). */
function detailAt(fields: readonly FieldMessage[], pointer: string): string | undefined {
  return (
    fields.find((f) => f.pointer === pointer)?.detail ??
    fields.find((f) => f.pointer.startsWith(`${pointer}/`))?.detail
  );
}

/** The message an API error has for one field (see `detailAt`). */
export function messageAt(error: unknown, pointer: string): string | undefined {
  return detailAt(fieldErrors(error), pointer);
}

export function isStatus(error: unknown, status: number): boolean {
  return error instanceof StorefrontError && error.status === status;
}

// ---- Forms that collect their problems (the products and collections forms) ----

/** A failed call as the form's problem, its field pointers mapped by `at`. */
export function toFormProblem(error: unknown, at: PointerMap = asSent): FormProblem {
  return { message: errorMessage(error), fields: fieldErrors(error, at) };
}

/** Problems found before sending (the same shape, so the form shows them the same way). */
export function localProblem(message: string, fields: FieldMessage[]): FormProblem {
  return { message, fields };
}

/** The message for a field of the form's problem (see `detailAt`). */
export function problemAt(problem: FormProblem | null, pointer: string): string | undefined {
  return problem ? detailAt(problem.fields, pointer) : undefined;
}

/**
 * The message of `pointer` as a sentence: the server words field errors as a predicate ("is already
 * used in this store"), so they are read after the field's name; the form's own are sentences.
 */
export function fieldMessage(problem: FormProblem | null, pointer: string, name: string): string | undefined {
  const detail = problemAt(problem, pointer);
  if (detail === undefined) return undefined;
  if (!/^[a-z]/.test(detail)) return detail;
  return `${name} ${detail}${/[.!?)]$/.test(detail) ? '' : '.'}`;
}

/** The problem's fields that no shown field claims (listed in the banner instead). */
export function unclaimed(problem: FormProblem, shown: (pointer: string) => boolean): FieldMessage[] {
  return problem.fields.filter((field) => !shown(field.pointer));
}
