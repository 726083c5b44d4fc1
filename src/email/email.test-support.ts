/**
 * Test helpers for sender identity tests (not a test file itself): a real SMTP server on loopback
 * that keeps every message with its envelope, a DKIM verifier (RFC 6376, rsa-sha256,
 * relaxed/relaxed) that fetches the public key over DNS like a receiving server, and Admin API
 * shortcuts.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { addStaffMember, openStaffSession } from '../staff/staff.service.ts';
import { waitFor, type TestApp, type TestStore } from '../test/harness.ts';
import type { SenderState, SendingDomain } from './email.service.ts';
import type { StaffRole } from '../http/principals.ts';

export interface ReceivedMail {
  /** SMTP MAIL FROM: the envelope sender, which the receiver records as Return-Path. */
  mailFrom: string;
  rcptTo: string[];
  raw: Buffer;
  parsed: ParsedMail;
}

export interface SmtpSink {
  url: string;
  messages: ReceivedMail[];
  /** Waits for the `count`-th message to `to` and returns it. */
  waitFor(to: string, count?: number): Promise<ReceivedMail>;
  /**
   * Resolves once no client is connected and every message received is in `messages`: after its
   * senders are gone, nothing more can arrive.
   */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * `delayMs`: how long the server takes to accept each message (a slow relay); `refuse`: every
 * recipient is refused with this permanent error (`550 …`), as a server refusing to relay does.
 */
export async function startSmtpSink(options: { delayMs?: number; refuse?: string } = {}): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  const delayMs = options.delayMs ?? 0;
  const { refuse } = options;
  /** Open connections and messages still being parsed; `idle()` waits for both to be none. */
  let busy = 0;
  let idleWaiters: (() => void)[] = [];
  const done = (): void => {
    busy -= 1;
    if (busy > 0) return;
    for (const resolve of idleWaiters) resolve();
    idleWaiters = [];
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect(_session, callback) {
      busy += 1;
      callback();
    },
    onClose: done,
    onRcptTo(address, _session, callback) {
      if (refuse === undefined) return callback();
      return callback(Object.assign(new Error(`${refuse} <${address.address}>`), { responseCode: 550 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        const envelope = session.envelope;
        busy += 1;
        void simpleParser(raw)
          .then((parsed) => {
            messages.push({
              mailFrom: envelope.mailFrom === false ? '' : envelope.mailFrom.address,
              rcptTo: envelope.rcptTo.map((rcpt) => rcpt.address),
              raw,
              parsed,
            });
            if (delayMs > 0) setTimeout(callback, delayMs);
            else callback();
          }, callback)
          .finally(done);
      });
    },
  });
  // A client killed mid-transaction resets its connection; smtp-server reports that as an 'error'
  // event, which would crash the test process without a listener. The sender's side is what the
  // tests check, so the sink only ignores it, like a real server logs and carries on.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    waitFor(to, count = 1) {
      return waitFor(
        () => {
          const found = messages.filter((m) => m.rcptTo.includes(to));
          return found.length >= count ? found[count - 1] : undefined;
        },
        10_000,
        `SMTP mail #${count} to ${to}`,
      );
    },
    idle: () => (busy === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface HeaderField {
  name: string;
  /** The whole field as received (name, colon, value, folded lines), without the final CRLF. */
  raw: string;
}

function splitMessage(raw: Buffer): { headers: HeaderField[]; body: string } {
  const text = raw.toString('latin1').replace(/\r?\n/g, '\r\n');
  const end = text.indexOf('\r\n\r\n');
  const head = end === -1 ? text : text.slice(0, end);
  const body = end === -1 ? '' : text.slice(end + 4);
  const headers: HeaderField[] = [];
  for (const line of head.split('\r\n')) {
    if (/^[ \t]/.test(line) && headers.length > 0) headers.at(-1)!.raw += `\r\n${line}`;
    else headers.push({ name: line.slice(0, line.indexOf(':')).trim().toLowerCase(), raw: line });
  }
  return { headers, body };
}

function relaxedHeader(field: HeaderField): string {
  const value = field.raw
    .slice(field.raw.indexOf(':') + 1)
    .replace(/\r\n/g, '')
    .replace(/[ \t]+/g, ' ')
    .trim();
  return `${field.name}:${value}`;
}

function relaxedBody(body: string): string {
  const lines = body.split('\r\n').map((line) => line.replace(/[ \t]+/g, ' ').replace(/ $/, ''));
  while (lines.length > 0 && lines.at(-1) === '') lines.pop();
  return lines.length === 0 ? '' : `${lines.join('\r\n')}\r\n`;
}

function tagsOf(list: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of list.split(';')) {
    const index = part.indexOf('=');
    if (index === -1) continue;
    tags.set(part.slice(0, index).trim(), part.slice(index + 1).replace(/\s+/g, ''));
  }
  return tags;
}

export interface DkimResult {
  domain: string;
  selector: string;
  /** The signed header fields (h=). */
  signedHeaders: string[];
}

