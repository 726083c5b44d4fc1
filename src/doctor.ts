import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.ts';
import { estimatedBits, GUESSABLE_BELOW_BITS } from './lib/guessable.ts';
import { publicCoverage } from './lib/ip-ranges.ts';
import { CONSOLE_DIST, SHOP_DIST } from './web/sites.ts';

/**
 * What in a configuration is a development convenience or unsafe to expose (decision `production-mode`). `storefront
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
  secretFindings(config, unsafe);
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
  connectionFindings(config, unsafe);
  trustProxyFindings(config, unsafe);
  rateLimitFindings(config, unsafe);
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

type Report = (variable: string, message: string) => void;

/**
 * A value left as deploy/storefront.env.example has it, or written the same way: `change-me`,
 * `change_me`, `changeme`, `replace-me`.
 */
const PLACEHOLDER = /change[-_ ]?me|replace[-_ ]?me/i;
/** The domains reserved for examples (RFC 2606): no deployment's own. */
const EXAMPLE_DOMAIN = /(^|\.)(example\.(com|net|org)|[^.]+\.example)\.?$/i;

/** Secrets left as placeholders, or easy to guess; a Stripe test key in production mode. */
function secretFindings(config: Readonly<Config>, unsafe: Report): void {
  const generate = 'generate one (`openssl rand -base64 48`) and keep it in your secret store';
  const guessable = (name: string, value: string | null, what: string) => {
    if (value === null) return;
    if (PLACEHOLDER.test(value))
      unsafe(name, `${name} is a placeholder (as deploy/storefront.env.example has it): ${what}.`);
    else if (estimatedBits(value) < GUESSABLE_BELOW_BITS)
      unsafe(
        name,
        `${name} is easy to guess: ${[...value].length} characters with too little variety (repeated, or few distinct characters): ${what}.`,
      );
  };
  guessable('SECRET_KEY', config.secretKey, generate);
  guessable('METRICS_TOKEN', config.metrics.token, `${generate}; Prometheus sends it as its bearer token`);
  const { provider, stripeSecretKey, stripeWebhookSecret } = config.payments;
  if (provider !== 'stripe') return;
  const placeholders = (
    [
      ['STRIPE_SECRET_KEY', stripeSecretKey],
      ['STRIPE_WEBHOOK_SECRET', stripeWebhookSecret],
    ] as const
  ).filter(([, value]) => value !== null && PLACEHOLDER.test(value));
  if (placeholders.length > 0)
    unsafe(
      placeholders.map(([name]) => name).join(', '),
      "Stripe's keys are placeholders (as deploy/storefront.env.example has them): set the secret key and the webhook signing secret of your Stripe account.",
    );
  else if (config.production && /^(sk|rk)_test_/.test(stripeSecretKey ?? ''))
    unsafe(
      'STRIPE_SECRET_KEY',
      "STRIPE_SECRET_KEY is a test-mode key (sk_test_…) in production mode: Stripe takes no real money, and its test cards pay for every order. Use the account's live key (sk_live_…).",
    );
}

/** Where the service connects: placeholders of the example, credentials or data in clear. */
function connectionFindings(config: Readonly<Config>, unsafe: Report): void {
  const example = (name: string, host: string | null) => {
    if (host !== null && EXAMPLE_DOMAIN.test(host))
      unsafe(
        name,
        `${name} names ${host}, a domain reserved for examples (left as deploy/storefront.env.example has it): set this deployment's own.`,
      );
  };
  example('PUBLIC_BASE_URL', new URL(config.publicBaseUrl).hostname);
  example('PLATFORM_MAIL_DOMAIN', config.platformMailDomain);
  if (config.emailTransport.kind === 'smtp') {
    const smtp = new URL(config.emailTransport.url);
    const password = decodeURIComponent(smtp.password);
    if (EXAMPLE_DOMAIN.test(smtp.hostname) || PLACEHOLDER.test(password) || password === 'password')
      unsafe(
        'EMAIL_TRANSPORT',
        'EMAIL_TRANSPORT is a placeholder (as deploy/storefront.env.example has it: an example server or password): name your mail server and its credentials.',
      );
    // nodemailer reads `requireTLS` from the URL: STARTTLS or no mail, never the password in clear.
    const requireTls = /^(true|[1-9]\d*)$/.test(smtp.searchParams.get('requireTLS') ?? '');
    if (smtp.protocol === 'smtp:' && password !== '' && !requireTls && !isLoopbackHost(smtp.hostname))
      unsafe(
        'EMAIL_TRANSPORT',
        `Mail goes to ${smtp.hostname} over plain smtp:// with a password: it travels in clear unless the server offers STARTTLS, and anyone on the way can remove the offer. Use smtps:// (port 465), or add ?requireTLS=true for STARTTLS (port 587).`,
      );
  }
  for (const [name, value] of [
    ['DATABASE_URL', config.databaseUrl],
    ['DATABASE_REPLICA_URL', config.databaseReplicaUrl],
  ] as const) {
    if (value === null) continue;
    const database = postgresTarget(value);
    example(name, database.host);
    if (!database.local && !database.tls)
      unsafe(
        name,
        `${name} reaches ${database.host} without TLS: the password and every row cross the network in clear. Add ?sslmode=verify-full (with the server's CA in sslrootcert), or at least sslmode=require.`,
      );
  }
  if (config.redisUrl !== null) example('REDIS_URL', new URL(config.redisUrl).hostname);
}

