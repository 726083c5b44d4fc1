/**
 * Email: who store mail (order confirmations, refund notices) is sent from and why, the sending
 * domain with its five DNS records (per-record status, copy buttons), verify now, delete, and the
 * store's reply-to address.
 */
import { useState, type FormEvent } from 'react';
import {
  useDeleteDomain,
  useRegisterDomain,
  useSender,
  useVerifyDomain,
  type SenderState,
  type SendingDomain,
} from '../data/email.ts';
import { useUpdateSettings } from '../data/settings.ts';
import {
  ConfirmButton,
  CopyButton,
  ErrorBanner,
  Notice,
  PageHeader,
  StatusBadge,
  TextField,
} from '../ui/components.tsx';
import { formatDateTime } from '../ui/dates.ts';
import { messageAt } from '../ui/problems.ts';
import { QueryView } from '../ui/queries.tsx';
import { roleError } from './integrations-parts.tsx';

type DnsRecord = SendingDomain['dnsRecords'][number];

/** What each record is for, in words a merchant can pass to whoever runs their DNS. */
function purpose(record: DnsRecord, index: number): string {
  if (record.type === 'CNAME') return `DKIM signing key ${index + 1}`;
  if (record.type === 'MX') return 'Bounces (return path)';
  return 'SPF: allows the platform to send for the return path';
}

function Why({ sender }: { sender: SenderState }) {
  const domain = sender.domain;
  if (sender.mode === 'custom-domain') {
    return <p>Customers see your own address: {domain?.domain ?? 'your domain'} is verified.</p>;
  }
  if (!domain) {
    return (
      <p>
        This is the platform’s address with your store name, because you have no sending domain. Register your
        domain below so customers see an address of your own.
      </p>
    );
  }
  if (domain.status === 'failed') {
    return (
      <p>
        This is the platform’s fallback address, because verification of <strong>{domain.domain}</strong> gave
        up
        {domain.failedAt ? ` on ${formatDateTime(domain.failedAt)}` : ''}. Fix the records marked below and
        press “Verify now” to try again.
      </p>
    );
  }
  return (
    <p>
      This is the platform’s fallback address until <strong>{domain.domain}</strong> is verified: publish the
      five DNS records below. Checks run every few minutes; DNS changes can take a while to appear.
    </p>
  );
}

