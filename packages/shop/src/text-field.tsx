/** A labelled text field with its problem (or its hint) below, tied to it for screen readers. */
import type { ComponentChildren } from 'preact';

export function TextField(props: {
  id: string;
  label: string;
  type?: 'text' | 'email' | 'tel';
  value: string;
  onInput: (value: string) => void;
  problem: string | null | undefined;
  /** Said below the field while it has no problem. */
  hint?: ComponentChildren;
  autoComplete?: string;
  maxLength?: number;
  readOnly?: boolean;
  inputMode?: 'numeric';
  pattern?: string;
  class?: string;
}) {
  const { id, problem, hint } = props;
  const attributes = {
    id,
    inputMode: props.inputMode,
    autoComplete: props.autoComplete,
    pattern: props.pattern,
    maxLength: props.maxLength,
    class: props.class,
    value: props.value,
    readOnly: props.readOnly,
    'aria-invalid': problem ? ('true' as const) : undefined,
    'aria-describedby': problem ? `${id}-problem` : hint ? `${id}-hint` : undefined,
    onInput: (event: { currentTarget: HTMLInputElement }) => props.onInput(event.currentTarget.value),
  };
  // One element per type: the JSX types of <input> differ by its type.
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.type === 'email' ? (
        <input type="email" {...attributes} />
      ) : props.type === 'tel' ? (
        <input type="tel" {...attributes} />
      ) : (
        <input type="text" {...attributes} />
      )}
      {problem ? (
        <p id={`${id}-problem`} class="field-problem">
          {problem}
        </p>
      ) : hint ? (
        <p id={`${id}-hint`} class="field-hint">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