/**
 * Where a PostgreSQL URL connects and whether with TLS, as node-postgres (pg-connection-string)
 * reads it: a `host` parameter wins over the URL's host (a path is a Unix socket); TLS with `ssl=true`
 * (or 1), any `sslmode` but `disable`, a certificate parameter, or `sslnegotiation=direct`.
 */
function postgresTarget(databaseUrl: string): { host: string; local: boolean; tls: boolean } {
  const url = new URL(databaseUrl);
  const host = url.searchParams.get('host') ?? decodeURIComponent(url.hostname);
  const has = (name: string) => url.searchParams.has(name);
  const ssl = url.searchParams.get('ssl');
  const tls =
    url.searchParams.get('sslmode') !== 'disable' &&
    (['sslmode', 'sslcert', 'sslkey', 'sslrootcert'].some(has) ||
      ssl === 'true' ||
      ssl === '1' ||
      url.searchParams.get('sslnegotiation') === 'direct');
  return { host, local: host === '' || host.startsWith('/') || isLoopbackHost(host), tls };
}

/**
 * TRUST_PROXY believes X-Forwarded-For from the addresses it lists. Listing a broad share of the
 * public internet (`0.0.0.0/1,128.0.0.0/1`, `::/1`) is `true` by another name: anyone there picks the
 * client address that every per-client limit counts.
 */
function trustProxyFindings(config: Readonly<Config>, unsafe: Report): void {
  const proxies = config.trustProxy;
  const rotate =
    'any client can send its own X-Forwarded-For and get a fresh budget of every per-client limit with each request';
  if (proxies === true) {
    unsafe(
      'TRUST_PROXY',
      `TRUST_PROXY=true believes every X-Forwarded-For hop, so ${rotate}: list your proxies instead.`,
    );
    return;
  }
  if (proxies === false) return;
  const covered = publicCoverage(proxies);
  if (covered.ipv4 >= BROAD_IPV4 || covered.ipv6 >= BROAD_IPV6)
    unsafe(
      'TRUST_PROXY',
      `TRUST_PROXY trusts ${share(covered.ipv4, ALL_PUBLIC.ipv4)} of the public IPv4 addresses and ${share(covered.ipv6, ALL_PUBLIC.ipv6)} of the public IPv6 ones, so ${rotate} from there: list only your proxies' addresses.`,
    );
}

/**
 * More public addresses than this is trusting the internet, not a proxy: about ten times what the
 * largest proxy networks publish (Cloudflare's IPv4 ranges hold ~1.5 million addresses, its IPv6
 * ranges fourteen /32s). A /8 of IPv4, a /24 of IPv6.
 */
const BROAD_IPV4 = 1n << 24n;
const BROAD_IPV6 = 1n << 104n;
const ALL_PUBLIC = publicCoverage(['0.0.0.0/0', '::/0']);

/** `part` of `whole` in per cent, in words. */
function share(part: bigint, whole: bigint): string {
  const percent = Number((part * 1000n) / whole) / 10;
  return part === 0n ? 'none' : percent < 0.1 ? 'less than 0.1 %' : `${percent} %`;
}

/**
 * Sign-in above this many requests a minute per client is no limit: each request may mail a code,
 * and each is a guess at one. Ten times the default (20 a minute).
 */
const SIGN_IN_PER_MINUTE_OFF = 200;

function rateLimitFindings(config: Readonly<Config>, unsafe: Report): void {
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
  const perMinute = (budget: number) => (budget * 60_000) / limits.windowMs;
  const signIn = (
    [
      ['RATE_LIMIT_SIGN_IN', limits.signIn],
      ['RATE_LIMIT_CUSTOMER_SIGN_IN', limits.customerSignIn],
    ] as const
  ).filter(([, value]) => value < UNLIMITED_PER_CLIENT && perMinute(value) > SIGN_IN_PER_MINUTE_OFF);
  if (signIn.length > 0)
    unsafe(
      signIn.map(([name]) => name).join(', '),
      `Sign-in is all but unlimited: more than ${SIGN_IN_PER_MINUTE_OFF} requests a minute per client (with RATE_LIMIT_WINDOW) lets one client mail code after code and guess on. The default is 20 a minute.`,
    );
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
