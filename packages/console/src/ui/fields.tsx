/**
 * Labelled form controls: a label, a hint and a problem tied to the control for screen readers; a
 * list of checkboxes (`ChoiceList`), radio buttons (`RadioChoice`) and a period's start and end
 * (`PeriodFields`).
 */
import {
  useId,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from 'react';

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

export type InputProps = InputHTMLAttributes<HTMLInputElement> & {
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

/** Checkboxes for a list of choices, in a fieldset; none ticked is said by `noneMeans`. */
export function ChoiceList({
  legend,
  noneMeans,
  choices,
  ticked,
  empty,
  className = 'choice-list',
  onChange,
}: {
  legend: string;
  noneMeans: string;
  choices: readonly { id: string; label: string }[];
  ticked: readonly string[];
  empty: ReactNode;
  className?: string;
  onChange: (ids: string[]) => void;
}) {
  const hintId = useId();
  return (
    <fieldset className={className} aria-describedby={hintId}>
      <legend>{legend}</legend>
      <p className="hint" id={hintId}>
        {noneMeans}
      </p>
      {choices.length === 0 ? <p className="muted">{empty}</p> : null}
      {choices.map((choice) => (
        <label className="checkbox" key={choice.id}>
          <input
            type="checkbox"
            checked={ticked.includes(choice.id)}
            onChange={(event) =>
              onChange(
                event.target.checked ? [...ticked, choice.id] : ticked.filter((id) => id !== choice.id),
              )
            }
          />
          <span>{choice.label}</span>
        </label>
      ))}
    </fieldset>
  );
}

/** A period's optional start and end as `datetime-local` values, in the browser's time zone. */
export function PeriodFields({
  startsAt,
  endsAt,
  startError,
  endError,
  onChange,
}: {
  startsAt: string;
  endsAt: string;
  startError: string | undefined;
  endError: string | undefined;
  onChange: (changes: { startsAt?: string; endsAt?: string }) => void;
}) {
  return (
    <div className="orders-form-grid">
      <TextField
        label="Starts (optional)"
        type="datetime-local"
        hint="In your time zone; empty: at once."
        value={startsAt}
        error={startError}
        onChange={(event) => onChange({ startsAt: event.target.value })}
      />
      <TextField
        label="Ends (optional)"
        type="datetime-local"
        hint="In your time zone, not included; empty: until you change it."
        value={endsAt}
        error={endError}
        onChange={(event) => onChange({ endsAt: event.target.value })}
      />
    </div>
  );
}

/** Radio buttons in a fieldset, each with its hint. */
export function RadioChoice<T extends string>({
  legend,
  value,
  choices,
  onChange,
}: {
  legend: string;
  value: T;
  choices: readonly { value: T; label: string; hint?: ReactNode }[];
  onChange: (value: T) => void;
}) {
  const id = useId();
  return (
    <fieldset className="radio-choice">
      <legend>{legend}</legend>
      {choices.map((choice) => (
        <div key={choice.value} className="field">
          <label className="checkbox">
            <input
              type="radio"
              name={id}
              value={choice.value}
              checked={value === choice.value}
              aria-describedby={choice.hint ? `${id}-${choice.value}` : undefined}
              onChange={() => onChange(choice.value)}
            />
            <span>{choice.label}</span>
          </label>
          {choice.hint ? (
            <p className="hint" id={`${id}-${choice.value}`}>
              {choice.hint}
            </p>
          ) : null}
        </div>
      ))}
    </fieldset>
  );
}
