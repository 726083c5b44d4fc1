/** The form of a saved address, new or edited: the checkout's address fields, checked before they are sent. */
import { StorefrontError } from '@storefront/client';
import { useState } from 'preact/hooks';
import { describeError } from '../../api.ts';
import {
  AddressFields,
  draftProblems,
  problemsAfterEdit,
  type AddressDraft,
  type AddressField,
  type AddressProblems,
} from '../../address-form.tsx';
import { focusSoon } from '../../focus.ts';

/** A refusal of an address by the service: at its fields (`/postalCode`), else as a sentence. */
function addressProblems(error: unknown): { fields: AddressProblems; message: string | null } {
  if (error instanceof StorefrontError && error.title === 'validation_failed' && error.errors.length > 0) {
    const fields: AddressProblems = {};
    for (const field of error.errors) fields[field.pointer.replace(/^\//, '') as AddressField] = field.detail;
    return { fields, message: null };
  }
  return { fields: {}, message: describeError(error) };
}

export function SavedAddressForm({
  idPrefix,
  initial,
  showDefault,
  submitLabel,
  onSave,
  onCancel,
}: {
  idPrefix: string;
  initial: AddressDraft;
  /** Offer "Make this my default address" (a new address; an edit has its own button). */
  showDefault: boolean;
  submitLabel: string;
  onSave: (draft: AddressDraft, makeDefault: boolean) => Promise<void>;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState(initial);
  const [makeDefault, setMakeDefault] = useState(false);
  const [problems, setProblems] = useState<AddressProblems>({});
  const [message, setMessage] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    const found = draftProblems(draft);
    if (Object.keys(found).length > 0) {
      setProblems(found);
      focusSoon(`${idPrefix}-${Object.keys(found)[0]!}`);
      return;
    }
    setSaving(true);
    setProblems({});
    setMessage(null);
    try {
      await onSave(draft, makeDefault);
    } catch (error) {
      const refused = addressProblems(error);
      setProblems(refused.fields);
      setMessage(refused.message);
      const first = Object.keys(refused.fields)[0];
      if (first) focusSoon(`${idPrefix}-${first}`);
      setSaving(false);
    }
  }

  return (
    <form class="address-form" onSubmit={(event) => void submit(event)} noValidate>
      {message ? (
        <div class="notice notice-error" role="alert">
          <p>{message}</p>
        </div>
      ) : null}
      <AddressFields
        value={draft}
        onChange={(next) => {
          setProblems((current) => problemsAfterEdit(current, draft, next));
          setDraft(next);
        }}
        problems={problems}
        idPrefix={idPrefix}
      />
      {showDefault ? (
        <div class="checkbox-field">
          <input
            id={`${idPrefix}-default`}
            type="checkbox"
            checked={makeDefault}
            onChange={(event) => setMakeDefault(event.currentTarget.checked)}
          />
          <label for={`${idPrefix}-default`}>Make this my default address</label>
        </div>
      ) : null}
      <p class="form-actions">
        <button type="submit" class="button-primary" disabled={saving}>
          {saving ? 'Saving…' : submitLabel}
        </button>
        <button type="button" class="button-secondary" disabled={saving} onClick={onCancel}>
          Cancel
        </button>
      </p>
    </form>
  );
}
