/** A storefront key's form (label, allowed origins, budgets), and creating, editing and showing its budgets with it. */
import type { StorefrontKey, StorefrontKeyWithSecret } from '@storefront/client';
import { useState, type FormEvent } from 'react';
import {
  useCreateStorefrontKey,
  useUpdateStorefrontKey,
  type KeySettings,
} from '../../data/storefront-keys.ts';
import { ErrorBanner, SubmitCancel, TextAreaField, TextField } from '../../ui/components.tsx';
import { messageAt } from '../../ui/problems.ts';
import {
  FocusOnShow,
  linesMessage,
  nonBlankLines,
  originProblem,
  parseBudget,
} from '../integrations-parts.tsx';

interface KeyFormValues {
  label: string;
  origins: string;
  read: string;
  write: string;
}

const EMPTY_FORM: KeyFormValues = { label: '', origins: '', read: '', write: '' };

function formOf(key: StorefrontKey): KeyFormValues {
  return {
    label: key.label,
    origins: key.allowedOrigins.join('\n'),
    read: key.rateLimits.publicRead === null ? '' : String(key.rateLimits.publicRead),
    write: key.rateLimits.publicWrite === null ? '' : String(key.rateLimits.publicWrite),
  };
}

/** The form's values checked as the server checks them; `errors` by field when something is wrong. */
function validate(values: KeyFormValues, serverError: unknown) {
  const entries = nonBlankLines(values.origins);
  const originsError = linesMessage(entries, originProblem, serverError, '/allowedOrigins');
  const read = parseBudget(values.read);
  const write = parseBudget(values.write);
  const budgetError = 'Leave empty for the default, or a whole number from 1 to 10,000,000.';
  const labelError =
    values.label.trim() === ''
      ? 'Give the key a name, e.g. "Main shop".'
      : values.label.trim().length > 200
        ? 'At most 200 characters.'
        : undefined;
  return {
    origins: entries.map((entry) => entry.value),
    read,
    write,
    errors: {
      label: labelError,
      origins: originsError,
      read: Number.isNaN(read) ? budgetError : undefined,
      write: Number.isNaN(write) ? budgetError : undefined,
    },
  };
}

function KeyForm({
  idPrefix,
  values,
  onChange,
  errors,
  serverError,
}: {
  idPrefix: string;
  values: KeyFormValues;
  onChange: (values: KeyFormValues) => void;
  errors: ReturnType<typeof validate>['errors'] | null;
  serverError: unknown;
}) {
  return (
    <>
      <TextField
        label="Label"
        name={`${idPrefix}-label`}
        autoFocus
        value={values.label}
        onChange={(event) => onChange({ ...values, label: event.target.value })}
        hint="For you: where the key is used."
        maxLength={200}
        required
        error={errors?.label ?? messageAt(serverError, '/label')}
      />
      <TextAreaField
        label="Allowed origins"
        name={`${idPrefix}-origins`}
        value={values.origins}
        onChange={(event) => onChange({ ...values, origins: event.target.value })}
        rows={4}
        spellCheck={false}
        autoCapitalize="off"
        hint="One a line, like https://shop.example. Browsers on other sites get 403; server code (no Origin header) is not affected. Leave empty to allow no browser origin."
        error={errors?.origins}
      />
      <div className="grid-2">
        <TextField
          label="Read budget (requests per window)"
          name={`${idPrefix}-read`}
          inputMode="numeric"
          value={values.read}
          onChange={(event) => onChange({ ...values, read: event.target.value })}
          hint="Catalog, content and cart reads. Empty: the platform default."
          error={errors?.read ?? messageAt(serverError, '/rateLimits/publicRead')}
        />
        <TextField
          label="Write budget (requests per window)"
          name={`${idPrefix}-write`}
          inputMode="numeric"
          value={values.write}
          onChange={(event) => onChange({ ...values, write: event.target.value })}
          hint="Cart changes and checkout. Empty: the platform default."
          error={errors?.write ?? messageAt(serverError, '/rateLimits/publicWrite')}
        />
      </div>
    </>
  );
}

const hasErrors = (errors: Record<string, string | undefined>) => Object.values(errors).some(Boolean);

/** The checked form as the API takes it. */
const settingsOf = (values: KeyFormValues, checked: ReturnType<typeof validate>): KeySettings => ({
  label: values.label.trim(),
  allowedOrigins: checked.origins,
  publicRead: checked.read,
  publicWrite: checked.write,
});

export function CreateKey({
  onCreated,
  onCancel,
}: {
  /** `budgetsSaved` is false when the key exists but setting its budgets failed. */
  onCreated: (key: StorefrontKeyWithSecret, budgetsSaved: boolean) => void;
  onCancel: () => void;
}) {
  const [values, setValues] = useState<KeyFormValues>(EMPTY_FORM);
  const [submitted, setSubmitted] = useState(false);
  // Budgets are a change of the new key: if it fails, the key still exists and is shown.
  const create = useCreateStorefrontKey({
    onSuccess: ({ key, budgetsSaved }) => onCreated(key, budgetsSaved),
  });
  const checked = validate(values, create.error);

  function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (hasErrors(checked.errors)) return;
    create.mutate(settingsOf(values, checked));
  }

  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a storefront key</h2>
      <KeyForm
        idPrefix="new"
        values={values}
        onChange={setValues}
        errors={submitted ? checked.errors : null}
        serverError={create.error}
      />
      <ErrorBanner error={create.error} />
      <SubmitCancel label="Create key" busyLabel="Creating…" busy={create.isPending} onCancel={onCancel} />
    </form>
  );
}

export function EditKey({
  storefrontKey,
  onDone,
}: {
  storefrontKey: StorefrontKey;
  onDone: (saved: boolean) => void;
}) {
  const [values, setValues] = useState<KeyFormValues>(() => formOf(storefrontKey));
  const [submitted, setSubmitted] = useState(false);
  const update = useUpdateStorefrontKey(storefrontKey.id, { onSuccess: () => onDone(true) });
  const checked = validate(values, update.error);

  function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (hasErrors(checked.errors)) return;
    update.mutate(settingsOf(values, checked));
  }

  return (
    <FocusOnShow>
      <form className="panel" onSubmit={submit} noValidate aria-labelledby="edit-key-title">
        <h2 id="edit-key-title">Edit key “{storefrontKey.label}”</h2>
        <p className="muted">
          Key <code>{storefrontKey.keyPrefix}…</code>: changes apply within seconds on every server.
        </p>
        <KeyForm
          idPrefix="edit"
          values={values}
          onChange={setValues}
          errors={submitted ? checked.errors : null}
          serverError={update.error}
        />
        <ErrorBanner error={update.error} />
        <SubmitCancel
          label="Save key"
          busyLabel="Saving…"
          busy={update.isPending}
          onCancel={() => onDone(false)}
        />
      </form>
    </FocusOnShow>
  );
}

export function Budgets({ storefrontKey }: { storefrontKey: StorefrontKey }) {
  const { publicRead, publicWrite } = storefrontKey.rateLimits;
  if (publicRead === null && publicWrite === null) return <span className="muted">Default</span>;
  const show = (value: number | null) => (value === null ? 'default' : value.toLocaleString());
  return (
    <span>
      Read {show(publicRead)}
      <br />
      Write {show(publicWrite)}
    </span>
  );
}
