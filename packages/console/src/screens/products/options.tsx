/**
 * The options editor of the product form (decision `product-options`): up to three options, each a name and its values as
 * chips (type a value and press Enter or a comma to add it, edit a chip to rename it, × to remove
 * it). Every edit goes to the form (`onEdit`), which works out the rows (matrix.ts) and asks first
 * when an edit would archive saved variants (`ConfirmDialog`, naming them).
 */
import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { TextField } from '../../ui/components.tsx';
import {
  MAX_OPTIONS,
  MAX_VALUES,
  newOptionKey,
  OPTION_NAME_MAX,
  OPTION_VALUE_MAX,
  type OptionDraft,
} from './matrix.ts';

/** What an edit does, in words, for its confirmation when it archives variants. */
export interface EditIntent {
  title: string;
  confirmLabel: string;
}

export function OptionsEditor({
  options,
  at,
  onEdit,
}: {
  options: OptionDraft[];
  at: (pointer: string, name: string) => string | undefined;
  onEdit: (next: OptionDraft[], intent: EditIntent) => void;
}) {
  const [focusName, setFocusName] = useState<string | null>(null);
  const hintId = useId();

  useEffect(() => {
    if (!focusName) return;
    document.querySelector<HTMLInputElement>(`[data-option-name="${focusName}"]`)?.focus();
    setFocusName(null);
  }, [focusName]);

  const change = (key: string, changes: Partial<OptionDraft>, intent: EditIntent) =>
    onEdit(
      options.map((option) => (option.key === key ? { ...option, ...changes } : option)),
      intent,
    );
  const generalError = at('/options', 'The options');

  return (
    <div className="options-editor">
      <h3>Options</h3>
      <p className="hint" id={hintId}>
        Up to {MAX_OPTIONS} options, such as Size or Colour. Type a value and press Enter (or a comma) to add
        it; edit a value to rename it. Each combination of values is a variant: a new value’s variants appear
        below, and a removed value’s are archived when you save (kept with their orders, never deleted).
      </p>
      {options.map((option, index) => (
        <OptionFields
          key={option.key}
          index={index}
          option={option}
          hintId={hintId}
          at={at}
          onChange={(changes, intent) => change(option.key, changes, intent)}
          onRemove={() => {
            const name = option.name.trim() || `option ${index + 1}`;
            onEdit(
              options.filter((o) => o.key !== option.key),
              { title: `Remove the option “${name}”?`, confirmLabel: `Remove ${name}` },
            );
          }}
        />
      ))}
      {generalError ? <p className="field-error">{generalError}</p> : null}
      <button
        type="button"
        disabled={options.length >= MAX_OPTIONS}
        onClick={() => {
          const key = newOptionKey();
          onEdit([...options, { key, name: '', values: [] }], {
            title: 'Add an option?',
            confirmLabel: 'Add the option',
          });
          setFocusName(key);
        }}
      >
        Add option
      </button>
      {options.length >= MAX_OPTIONS ? (
        <span className="hint"> A product has at most {MAX_OPTIONS} options.</span>
      ) : null}
    </div>
  );
}

