/**
 * Secrets at rest and root-secret changes (decision `sealed-secrets`), with processes started on one database
 * with different SECRET_KEY settings, as an operator would change them.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ShopDriver } from '../orders/orders.test-support.ts';
import {
  createTestStore,
  openTestDatabase,
  readMailDir,
  startTestApp,
  waitFor,
  type TestApp,
  type TestDb,
  type TestStore,
} from '../test/harness.ts';
import {
  emit,
  hmacHex,
  registerEndpoint,
  startReceiver,
  webhookTestConfig,
  type CreatedEndpoint,
  type Receiver,
} from '../webhooks/webhooks.test-support.ts';
import { leaseMs } from '../webhooks/webhooks.relay.ts';
import { claimDeliveries } from '../webhooks/webhooks.relay.repository.ts';
import { loadKeyring } from './keyring.loader.ts';
import { rotateSecrets } from './rotate.ts';

const K1 = `first-root-secret-${randomUUID()}`;
const K2 = `second-root-secret-${randomUUID()}`;

let db: TestDb;
let receiver: Receiver;

before(async () => {
  db = await openTestDatabase();
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  await db.close();
});

/** A process on the shared database with these root secrets; `workers` runs its relay. */
async function processWith(
  secretKey: string | null,
  previous: string[] = [],
  workers = false,
): Promise<TestApp> {
  return startTestApp({
    db,
    workers,
    config: { ...webhookTestConfig(), secretKey, secretKeyPrevious: previous },
  });
}

