import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.ts';
import { CONSOLE_DIST, SHOP_DIST } from './web/sites.ts';

/**
 * What in a configuration is a development convenience or unsafe to expose (D51). `storefront
 * doctor` lists these and exits 1 when any is `unsafe`; `serve` prints the same at start, so nobody
 * runs a development configuration in production unawares.
 */
export interface Finding {
  /** `unsafe`: fix before exposing the service. `advice`: worth knowing, not a risk by itself. */
  readonly severity: 'unsafe' | 'advice';
  /** The environment variable(s) that change it. */
  readonly variable: string;
  readonly message: string;
}

/** What the findings read besides the configuration (tests give their own). */
export interface DoctorFacts {
  /** Whether a built front end is present in this directory. */
  readonly built: (dir: string) => boolean;
}

export const hostFacts: DoctorFacts = {
  built: (dir) => fs.existsSync(path.join(dir, 'index.html')),
};

/**
 * A per-client budget this high lets one client send as much as it likes: the limit is off in all
 * but name (the benchmarks raise them so; a deployment should not).
 */
export const UNLIMITED_PER_CLIENT = 1_000_000;

function isLoopbackHost(host: string): boolean {
  const name = host.replace(/^\[|\]$/g, '').toLowerCase();
  return name === 'localhost' || name === '::1' || name.startsWith('127.');
}

export function findings(config: Readonly<Config>, facts: DoctorFacts = hostFacts): Finding[] {
  const found: Finding[] = [];
  const unsafe = (variable: string, message: string) => found.push({ severity: 'unsafe', variable, message });
  const advice = (variable: string, message: string) => found.push({ severity: 'advice', variable, message });
  const publicBind = !isLoopbackHost(config.host);

  if (!config.production && publicBind)
    unsafe(
      'NODE_ENV, HOST',
      `Listening on ${config.host}, beyond this machine, in development mode: set NODE_ENV=production for a deployment.`,
    );
  if (config.devMailbox)
    unsafe(
      'DEV_MAILBOX',
      'The dev mailbox shows sign-in codes at /admin/dev/mailbox to requests from this machine (file mail, development mode).',
    );
  if (config.emailTransport.kind === 'file')
    unsafe(
      'EMAIL_TRANSPORT',
      `Mail is written to files in ${config.emailTransport.dir}, not sent: customers and staff get no mail. Name an smtp(s):// server.`,
    );
  if (config.secretKey === null)
    unsafe(
      'SECRET_KEY',
      'SECRET_KEY is not set: stored secrets are sealed under a root kept in the database itself, so a copy of the database opens them.',
    );
  if (config.seedDemo)
    unsafe(
      'SEED_DEMO',
      'The demo store is created at start when missing (slug "demo", owner owner@demo.storefront.test).',
    );
  if (config.webhooks.allowHttp)
    unsafe('ALLOW_HTTP_WEBHOOKS', 'Webhooks may go to plain http:// URLs on loopback.');
  if (config.payments.provider === 'sandbox' && config.production)
    unsafe(
      'PAYMENT_PROVIDER',
      'Payments go to the built-in sandbox: every buyer can pay with a test card. Set PAYMENT_PROVIDER=stripe.',
    );
  if (config.payments.stripeApiBase !== null)
    advice('STRIPE_API_BASE', `Stripe calls go to ${config.payments.stripeApiBase}, not api.stripe.com.`);
  if (config.trustProxy === true)
    unsafe(
      'TRUST_PROXY',
      'TRUST_PROXY=true believes every X-Forwarded-For hop, so any client can choose the address its rate limits count: list your proxies instead.',
    );
  const limits = config.rateLimits;
  const unlimited = (
    [
      ['RATE_LIMIT_IP_READ', limits.ipRead],
      ['RATE_LIMIT_IP_WRITE', limits.ipWrite],
      ['RATE_LIMIT_SIGN_IN', limits.signIn],
      ['RATE_LIMIT_CUSTOMER_SIGN_IN', limits.customerSignIn],
      ['RATE_LIMIT_ADMIN_IP', limits.adminIp],
    ] as const
  ).filter(([, value]) => value >= UNLIMITED_PER_CLIENT);
  if (unlimited.length > 0)
    unsafe(
      unlimited.map(([name]) => name).join(', '),
      `Rate limits are off: a budget of ${UNLIMITED_PER_CLIENT.toLocaleString('en-US')} or more requests per client and window limits nobody.`,
    );
  if (config.metrics.port !== null && !isLoopbackHost(config.metrics.host) && config.metrics.token === null)
    unsafe(
      'METRICS_HOST, METRICS_TOKEN',
      `/metrics answers anyone who reaches ${config.metrics.host}:${config.metrics.port}: bind it to loopback or a private address, or set METRICS_TOKEN.`,
    );
  if (config.databaseUrl === null && config.production)
    advice(
      'DATABASE_URL',
      'The embedded database runs in this one process: no second process, no replication, no online backup (docs/operations.md).',
    );
  if (config.databaseUrl !== null && config.redisUrl === null)
    advice(
      'REDIS_URL',
      'Rate limits are counted per process: with several API processes each allows the whole budget.',
    );
  if (config.production && !config.publicBaseUrl.startsWith('https://') && publicBind)
    advice(
      'PUBLIC_BASE_URL',
      `Links in mail and the API reference point to ${config.publicBaseUrl}, not https.`,
    );
  if (config.adminUi && !facts.built(CONSOLE_DIST))
    unsafe('ADMIN_UI', 'The console is not built: /admin has nothing to serve. Run `npm run build` first.');
  if (config.shopUi && !facts.built(SHOP_DIST))
    unsafe('SHOP_UI', 'The shop is not built: /shop has nothing to serve. Run `npm run build` first.');
  return found;
}

/** The report `storefront doctor` prints. */
export function doctorReport(config: Readonly<Config>, found: readonly Finding[]): string {
  const mode = config.production ? 'production mode' : 'development mode (NODE_ENV is not production)';
  const database = config.databaseUrl === null ? `embedded database in ${config.dataDir}` : 'PostgreSQL';
  const lines = [`storefront doctor: ${mode}, ${database}, listening on ${config.host}:${config.port}`, ''];
  if (found.length === 0) lines.push('Nothing unsafe found.');
  for (const finding of found)
    lines.push(
      `${finding.severity === 'unsafe' ? 'UNSAFE' : 'advice'}  ${finding.variable}: ${finding.message}`,
    );
  const count = found.filter((finding) => finding.severity === 'unsafe').length;
  if (count > 0)
    lines.push('', `${count} unsafe setting${count === 1 ? '' : 's'}: fix before exposing the service.`);
  return `${lines.join('\n')}\n`;
}
