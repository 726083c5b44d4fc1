/**
 * Parts shared by the content screens (regions, the builder, menus, pages): the handle format, the
 * unsaved-changes guard, a polite live region for announcements, the "create by handle" form, and
 * the list of all items with a Delete button a row.
 */
import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { errorMessage, isStatus } from '../ui/problems.ts';
import {
  ConfirmButton,
  DataTable,
  ErrorBanner,
  Notice,
  Pager,
  TextField,
  type Column,
  type CursorPager,
} from '../ui/components.tsx';
import { QueryView } from '../ui/queries.tsx';
import './content.css';

/** Handles, slugs and region keys share one format (docs/content.md). */
export const HANDLE_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

export function handleProblem(value: string): string | null {
  if (value === '') return 'Enter a handle.';
  if (value.length > 63) return 'Use at most 63 characters.';
  if (!HANDLE_PATTERN.test(value))
    return 'Use lower-case letters, digits and hyphens, starting with a letter or digit.';
  return null;
}

/** A suggestion from free text: "Home hero!" → "home-hero". */
export function toHandle(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63);
}

/** JSON with object keys sorted: the server stores trees as jsonb, which reorders keys. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return Object.fromEntries(entries.map(([key, child]) => [key, canonical(child)]));
  }
  return value;
}

/** Whether two JSON values are the same, whatever the order of their objects' keys. */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

const BASENAME = '/admin';

/**
 * The unsaved-changes guard: while `when` is true, closing or reloading the tab asks the browser's
 * "leave site?" question (beforeunload), and following a link elsewhere (the console's navigation,
 * or any link on the page) first asks in a dialog. Links are caught with a click listener in the
 * capture phase on the document, before react-router's own handler: the app uses the declarative
 * router, where `useBlocker` is not available.
 */
export function LeaveGuard({ when, what = 'changes' }: { when: boolean; what?: string }) {
  const navigate = useNavigate();
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [target, setTarget] = useState<URL | null>(null);
  const leaving = useRef(false);

  useEffect(() => {
    if (!when) return;
    const beforeUnload = (event: BeforeUnloadEvent) => {
      if (leaving.current) return;
      event.preventDefault();
      event.returnValue = '';
    };
    const click = (event: MouseEvent) => {
      if (event.defaultPrevented || event.button !== 0) return;
      if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      const anchor = (event.target as Element | null)?.closest?.('a[href]');
      if (!(anchor instanceof HTMLAnchorElement)) return;
      if (anchor.target && anchor.target !== '_self') return;
      if (anchor.hasAttribute('download')) return;
      const url = new URL(anchor.href, location.href);
      if (
        url.origin === location.origin &&
        url.pathname === location.pathname &&
        url.search === location.search
      )
        return;
      event.preventDefault();
      event.stopPropagation();
      setTarget(url);
      dialog.current?.showModal();
    };
    window.addEventListener('beforeunload', beforeUnload);
    document.addEventListener('click', click, true);
    return () => {
      window.removeEventListener('beforeunload', beforeUnload);
      document.removeEventListener('click', click, true);
    };
  }, [when]);

  const leave = () => {
    dialog.current?.close();
    if (!target) return;
    const inApp =
      target.origin === location.origin &&
      (target.pathname === BASENAME || target.pathname.startsWith(`${BASENAME}/`));
    if (inApp) {
      void navigate(`${target.pathname.slice(BASENAME.length) || '/'}${target.search}${target.hash}`);
    } else {
      leaving.current = true;
      location.assign(target.href);
    }
  };

  return (
    <dialog ref={dialog} aria-labelledby={titleId} className="confirm">
      <h2 id={titleId}>Leave without saving?</h2>
      <p>Your {what} are not saved. If you leave this page now, they are lost.</p>
      <div className="actions">
        <button type="button" className="primary" onClick={() => dialog.current?.close()}>
          Stay on this page
        </button>
        <button type="button" className="danger" onClick={leave}>
          Leave and discard
        </button>
      </div>
    </dialog>
  );
}

/** A polite live region: set its text to announce something (a move, a save) to screen readers. */
export function Announcer({ message }: { message: string }) {
  return (
    <p className="visually-hidden" role="status" aria-live="polite">
      {message}
    </p>
  );
}

/**
 * "Create by handle": a form with the handle (and any extra fields) that refuses a handle already
 * in use (PUT would replace it) and then creates and opens the new item.
 */
