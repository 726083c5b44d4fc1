/**
 * Signing in with a code sent by email (decision `customer-accounts`; no password): the email, then the 6-digit code. In
 * development the code step also shows the service's dev mailbox (dev-mailbox.tsx).
 */
import { StorefrontError } from '@storefront/client';
import { useRef, useState } from 'preact/hooks';
import { describeError, isStatus, shopApi } from '../../api.ts';
import { useCustomer } from '../../customer.ts';
import { focusSoon } from '../../focus.ts';
import { EMAIL } from '../../format.ts';
import { Link, navigate, useLocation } from '../../router.tsx';
import { TextField } from '../../text-field.tsx';
import { PageTitle } from '../../ui.tsx';
import { DevMailbox } from './dev-mailbox.tsx';
import { Status } from './status.tsx';

/** Where to go after signing in: a path of this shop (`?next=/checkout`), else the account. */
function nextPath(value: string | null): string {
  return value && value.startsWith('/') && !value.startsWith('//') ? value : '/account';
}

export function SignInPage() {
  const { query } = useLocation();
  const next = nextPath(query.get('next'));
  const { signedIn, customer } = useCustomer();
  const [stage, setStage] = useState<'email' | 'code'>('email');
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [sending, setSending] = useState(false);
  /** When the newest code was asked for (the dev mailbox offers mail from then on). */
  const [requestedAt, setRequestedAt] = useState(0);
  const verifying = useRef(false);

  if (signedIn && !verifying.current) {
    return (
      <section class="sign-in">
        <PageTitle title="Sign in">Sign in</PageTitle>
        <p>You are signed in{customer ? ` as ${customer.email}` : ''}.</p>
        <p>
          <Link to="/account">Go to your account</Link>
        </p>
      </section>
    );
  }

  async function sendCode(again: boolean) {
    setSending(true);
    setProblem(null);
    setStatus(again ? 'Sending a new code…' : '');
    const asked = Date.now();
    try {
      await shopApi().customers.signIn({ email: email.trim() });
      setRequestedAt(asked);
      setStage('code');
      setCode('');
      setStatus(
        again
          ? `We sent a new code to ${email.trim()}. Only the newest code works.`
          : `We sent a code to ${email.trim()}. It works for 10 minutes.`,
      );
      focusSoon('sign-in-code');
    } catch (error) {
      setStatus('');
      setProblem(describeError(error));
      focusSoon(again ? 'sign-in-code' : 'sign-in-email');
    } finally {
      setSending(false);
    }
  }

  function submitEmail(event: Event) {
    event.preventDefault();
    if (!EMAIL.test(email.trim())) {
      setProblem('Enter your email address, like name@example.com.');
      focusSoon('sign-in-email');
      return;
    }
    void sendCode(false);
  }

  async function submitCode(event: Event) {
    event.preventDefault();
    const digits = code.replace(/\s+/g, '');
    if (!/^\d{6}$/.test(digits)) {
      setProblem('Enter the 6 digits from the email.');
      focusSoon('sign-in-code');
      return;
    }
    setSending(true);
    setProblem(null);
    setStatus('Checking the code…');
    verifying.current = true;
    try {
      // The client keeps the token; the customer store reads the account (onTokenChange).
      await shopApi().customers.verify({ email: email.trim(), code: digits });
      navigate(next);
    } catch (error) {
      verifying.current = false;
      setStatus('');
      setProblem(
        isStatus(error, 401)
          ? 'That code is not right, or it has expired. Check the newest email from us, or send a new code.'
          : error instanceof StorefrontError && error.title === 'validation_failed'
            ? 'Enter the 6 digits from the email.'
            : describeError(error),
      );
      focusSoon('sign-in-code');
    } finally {
      setSending(false);
    }
  }

  return (
    <section class="sign-in">
      <PageTitle title="Sign in">Sign in</PageTitle>
      <Status message={status} />
      {stage === 'email' ? (
        <EmailForm
          email={email}
          problem={problem}
          sending={sending}
          onEmail={(value) => {
            setEmail(value);
            setProblem(null);
          }}
          onSubmit={submitEmail}
        />
      ) : (
        <>
          <CodeForm
            email={email}
            code={code}
            problem={problem}
            sending={sending}
            onCode={(value) => {
              setCode(value);
              setProblem(null);
            }}
            onSubmit={submitCode}
            onResend={() => void sendCode(true)}
            onOtherEmail={() => {
              setStage('email');
              setProblem(null);
              setStatus('');
              focusSoon('sign-in-email');
            }}
          />
          <DevMailbox
            email={email}
            since={requestedAt}
            onCode={(found) => {
              setCode(found);
              setProblem(null);
              // The field is on the page already: it takes the focus from the button now.
              document.getElementById('sign-in-code')?.focus();
            }}
          />
        </>
      )}
    </section>
  );
}

function EmailForm(props: {
  email: string;
  problem: string | null;
  sending: boolean;
  onEmail: (value: string) => void;
  onSubmit: (event: Event) => void;
}) {
  return (
    <form onSubmit={props.onSubmit} noValidate>
      <p>We email you a code to sign in: no password to remember. New here? The code opens your account.</p>
      <TextField
        id="sign-in-email"
        label="Email"
        type="email"
        autoComplete="email"
        value={props.email}
        onInput={props.onEmail}
        problem={props.problem}
      />
      <button type="submit" class="button-primary" disabled={props.sending}>
        {props.sending ? 'Sending…' : 'Email me a code'}
      </button>
    </form>
  );
}

function CodeForm(props: {
  email: string;
  code: string;
  problem: string | null;
  sending: boolean;
  onCode: (value: string) => void;
  onSubmit: (event: Event) => Promise<void>;
  onResend: () => void;
  onOtherEmail: () => void;
}) {
  return (
    <form onSubmit={(event) => void props.onSubmit(event)} noValidate>
      <TextField
        id="sign-in-code"
        label="6-digit code"
        inputMode="numeric"
        autoComplete="one-time-code"
        pattern="[0-9]*"
        maxLength={12}
        class="code-input"
        value={props.code}
        onInput={props.onCode}
        problem={props.problem}
        hint={<>From the email we sent to {props.email.trim()}.</>}
      />
      <p class="form-actions">
        <button type="submit" class="button-primary" disabled={props.sending}>
          {props.sending ? 'Signing in…' : 'Sign in'}
        </button>
        <button type="button" class="button-secondary" disabled={props.sending} onClick={props.onResend}>
          Send a new code
        </button>
      </p>
      <p>
        <button type="button" class="button-link" onClick={props.onOtherEmail}>
          Use another email
        </button>
      </p>
    </form>
  );
}
