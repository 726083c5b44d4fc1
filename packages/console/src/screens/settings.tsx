/**
 * Store settings: the name customers see, the reply-to address of store mail, whether checkout
 * requires a shipping address and method, whether prices include tax; the handle and the currency are shown read-only (every
 * price is in the currency, so it is fixed at creation).
 */
import { useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import { useStoreSettings, useUpdateSettings, type StoreSettings } from '../data/settings.ts';
import { useStaffSession } from '../data/staff.ts';
import { ErrorBanner, Notice, PageHeader, TextField } from '../ui/components.tsx';
import { formatDateTime } from '../ui/dates.ts';
import { messageAt } from '../ui/problems.ts';
import { QueryView } from '../ui/queries.tsx';
import { roleError } from './integrations-parts.tsx';

/** A yes/no setting: its checkbox, the sentence under it and the server's word on it. */
function SettingSwitch({
  name,
  label,
  checked,
  disabled,
  error,
  onChange,
  children,
}: {
  name: string;
  label: string;
  checked: boolean;
  disabled: boolean;
  error: string | undefined;
  onChange: (checked: boolean) => void;
  children: ReactNode;
}) {
  const hintId = `${name}-hint`;
  return (
    <div className="field">
      <label className="checkbox">
        <input
          type="checkbox"
          name={name}
          checked={checked}
          disabled={disabled}
          aria-describedby={hintId}
          onChange={(event) => onChange(event.target.checked)}
        />
        <span>{label}</span>
      </label>
      <p className="hint" id={hintId}>
        {children}
      </p>
      {error ? <p className="field-error">{error}</p> : null}
    </div>
  );
}

function SettingsForm({ settings, readOnly }: { settings: StoreSettings; readOnly: boolean }) {
  const [name, setName] = useState(settings.name);
  const [replyTo, setReplyTo] = useState(settings.replyToEmail ?? '');
  const [requireAddress, setRequireAddress] = useState(settings.requireShippingAddress);
  const [includeTax, setIncludeTax] = useState(settings.pricesIncludeTax);
  const [submitted, setSubmitted] = useState(false);
  const [saved, setSaved] = useState(false);
  const save = useUpdateSettings({ onSuccess: () => setSaved(true) });
  const errors = {
    name: name.trim() === '' ? 'The store needs a name.' : undefined,
    replyTo: /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(replyTo.trim())
      ? undefined
      : 'Enter an email address: customers’ replies to store mail go there.',
  };
  const changed =
    name.trim() !== settings.name ||
    replyTo.trim() !== (settings.replyToEmail ?? '') ||
    requireAddress !== settings.requireShippingAddress ||
    includeTax !== settings.pricesIncludeTax;

  function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    setSaved(false);
    if (errors.name || errors.replyTo) return;
    save.mutate({
      name: name.trim(),
      replyToEmail: replyTo.trim(),
      requireShippingAddress: requireAddress,
      pricesIncludeTax: includeTax,
    });
  }

  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="store-title">
      <h2 id="store-title">Store</h2>
      <TextField
        label="Store name"
        name="name"
        value={name}
        maxLength={200}
        readOnly={readOnly}
        className={readOnly ? 'read-only' : undefined}
        onChange={(event) => {
          setName(event.target.value);
          setSaved(false);
        }}
        hint="Shown to customers, and the sender name of store mail."
        required
        error={(submitted ? errors.name : undefined) ?? messageAt(save.error, '/name')}
      />
      <TextField
        label="Reply-to email"
        name="replyToEmail"
        type="email"
        autoComplete="email"
        readOnly={readOnly}
        className={readOnly ? 'read-only' : undefined}
        value={replyTo}
        onChange={(event) => {
          setReplyTo(event.target.value);
          setSaved(false);
        }}
        hint={
          <>
            Where replies to order confirmations and refund notices go. The sender itself is on the{' '}
            <Link to="/email">Email</Link> page.
          </>
        }
        required
        error={(submitted ? errors.replyTo : undefined) ?? messageAt(save.error, '/replyToEmail')}
      />
      <SettingSwitch
        name="requireShippingAddress"
        label="Require a shipping address and method at checkout"
        checked={requireAddress}
        disabled={readOnly}
        error={messageAt(save.error, '/requireShippingAddress')}
        onChange={(checked) => {
          setRequireAddress(checked);
          setSaved(false);
        }}
      >
        When an order has something to ship, checkout refuses it without an address and a shipping method
        (orders of gift cards or downloads alone need neither). Set up where you ship on the{' '}
        <Link to="/shipping">Shipping</Link> page.
      </SettingSwitch>
      <SettingSwitch
        name="pricesIncludeTax"
        label="Prices include tax"
        checked={includeTax}
        disabled={readOnly}
        error={messageAt(save.error, '/pricesIncludeTax')}
        onChange={(checked) => {
          setIncludeTax(checked);
          setSaved(false);
        }}
      >
        On: the prices you enter are what buyers pay, the tax being the part of it at the buyer&apos;s rate.
        Off: tax is added on top at checkout. Orders placed before keep how they were charged.
      </SettingSwitch>
      <TextField
        label="Store handle"
        name="slug"
        value={settings.slug}
        className="read-only"
        readOnly
        hint="Used to sign in and in API calls; it cannot be changed."
      />
      <TextField
        label="Currency"
        name="currency"
        value={settings.currency}
        className="read-only"
        readOnly
        hint="Every price of the store is in this currency, so it cannot be changed after the store is created."
      />
      {['/name', '/replyToEmail', '/requireShippingAddress', '/pricesIncludeTax'].some((pointer) =>
        messageAt(save.error, pointer),
      ) ? null : (
        <ErrorBanner error={save.error} />
      )}
      {saved ? <Notice tone="success">Settings saved.</Notice> : null}
      <div className="actions">
        <button
          type="submit"
          className="primary"
          disabled={readOnly || save.isPending || (!changed && !submitted)}
        >
          {save.isPending ? 'Saving…' : 'Save settings'}
        </button>
        <span className="muted">Last changed {formatDateTime(settings.updatedAt)}</span>
      </div>
    </form>
  );
}

export function Settings() {
  const settings = useStoreSettings();
  const session = useStaffSession();
  const readOnly = session.data?.staff.role === 'staff';
  return (
    <>
      <PageHeader title="Settings" />
      <QueryView
        query={settings}
        loading="Loading settings…"
        error={roleError('staff of this store', 'see its settings')}
      >
        {(data) => (
          <>
            {readOnly ? (
              <Notice tone="warning">
                Only owners and admins can change the settings. You are signed in as staff.
              </Notice>
            ) : null}
            <SettingsForm settings={data} readOnly={readOnly} />
          </>
        )}
      </QueryView>
    </>
  );
}
