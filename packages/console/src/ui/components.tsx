/**
 * The console's building blocks: native, labelled HTML elements (dialog, details, form controls)
 * so keyboard use and screen readers work without a widget library (decision `console-stack`).
 */
import {
  useEffect,
  useId,
  useRef,
  useState,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from 'react';
import { errorMessage, fieldErrors, type FieldMessage, type FormProblem } from './problems.ts';

export function PageHeader({
  title,
  actions,
  children,
}: {
  title: string;
  actions?: ReactNode;
  children?: ReactNode;
}) {
  useEffect(() => {
    document.title = `${title} · Storefront console`;
  }, [title]);
  return (
    <header className="page-header">
      <div>
        <h1 tabIndex={-1} id="page-title">
          {title}
        </h1>
        {children}
      </div>
      {actions ? <div className="actions">{actions}</div> : null}
    </header>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="state loading" role="status">
      {label}
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="state empty">{children}</div>;
}

function FieldList({ fields }: { fields: readonly FieldMessage[] }) {
  return (
    <ul>
      {fields.map((field) => (
        <li key={field.pointer + field.detail}>
          <code>{field.pointer}</code> {field.detail}
        </li>
      ))}
    </ul>
  );
}

/** An error from the API as a readable alert, with its field messages listed. */
export function ErrorBanner({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  if (!error) return null;
  const fields = fieldErrors(error);
  return (
    <div className="banner error" role="alert">
      <p>{errorMessage(error)}</p>
      {fields.length > 1 ? <FieldList fields={fields} /> : null}
      {onRetry ? (
        <button type="button" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

/**
 * A form's problem as an alert: its sentence, and the field messages no shown field claims
 * (`others`); when every one is shown at its field, a pointer to them.
 */
export function ProblemBanner({
  problem,
  others = [],
}: {
  problem: FormProblem | null;
  others?: FieldMessage[];
}) {
  if (!problem) return null;
  return (
    <div className="banner error" role="alert">
      <p>{problem.message}</p>
      {problem.fields.length > 0 && others.length === 0 ? (
        <p>The fields concerned are marked below.</p>
      ) : null}
      {others.length > 0 ? <FieldList fields={others} /> : null}
    </div>
  );
}

export function Notice({
  children,
  tone = 'info',
}: {
  children: ReactNode;
  tone?: 'info' | 'success' | 'warning';
}) {
  return (
    <div className={`banner ${tone}`} role={tone === 'success' ? 'status' : undefined}>
      {children}
    </div>
  );
}

interface FieldShellProps {
  label: string;
  hint?: ReactNode;
  error?: string | undefined;
  /** The label is read by screen readers, not shown (a table's cell, whose column names it). */
  hideLabel?: boolean | undefined;
  children: (ids: { id: string; describedBy: string | undefined; invalid: boolean }) => ReactNode;
}

/** A label, the control, a hint and the error message, tied together with ids and aria attributes. */
export function FieldShell({ label, hint, error, hideLabel, children }: FieldShellProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${error ? ' invalid' : ''}`}>
      <label htmlFor={id} className={hideLabel ? 'visually-hidden' : undefined}>
        {label}
      </label>
      {children({ id, describedBy, invalid: Boolean(error) })}
      {hint ? (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p className="field-error" id={errorId}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

type InputProps = InputHTMLAttributes<HTMLInputElement> & {
  label: string;
  hint?: ReactNode;
  error?: string | undefined;
  hideLabel?: boolean | undefined;
};

export function TextField({ label, hint, error, hideLabel, ...input }: InputProps) {
  return (
    <FieldShell label={label} hint={hint} error={error} hideLabel={hideLabel}>
      {({ id, describedBy, invalid }) => (
        <input id={id} aria-describedby={describedBy} aria-invalid={invalid || undefined} {...input} />
      )}
    </FieldShell>
  );
}

type TextAreaProps = TextareaHTMLAttributes<HTMLTextAreaElement> & {
  label: string;
  hint?: ReactNode;
  error?: string | undefined;
};

export function TextAreaField({ label, hint, error, ...textarea }: TextAreaProps) {
  return (
    <FieldShell label={label} hint={hint} error={error}>
      {({ id, describedBy, invalid }) => (
        <textarea id={id} aria-describedby={describedBy} aria-invalid={invalid || undefined} {...textarea} />
      )}
    </FieldShell>
  );
}

type CheckboxProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'type'> & {
  label: ReactNode;
  hint?: ReactNode;
};

/** A checkbox that is a form field: the box and its label on one line, its hint right under it. */
export function CheckboxField({ label, hint, ...input }: CheckboxProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className="field">
      <label className="checkbox">
        <input type="checkbox" aria-describedby={hintId} {...input} />
        <span>{label}</span>
      </label>
      {hint ? (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      ) : null}
    </div>
  );
}

type SelectProps = SelectHTMLAttributes<HTMLSelectElement> & {
  label: string;
  hint?: ReactNode;
  error?: string | undefined;
  hideLabel?: boolean | undefined;
  options: readonly (string | { value: string; label: string })[];
};

export function SelectField({ label, hint, error, hideLabel, options, ...select }: SelectProps) {
  return (
    <FieldShell label={label} hint={hint} error={error} hideLabel={hideLabel}>
      {({ id, describedBy, invalid }) => (
        <select id={id} aria-describedby={describedBy} aria-invalid={invalid || undefined} {...select}>
          {options.map((option) => {
            const { value, label: text } =
              typeof option === 'string' ? { value: option, label: option } : option;
            return (
              <option key={value} value={value}>
                {text}
              </option>
            );
          })}
        </select>
      )}
    </FieldShell>
  );
}

/** A column of a DataTable: its heading, right-aligned for numbers (`num`). */
export interface Column {
  label: ReactNode;
  num?: boolean;
}

/** The heading of a table's last column of buttons: heard by screen readers, not shown. */
export const ACTIONS: Column = { label: <span className="visually-hidden">Actions</span> };

/**
 * A list's table: the scrolling wrapper (`table-wrap` and the screen's `wrap` classes), a caption
 * for screen readers, the column headings (a falsy entry is a column not shown) and the rows.
 */
export function DataTable({
  wrap,
  className,
  caption,
  columns,
  busy,
  children,
}: {
  wrap?: string;
  className?: string;
  caption: ReactNode;
  columns: readonly (string | Column | null | false)[];
  /** While a newer page is being fetched (aria-busy). */
  busy?: boolean;
  children: ReactNode;
}) {
  return (
    <div className={wrap ? `table-wrap ${wrap}` : 'table-wrap'}>
      <table className={className} aria-busy={busy || undefined}>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column, index) => {
              if (!column) return null;
              const { label, num } = typeof column === 'string' ? { label: column, num: false } : column;
              return (
                <th key={index} scope="col" className={num ? 'num' : undefined}>
                  {label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A confirmation in a native modal <dialog> (focus is trapped and restored by the browser). */
export function ConfirmButton({
  children,
  title,
  body,
  confirmLabel,
  cancelLabel = 'Cancel',
  onConfirm,
  danger = true,
  disabled,
}: {
  children: ReactNode;
  title: string;
  body: ReactNode;
  confirmLabel: string;
  /** The button that closes the dialog and does nothing (when "Cancel" would read as the action). */
  cancelLabel?: string;
  onConfirm: () => void;
  danger?: boolean;
  disabled?: boolean;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  return (
    <>
      <button
        type="button"
        className={danger ? 'danger' : undefined}
        onClick={() => dialog.current?.showModal()}
        disabled={disabled}
      >
        {children}
      </button>
      <dialog ref={dialog} aria-labelledby={titleId} className="confirm">
        <h2 id={titleId}>{title}</h2>
        <div>{body}</div>
        <div className="actions">
          <button type="button" onClick={() => dialog.current?.close()}>
            {cancelLabel}
          </button>
          <button
            type="button"
            className={danger ? 'danger' : 'primary'}
            onClick={() => {
              dialog.current?.close();
              onConfirm();
            }}
          >
            {confirmLabel}
          </button>
        </div>
      </dialog>
    </>
  );
}

/** Copies a value; says so for screen readers too. */
export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="copy"
      onClick={() => {
        void navigator.clipboard
          ?.writeText(value)
          .then(() => {
            setCopied(true);
            setTimeout(() => setCopied(false), 2000);
          })
          .catch(() => setCopied(false));
      }}
    >
      {copied ? 'Copied' : label}
      <span className="visually-hidden" aria-live="polite">
        {copied ? ' copied to the clipboard' : ''}
      </span>
    </button>
  );
}

/** A secret shown once (a key, a signing secret): selectable, copyable, with the warning. */
export function SecretOnce({ label, value, onDone }: { label: string; value: string; onDone?: () => void }) {
  return (
    <div className="banner warning secret-once" role="region" aria-label={label}>
      <p>
        <strong>{label}</strong>: copy it now. It is shown only once; afterwards only its prefix is kept.
      </p>
      <p className="secret">
        <code data-testid="secret-value">{value}</code> <CopyButton value={value} />
      </p>
      {onDone ? (
        <button type="button" onClick={onDone}>
          I have copied it
        </button>
      ) : null}
    </div>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return (
    <span className={`badge badge-${status.replace(/[^a-z_-]/gi, '')}`}>{status.replaceAll('_', ' ')}</span>
  );
}

/**
 * Cursor paging: the API gives `nextCursor`; a stack of earlier cursors gives "Previous".
 * `cursor` is what the current page was fetched with.
 */
export function useCursorPager() {
  const [stack, setStack] = useState<(string | undefined)[]>([]);
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  return {
    cursor,
    page: stack.length + 1,
    next: (nextCursor: string | null | undefined) => {
      if (!nextCursor) return;
      setStack((s) => [...s, cursor]);
      setCursor(nextCursor);
    },
    previous: () => {
      setStack((s) => {
        const copy = [...s];
        setCursor(copy.pop());
        return copy;
      });
    },
    reset: () => {
      setStack([]);
      setCursor(undefined);
    },
    hasPrevious: stack.length > 0,
  };
}

export function Pager({
  pager,
  nextCursor,
}: {
  pager: ReturnType<typeof useCursorPager>;
  nextCursor: string | null | undefined;
}) {
  if (!pager.hasPrevious && !nextCursor) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" onClick={pager.previous} disabled={!pager.hasPrevious}>
        Previous page
      </button>
      <span>Page {pager.page}</span>
      <button type="button" onClick={() => pager.next(nextCursor)} disabled={!nextCursor}>
        Next page
      </button>
    </nav>
  );
}
