/**
 * Customer accounts (D44): signing in with a code sent by email (no password), and the account
 * page: the profile, saved addresses (the form of the checkout), the orders with their parcels,
 * the customer's data as a JSON download, and erasing the account. Loaded when first shown: the
 * address form carries every country's rules. In development the sign-in's code step also shows the
 * service's dev mailbox, so the code is read on the page instead of in a mail file.
 */
import { checkAddress, formatAddress, isPhoneNumber } from '@storefront/address';
import { formatMoney, StorefrontError, type CustomerAddress, type Order } from '@storefront/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError, isStatus, shopApi } from '../api.ts';
import { customerStore, useCustomer } from '../customer.ts';
import { Link, navigate, useLocation } from '../router.tsx';
import { ErrorMessage, Loading, Notice, PageTitle } from '../ui.tsx';
import {
  AddressFields,
  addressInput,
  browserCountry,
  draftOf,
  emptyAddress,
  problemsAfterEdit,
  type AddressDraft,
  type AddressField,
  type AddressProblems,
} from './address-form.tsx';

const EMAIL = /^[^\s@]+@[^\s@]+$/;

function focusSoon(id: string) {
  window.requestAnimationFrame(() => document.getElementById(id)?.focus());
}

/** After signing out here: the page's heading takes the focus (the button pressed is gone). */
function focusHeading() {
  window.requestAnimationFrame(() => document.querySelector<HTMLElement>('main h1')?.focus());
}

/** Where to go after signing in: a path of this shop (`?next=/checkout`), else the account. */
function nextPath(value: string | null): string {
  return value && value.startsWith('/') && !value.startsWith('//') ? value : '/account';
}

/** A status line read out when it changes (`role=status`), kept in the page so the first message is announced. */
function Status({ message }: { message: string }) {
  return (
    <p class={message ? 'form-status' : 'form-status visually-hidden'} role="status">
      {message}
    </p>
  );
}

// ---- The development mailbox ----

interface DevMail {
  id: string;
  to: string;
  subject: string;
  /** ISO 8601 (the mail's Date header: whole seconds). */
  date: string;
  text: string;
}

/** Whether the To header `to` (`a@b`, `Name <a@b>`, a list) names `address` (lower case). */
function addressedTo(to: string, address: string): boolean {
  return to
    .toLowerCase()
    .split(',')
    .some((part) => (/<([^>]*)>/.exec(part)?.[1] ?? part).trim() === address);
}

/** When each mail of the dev mailbox was first read (kept while the shop is open: one sign-in to the next). */
const seenMail = new Map<string, number>();

/**
 * Development only: the newest mail to `email` in the service's dev mailbox (`GET /admin/dev/mailbox`,
 * which exists only with the file mail transport outside production and answers this machine only),
 * read every 1.5 s while the code step is open, with a button that puts its code in the field.
 * Anything but a 200 with a list of mail (a 404 in production, a 403 from another machine, another
 * host's page) renders nothing and stops the reading. Mail already read before the code was asked
 * for at `since` (and mail dated before it) is an older code, so it is not offered.
 */
function DevMailbox({
  email,
  since,
  onCode,
}: {
  email: string;
  since: number;
  onCode: (code: string) => void;
}) {
  const [mails, setMails] = useState<DevMail[] | null>(null);

  useEffect(() => {
    let timer = 0;
    let stopped = false;
    const controller = new AbortController();
    async function read() {
      try {
        if (!document.hidden) {
          const response = await fetch('/admin/dev/mailbox', {
            headers: { accept: 'application/json' },
            cache: 'no-store',
            signal: controller.signal,
          });
          const found =
            response.status === 200 ? ((await response.json()) as { mails?: unknown }).mails : null;
          if (!Array.isArray(found)) throw new Error('no dev mailbox');
          const now = Date.now();
          for (const mail of found as DevMail[]) if (!seenMail.has(mail.id)) seenMail.set(mail.id, now);
          if (stopped) return;
          setMails(found as DevMail[]);
        }
        timer = window.setTimeout(() => void read(), 1500);
      } catch {
        if (!stopped) setMails(null);
      }
    }
    void read();
    return () => {
      stopped = true;
      controller.abort();
      window.clearTimeout(timer);
    };
  }, []);

  if (!mails) return null;
  const address = email.trim().toLowerCase();
  const second = Math.floor(since / 1000) * 1000;
  const mail = mails.find(
    (candidate) =>
      addressedTo(candidate.to, address) &&
      Date.parse(candidate.date) >= second &&
      (seenMail.get(candidate.id) ?? 0) >= since,
  );
  const code = mail ? /\b(\d{6})\b/.exec(`${mail.subject}\n${mail.text}`)?.[1] : undefined;
  return (
    <section class="notice notice-warning dev-mailbox" aria-labelledby="dev-mailbox-title">
      <h2 id="dev-mailbox-title">Development mailbox</h2>
      <p class="field-hint">
        Development only: the mail this service wrote to files instead of sending it. Never shown in
        production.
      </p>
      <p role="status">
        {mail ? (
          <>
            Newest email to {address}: <strong>{mail.subject}</strong>
          </>
        ) : (
          `No email to ${address} yet.`
        )}
      </p>
      {code ? (
        <button type="button" class="button-secondary" onClick={() => onCode(code)}>
          Use this code
        </button>
      ) : null}
    </section>
  );
}

