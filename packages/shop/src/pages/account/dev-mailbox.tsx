/**
 * Development only: the sign-in's code step shows the service's dev mailbox, so the code is read on
 * the page instead of in a mail file.
 */
import { useEffect, useState } from 'preact/hooks';

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
export function DevMailbox({
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
