/** The account's profile: name, phone and whether the customer takes news and offers. */
import { isPhoneNumber } from '@storefront/address';
import { StorefrontError } from '@storefront/client';
import { useState } from 'preact/hooks';
import { shopApi } from '../../api.ts';
import { customerStore, useCustomer } from '../../customer.ts';
import { focusSoon } from '../../focus.ts';
import { TextField } from '../../text-field.tsx';
import { ErrorMessage } from '../../ui.tsx';
import { Status } from './status.tsx';

export function Profile() {
  const { customer } = useCustomer();
  const [name, setName] = useState(customer?.name ?? '');
  const [phone, setPhone] = useState(customer?.phone ?? '');
  const [marketing, setMarketing] = useState(customer?.acceptsMarketing ?? false);
  const [problems, setProblems] = useState<{ name?: string; phone?: string }>({});
  const [status, setStatus] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);

  async function save(event: Event) {
    event.preventDefault();
    if (phone.trim() !== '' && !isPhoneNumber(phone.trim())) {
      setProblems({ phone: 'Enter a phone number: digits, spaces and + ( ) . -' });
      focusSoon('profile-phone');
      return;
    }
    setSaving(true);
    setProblems({});
    setError(null);
    setStatus('');
    try {
      const saved = await shopApi().customers.update({
        name: name.trim() === '' ? null : name.trim(),
        phone: phone.trim() === '' ? null : phone.trim(),
        acceptsMarketing: marketing,
      });
      customerStore.setCustomer(saved);
      setName(saved.name ?? '');
      setPhone(saved.phone ?? '');
      setMarketing(saved.acceptsMarketing);
      setStatus('Your details were saved.');
    } catch (saveError) {
      if (saveError instanceof StorefrontError && saveError.title === 'validation_failed') {
        const found: { name?: string; phone?: string } = {};
        for (const field of saveError.errors) {
          if (field.pointer === '/name') found.name = field.detail;
          if (field.pointer === '/phone') found.phone = field.detail;
        }
        setProblems(found);
        if (found.name || found.phone) focusSoon(found.name ? 'profile-name' : 'profile-phone');
        else setError(saveError);
      } else setError(saveError);
    } finally {
      setSaving(false);
    }
  }

  return (
    <section aria-labelledby="profile-title" class="account-panel">
      <h2 id="profile-title" tabIndex={-1}>
        Profile
      </h2>
      <form onSubmit={(event) => void save(event)} noValidate>
        <TextField
          id="profile-name"
          label="Name (optional)"
          autoComplete="name"
          maxLength={200}
          value={name}
          onInput={setName}
          problem={problems.name}
        />
        <TextField
          id="profile-phone"
          label="Phone (optional)"
          type="tel"
          autoComplete="tel"
          maxLength={40}
          value={phone}
          onInput={setPhone}
          problem={problems.phone}
        />
        <div class="checkbox-field">
          <input
            id="profile-marketing"
            type="checkbox"
            checked={marketing}
            onChange={(event) => setMarketing(event.currentTarget.checked)}
          />
          <label for="profile-marketing">Email me news and offers</label>
        </div>
        {error ? <ErrorMessage error={error} /> : null}
        <p class="form-actions">
          <button type="submit" class="button-primary" disabled={saving}>
            {saving ? 'Saving…' : 'Save profile'}
          </button>
        </p>
        <Status message={status} />
      </form>
    </section>
  );
}
