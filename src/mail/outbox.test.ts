/**
 * Sealed mail in the outbox (decision `sealed-secrets`): a mail queued with a keyring rests with its
 * subject, text and HTML encrypted; `secrets rotate` re-seals every one not yet sent (pending or
 * failed) under the current root, its HTML part included; sending erases all three.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Keyring, resealAll } from '../lib/keyring.ts';
import { createTestStore, startTestApp, type TestApp } from '../test/harness.ts';
import { markMailSent } from './mail.repository.ts';
import { enqueueMail, MAIL_PURPOSE, mailContext, sealedMail } from './outbox.ts';

let t: TestApp;
before(async () => (t = await startTestApp()));
after(() => t.close());

const root = (name: string, secret: string) => ({ name, secret: Buffer.from(secret.padEnd(32, '.')) });
const OLD = root('SECRET_KEY_PREVIOUS', 'the old root of the outbox test');
const NEW = root('SECRET_KEY', 'the new root of the outbox test');

test('sealed mail not sent, HTML part included, is re-sealed under the current root; sending erases it all', async () => {
  const shop = await createTestStore(t);
  const db = t.db.kysely;
  const old = new Keyring([OLD]);
  const mail = (n: number) => ({
    storeId: shop.store.id,
    tier: 'store' as const,
    kind: 'gift_card_codes',
    to: 'ada@example.com',
    subject: `Your gift card ${n}`,
    text: `Code: SECRET-${n}`,
    html: `<p>Code: <code>SECRET-${n}</code></p>`,
  });
  const pending = await enqueueMail(db, mail(1), old);
  const failed = await enqueueMail(db, mail(2), old);
  const sent = await enqueueMail(db, mail(3), old);
  await db.updateTable('mail_outbox').set({ status: 'failed' }).where('id', '=', failed).execute();
  await markMailSent(db, { store_id: shop.store.id, id: sent, sentAt: new Date(), messageId: '<x@y>' });

  const rows = await db.selectFrom('mail_outbox').selectAll().where('store_id', '=', shop.store.id).execute();
  const byId = new Map(rows.map((row) => [row.id, row]));
  for (const id of [pending, failed]) {
    const row = byId.get(id)!;
    assert.equal(row.sealed, true);
    assert.ok(!`${row.subject}${row.text_body}${row.html_body}`.includes('SECRET'), 'nothing in plaintext');
  }
  assert.deepEqual(
    [byId.get(sent)!.subject, byId.get(sent)!.text_body, byId.get(sent)!.html_body],
    ['(erased after sending)', '', null],
  );

  const report = await resealAll(sealedMail(db, new Keyring([NEW, OLD])), false);
  assert.deepEqual([report.resealed, report.unreadable], [2, 0]);
  const only = new Keyring([NEW]);
  for (const [n, id] of [
    [1, pending],
    [2, failed],
  ] as const) {
    const row = await db.selectFrom('mail_outbox').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const open = (value: string) => only.open(MAIL_PURPOSE, value, mailContext(shop.store.id, id), 'mail');
    assert.deepEqual(
      [open(row.subject), open(row.text_body), open(row.html_body!)],
      [mail(n).subject, mail(n).text, mail(n).html],
    );
  }
  const again = await resealAll(sealedMail(db, new Keyring([NEW, OLD])), false);
  assert.deepEqual([again.resealed, again.current], [0, 2]);
});
