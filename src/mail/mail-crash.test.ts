/**
 * A mail worker killed in the middle of a batch, on PostgreSQL: a real `storefront worker` sends
 * queued mail to a real (slow) SMTP server and is killed with SIGKILL while mails are in flight;
 * a second worker finishes the queue once the first one's lease ends. Every mail arrives, at most
 * the mails that were in flight at the kill arrive twice, and a second copy carries the same
 * Message-ID as the first, so a receiver can drop it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../email/email.test-support.ts';
import {
  createTestStore,
  startTestAppWithDb,
  serveProcess,
  waitFor,
  type TestApp,
  type TestDb,
  skipUnlessPostgres,
} from '../test/harness.ts';
import { enqueueMail } from './outbox.ts';

const MAILS = 150;
const CONCURRENCY = 4;

let db: TestDb;
let t: TestApp;
let sink: SmtpSink;

before(async () => {
  if (skipUnlessPostgres) return;
  ({ db, t } = await startTestAppWithDb());
  // 20 ms per message: a batch takes long enough to be killed in its middle.
  sink = await startSmtpSink({ delayMs: 20 });
});
after(async () => {
  if (skipUnlessPostgres) return;
  await sink.close();
  await t.close();
});

const mailIdOf = (mail: ReceivedMail): string => {
  const id = mail.parsed.headers.get('x-storefront-mail-id');
  return typeof id === 'string' ? id : '';
};

const worker = () =>
  serveProcess(
    db,
    t.config.secretKey!,
    {
      EMAIL_TRANSPORT: sink.url,
      MAIL_CONCURRENCY: String(CONCURRENCY),
      MAIL_LEASE: '2s',
      PLATFORM_MAIL_DOMAIN: 'mail.crash.test',
      REDIS_URL: undefined,
    },
    'worker',
  );

test(
  'SIGKILL of the mail worker mid-batch: every mail arrives, at most those in flight twice, with one Message-ID',
  { skip: skipUnlessPostgres },
  async () => {
    const { store } = await createTestStore(t);
    const ids = new Set<string>();
    for (let i = 0; i < MAILS; i++) {
      ids.add(
        await enqueueMail(t.deps.db, {
          storeId: store.id,
          tier: 'store',
          kind: 'order_confirmation',
          to: `buyer${i}@example.com`,
          subject: `Order ${i}`,
          text: 'Thank you for your order.',
        }),
      );
    }
    const received = () => sink.messages.filter((m) => ids.has(mailIdOf(m)));
    const sentRows = async () =>
      Number(
        (
          await t.deps.db
            .selectFrom('mail_outbox')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('store_id', '=', store.id)
            .where('status', '=', 'sent')
            .executeTakeFirstOrThrow()
        ).n,
      );

    const first = await worker();
    await waitFor(() => received().length >= 40, 30_000, 'the first worker to send 40 mails');
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    // Once the killed worker's connections are closed and what it sent is parsed, nothing more
    // can arrive until a worker runs again.
    await sink.idle();
    const receivedAtKill = received().length;
    const markedAtKill = await sentRows();
    assert.ok(markedAtKill < MAILS, `the kill came before the queue was done (${markedAtKill} sent)`);
    const second = await worker();
    try {
      await waitFor(async () => (await sentRows()) === MAILS, 60_000, 'every mail marked sent');
    } finally {
      second.child.kill('SIGTERM');
      await new Promise((resolve) => second.child.once('exit', resolve));
    }

    const copies = new Map<string, string[]>();
    for (const mail of received()) {
      const id = mailIdOf(mail);
      copies.set(id, [...(copies.get(id) ?? []), String(mail.parsed.messageId)]);
    }
    assert.equal(copies.size, MAILS, 'every mail arrived');
    const twice = [...copies.entries()].filter(([, messageIds]) => messageIds.length > 1);
    assert.ok(
      twice.length <= CONCURRENCY,
      `at most the ${CONCURRENCY} mails in flight arrive twice, not ${twice.length} (${receivedAtKill} received and ${markedAtKill} marked sent at the kill)`,
    );
    for (const [id, messageIds] of copies) {
      assert.deepEqual(
        [...new Set(messageIds)],
        [`<${id}@mail.crash.test>`],
        'every copy of a mail carries its one stable Message-ID',
      );
    }
    process.stdout.write(
      `# mail crash: ${receivedAtKill} received and ${markedAtKill} marked sent at the kill; ${twice.length} of ${MAILS} mails arrived twice\n`,
    );
  },
);