// ---- Signing in ----

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
        <form onSubmit={submitEmail} noValidate>
          <p>
            We email you a code to sign in: no password to remember. New here? The code opens your account.
          </p>
          <div class="field">
            <label for="sign-in-email">Email</label>
            <input
              id="sign-in-email"
              type="email"
              autoComplete="email"
              value={email}
              aria-invalid={problem ? 'true' : undefined}
              aria-describedby={problem ? 'sign-in-email-problem' : undefined}
              onInput={(event) => {
                setEmail(event.currentTarget.value);
                setProblem(null);
              }}
            />
            {problem ? (
              <p id="sign-in-email-problem" class="field-problem">
                {problem}
              </p>
            ) : null}
          </div>
          <button type="submit" class="button-primary" disabled={sending}>
            {sending ? 'Sending…' : 'Email me a code'}
          </button>
        </form>
      ) : (
        <>
          <form onSubmit={(event) => void submitCode(event)} noValidate>
            <div class="field">
              <label for="sign-in-code">6-digit code</label>
              <input
                id="sign-in-code"
                type="text"
                inputMode="numeric"
                autoComplete="one-time-code"
                pattern="[0-9]*"
                maxLength={12}
                class="code-input"
                value={code}
                aria-invalid={problem ? 'true' : undefined}
                aria-describedby={problem ? 'sign-in-code-problem' : 'sign-in-code-hint'}
                onInput={(event) => {
                  setCode(event.currentTarget.value);
                  setProblem(null);
                }}
              />
              {problem ? (
                <p id="sign-in-code-problem" class="field-problem">
                  {problem}
                </p>
              ) : (
                <p id="sign-in-code-hint" class="field-hint">
                  From the email we sent to {email.trim()}.
                </p>
              )}
            </div>
            <p class="form-actions">
              <button type="submit" class="button-primary" disabled={sending}>
                {sending ? 'Signing in…' : 'Sign in'}
              </button>
              <button
                type="button"
                class="button-secondary"
                disabled={sending}
                onClick={() => void sendCode(true)}
              >
                Send a new code
              </button>
            </p>
            <p>
              <button
                type="button"
                class="button-link"
                onClick={() => {
                  setStage('email');
                  setProblem(null);
                  setStatus('');
                  focusSoon('sign-in-email');
                }}
              >
                Use another email
              </button>
            </p>
          </form>
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

// ---- The account page ----

export function AccountPage() {
  const session = useCustomer();
  /** What to say once signed out here (signed out, or the account erased). */
  const [farewell, setFarewell] = useState<string | null>(null);

  if (!session.signedIn) {
    return (
      <section class="account">
        <PageTitle title="Your account">Your account</PageTitle>
        {farewell ? (
          <Notice tone="success">
            <p>{farewell}</p>
          </Notice>
        ) : (
          <p>You are not signed in.</p>
        )}
        <p>
          <Link to="/account/sign-in" class="button-primary">
            Sign in
          </Link>
        </p>
      </section>
    );
  }
  if (!session.customer) {
    return session.error ? (
      <ErrorMessage error={session.error} onRetry={() => void customerStore.load().catch(() => undefined)} />
    ) : (
      <Loading label="Loading your account…" />
    );
  }
  const { customer } = session;
  return (
    <section class="account">
      <PageTitle title="Your account">Your account</PageTitle>
      <p class="account-intro">
        Signed in as <strong>{customer.email}</strong>.{' '}
        <button
          type="button"
          class="button-link"
          onClick={() => {
            setFarewell('You are signed out.');
            void customerStore
              .signOut()
              .catch(() => undefined)
              .then(focusHeading);
          }}
        >
          Sign out
        </button>
      </p>
      <nav aria-label="Account sections" class="account-sections">
        <ul>
          <li>
            <a href="#orders-title">Orders</a>
          </li>
          <li>
            <a href="#profile-title">Profile</a>
          </li>
          <li>
            <a href="#addresses-title">Addresses</a>
          </li>
          <li>
            <a href="#data-title">Your data</a>
          </li>
        </ul>
      </nav>
      <Orders customerId={customer.id} />
      <Profile />
      <Addresses addresses={session.addresses ?? []} />
      <YourData
        onErased={() => {
          setFarewell('Your account was deleted. Thank you for shopping with us.');
          focusHeading();
        }}
      />
    </section>
  );
}

// ---- Profile ----

function Profile() {
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

// ---- Saved addresses ----

/** A refusal of an address by the service: at its fields (`/postalCode`), else as a sentence. */
function addressProblems(error: unknown): { fields: AddressProblems; message: string | null } {
  if (error instanceof StorefrontError && error.title === 'validation_failed' && error.errors.length > 0) {
    const fields: AddressProblems = {};
    for (const field of error.errors) fields[field.pointer.replace(/^\//, '') as AddressField] = field.detail;
    return { fields, message: null };
  }
  return { fields: {}, message: describeError(error) };
}

function AddressForm({
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
    const found: AddressProblems = {};
    for (const { pointer, detail } of checkAddress(addressInput(draft)).problems)
      found[pointer.slice(1) as AddressField] = detail;
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

/** An address on one line, for names of buttons and the checkout's picker. */
export function addressSummary(address: CustomerAddress): string {
  return formatAddress(address).join(', ');
}

function Addresses({ addresses }: { addresses: CustomerAddress[] }) {
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
          {addresses.map((address) => {
            const lines = formatAddress(address);
            const summary = addressSummary(address);
            return (
              <li key={address.id} class="address-card">
                {open === address.id ? (
                  <AddressForm
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
                  <>
                    <address>
                      {lines.map((line) => (
                        <span key={line} class="address-line">
                          {line}
                        </span>
                      ))}
                    </address>
                    {address.isDefault ? <p class="default-badge">Default address</p> : null}
                    {open === `delete:${address.id}` ? (
                      <div class="confirm" role="group" aria-labelledby={`delete-${address.id}-question`}>
                        <p id={`delete-${address.id}-question`}>Delete this address?</p>
                        <p class="form-actions">
                          <button
                            type="button"
                            class="button-primary"
                            disabled={busy}
                            onClick={() =>
                              void act(
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
                            onClick={() => close('', `delete-${address.id}`)}
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
                          onClick={() => {
                            setOpen(address.id);
                            setStatus('');
                            focusSoon(`address-${address.id}-country`);
                          }}
                        >
                          Edit <span class="visually-hidden">{summary}</span>
                        </button>
                        {address.isDefault ? null : (
                          <button
                            type="button"
                            class="button-link"
                            disabled={busy}
                            onClick={() =>
                              void act(
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
                          onClick={() => {
                            setOpen(`delete:${address.id}`);
                            setStatus('');
                            focusSoon(`delete-${address.id}-question`);
                          }}
                        >
                          Delete <span class="visually-hidden">{summary}</span>
                        </button>
                      </p>
                    )}
                  </>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {open === 'new' ? (
        <section aria-labelledby="new-address-title" class="address-card">
          <h3 id="new-address-title" tabIndex={-1}>
            New address
          </h3>
          <AddressForm
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
            onClick={() => {
              setOpen('new');
              setStatus('');
              focusSoon('new-address-title');
            }}
          >
            Add an address
          </button>
        </p>
      )}
    </section>
  );
}

// ---- Orders ----

const ORDER_STATUS: Record<Order['status'], string> = {
  pending: 'Awaiting payment',
  paid: 'Paid',
  expired: 'Expired, not paid',
  cancelled: 'Cancelled',
};

function fulfilmentWords(order: Order): string {
  if (order.status !== 'paid') return '—';
  const live = order.fulfillments.filter((parcel) => parcel.status !== 'cancelled');
  if (order.fulfillmentStatus === 'unfulfilled') return 'Not shipped yet';
  if (order.fulfillmentStatus === 'partial') return 'Partly shipped';
  return live.length > 0 && live.every((parcel) => parcel.status === 'delivered') ? 'Delivered' : 'Shipped';
}

const day = (iso: string) => new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' });

function OrderCard({ order }: { order: Order }) {
  const parcels = order.fulfillments.filter((parcel) => parcel.status !== 'cancelled');
  const tracked = parcels
    .map((parcel, index) => ({ parcel, index }))
    .filter(({ parcel }) => parcel.trackingUrl || parcel.trackingNumber);
  return (
    <li class="order-card">
      <h3>
        <Link to={`/orders/${order.id}`}>Order #{order.number}</Link>
      </h3>
      <dl class="order-facts">
        <div>
          <dt>Date</dt>
          <dd>
            <time dateTime={order.createdAt}>{day(order.createdAt)}</time>
          </dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd>{ORDER_STATUS[order.status] ?? order.status}</dd>
        </div>
        <div>
          <dt>Shipping</dt>
          <dd>{fulfilmentWords(order)}</dd>
        </div>
        <div>
          <dt>Total</dt>
          <dd>{formatMoney(order.total.amount, order.total.currency)}</dd>
        </div>
      </dl>
      {tracked.length > 0 ? (
        <ul class="tracking-links">
          {tracked.map(({ parcel, index }) => (
            <li key={parcel.id}>
              {parcel.trackingUrl ? (
                <a href={parcel.trackingUrl} target="_blank" rel="noopener noreferrer">
                  Track parcel {index + 1}
                  <span class="visually-hidden"> of order #{order.number}</span>
                  {parcel.carrier ? ` with ${parcel.carrier}` : ''}
                  {parcel.trackingNumber ? ` (${parcel.trackingNumber})` : ''}
                </a>
              ) : (
                <>
                  Parcel {index + 1}
                  {parcel.carrier ? ` with ${parcel.carrier}` : ''}: tracking number {parcel.trackingNumber}
                </>
              )}
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  );
}

const ORDERS_PAGE = 10;

function Orders({ customerId }: { customerId: string }) {
  const [orders, setOrders] = useState<Order[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(false);

  async function loadPage(after: string | null) {
    setLoading(true);
    setError(null);
    try {
      const page = await shopApi().customers.orders({
        limit: ORDERS_PAGE,
        ...(after ? { cursor: after } : {}),
      });
      setOrders((previous) => (after && previous ? [...previous, ...page.items] : page.items));
      setCursor(page.nextCursor);
    } catch (loadError) {
      setError(loadError);
    } finally {
      setLoading(false);
    }
  }

  useEffect(() => {
    void loadPage(null);
  }, [customerId]);

  return (
    <section aria-labelledby="orders-title" class="account-panel">
      <h2 id="orders-title" tabIndex={-1}>
        Orders
      </h2>
      {error ? <ErrorMessage error={error} onRetry={() => void loadPage(cursor)} /> : null}
      {orders === null ? (
        error ? null : (
          <Loading label="Loading your orders…" />
        )
      ) : orders.length === 0 ? (
        <p>
          No orders yet. <Link to="/">Start shopping</Link>
        </p>
      ) : (
        <>
          <ol class="order-list">
            {orders.map((order) => (
              <OrderCard key={order.id} order={order} />
            ))}
          </ol>
          {cursor ? (
            <button
              type="button"
              class="button-secondary load-more"
              disabled={loading}
              onClick={() => void loadPage(cursor)}
            >
              {loading ? 'Loading…' : 'Show older orders'}
            </button>
          ) : null}
        </>
      )}
    </section>
  );
}

// ---- Your data: export and erasure ----

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

function YourData({ onErased }: { onErased: () => void }) {
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
