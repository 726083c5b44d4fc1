/**
 * The review step's form for a code the shopper types (a discount code, a gift card's code): the
 * field and its Apply button, a refusal said at the field, the codes the cart holds listed under it
 * (each item the caller's), and a status line that reads out what an add or a remove did.
 */
import type { ComponentChildren } from 'preact';

export function CodeForm(props: {
  /** The field's id; its problem's is `<id>-problem`. */
  id: string;
  label: string;
  class: string;
  /** What the Apply button applies, for screen readers (a form of two such buttons). */
  applies?: string;
  placeholder?: string;
  /** False for a code of random characters (a gift card's), which no dictionary knows. */
  spellcheck?: boolean;
  value: string;
  problem: string | undefined;
  status: string;
  sending: boolean;
  /** The list of what the cart holds, named for screen readers; empty, no list. */
  heldLabel: string;
  held: ComponentChildren[];
  onInput: (value: string) => void;
  onAdd: () => Promise<void>;
}) {
  const { id, problem } = props;
  return (
    <form
      class={props.class}
      onSubmit={(event) => {
        event.preventDefault();
        void props.onAdd();
      }}
    >
      <div class="field">
        <label for={id}>{props.label}</label>
        <div class="inline-field">
          <input
            id={id}
            type="text"
            autoComplete="off"
            autoCapitalize="characters"
            spellcheck={props.spellcheck}
            maxLength={64}
            placeholder={props.placeholder}
            value={props.value}
            aria-invalid={problem ? 'true' : undefined}
            aria-describedby={problem ? `${id}-problem` : undefined}
            onInput={(event) => props.onInput(event.currentTarget.value)}
          />
          <button type="submit" class="button-secondary" disabled={props.sending}>
            Apply{props.applies ? <span class="visually-hidden"> {props.applies}</span> : null}
          </button>
        </div>
        {problem ? (
          <p id={`${id}-problem`} class="field-problem">
            {problem}
          </p>
        ) : null}
      </div>
      {props.held.length > 0 ? (
        <ul class="held-codes" aria-label={props.heldLabel}>
          {props.held}
        </ul>
      ) : null}
      {/* For screen readers: the list and the field show the same. */}
      <p class="visually-hidden" role="status">
        {props.status}
      </p>
    </form>
  );
}
