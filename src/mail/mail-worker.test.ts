/**
 * The mail worker marks a batch's sent mail in one statement (decision `mail-batch-marked-sent`):
 * every mail the transport accepted is `sent` with its message id, a sealed one erased, and a mail
 * whose send failed in the same batch keeps its own retry.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { createTestStore, readMailDir, startTestApp, type TestApp } from '../test/harness.ts';
import { sendDueMail } from './mail-worker.loop.ts';
import { enqueueMail } from './outbox.ts';
import { fileTransport, type MailTransport } from './transport.ts';

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
    db: t.deps.db,
    retryScheduleMs: [60_000],
    keyring: t.runtime.keyring,
    transport,
    senderOf: () => Promise.resolve({ from: { name: store.name, address: 'shop@example.com' } }),
    clock: t.clock,
    log: pino({ level: 'silent' }),
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
    assert.ok(
      delivered.some((m) => m.messageId === row(id).message_id),
      'the message id of the delivered mail is recorded',
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
