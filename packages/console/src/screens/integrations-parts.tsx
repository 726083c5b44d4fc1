/**
 * Pieces the integration screens share (keys, webhooks, email, staff, settings, themes, apps):
 * the "your role cannot do this" state, line lists (origins), datetime-local conversion, and
 * the focus helpers that move screen-reader users to what just appeared (a secret shown once, a
 * success message).
 */
import { useEffect, useRef, type ReactNode } from 'react';
import { useStaffSession } from '../data/staff.ts';
import { ErrorBanner, Notice } from '../ui/components.tsx';
import { fieldErrors, isStatus } from '../ui/problems.ts';
import './integrations.css';

/**
 * The error state of a screen: a 403 says which roles may use it (instead of a bare "forbidden"),
 * anything else is the usual banner with "Try again".
 */
export function ScreenError({
  error,
  allowed,
  what,
  onRetry,
}: {
  error: unknown;
  /** e.g. "owners and admins" */
  allowed: string;
  /** e.g. "manage storefront keys" */
  what: string;
  onRetry?: () => void;
}) {
  const session = useStaffSession();
  // A 403 from the API: the signed-in staff member's role may not do this.
  if (isStatus(error, 403)) {
    const role = session.data?.staff.role;
    return (
      <Notice tone="warning">
        <p>
          Only {allowed} can {what}.{role ? ` Your role is ${role}.` : ''} Ask the store owner if you need
          access.
        </p>
      </Notice>
    );
  }
  return <ErrorBanner error={error} {...(onRetry ? { onRetry } : {})} />;
}

/** `ScreenError` as a QueryView's error state: `error={roleError('owners and admins', 'manage themes')}`. */
export function roleError(allowed: string, what: string) {
  return (error: unknown, retry: () => void) => (
    <ScreenError error={error} allowed={allowed} what={what} onRetry={retry} />
  );
}

/** One entry of a textarea holding one value a line, with its 1-based line number. */
export interface LineEntry {
  line: number;
  value: string;
}

/** The non-blank lines of a textarea, trimmed, with their line numbers (for messages). */
export function nonBlankLines(text: string): LineEntry[] {
  return text
    .split(/\r?\n/)
    .map((value, i) => ({ line: i + 1, value: value.trim() }))
    .filter((entry) => entry.value !== '');
}

/**
 * Why a browser origin is not one (the server's rule: http(s)://host[:port], nothing after it, no
 * wildcard), or null when it is.
 */
export function originProblem(value: string): string | null {
  if (/[*?#\s]/.test(value)) return 'no wildcards, spaces, query or fragment';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not a URL; write it like https://shop.example';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must start with https:// (or http://)';
  if (url.username || url.password) return 'no user name or password';
  if (url.search || url.hash || url.pathname !== '/' || value.endsWith('/'))
    return 'only scheme, host and port: no path and no trailing slash';
  return null;
}

/**
 * The message for a list field: the client-side problems of its lines, else the server's errors at
 * `${pointer}/<index>` (index into `entries`) turned into line numbers, else the one at `pointer`.
 */
export function linesMessage(
  entries: readonly LineEntry[],
  check: (value: string) => string | null,
  serverError: unknown,
  pointer: string,
): string | undefined {
  const local = entries
    .map((entry) => {
      const problem = check(entry.value);
      return problem ? `Line ${entry.line} (${entry.value}): ${problem}.` : null;
    })
    .filter((message): message is string => message !== null);
  if (local.length > 0) return local.join(' ');
  const server = fieldErrors(serverError)
    .filter((error) => error.pointer === pointer || error.pointer.startsWith(`${pointer}/`))
    .map((error) => {
      const index = Number(error.pointer.slice(pointer.length + 1));
      const entry = Number.isInteger(index) ? entries[index] : undefined;
      return entry ? `Line ${entry.line} (${entry.value}): ${error.detail}.` : `${error.detail}.`;
    });
  return server.length > 0 ? server.join(' ') : undefined;
}

/** A `datetime-local` value (browser time zone) as ISO 8601, or null when empty or invalid. */
export function localInputToIso(value: string): string | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** A Date as a `datetime-local` value in the browser's time zone (minutes precision). */
export function toLocalInput(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/**
 * A region that takes focus when it appears (a secret shown once, a result), so keyboard and
 * screen-reader users land on it.
 */
export function FocusOnShow({ children, className }: { children: ReactNode; className?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return (
    <div ref={ref} tabIndex={-1} className={['focus-target', className].filter(Boolean).join(' ')}>
      {children}
    </div>
  );
}

/** A success message that takes focus when it appears, and again when it changes. */
export function FocusedNotice({ message }: { message: string | null }) {
  return message ? (
    <FocusOnShow key={message}>
      <Notice tone="success">{message}</Notice>
    </FocusOnShow>
  ) : null;
}

/** An optional positive whole number from a text input: null when blank, NaN when not valid. */
export function parseBudget(text: string): number | null {
  const trimmed = text.trim().replaceAll(/[,_\s]/g, '');
  if (trimmed === '') return null;
  if (!/^\d+$/.test(trimmed)) return Number.NaN;
  const value = Number(trimmed);
  return value >= 1 && value <= 10_000_000 ? value : Number.NaN;
}

/** Focuses an element once React has rendered it (e.g. the button that opened a closed form). */
export function focusSoon(selector: string): void {
  requestAnimationFrame(() => document.querySelector<HTMLElement>(selector)?.focus());
}