/**
 * Verifies the message's DKIM-Signature the way a receiving server does: body hash, then the
 * signature over the signed headers with the key found in DNS at `<s>._domainkey.<d>` (following
 * CNAMEs). Throws when anything does not match.
 */
export async function verifyDkim(raw: Buffer, dnsServer: string): Promise<DkimResult> {
  const { headers, body } = splitMessage(raw);
  const signature = headers.find((h) => h.name === 'dkim-signature');
  if (!signature) throw new Error('no DKIM-Signature header');
  const tags = tagsOf(signature.raw.slice(signature.raw.indexOf(':') + 1));
  const [domain, selector, bh, b, h, a, c] = ['d', 's', 'bh', 'b', 'h', 'a', 'c'].map((t) => tags.get(t));
  if (!domain || !selector || !bh || !b || !h) throw new Error('DKIM-Signature lacks d, s, bh, b or h');
  if (a !== 'rsa-sha256' || c !== 'relaxed/relaxed') throw new Error(`unsupported a=${a} c=${c}`);

  const bodyHash = createHash('sha256').update(relaxedBody(body), 'latin1').digest('base64');
  if (bodyHash !== bh) throw new Error('DKIM body hash does not match');

  const signedHeaders = h.split(':').map((name) => name.trim().toLowerCase());
  const used = new Map<string, number>();
  const lines: string[] = [];
  for (const name of signedHeaders) {
    const instances = headers.filter((field) => field.name === name && field !== signature);
    const seen = used.get(name) ?? 0;
    const field = instances[instances.length - 1 - seen];
    used.set(name, seen + 1);
    if (field) lines.push(`${relaxedHeader(field)}\r\n`);
  }
  const unsigned = { ...signature, raw: signature.raw.replace(/(^|;)(\s*b\s*=)[^;]*/, '$1$2') };
  const data = lines.join('') + relaxedHeader(unsigned);

  const resolver = new Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([dnsServer]);
  const txt = (await resolver.resolveTxt(`${selector}._domainkey.${domain}`)).map((r) => r.join(''));
  const key = txt.map(tagsOf).find((t) => t.get('v') === 'DKIM1' && t.get('p'));
  if (!key) throw new Error(`no DKIM key at ${selector}._domainkey.${domain}`);
  const publicKey = createPublicKey({
    key: Buffer.from(key.get('p')!, 'base64'),
    format: 'der',
    type: 'spki',
  });
  if (!verify('sha256', Buffer.from(data, 'latin1'), publicKey, Buffer.from(b, 'base64'))) {
    throw new Error('DKIM signature does not verify');
  }
  return { domain, selector, signedHeaders };
}

/** A fresh domain name no other test uses. */
export function uniqueDomain(label = 'shop'): string {
  return `${label}-${randomUUID().slice(0, 8)}.example.com`;
}

/** A staff session opened at the app clock's time (so it is valid after the clock moved). */
export async function tokenFor(t: TestApp, shop: TestStore, email = shop.ownerEmail): Promise<string> {
  const session = await openStaffSession(t.deps, shop.store.id, email);
  return session.token;
}

/** A new staff member with `role` and a session token for them. */
export async function memberToken(t: TestApp, shop: TestStore, role: StaffRole): Promise<string> {
  const email = `${role}-${randomUUID().slice(0, 8)}@example.com`;
  await addStaffMember(t.deps, shop.store.id, { email, role });
  return tokenFor(t, shop, email);
}

export interface EmailApi {
  register(
    domain: string,
    fromLocalPart?: string,
  ): Promise<{ statusCode: number; body: SendingDomain & { title?: string } }>;
  verify(): Promise<{ statusCode: number; body: SendingDomain & { title?: string } }>;
  get(): Promise<{ statusCode: number; body: SendingDomain & { title?: string } }>;
  remove(): Promise<{ statusCode: number; body: string }>;
  sender(): Promise<{ statusCode: number; body: SenderState & { title?: string } }>;
}

/** The email Admin API as one staff member (the token is fetched per call, so clock moves are fine). */
export function emailApi(t: TestApp, token: string | (() => Promise<string>)): EmailApi {
  const headers = async () => ({
    authorization: `Bearer ${typeof token === 'string' ? token : await token()}`,
  });
  const call = async <T>(method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) => {
    const response = await t.app.inject({ method, url, headers: await headers(), payload });
    return {
      statusCode: response.statusCode,
      body: (response.body === '' ? {} : response.json()) as T,
    };
  };
  return {
    register: (domain, fromLocalPart = 'orders') =>
      call('POST', '/admin/v1/email/sending-domain', { domain, fromLocalPart }),
    verify: () => call('POST', '/admin/v1/email/sending-domain/verify'),
    get: () => call('GET', '/admin/v1/email/sending-domain'),
    remove: async () => {
      const response = await t.app.inject({
        method: 'DELETE',
        url: '/admin/v1/email/sending-domain',
        headers: await headers(),
      });
      return { statusCode: response.statusCode, body: response.body };
    },
    sender: () => call('GET', '/admin/v1/email/sender'),
  };
}
