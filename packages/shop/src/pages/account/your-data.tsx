/** The customer's data: the export as a JSON download, and erasing the account. */
import { useState } from 'preact/hooks';
import { shopApi } from '../../api.ts';
import { focusSoon } from '../../focus.ts';
import { ErrorMessage } from '../../ui.tsx';
import { Status } from './status.tsx';

/** Saves `data` as a JSON file through the browser's download (no server round trip, no new tab). */
function download(data: unknown, fileName: string): void {
  const blob = new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function YourData({ onErased }: { onErased: () => void }) {
  const [status, setStatus] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);

  async function exportData() {
    setBusy(true);
    setError(null);
    setStatus('Preparing your data…');
    try {
      const data = await shopApi().customers.export();
      download(data, `my-data-${data.exportedAt.slice(0, 10)}.json`);
      setStatus('Your data was downloaded as a JSON file.');
    } catch (exportError) {
      setStatus('');
      setError(exportError);
    } finally {
      setBusy(false);
    }
  }

  async function erase() {
    setBusy(true);
    setError(null);
    try {
      await shopApi().customers.erase();
      onErased();
    } catch (eraseError) {
      setError(eraseError);
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="data-title" class="account-panel">
      <h2 id="data-title" tabIndex={-1}>
        Your data
      </h2>
      <p>
        Download everything this shop holds about you: your profile, addresses, orders and the emails we sent.
      </p>
      <p>
        <button type="button" class="button-secondary" disabled={busy} onClick={() => void exportData()}>
          Export my data
        </button>
      </p>
      <Status message={status} />
      {error ? <ErrorMessage error={error} /> : null}
      {confirming ? (
        <div class="danger-zone" role="group" aria-labelledby="erase-title">
          <h3 id="erase-title" tabIndex={-1}>
            Delete your account?
          </h3>
          <ul>
            <li>Your profile and saved addresses are deleted, and you are signed out on every device.</li>
            <li>
              Your orders stay in the shop&apos;s books, but your name, email, phone and address are removed
              from them and from the emails we sent.
            </li>
            <li>
              An order that has not shipped yet can no longer be delivered to you: contact the shop first if
              you are waiting for one.
            </li>
            <li>This cannot be undone. You can open a new account later with the same email.</li>
          </ul>
          <p class="form-actions">
            <button type="button" class="button-danger" disabled={busy} onClick={() => void erase()}>
              {busy ? 'Deleting…' : 'Yes, delete my account'}
            </button>
            <button
              type="button"
              class="button-secondary"
              disabled={busy}
              onClick={() => {
                setConfirming(false);
                focusSoon('erase-start');
              }}
            >
              Cancel
            </button>
          </p>
        </div>
      ) : (
        <p>
          <button
            id="erase-start"
            type="button"
            class="button-link danger-link"
            onClick={() => {
              setConfirming(true);
              focusSoon('erase-title');
            }}
          >
            Delete my account
          </button>
        </p>
      )}
    </section>
  );
}
