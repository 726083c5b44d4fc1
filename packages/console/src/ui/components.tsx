/**
 * The console's building blocks: native, labelled HTML elements (dialog, details, form controls)
 * so keyboard use and screen readers work without a widget library (decision `console-stack`).
 */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { errorMessage, fieldErrors, type FieldMessage, type FormProblem } from './problems.ts';

export {
  CheckboxField,
  ChoiceList,
  FieldShell,
  PeriodFields,
  RadioChoice,
  SelectField,
  TextAreaField,
  TextField,
} from './fields.tsx';
export { ACTIONS, DataTable, Pager, useCursorPager, type Column, type CursorPager } from './table.tsx';

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

/**
 * A form's buttons: submit, saying what it does (`label`) or, while `busy`, what is happening
 * (`busyLabel`), and Cancel.
 */
export function SubmitCancel({
  label,
  busyLabel,
  busy,
  onCancel,
  className = 'actions',
  describedBy,
}: {
  label: string;
  busyLabel: string;
  busy: boolean;
  onCancel: () => void;
  className?: string;
  /** The id of what the submit button is described by (what it will save, in words). */
  describedBy?: string;
}) {
  return (
    <div className={className}>
      <button type="submit" className="primary" disabled={busy} aria-describedby={describedBy}>
        {busy ? busyLabel : label}
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </div>
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

/**
 * A secret shown once (a key, a signing secret, a gift card's code): selectable, copyable, with the
 * warning (`warning` words it for another kind of secret).
 */
export function SecretOnce({
  label,
  value,
  onDone,
  warning = 'copy it now. It is shown only once; afterwards only its prefix is kept.',
}: {
  label: string;
  value: string;
  onDone?: () => void;
  warning?: string;
}) {
  return (
    <div className="banner warning secret-once" role="region" aria-label={label}>
      <p>
        <strong>{label}</strong>: {warning}
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
