/** The account's saved addresses: add, edit, make default, delete (with a confirmation). */
import type { CustomerAddress } from '@storefront/client';
import { useState } from 'preact/hooks';
import { shopApi } from '../../api.ts';
import {
  addressInput,
  addressSummary,
  browserCountry,
  draftOf,
  emptyAddress,
  PostalAddress,
} from '../../address-form.tsx';
import { customerStore } from '../../customer.ts';
import { focusSoon } from '../../focus.ts';
import { ErrorMessage } from '../../ui.tsx';
import { SavedAddressForm } from './saved-address-form.tsx';
import { Status } from './status.tsx';

export function Addresses({ addresses }: { addresses: CustomerAddress[] }) {
  /** `new`, an address's id being edited, or `delete:<id>` while asking. */
  const [open, setOpen] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  function close(message: string, focus = 'addresses-title') {
    setOpen(null);
    setStatus(message);
    focusSoon(focus);
  }

  /** Opens a form or a question (`key`) and focuses it. */
  function show(key: string, focus: string) {
    setOpen(key);
    setStatus('');
    focusSoon(focus);
  }

  async function act(task: () => Promise<unknown>, message: string) {
    setBusy(true);
    setError(null);
    setStatus('');
    try {
      await task();
      await customerStore.reloadAddresses();
      close(message);
    } catch (actError) {
      setError(actError);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="addresses-title" class="account-panel">
      <h2 id="addresses-title" tabIndex={-1}>
        Addresses
      </h2>
      <Status message={status} />
      {error ? <ErrorMessage error={error} /> : null}
      {addresses.length === 0 ? (
        <p>No saved addresses yet. Save one and the checkout fills it in for you.</p>
      ) : (
        <ul class="address-list">
          {addresses.map((address) => (
            <li key={address.id} class="address-card">
              {open === address.id ? (
                <SavedAddressForm
                  idPrefix={`address-${address.id}`}
                  initial={draftOf(address)}
                  showDefault={false}
                  submitLabel="Save address"
                  onCancel={() => close('', `edit-${address.id}`)}
                  onSave={async (draft) => {
                    await shopApi().customers.addresses.update(address.id, addressInput(draft));
                    await customerStore.reloadAddresses();
                    close('The address was saved.');
                  }}
                />
              ) : (
                <AddressView
                  address={address}
                  busy={busy}
                  confirming={open === `delete:${address.id}`}
                  open={show}
                  act={act}
                  close={close}
                />
              )}
            </li>
          ))}
        </ul>
      )}
      {open === 'new' ? (
        <section aria-labelledby="new-address-title" class="address-card">
          <h3 id="new-address-title" tabIndex={-1}>
            New address
          </h3>
          <SavedAddressForm
            idPrefix="new-address"
            initial={emptyAddress(browserCountry() ?? 'US')}
            showDefault={addresses.length > 0}
            submitLabel="Save address"
            onCancel={() => close('', 'add-address')}
            onSave={async (draft, makeDefault) => {
              await shopApi().customers.addresses.create({
                ...addressInput(draft),
                ...(makeDefault ? { isDefault: true } : {}),
              });
              await customerStore.reloadAddresses();
              close('The address was saved.');
            }}
          />
        </section>
      ) : (
        <p>
          <button
            id="add-address"
            type="button"
            class="button-secondary"
            onClick={() => show('new', 'new-address-title')}
          >
            Add an address
          </button>
        </p>
      )}
    </section>
  );
}

/** A saved address with its actions: edit, make default, delete (asked first). */
function AddressView(props: {
  address: CustomerAddress;
  busy: boolean;
  /** Asking whether to delete it. */
  confirming: boolean;
  open: (key: string, focus: string) => void;
  act: (task: () => Promise<unknown>, message: string) => Promise<void>;
  close: (message: string, focus?: string) => void;
}) {
  const { address, busy } = props;
  const summary = addressSummary(address);
  return (
    <>
      <PostalAddress address={address} />
      {address.isDefault ? <p class="default-badge">Default address</p> : null}
      {props.confirming ? (
        <div class="confirm" role="group" aria-labelledby={`delete-${address.id}-question`}>
          <p id={`delete-${address.id}-question`}>Delete this address?</p>
          <p class="form-actions">
            <button
              type="button"
              class="button-primary"
              disabled={busy}
              onClick={() =>
                void props.act(
                  () => shopApi().customers.addresses.delete(address.id),
                  'The address was deleted.',
                )
              }
            >
              Yes, delete it
            </button>
            <button
              type="button"
              class="button-secondary"
              disabled={busy}
              onClick={() => props.close('', `delete-${address.id}`)}
            >
              Keep it
            </button>
          </p>
        </div>
      ) : (
        <p class="address-actions">
          <button
            id={`edit-${address.id}`}
            type="button"
            class="button-link"
            onClick={() => props.open(address.id, `address-${address.id}-country`)}
          >
            Edit <span class="visually-hidden">{summary}</span>
          </button>
          {address.isDefault ? null : (
            <button
              type="button"
              class="button-link"
              disabled={busy}
              onClick={() =>
                void props.act(
                  () => shopApi().customers.addresses.update(address.id, { isDefault: true }),
                  'That is now your default address.',
                )
              }
            >
              Make default <span class="visually-hidden">{summary}</span>
            </button>
          )}
          <button
            id={`delete-${address.id}`}
            type="button"
            class="button-link"
            onClick={() => props.open(`delete:${address.id}`, `delete-${address.id}-question`)}
          >
            Delete <span class="visually-hidden">{summary}</span>
          </button>
        </p>
      )}
    </>
  );
}