function OptionFields({
  index,
  option,
  hintId,
  at,
  onChange,
  onRemove,
}: {
  index: number;
  option: OptionDraft;
  /** The editor's hint on typing values (the new-value field is described by it). */
  hintId: string;
  at: (pointer: string, name: string) => string | undefined;
  onChange: (changes: Partial<OptionDraft>, intent: EditIntent) => void;
  onRemove: () => void;
}) {
  const [typed, setTyped] = useState('');
  const [note, setNote] = useState<string | null>(null);
  const newValueId = useId();
  const base = `/options/${index}`;
  const name = option.name.trim() || `Option ${index + 1}`;
  const valueErrors = option.values
    .map((value, j) => ({ value, error: at(`${base}/values/${j}`, `The value “${value.value.trim()}”`) }))
    .filter((entry) => entry.error);

  /** Adds what is typed: one value, or several separated by commas. */
  function addTyped(text = typed) {
    const wanted = text
      .split(',')
      .map((value) => value.trim())
      .filter((value) => value !== '');
    if (wanted.length === 0) return;
    const known = new Set(option.values.map((value) => value.value.trim().toLowerCase()));
    const fresh: string[] = [];
    const twice: string[] = [];
    for (const value of wanted) {
      if (known.has(value.toLowerCase())) twice.push(value);
      else if (value.length > OPTION_VALUE_MAX) twice.push(value.slice(0, 20) + '…');
      else {
        known.add(value.toLowerCase());
        fresh.push(value);
      }
    }
    const room = MAX_VALUES - option.values.length;
    const added = fresh.slice(0, Math.max(0, room));
    setTyped('');
    setNote(
      twice.length > 0
        ? `${name} already has ${twice.map((value) => `“${value}”`).join(', ')}.`
        : fresh.length > added.length
          ? `An option has at most ${MAX_VALUES} values.`
          : null,
    );
    if (added.length === 0) return;
    onChange(
      { values: [...option.values, ...added.map((value) => ({ key: newOptionKey(), value }))] },
      {
        title: `Add ${added.map((value) => `“${value}”`).join(', ')} to ${name}?`,
        confirmLabel: `Add ${added.join(', ')}`,
      },
    );
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    // Enter adds the value; it must not submit the product form.
    if (event.key === 'Enter' || event.key === ',') {
      event.preventDefault();
      addTyped();
    }
  }

  return (
    <fieldset className="option">
      <legend>Option {index + 1}</legend>
      <div className="option-row">
        <div className="option-name">
          <TextField
            data-option-name={option.key}
            label="Name"
            value={option.name}
            maxLength={OPTION_NAME_MAX}
            placeholder="e.g. Size"
            error={at(`${base}/name`, 'The name')}
            onChange={(event) =>
              onChange(
                { name: event.target.value },
                { title: `Rename ${name}?`, confirmLabel: 'Rename the option' },
              )
            }
            onKeyDown={(event) => {
              if (event.key === 'Enter') event.preventDefault();
            }}
          />
        </div>
        <div className="option-values">
          <span className="option-values-label" aria-hidden="true">
            Values
          </span>
          <div className={`tag-input${valueErrors.length > 0 ? ' invalid' : ''}`}>
            <ul className="chips" aria-label={`Values of ${name}`}>
              {option.values.map((value, j) => (
                <li key={value.key} className={`chip${at(`${base}/values/${j}`, '') ? ' invalid' : ''}`}>
                  <input
                    aria-label={`${name} value ${j + 1}`}
                    aria-invalid={at(`${base}/values/${j}`, '') ? true : undefined}
                    value={value.value}
                    maxLength={OPTION_VALUE_MAX}
                    size={Math.max(2, Math.min(24, value.value.length + 1))}
                    onChange={(event) =>
                      onChange(
                        {
                          values: option.values.map((v) =>
                            v.key === value.key ? { ...v, value: event.target.value } : v,
                          ),
                        },
                        { title: `Rename “${value.value}”?`, confirmLabel: 'Rename the value' },
                      )
                    }
                    onKeyDown={(event) => {
                      if (event.key === 'Enter') event.preventDefault();
                    }}
                  />
                  <button
                    type="button"
                    className="chip-remove"
                    aria-label={`Remove ${value.value.trim() || `value ${j + 1}`} from ${name}`}
                    onClick={() =>
                      onChange(
                        { values: option.values.filter((v) => v.key !== value.key) },
                        {
                          title: `Remove “${value.value.trim()}” from ${name}?`,
                          confirmLabel: `Remove ${value.value.trim()}`,
                        },
                      )
                    }
                  >
                    <span aria-hidden="true">×</span>
                  </button>
                </li>
              ))}
            </ul>
            <label className="visually-hidden" htmlFor={newValueId}>
              New value of {name}
            </label>
            <input
              id={newValueId}
              className="new-value"
              value={typed}
              placeholder={option.values.length === 0 ? 'Add a value, e.g. Small' : 'Add a value'}
              aria-describedby={hintId}
              onChange={(event) => {
                const text = event.target.value;
                // A pasted list ("S, M, L") is added at once, up to its last comma.
                if (text.includes(',')) {
                  const last = text.lastIndexOf(',');
                  addTyped(text.slice(0, last));
                  setTyped(text.slice(last + 1).trimStart());
                } else setTyped(text);
              }}
              onKeyDown={onKeyDown}
            />
            <button
              type="button"
              className="add-value"
              onClick={() => addTyped()}
              disabled={typed.trim() === ''}
            >
              Add value
            </button>
          </div>
        </div>
        <button type="button" className="danger" onClick={onRemove}>
          Remove option<span className="visually-hidden"> {name}</span>
        </button>
      </div>
      {valueErrors.map(({ value, error }) => (
        <p key={value.key} className="field-error">
          {error}
        </p>
      ))}
      {at(`${base}/values`, 'The values') ? (
        <p className="field-error">{at(`${base}/values`, 'The values')}</p>
      ) : null}
      {note ? (
        <p className="hint" role="status">
          {note}
        </p>
      ) : null}
    </fieldset>
  );
}

/**
 * A confirmation opened by the form (not by a button of its own, as ConfirmButton): a native modal
 * <dialog>, so focus stays in it; closing it any way but the confirm button cancels.
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
}: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const confirmed = useRef(false);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);
  return (
    <dialog
      ref={dialog}
      aria-labelledby={titleId}
      className="confirm"
      onClose={() => {
        if (!confirmed.current) onCancel();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      <div>{children}</div>
      <div className="actions">
        <button type="button" onClick={() => dialog.current?.close()}>
          Cancel
        </button>
        <button
          type="button"
          className="danger"
          onClick={() => {
            confirmed.current = true;
            dialog.current?.close();
            onConfirm();
          }}
        >
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