export function CreateByHandle({
  label,
  hint,
  submitLabel,
  exists,
  create,
  openPath,
  children,
  extraProblem,
}: {
  label: string;
  hint: ReactNode;
  submitLabel: string;
  /** Resolves when an item with this handle exists, rejects with the API's 404 when not. */
  exists: (handle: string) => Promise<unknown>;
  create: (handle: string) => Promise<unknown>;
  openPath: (handle: string) => string;
  children?: ReactNode;
  /** A problem with the extra fields, shown by them; blocks creating. */
  extraProblem?: () => boolean;
}) {
  const navigate = useNavigate();
  const [handle, setHandle] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const problem = handleProblem(handle);
    setError(problem ?? undefined);
    const extraFails = extraProblem?.() ?? false;
    if (problem || extraFails) return;
    setBusy(true);
    setFailure(null);
    try {
      if ((await createUnlessTaken(handle, exists, create)) === 'taken') {
        setError(`“${handle}” is already in use. Choose another, or open it from the list.`);
        return;
      }
      void navigate(openPath(handle));
    } catch (caught) {
      setFailure(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="panel create-form" onSubmit={(event) => void submit(event)} noValidate>
      <TextField
        label={label}
        hint={hint}
        value={handle}
        error={error}
        onChange={(event) => {
          setHandle(event.target.value.trim().toLowerCase());
          setError(undefined);
        }}
        autoComplete="off"
        spellCheck={false}
        maxLength={63}
        required
      />
      {children}
      <CreateFailure message={failure} />
      <button type="submit" className="primary" disabled={busy}>
        {busy ? 'Creating…' : submitLabel}
      </button>
    </form>
  );
}

/**
 * Creates an item under a handle no item has yet (PUT would replace one): 'taken' when `exists`
 * finds one, else 'created' once `create` is done. `exists` rejects with the API's 404 when free.
 */
export async function createUnlessTaken(
  handle: string,
  exists: (handle: string) => Promise<unknown>,
  create: (handle: string) => Promise<unknown>,
): Promise<'taken' | 'created'> {
  try {
    await exists(handle);
    return 'taken';
  } catch (lookup) {
    if (!isStatus(lookup, 404)) throw lookup;
  }
  await create(handle);
  return 'created';
}

/** Why creating failed (not a field's problem), as an alert under the create form's fields. */
export function CreateFailure({ message }: { message: string | null }) {
  return message ? (
    <p className="field-error" role="alert">
      {message}
    </p>
  ) : null;
}

/**
 * A content screen's "All …" section: its heading, the last delete's notice or error, the list's
 * table in the query's states (`children` gives an item's row) and the pager under it.
 */
export function ContentList<T extends { items: readonly unknown[]; nextCursor?: string | null }>({
  id,
  title,
  query,
  pager,
  remove,
  loading,
  empty,
  caption,
  columns,
  children,
}: {
  id: string;
  title: string;
  query: UseQueryResult<T>;
  pager: CursorPager;
  remove: { notice: string | null; error: unknown };
  loading: string;
  empty: ReactNode;
  caption: string;
  columns: readonly (string | Column)[];
  children: (item: T['items'][number]) => ReactNode;
}) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {remove.notice ? <Notice tone="success">{remove.notice}</Notice> : null}
      <ErrorBanner error={remove.error} />
      <QueryView query={query} loading={loading} empty={empty}>
        {(data) => (
          <DataTable wrap="content-table" caption={caption} columns={columns}>
            {data.items.map((item) => children(item))}
          </DataTable>
        )}
      </QueryView>
      <Pager pager={pager} nextCursor={query.data?.nextCursor} />
    </section>
  );
}

/** A list row's Delete button: asks first, then deletes the item `value` names with `remove`. */
export function DeleteCell({
  name,
  value,
  title,
  body,
  confirmLabel,
  remove,
}: {
  /** The row's item as screen readers hear it after "Delete". */
  name: string;
  value: string;
  title: string;
  body: ReactNode;
  confirmLabel: string;
  remove: { mutate: (value: string) => void; isPending: boolean };
}) {
  return (
    <td className="row-actions">
      <ConfirmButton
        title={title}
        body={body}
        confirmLabel={confirmLabel}
        onConfirm={() => remove.mutate(value)}
        disabled={remove.isPending}
      >
        Delete<span className="visually-hidden"> {name}</span>
      </ConfirmButton>
    </td>
  );
}
