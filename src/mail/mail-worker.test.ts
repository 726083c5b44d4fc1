/**
 * The mail worker: every mail the transport accepted is `sent` with its message id as soon as it was
 * accepted (so a crash can only send again the mails in flight), with a Message-ID that is the same
 * on every attempt, a sealed one erased, a mail whose send failed keeps its own retry, and sends run
 * at most MAIL_CONCURRENCY at a time. The crash itself (SIGKILL mid-batch) is mail-crash.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { startSmtpSink } from '../email/email.test-support.ts';
import { createTestStore, readMailDir, startTestApp, type TestApp } from '../test/harness.ts';
import {
  FAILURE_LOG_INTERVAL_MS,
  mailFailureLog,
  sendDueMail,
  type MailWorkerDeps,
} from './mail-worker.loop.ts';
import { enqueueMail } from './outbox.ts';
import { fileTransport, smtpTransport, type MailTransport } from './transport.ts';

let t: TestApp;
let dir: string;
before(async () => {
  t = await startTestApp();
  dir = await mkdtemp(path.join(os.tmpdir(), 'storefront-mail-worker-'));
});
after(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

/** The mail worker's deps on the test app; tests override the transport and sender. */
function workerDeps(): Omit<MailWorkerDeps, 'transport' | 'senderOf'> {
  return {
    db: t.deps.db,
    retryScheduleMs: [60_000],
    concurrency: 3,
    leaseMs: 60_000,
    messageIdDomain: 'mail.test',
    keyring: t.runtime.keyring,
    clock: t.clock,
    log: pino({ level: 'silent' }),
  };
}

/** `count` plain test mails of a store, to `<prefix><i>@example.com`; their ids. */
async function enqueueMails(storeId: string, prefix: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const mail = { storeId, tier: 'store' as const, kind: 'test', subject: `Mail ${i}`, text: 'Hello' };
    ids.push(await enqueueMail(t.deps.db, { ...mail, to: `${prefix}${i}@example.com` }));
  }
  return ids;
}

test('one batch: sent mail is marked sent (sealed erased), a failed send is retried on its own', async () => {
  const { store } = await createTestStore(t);
  const mail = (to: string) => ({
    storeId: store.id,
    tier: 'store' as const,
    kind: 'test',
    to,
    subject: `To ${to}`,
    text: 'Hello',
  });
  const first = await enqueueMail(t.deps.db, mail('first@example.com'));
  const refused = await enqueueMail(t.deps.db, mail('refused@example.com'));
  const sealed = await enqueueMail(t.deps.db, mail('sealed@example.com'), t.runtime.keyring);

  // A real file transport that refuses one recipient, as an SMTP server refusing a mailbox would.
  const files = fileTransport(dir);
  const transport: MailTransport = {
    send: (message) =>
      message.to === 'refused@example.com'
        ? Promise.reject(new Error('550 mailbox unavailable'))
        : files.send(message),
    close: () => files.close(),
  };
  const deps = {
    ...workerDeps(),
    keyring: t.runtime.keyring,
    transport,
    senderOf: () => Promise.resolve({ from: { name: store.name, address: 'shop@example.com' } }),
  };
  const sent = await sendDueMail(deps);
  assert.equal(sent, 3, 'three mails claimed');

  const rows = await t.deps.db
    .selectFrom('mail_outbox')
    .select(['id', 'status', 'message_id', 'sent_at', 'attempts', 'last_error', 'subject', 'text_body'])
    .where('store_id', '=', store.id)
    .execute();
  const row = (id: string) => rows.find((r) => r.id === id)!;
  const delivered = await readMailDir(dir);
  assert.deepEqual(delivered.map((m) => m.subject).sort(), ['To first@example.com', 'To sealed@example.com']);

  for (const id of [first, sealed]) {
    assert.equal(row(id).status, 'sent');
    assert.ok(row(id).sent_at instanceof Date);
    assert.equal(row(id).message_id, `<${id}@mail.test>`, 'the stable message id is recorded');
    assert.ok(
      delivered.some((m) => m.messageId === row(id).message_id),
      'the delivered mail carries it',
    );
    assert.equal(row(id).last_error, null);
  }
  assert.equal(row(first).subject, 'To first@example.com', 'plain mail is kept');
  assert.equal(row(sealed).subject, '(erased after sending)');
  assert.equal(row(sealed).text_body, '');

  assert.equal(row(refused).status, 'pending', 'retried later');
  assert.equal(row(refused).attempts, 1);
  assert.equal(row(refused).message_id, null);
  assert.equal(row(refused).last_error, '550 mailbox unavailable');

  assert.equal(
    await sendDueMail(deps),
    0,
    'nothing is due again: sent mail stays sent, the refused one waits for its retry',
  );
  transport.close();
});

