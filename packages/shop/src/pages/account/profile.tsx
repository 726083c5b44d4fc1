/** The account's profile: name, phone and whether the customer takes news and offers. */
import { isPhoneNumber } from '@storefront/address';
import { StorefrontError } from '@storefront/client';
import { useState } from 'preact/hooks';
import { shopApi } from '../../api.ts';
import { customerStore, useCustomer } from '../../customer.ts';
import { focusSoon } from '../../focus.ts';
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
        <div class="field">
          <label for="profile-name">Name (optional)</label>
          <input
            id="profile-name"
            type="text"
            autoComplete="name"
            maxLength={200}
            value={name}
            aria-invalid={problems.name ? 'true' : undefined}
            aria-describedby={problems.name ? 'profile-name-problem' : undefined}
            onInput={(event) => setName(event.currentTarget.value)}
          />
          {problems.name ? (
            <p id="profile-name-problem" class="field-problem">
              {problems.name}
            </p>
          ) : null}
        </div>
        <div class="field">
          <label for="profile-phone">Phone (optional)</label>
          <input
            id="profile-phone"
            type="tel"
            autoComplete="tel"
            maxLength={40}
            value={phone}
            aria-invalid={problems.phone ? 'true' : undefined}
            aria-describedby={problems.phone ? 'profile-phone-problem' : undefined}
            onInput={(event) => setPhone(event.currentTarget.value)}
          />
          {problems.phone ? (
            <p id="profile-phone-problem" class="field-problem">
              {problems.phone}
            </p>
          ) : null}
        </div>
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
