import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type { MailTransportConfig } from './mail.config.ts';

/** A fully addressed message, ready for a transport. Built by the mail worker from an outbox row. */
export interface OutgoingMail {
  from: { name: string; address: string };
  to: string;
  replyTo?: string | undefined;
  subject: string;
  text: string;
  /** An HTML alternative to the text; absent: text only. */
  html?: string | undefined;
  /** Envelope sender (Return-Path); defaults to the From address. */
  envelopeFrom?: string | undefined;
  /** DKIM signature parameters (store mail from a verified domain). */
  dkim?: { domainName: string; keySelector: string; privateKey: string } | undefined;
  /** The Message-ID header (`<id@domain>`); the same on every attempt to send one mail. */
  messageId?: string | undefined;
  /** Extra headers, e.g. X-Storefront-Mail-Id for tracing. */
  headers?: Record<string, string> | undefined;
}

/** Who a mail is from: decided per mail at send time by the part that owns senders (email/). */
export type Sender = Pick<OutgoingMail, 'from' | 'replyTo' | 'envelopeFrom' | 'dkim'>;

export interface MailTransport {
  send(mail: OutgoingMail): Promise<{ messageId: string }>;
  close(): void;
}

function nodemailerMessage(mail: OutgoingMail) {
  return {
    from: { name: mail.from.name, address: mail.from.address },
    to: mail.to,
    ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
    subject: mail.subject,
    text: mail.text,
    ...(mail.html !== undefined ? { html: mail.html } : {}),
    envelope: { from: mail.envelopeFrom ?? mail.from.address, to: mail.to },
    ...(mail.dkim ? { dkim: mail.dkim } : {}),
    ...(mail.messageId ? { messageId: mail.messageId } : {}),
    headers: mail.headers ?? {},
  };
}

/**
 * A nodemailer transporter made on the first mail: nodemailer is loaded then, so a process that
 * sends no mail never loads it (decision `optional-packages-on-demand`). `close` closes it if it
 * was made.
 */
function onFirstMail(create: (mailer: typeof nodemailer) => Transporter): {
  transporter(): Promise<Transporter>;
  close(): void;
} {
  let made: Promise<Transporter> | null = null;
  return {
    transporter() {
      made ??= import('nodemailer').then((module) => create(module.default));
      return made;
    },
    close() {
      void made?.then(
        (transporter) => transporter.close(),
        () => undefined,
      );
    },
  };
}

/**
 * Writes each message as one RFC 5322 `.eml` file: built by nodemailer (same headers, encoding and
 * DKIM signature as SMTP would carry), written to a temporary name and renamed into place, so a
 * reader never sees half a file.
 */
export function fileTransport(dir: string): MailTransport {
  const composer = onFirstMail((mailer) =>
    mailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }),
  );
  let dirMade = false;
  return {
    async send(mail) {
      const info = await (await composer.transporter()).sendMail(nodemailerMessage(mail));
      const message = info.message as Buffer;
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.eml`;
      const temp = path.join(dir, `.${name}.tmp`);
      // The directory is made once, and again if someone removed it meanwhile.
      if (!dirMade) await fs.mkdir(dir, { recursive: true });
      try {
        await fs.writeFile(temp, message);
      } catch (error) {
        if (!dirMade || (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        await fs.mkdir(dir, { recursive: true });
        await fs.writeFile(temp, message);
      }
      dirMade = true;
      await fs.rename(temp, path.join(dir, name));
      return { messageId: info.messageId };
    },
    close() {
      composer.close();
    },
  };
}

/** Timeouts of one SMTP connection, so a stalled server fails a send within about a minute. */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/**
 * SMTP (or SMTPS) through nodemailer, e.g. smtp://user:pass@smtp.example.com:587, over a pool of up
 * to `maxConnections` connections, each reused for many messages (parameters in the URL's query,
 * such as `?maxConnections=2`, take precedence).
 */
export function smtpTransport(url: string, maxConnections: number): MailTransport {
  const smtp = onFirstMail((mailer) =>
    mailer.createTransport({ url, pool: true, maxConnections, maxMessages: 1000, ...SMTP_TIMEOUTS }),
  );
  return {
    async send(mail) {
      const info = await (await smtp.transporter()).sendMail(nodemailerMessage(mail));
      return { messageId: info.messageId };
    },
    close() {
      smtp.close();
    },
  };
}

/** The transport of EMAIL_TRANSPORT; `concurrency` is how many mails may be in flight at once. */
export function createMailTransport(config: MailTransportConfig, concurrency: number): MailTransport {
  return config.kind === 'file' ? fileTransport(config.dir) : smtpTransport(config.url, concurrency);
}
