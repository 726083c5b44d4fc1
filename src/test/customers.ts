import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { addressesOf, readMailDir, waitForMail, type TestApp, type TestStore } from './harness.ts';

/** A customer's session as `POST /storefront/v1/customers/verify` answers it. */
export interface CustomerSession {
  token: string;
  expiresAt: string;
  customer: { id: string } & Record<string, unknown>;
}

/**
 * Signs a customer in by code through the Storefront API, as a shop does (decision
 * `customer-sign-in`): asks for a code from client address `ip`, reads it from the mail the store
 * sends, and verifies it. `email` defaults to a new member's.
 */
export async function signInCustomer(
  t: Pick<TestApp, 'app' | 'config'>,
  shop: TestStore,
  { email = `member-${randomUUID().slice(0, 8)}@example.com`, ip }: { email?: string; ip: string },
): Promise<CustomerSession> {
  const call = (url: string, payload: object) =>
    t.app.inject({
      method: 'POST',
      url: `/storefront/v1/customers/${url}`,
      headers: { 'x-publishable-key': shop.publishableKey },
      payload,
      remoteAddress: ip,
    });
  const transport = t.config.emailTransport;
  const before = transport.kind === 'file' ? await readMailDir(transport.dir) : [];
  const count = before.filter((mail) => addressesOf(mail).includes(email)).length;
  const asked = await call('sign-in', { email });
  assert.equal(asked.statusCode, 202, asked.body);
  const code = /\b(\d{6})\b/.exec((await waitForMail(t, email, count + 1)).text ?? '')?.[1];
  assert.ok(code, `no sign-in code in the mail to ${email}`);
  const verified = await call('verify', { email, code });
  assert.equal(verified.statusCode, 200, verified.body);
  return verified.json();
}
