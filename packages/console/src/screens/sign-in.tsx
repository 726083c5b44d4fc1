/**
 * Sign-in with an emailed code: the store's handle and the staff member's email, then the 6-digit
 * code. In development (file mail transport, not production) the dev mailbox shows the platform
 * mail, so the code can be read here instead of in an .eml file.
 */
import { useState, type FormEvent } from 'react';
import { requestSignInCode, useDevMailbox, verifySignInCode } from '../data/sign-in.ts';
import { useSession } from '../session.tsx';
import { ErrorBanner, Notice, TextField } from '../ui/components.tsx';
import { formatDateTime } from '../ui/dates.ts';
import { messageAt } from '../ui/problems.ts';

function DevMailbox({ email, onCode }: { email: string; onCode: (code: string) => void }) {
  const mailbox = useDevMailbox();
  if (mailbox.data === null) return null;
  if (mailbox.data === 'local-only')
    return (
      <p className="hint">
        The dev mailbox with sign-in codes is shown only on the server’s own machine: open the console at
        http://localhost:PORT/admin/ there, or read the code from the mail files.
      </p>
    );
  const mails = (mailbox.data ?? []).filter(
    (mail) => !email || mail.to.toLowerCase().includes(email.toLowerCase()),
  );
  return (
    <section className="dev-mailbox" aria-labelledby="dev-mailbox-title">
      <h2 id="dev-mailbox-title">Dev mailbox</h2>
      <p className="hint">
        Development only: platform mail written by the file transport. It does not exist with SMTP or in
        production.
      </p>
      {mailbox.isLoading ? <p role="status">Loading mail…</p> : null}
      {mails.length === 0 && !mailbox.isLoading ? <p>No mail for this address yet.</p> : null}
      <ul className="mail-list">
        {mails.slice(0, 5).map((mail) => {
          const code = /\b(\d{6})\b/.exec(mail.text)?.[1];
          return (
            <li key={mail.id}>
              <details>
                <summary>
                  <span>{mail.subject}</span>{' '}
                  <span className="muted">
                    to {mail.to}, {formatDateTime(mail.date)}
                  </span>
                </summary>
                <pre>{mail.text}</pre>
              </details>
              {code ? (
                <button type="button" onClick={() => onCode(code)}>
                  Use code {code}
                </button>
              ) : null}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

export function SignIn() {
  const { signIn, notice } = useSession();
  const [storeSlug, setStoreSlug] = useState('demo');
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [step, setStep] = useState<'email' | 'code'>('email');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function requestCode(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await requestSignInCode({ storeSlug, email });
      setStep('code');
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  async function verify(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const session = await verifySignInCode({ storeSlug, email, code });
      signIn({ token: session.token, expiresAt: session.expiresAt, storeSlug, email });
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" className="sign-in">
      <h1>Sign in to your store</h1>
      {notice ? <Notice tone="warning">{notice}</Notice> : null}
      {step === 'email' ? (
        <form onSubmit={(event) => void requestCode(event)} noValidate>
          <TextField
            label="Store handle"
            name="storeSlug"
            value={storeSlug}
            onChange={(event) => setStoreSlug(event.target.value)}
            autoComplete="organization"
            required
            error={messageAt(error, '/storeSlug')}
          />
          <TextField
            label="Email"
            name="email"
            type="email"
            value={email}
            onChange={(event) => setEmail(event.target.value)}
            autoComplete="email"
            required
            error={messageAt(error, '/email')}
          />
          <ErrorBanner error={error} />
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Sending…' : 'Email me a sign-in code'}
          </button>
        </form>
      ) : (
        <form onSubmit={(event) => void verify(event)} noValidate>
          <p>
            If <strong>{email}</strong> is a staff member of <strong>{storeSlug}</strong>, a 6-digit code is
            on its way. It is valid for 10 minutes.
          </p>
          <TextField
            label="Sign-in code"
            name="code"
            value={code}
            onChange={(event) => setCode(event.target.value.replace(/\D/g, '').slice(0, 6))}
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9]{6}"
            required
            error={messageAt(error, '/code')}
          />
          <ErrorBanner error={error} />
          <div className="actions">
            <button type="submit" className="primary" disabled={busy || code.length !== 6}>
              {busy ? 'Signing in…' : 'Sign in'}
            </button>
            <button type="button" onClick={() => setStep('email')}>
              Use another email
            </button>
          </div>
        </form>
      )}
      <DevMailbox email={email} onCode={(found) => setCode(found)} />
    </main>
  );
}