function RecordsTable({ domain }: { domain: SendingDomain }) {
  return (
    <div className="table-wrap contained">
      <table className="dns-records">
        <caption className="visually-hidden">DNS records for {domain.domain}</caption>
        <thead>
          <tr>
            <th scope="col">Type</th>
            <th scope="col">Name</th>
            <th scope="col">Value</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {domain.dnsRecords.map((record, index) => (
            <tr key={`${record.type} ${record.name} ${record.value}`} data-record={index}>
              <td>
                <strong>{record.type}</strong>
                <br />
                <span className="muted">{purpose(record, index)}</span>
              </td>
              <td>
                <div className="dns-value">
                  <code data-testid="record-name">{record.name}</code>
                  <CopyButton value={record.name} label="Copy name" />
                </div>
              </td>
              <td>
                <div className="dns-value">
                  <code data-testid="record-value">{record.value}</code>
                  <CopyButton value={record.value} label="Copy value" />
                </div>
                {record.priority !== undefined ? (
                  <span className="muted">Priority {record.priority}</span>
                ) : null}
              </td>
              <td>
                <StatusBadge status={record.status} />
                {record.status === 'pending' ? (
                  <span className="hint">
                    <br />
                    Not found yet
                  </span>
                ) : record.status === 'failed' ? (
                  <span className="hint">
                    <br />
                    Missing or a different value
                  </span>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Domain({ domain }: { domain: SendingDomain }) {
  const [checked, setChecked] = useState<string | null>(null);
  // The panel is read again first, so the message never shows beside the state it replaces.
  const verify = useVerifyDomain({
    onSuccess: (next) => {
      const found = next.dnsRecords.filter((record) => record.status === 'verified').length;
      setChecked(
        next.status === 'verified'
          ? `${next.domain} is verified: store mail now goes from your domain.`
          : `Checked just now: ${found} of ${next.dnsRecords.length} records are right.`,
      );
    },
  });
  const remove = useDeleteDomain();
  const verifiedCount = domain.dnsRecords.filter((record) => record.status === 'verified').length;

  return (
    <section className="panel" aria-labelledby="domain-title">
      <div className="section-title-row">
        <h2 id="domain-title">Sending domain {domain.domain}</h2>
        <StatusBadge status={domain.status} />
      </div>
      <dl className="def-list">
        <dt>Sender address</dt>
        <dd>
          <code>
            {domain.fromLocalPart}@{domain.domain}
          </code>{' '}
          {domain.status === 'verified' ? '' : '(once verified)'}
        </dd>
        <dt>Records</dt>
        <dd>
          {verifiedCount} of {domain.dnsRecords.length} found
        </dd>
        <dt>Last checked</dt>
        <dd>{domain.lastCheckedAt ? formatDateTime(domain.lastCheckedAt) : 'Not yet'}</dd>
        {domain.verifiedAt ? (
          <>
            <dt>Verified</dt>
            <dd>{formatDateTime(domain.verifiedAt)}</dd>
          </>
        ) : null}
        <dt>Registered</dt>
        <dd>{formatDateTime(domain.createdAt)}</dd>
        {domain.releaseAt ? (
          <>
            <dt>Verify by</dt>
            <dd data-testid="release-at">
              {formatDateTime(domain.releaseAt)}; after that the domain is released for others to register
            </dd>
          </>
        ) : null}
      </dl>
      <h3>DNS records</h3>
      <p className="muted">
        Add these five records at your DNS provider. Names are complete (some providers want only the part
        before <code>.{domain.domain}</code>).
      </p>
      <RecordsTable domain={domain} />
      {checked ? <Notice tone="success">{checked}</Notice> : null}
      <ErrorBanner error={verify.error ?? remove.error} />
      <div className="actions actions-spaced">
        <button type="button" className="primary" onClick={() => verify.mutate()} disabled={verify.isPending}>
          {verify.isPending ? 'Checking…' : 'Verify now'}
        </button>
        <ConfirmButton
          title={`Remove ${domain.domain}?`}
          body={
            <p>
              Store mail not yet sent goes out from the platform’s fallback address. To use the domain again
              you register it and publish new records.
            </p>
          }
          confirmLabel="Remove domain"
          onConfirm={() => remove.mutate()}
          disabled={remove.isPending}
        >
          Remove domain
        </ConfirmButton>
      </div>
    </section>
  );
}

function RegisterDomain() {
  const [domain, setDomain] = useState('');
  const [localPart, setLocalPart] = useState('orders');
  const [submitted, setSubmitted] = useState(false);
  const register = useRegisterDomain();
  const cleaned = domain
    .trim()
    .replace(/^https?:\/\//i, '')
    .replace(/\/.*$/, '');
  const domainError =
    domain.trim() === ''
      ? 'Enter your domain, like example.com.'
      : !cleaned.includes('.') || /[\s@]/.test(cleaned)
        ? 'Enter only the domain, like example.com.'
        : undefined;
  const localError =
    localPart.trim() === ''
      ? 'Enter the part before the @, like orders.'
      : /[\s@]/.test(localPart.trim())
        ? 'Only the part before the @, without spaces.'
        : undefined;

  function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (domainError || localError) return;
    if (cleaned !== domain.trim()) setDomain(cleaned);
    register.mutate({ domain: domain.trim(), fromLocalPart: localPart.trim() });
  }

  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="register-title">
      <h2 id="register-title">Send from your own domain</h2>
      <p className="muted">
        Register a domain you control; you then publish five DNS records so mail from it is signed (DKIM) and
        bounces come back.
      </p>
      <div className="grid-2">
        <TextField
          label="Domain"
          name="domain"
          value={domain}
          onChange={(event) => setDomain(event.target.value)}
          placeholder="example.com"
          spellCheck={false}
          autoCapitalize="off"
          required
          error={(submitted ? domainError : undefined) ?? messageAt(register.error, '/domain')}
        />
        <TextField
          label="Sender name before the @"
          name="fromLocalPart"
          value={localPart}
          onChange={(event) => setLocalPart(event.target.value)}
          spellCheck={false}
          autoCapitalize="off"
          required
          hint={
            cleaned && !domainError ? `Mail will come from ${localPart.trim() || '…'}@${cleaned}` : undefined
          }
          error={(submitted ? localError : undefined) ?? messageAt(register.error, '/fromLocalPart')}
        />
      </div>
      <ErrorBanner error={register.error} />
      <button type="submit" className="primary" disabled={register.isPending}>
        {register.isPending ? 'Registering…' : 'Register domain'}
      </button>
    </form>
  );
}

function ReplyTo({ current }: { current: string | null }) {
  const [value, setValue] = useState(current ?? '');
  const [saved, setSaved] = useState(false);
  // Done once the sender's state (which shows the reply-to) is read again.
  const save = useUpdateSettings({ onSuccess: () => setSaved(true) });
  const error =
    value.trim() === '' ? 'A reply-to address is required: customers’ replies go there.' : undefined;
  const [submitted, setSubmitted] = useState(false);

  function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    setSaved(false);
    if (error) return;
    save.mutate({ replyToEmail: value.trim() });
  }

  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="reply-to-title">
      <h2 id="reply-to-title">Reply-to address</h2>
      <p className="muted">
        When customers reply to a store email, the reply goes here, whatever the sender.
      </p>
      <div className="inline-form">
        <TextField
          label="Reply-to email"
          name="replyToEmail"
          type="email"
          autoComplete="email"
          value={value}
          onChange={(event) => {
            setValue(event.target.value);
            setSaved(false);
          }}
          required
          error={(submitted ? error : undefined) ?? messageAt(save.error, '/replyToEmail')}
        />
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save reply-to'}
        </button>
      </div>
      {messageAt(save.error, '/replyToEmail') ? null : <ErrorBanner error={save.error} />}
      {saved ? <Notice tone="success">Reply-to address saved.</Notice> : null}
    </form>
  );
}

export function Email() {
  const sender = useSender();

  return (
    <>
      <PageHeader title="Email">
        <p className="muted">
          The sender of your store’s mail to customers: order confirmations and refund notices.
        </p>
      </PageHeader>
      <QueryView
        query={sender}
        loading="Loading the email sender…"
        error={roleError('owners and admins', 'manage the email sender')}
      >
        {(data) => (
          <>
            <section className="panel" aria-labelledby="sender-title">
              <h2 id="sender-title">Sender</h2>
              <p className="sender-line">
                Store mail goes from{' '}
                <strong data-testid="effective-from">
                  {data.effectiveFromName} &lt;{data.effectiveFrom}&gt;
                </strong>{' '}
                <StatusBadge status={data.mode === 'custom-domain' ? 'verified' : 'fallback'} />
              </p>
              <Why sender={data} />
              <p>
                Replies go to{' '}
                <strong>{data.replyTo ?? <span className="muted">nobody (no reply-to set)</span>}</strong>.
              </p>
            </section>
            {data.domain ? <Domain domain={data.domain} /> : <RegisterDomain />}
            <ReplyTo current={data.replyTo} />
          </>
        )}
      </QueryView>
    </>
  );
}
