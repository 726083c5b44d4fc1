/**
 * What the fault tests of a real `storefront serve` share (src/http/outage.test.ts,
 * src/http/stall.test.ts, src/db/dropped-database.test.ts): the process reaching PostgreSQL through
 * a TCP proxy the test controls, its log lines, and a whole purchase over HTTP to show that it
 * sells again by itself.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { serveProcess, waitFor, type ServiceProcess, type TestApp, type TestDb } from './harness.ts';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';

/** `storefront serve` on the test database (PostgreSQL), through a proxy the test can cut or stall. */
export async function serveThroughProxy(
  db: TestDb,
  t: TestApp,
  env: Record<string, string | undefined>,
): Promise<{ proxy: TcpProxy; server: ServiceProcess }> {
  const target = new URL(db.url!);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const throughProxy = new URL(db.url!);
  throughProxy.hostname = '127.0.0.1';
  throughProxy.port = String(proxy.port);
  const server = await serveProcess(db, t.config.secretKey!, { ...env, DATABASE_URL: throughProxy.href });
  return { proxy, server };
}

/** Stops the process (SIGTERM) unless it ended already. */
export async function stopProcess(server: ServiceProcess): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill('SIGTERM');
  await new Promise((resolve) => server.child.once('exit', resolve));
}

export interface LogLine {
  level: number;
  msg: string;
  err?: unknown;
  /** The worker loop a line is about, where it names one. */
  loop?: string;
}

/** The JSON log lines the process wrote after `offset` characters of its output. */
export function logLinesSince(server: ServiceProcess, offset: number): LogLine[] {
  return server
    .output()
    .slice(offset)
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

/** Whether a log line carries a stack trace. */
export const hasStack = (line: object): boolean => JSON.stringify(line).includes('    at ');

/**
 * A whole purchase against the process: a cart of `variantId` (or the cart given), the checkout,
 * the sandbox's confirmation, and the order read back until it is paid.
 */
export async function purchase(
  server: ServiceProcess,
  publishableKey: string,
  items: { cartId: string } | { variantId: string },
): Promise<void> {
  const storefront = (method: string, path: string, body?: object, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/storefront/v1${path}`, {
      method,
      headers: {
        'x-publishable-key': publishableKey,
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  let cartId: string;
  if ('cartId' in items) cartId = items.cartId;
  else {
    const cart = await storefront('POST', '/carts', { items: [{ variantId: items.variantId, quantity: 1 }] });
    assert.equal(cart.status, 201, await cart.clone().text());
    cartId = ((await cart.json()) as { id: string }).id;
  }
  const checkout = await storefront(
    'POST',
    '/checkout',
    { cartId, email: 'buyer@example.com' },
    { 'idempotency-key': randomUUID() },
  );
  assert.equal(checkout.status, 201, await checkout.clone().text());
  const { order, payment } = (await checkout.json()) as {
    order: { id: string };
    payment: { ref: string; clientSecret: string };
  };
  const confirm = await fetch(`${server.url}/sandbox/v1/payments/${payment.ref}/confirm`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ clientSecret: payment.clientSecret, paymentMethod: 'pm_card_visa' }),
  });
  assert.equal(confirm.status, 200);
  await waitFor(
    async () =>
      ((await (await storefront('GET', `/orders/${order.id}`)).json()) as { status: string }).status ===
      'paid',
    15_000,
    'the order to be paid',
  );
}
