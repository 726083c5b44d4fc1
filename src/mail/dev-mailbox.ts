/**
 * The dev mailbox: platform mail (sign-in codes, notices to staff) and customers' sign-in codes
 * (store mail of kind `customer_sign_in_code`) read back from the file transport's directory,
 * newest first, so a developer signs in to the console and the shop without opening `.eml` files.
 * Other store mail (orders) is left out. It exists only with the file transport outside production (Config.devMailbox): with
 * SMTP the mail is not on this machine, and in production codes must reach only their recipient.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

export interface DevMail {
  id: string;
  to: string;
  subject: string;
  /** ISO 8601, from the file's Date header. */
  date: string;
  text: string;
}

/** Unfolded headers (lower-case names) and the body of one RFC 5322 message. */
function split(raw: string): { headers: Map<string, string>; body: string } {
  const end = raw.search(/\r?\n\r?\n/);
  const head = end === -1 ? raw : raw.slice(0, end);
  const body = end === -1 ? '' : raw.slice(end).replace(/^\r?\n\r?\n/, '');
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body };
}

function bytesToText(bytes: number[]): string {
  return new TextDecoder().decode(Uint8Array.from(bytes));
}

function quotedPrintable(text: string, underscoreIsSpace = false): string {
  const bytes: number[] = [];
  const input = text.replace(/=\r?\n/g, '');
  for (let i = 0; i < input.length; i++) {
    const c = input[i]!;
    const hex = /^=[0-9A-Fa-f]{2}$/.test(input.slice(i, i + 3));
    if (hex) {
      bytes.push(Number.parseInt(input.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (underscoreIsSpace && c === '_') bytes.push(0x20);
    else bytes.push(...new TextEncoder().encode(c));
  }
  return bytesToText(bytes);
}

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`) in a header. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?[^?]+\?([QqBb])\?([^?]*)\?=/g, (_m, kind: string, data: string) =>
      kind.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : quotedPrintable(data, true),
    );
}

function decodeBody(body: string, encoding: string | undefined): string {
  switch ((encoding ?? '7bit').toLowerCase()) {
    case 'quoted-printable':
      return quotedPrintable(body);
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    default:
      return body;
  }
}

/** The newest platform mails in the file transport's directory (at most `limit`, newest first). */
export async function readDevMailbox(dir: string, limit = 20): Promise<DevMail[]> {
  let names: string[];
  try {
    names = (await fs.readdir(dir)).filter((name) => name.endsWith('.eml') && !name.startsWith('.'));
  } catch {
    return [];
  }
  // File names start with the ISO time they were written: newest last in name order.
  names.sort().reverse();
  const mails: DevMail[] = [];
  for (const name of names) {
    if (mails.length >= limit) break;
    const raw = await fs.readFile(path.join(dir, name), 'utf8').catch(() => null);
    if (raw === null) continue;
    const { headers, body } = split(raw);
    const tier = headers.get('x-storefront-mail-tier');
    const customerCode =
      tier === 'store' && headers.get('x-storefront-mail-kind') === 'customer_sign_in_code';
    if (tier !== 'platform' && !customerCode) continue;
    const date = new Date(headers.get('date') ?? '');
    mails.push({
      id: name.replace(/\.eml$/, ''),
      to: decodeWords(headers.get('to') ?? ''),
      subject: decodeWords(headers.get('subject') ?? ''),
      date: Number.isNaN(date.getTime()) ? '' : date.toISOString(),
      text: decodeBody(body, headers.get('content-transfer-encoding')).replace(/\r\n/g, '\n').trimEnd(),
    });
  }
  return mails;
}