test('each mail is marked sent as soon as the transport accepted it, at most MAIL_CONCURRENCY at a time', async () => {
  const { store } = await createTestStore(t);
  const ids = await enqueueMails(store.id, 'each', 8);
  const statusOf = async () =>
    new Map(
      (
        await t.deps.db
          .selectFrom('mail_outbox')
          .select(['id', 'status'])
          .where('store_id', '=', store.id)
          .execute()
      ).map((row) => [row.id, row.status]),
    );
  const files = fileTransport(dir);
  const accepted: string[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  let atLastSend: { accepted: number; sent: number } | null = null;
  const transport: MailTransport = {
    async send(message) {
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      try {
        if (message.to === `each${ids.length - 1}@example.com`) {
          // The last send of the batch: what was accepted before it is recorded sent already, but
          // for at most the other lanes' last mail (accepted, its mark on its way).
          const status = await statusOf();
          atLastSend = {
            accepted: accepted.length,
            sent: accepted.filter((id) => status.get(id) === 'sent').length,
          };
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
        const result = await files.send(message);
        accepted.push(message.headers!['X-Storefront-Mail-Id']!);
        return result;
      } finally {
        inFlight -= 1;
      }
    },
    close: () => files.close(),
  };
  await sendDueMail({
    ...workerDeps(),
    transport,
    senderOf: () => Promise.resolve({ from: { name: store.name, address: 'shop@example.com' } }),
  });
  assert.equal(accepted.length, ids.length);
  assert.equal(mostInFlight, 3, 'three sends in flight at once (MAIL_CONCURRENCY 3), never more');
  const seen = atLastSend as { accepted: number; sent: number } | null;
  assert.ok(
    seen !== null && seen.accepted >= 4,
    `the last mail was sent after others (${JSON.stringify(seen)})`,
  );
  assert.ok(
    seen.sent >= seen.accepted - 2,
    `mails accepted before the last send are marked sent already (${seen.sent} of ${seen.accepted})`,
  );
  assert.deepEqual([...(await statusOf()).values()], Array<string>(ids.length).fill('sent'));
  transport.close();
});

test('an SMTP server that refuses every mail: a bounded number of log lines, each mail keeps its error', async () => {
  const { store } = await createTestStore(t);
  const sink = await startSmtpSink({ refuse: 'relay access denied' });
  const transport = smtpTransport(sink.url, 3);
  const lines: Record<string, unknown>[] = [];
  const log = pino(
    { level: 'info' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const MAILS = 12;
  const ids = await enqueueMails(store.id, 'refused', MAILS);
  const started = Date.now();
  // Two attempts each: the first is retried at once (a schedule of one 0 ms retry), the second fails
  // the mail for good; the loop's one failure log serves both batches.
  const deps = {
    ...workerDeps(),
    retryScheduleMs: [0],
    log,
    transport,
    senderOf: () => Promise.resolve({ from: { name: store.name, address: 'shop@example.com' } }),
  };
  const failures = mailFailureLog(t.clock);
  try {
    while ((await sendDueMail(deps, failures)) > 0) {
      /* until nothing is due */
    }
  } finally {
    transport.close();
    await sink.close();
  }
  const minutes = Math.floor((Date.now() - started) / FAILURE_LOG_INTERVAL_MS) + 1;

  const rows = await t.deps.db
    .selectFrom('mail_outbox')
    .select(['status', 'attempts', 'last_error'])
    .where('id', 'in', ids)
    .execute();
  assert.equal(rows.length, MAILS);
  for (const row of rows) {
    assert.equal(row.status, 'failed');
    assert.equal(row.attempts, 2);
    assert.match(String(row.last_error), /relay access denied/, 'each mail keeps its own error');
  }
  const warnings = lines.filter((line) => String(line.msg).startsWith('mail '));
  assert.ok(warnings.length <= 2 * minutes, `${warnings.length} lines for ${MAILS * 2} failed sends`);
  assert.deepEqual(
    warnings.slice(0, 2).map((line) => String(line.msg).split(' (')[0]),
    ['mail send failed; will retry', 'mail failed for good'],
  );
  assert.ok(!JSON.stringify(lines).includes('@example.com'), 'no recipient address in the log');
});