async function endpointRow(shop: TestStore, id: string) {
  return db.kysely
    .selectFrom('webhook_endpoints')
    .select(['enabled', 'disabled_reason'])
    .where('store_id', '=', shop.store.id)
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

async function deliveryOf(shop: TestStore, eventId: string) {
  return waitFor(async () => {
    const row = await db.kysely
      .selectFrom('webhook_deliveries')
      .select(['status', 'last_error'])
      .where('store_id', '=', shop.store.id)
      .where('event_id', '=', eventId)
      .executeTakeFirst();
    return row && row.status !== 'pending' ? row : undefined;
  }, 8000);
}

/** Emits an event in a process that runs the relay; returns the request the receiver got. */
async function deliveredBy(worker: TestApp, shop: TestStore, endpoint: CreatedEndpoint) {
  const event = await emit(worker, shop.store.id, 'product.updated', { productId: randomUUID() });
  const [request] = await receiver.waitForRequests(1, (r) => r.body.id === event.id);
  assert.equal(request!.headers['x-webhook-signature'], hmacHex(endpoint.secret, request!.rawBody));
  assert.equal((await deliveryOf(shop, event.id)).status, 'delivered');
}

describe('changing SECRET_KEY (decision `keyring`)', () => {
  test('without SECRET_KEY_PREVIOUS: the delivery fails with the reason and the endpoint says why; no retry loop', async () => {
    const admin = await processWith(K1);
    const shop = await createTestStore(admin);
    const endpoint = await registerEndpoint(admin, shop, `${receiver.url}/lost`);
    await admin.close();

    const changed = await processWith(K2, [], true);
    changed.expectErrorLogs(
      /signing secret(s)? cannot be decrypted|cannot be decrypted with the configured root secrets/,
    );
    try {
      const event = await emit(changed, shop.store.id, 'product.updated', { productId: randomUUID() });
      const delivery = await deliveryOf(shop, event.id);
      assert.equal(delivery.status, 'failed');
      assert.match(String(delivery.last_error), /cannot be decrypted.*SECRET_KEY_PREVIOUS/);
      assert.deepEqual(await endpointRow(shop, endpoint.id), {
        enabled: false,
        disabled_reason: 'secret_unreadable',
      });
      const view = await changed.app.inject({
        method: 'GET',
        url: `/admin/v1/webhooks/endpoints/${endpoint.id}`,
        headers: { authorization: `Bearer ${shop.staffToken}` },
      });
      assert.equal(view.json<{ disabledReason: string }>().disabledReason, 'secret_unreadable');
      // The next event waits (the endpoint is disabled) instead of failing again and again.
      const next = await emit(changed, shop.store.id, 'product.updated', { productId: randomUUID() });
      const deliveryOfNext = () =>
        db.kysely
          .selectFrom('webhook_deliveries')
          .select(['status', 'attempts'])
          .where('store_id', '=', shop.store.id)
          .where('event_id', '=', next.id)
          .executeTakeFirst();
      // The relay fans the event out to the endpoint (the row exists) and passes it by; a claim,
      // the only way a relay takes a delivery, passes it by too.
      await waitFor(deliveryOfNext, 8000, 'the delivery of the next event');
      const claimed = await claimDeliveries(db.kysely, changed.clock.now(), leaseMs(changed.config), 100);
      assert.ok(!claimed.some((d) => d.event.id === next.id), 'the delivery to the disabled endpoint waits');
      const waiting = await db.kysely
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempts'])
        .where('store_id', '=', shop.store.id)
        .where('event_id', '=', next.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(waiting, { status: 'pending', attempts: 0 });
      assert.equal(
        receiver.requests.filter((r) => r.path === '/lost').length,
        0,
        'nothing unsigned was sent',
      );
      const loud = changed.logs.filter((line) => line.endpointId === endpoint.id && line.level === 50);
      assert.equal(loud.length, 1, 'one error line, not one per retry');
    } finally {
      await changed.close();
    }
  });

  test('with SECRET_KEY_PREVIOUS it keeps working; `secrets rotate` re-encrypts, then the old key can go', async () => {
    const admin = await processWith(K1);
    const shop = await createTestStore(admin);
    const endpoint = await registerEndpoint(admin, shop, `${receiver.url}/rotated`);
    await admin.close();

    const both = await processWith(K2, [K1], true);
    try {
      await deliveredBy(both, shop, endpoint);
    } finally {
      await both.close();
    }
    const config = { secretKey: K2, secretKeyPrevious: [K1] };
    const rotated = await rotateSecrets(db.kysely, await loadKeyring(db.kysely, config), config, false);
    const endpoints = rotated.reports.find((r) => r.what === 'webhook endpoint signing secrets')!;
    assert.ok(endpoints.resealed >= 1);
    assert.equal(endpoints.unreadable, 0);
    const check = await rotateSecrets(db.kysely, await loadKeyring(db.kysely, config), config, true);
    assert.equal(
      check.reports.find((r) => r.what === 'webhook endpoint signing secrets')!.resealed,
      0,
      'all current',
    );

    const only = await processWith(K2, [], true);
    try {
      await deliveredBy(only, shop, endpoint);
    } finally {
      await only.close();
    }
  });
});

describe('setting SECRET_KEY for the first time (decision `keyring`)', () => {
  test('what the generated root encrypted still opens; `secrets rotate` then deletes the generated root', async () => {
    const fresh = await openTestDatabase();
    try {
      const before = await startTestApp({ db: fresh, config: { ...webhookTestConfig(), secretKey: null } });
      const shop = await createTestStore(before);
      const endpoint = await registerEndpoint(before, shop, `${receiver.url}/first-time`);
      await before.close();

      const config = { secretKey: K1, secretKeyPrevious: [] };
      const withKey = await startTestApp({
        db: fresh,
        workers: true,
        config: { ...webhookTestConfig(), ...config },
      });
      try {
        const event = await emit(withKey, shop.store.id, 'product.updated', { productId: randomUUID() });
        const [request] = await receiver.waitForRequests(1, (r) => r.body.id === event.id);
        assert.equal(request!.headers['x-webhook-signature'], hmacHex(endpoint.secret, request!.rawBody));
      } finally {
        await withKey.close();
      }
      const rotated = await rotateSecrets(
        fresh.kysely,
        await loadKeyring(fresh.kysely, config),
        config,
        false,
      );
      assert.equal(rotated.droppedGeneratedRoot, true);
      const roots = await fresh.kysely.selectFrom('platform_secrets').select('name').execute();
      assert.deepEqual(roots, [], 'no root secret rests in the database');
      assert.deepEqual((await loadKeyring(fresh.kysely, config)).rootNames, ['SECRET_KEY']);
    } finally {
      await fresh.close();
    }
  });
});

describe('what never rests in plaintext (decision `sealed-secrets`)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ db, workers: true });
  });
  after(() => t.close());

  test('a sign-in code is sealed in the outbox and erased once sent', async () => {
    const shop = await createTestStore(t);
    const requested = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/auth/sign-in',
      payload: { storeSlug: shop.store.slug, email: shop.ownerEmail },
    });
    assert.equal(requested.statusCode, 202);
    const mail = await waitFor(async () => {
      const mails = await readMailDir((t.config.emailTransport as { dir: string }).dir);
      return mails.find(
        (m) =>
          m.text?.includes('Your code to sign in') &&
          m.to !== undefined &&
          JSON.stringify(m.to).includes(shop.ownerEmail),
      );
    });
    const code = /\b(\d{6})\b/.exec(mail.text ?? '')![1]!;
    const row = await waitFor(async () => {
      const found = await db.kysely
        .selectFrom('mail_outbox')
        .select(['subject', 'text_body', 'sealed', 'status'])
        .where('store_id', '=', shop.store.id)
        .where('kind', '=', 'sign_in_code')
        .executeTakeFirstOrThrow();
      return found.status === 'sent' ? found : undefined;
    });
    assert.equal(row.sealed, true);
    assert.doesNotMatch(`${row.subject} ${row.text_body}`, new RegExp(code));
    assert.equal(row.text_body, '', 'erased after sending');
  });

  test('a payment client secret and the stored checkout answer are sealed; the replay is byte for byte', async () => {
    const shop = await ShopDriver.open(t);
    const body = {
      cartId: await shop.cart([{ variantId: await shop.variant(2), quantity: 1 }]),
      email: 'a@example.com',
    };
    const key = randomUUID();
    const first = await shop.checkout(body, key);
    assert.equal(first.statusCode, 201);
    const { clientSecret } = first.json<{ payment: { clientSecret: string } }>().payment;
    const payment = await db.kysely
      .selectFrom('payments')
      .select('client_secret')
      .where('store_id', '=', shop.storeId)
      .executeTakeFirstOrThrow();
    assert.ok(!payment.client_secret.includes(clientSecret));
    const stored = await db.kysely
      .selectFrom('idempotency_keys')
      .select('response_body')
      .where('store_id', '=', shop.storeId)
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    assert.ok(!String(stored.response_body).includes(clientSecret));
    const replay = await shop.checkout(body, key);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body, first.body);
  });
});
