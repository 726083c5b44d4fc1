/**
 * Signing in: the two calls made before there is a session (ask for a code, trade it for a session
 * token), and the dev mailbox the sign-in page reads codes from (`GET /admin/dev/mailbox`,
 * development only: not the Admin API, so a plain fetch, read every two seconds while the page is
 * open).
 */
import { createAdminClient, type RequestBody } from '@storefront/client';
import { useQuery } from '@tanstack/react-query';

/** The Admin API without a session: only the sign-in calls work. */
const anonymous = () => createAdminClient({ baseUrl: location.origin, token: null });

/** Emails a 6-digit sign-in code to the staff member of that store (answered alike when there is none). */
export function requestSignInCode(body: RequestBody<'adminRequestSignInCode'>) {
  return anonymous().request('adminRequestSignInCode', { body });
}

/** Trades the code for a session token and its expiry. */
export function verifySignInCode(body: RequestBody<'adminVerifySignInCode'>) {
  return anonymous().request('adminVerifySignInCode', { body });
}

export interface DevMail {
  id: string;
  to: string;
  subject: string;
  date: string;
  text: string;
}

export const signInKeys = {
  devMailbox: ['dev-mailbox'] as const,
};

/**
 * The platform mail of the dev mailbox; null where it does not exist (SMTP, production), 'local-only'
 * when the console was not opened from this machine as localhost (the mailbox answers 403 then).
 */
async function fetchDevMailbox(): Promise<DevMail[] | null | 'local-only'> {
  const response = await fetch('/admin/dev/mailbox', { headers: { accept: 'application/json' } });
  if (response.status === 404) return null;
  if (response.status === 403) return 'local-only';
  if (!response.ok) throw new Error(`The dev mailbox answered ${response.status}.`);
  return ((await response.json()) as { mails: DevMail[] }).mails;
}

export function useDevMailbox() {
  return useQuery({ queryKey: signInKeys.devMailbox, queryFn: fetchDevMailbox, refetchInterval: 2000 });
}
