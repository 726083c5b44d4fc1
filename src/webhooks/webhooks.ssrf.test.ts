import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestStore, startTestApp, waitFor, type TestApp } from '../test/harness.ts';
import { systemClock } from '../lib/clock.ts';
import { encryptSecret, generateEndpointSecret } from './webhooks.secrets.ts';
import { WebhookSender } from './webhooks.sender.ts';
import { emit, startReceiver, webhookTestConfig } from './webhooks.test-support.ts';
import { classifyAddress } from './webhooks.url-guard.ts';

/** A TCP server that only counts connections: proof that a refused request never connected. */
async function connectionCounter(): Promise<{
  port: number;
  connections: () => number;
  close(): Promise<void>;
}> {
  let count = 0;
  const server = net.createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const request = (url: string) => ({ url, body: '{}', headers: { 'content-type': 'application/json' } });

describe('SSRF guard', () => {
  test('address classes', () => {
    const cases: [string, ReturnType<typeof classifyAddress>][] = [
      ['8.8.8.8', null],
      ['93.184.215.14', null],
      ['2606:4700::1111', null],
      ['127.0.0.1', 'loopback'],
      ['127.255.0.9', 'loopback'],
      ['::1', 'loopback'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      ['64:ff9b::a00:1', 'private'], // NAT64 of 10.0.0.1
      ['2002:a9fe:a9fe::', 'metadata'], // 6to4 of 169.254.169.254
      ['10.0.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.0.10', 'private'],
      ['100.64.1.1', 'private'],
      ['fd12:3456::1', 'private'],
      ['169.254.169.254', 'metadata'],
      ['fd00:ec2::254', 'metadata'],
      ['169.254.1.1', 'link-local'],
      ['fe80::1', 'link-local'],
      ['224.0.0.251', 'multicast'],
      ['ff02::1', 'multicast'],
      ['0.0.0.0', 'unspecified'],
      ['::', 'unspecified'],
      ['255.255.255.255', 'reserved'],
      ['2001:db8::1', 'reserved'],
      ['not-an-ip', 'reserved'],
    ];
    for (const [address, expected] of cases) assert.equal(classifyAddress(address), expected, address);
  });

  test('without ALLOW_HTTP_WEBHOOKS a host name resolving to 127.0.0.1 is refused at connect time', async () => {
    const counter = await connectionCounter();
    const sender = new WebhookSender({ timeoutMs: 2000, allowHttp: false });
    try {
      const refused = await sender.send(request(`https://localhost:${counter.port}/hooks`), undefined, () =>
        systemClock.now(),
      );
      assert.equal(refused.ok, false);
      assert.match(
        !refused.ok ? refused.error : '',
        /^refused to connect: localhost resolves to 127\.0\.0\.1 is a loopback address/,
      );
      for (const url of [
        `https://127.0.0.1:${counter.port}/`,
        `https://[::ffff:127.0.0.1]:${counter.port}/`,
        `http://127.0.0.1:${counter.port}/`,
        `http://localhost:${counter.port}/`,
      ]) {
        const result = await sender.send(request(url), undefined, () => systemClock.now());
        assert.equal(result.ok, false, url);
        assert.match(!result.ok ? result.error : '', /^refused/, url);
      }
      assert.equal(counter.connections(), 0, 'no connection was ever opened');
    } finally {
      await sender.close();
      await counter.close();
    }
  });

  test('with ALLOW_HTTP_WEBHOOKS, http reaches loopback (by name too) and nothing else', async () => {
    const hook = await startReceiver();
    const sender = new WebhookSender({ timeoutMs: 2000, allowHttp: true });
    try {
      const byName = await sender.send(request(`http://localhost:${hook.port}/hooks`), undefined, () =>
        systemClock.now(),
      );
      assert.deepEqual(byName, { ok: true, status: 204 });
      const byAddress = await sender.send(request(hook.url), undefined, () => systemClock.now());
      assert.deepEqual(byAddress, { ok: true, status: 204 });
      assert.equal(hook.requests.length, 2);
      for (const url of ['http://10.0.0.1/', 'https://169.254.169.254/latest', 'https://[fe80::1]/']) {
        const result = await sender.send(request(url), undefined, () => systemClock.now());
        assert.match(!result.ok ? result.error : '', /^refused to connect/, url);
      }
    } finally {
      await sender.close();
      await hook.close();
    }
  });
});

describe('SSRF guard in the relay', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ workers: true, config: webhookTestConfig({ allowHttp: false }) });
  });
  after(() => t.close());

  test('an endpoint whose name now resolves to loopback (DNS rebinding) gets no connection', async () => {
    const counter = await connectionCounter();
    try {
      const shop = await createTestStore(t);
      // Registration would refuse this URL; insert it as if the name had resolved to a public
      // address when it was registered and points at 127.0.0.1 now.
      const id = crypto.randomUUID();
      const key = t.runtime.keyring;
      await t.db.kysely
        .insertInto('webhook_endpoints')
        .values({
          store_id: shop.store.id,
          id,
          url: `https://localhost:${counter.port}/hooks`,
          events: JSON.stringify(['*']),
          secret_ciphertext: encryptSecret(key, shop.store.id, id, generateEndpointSecret()),
        })
        .execute();
      const event = await emit(t, shop.store.id, 'order.paid', { orderId: 'o-ssrf' }, 'order:o-ssrf');
      const failed = await waitFor(
        () =>
          t.db.kysely
            .selectFrom('webhook_deliveries')
            .selectAll()
            .where('store_id', '=', shop.store.id)
            .where('event_id', '=', event.id)
            .where('status', '=', 'failed')
            .executeTakeFirst(),
        8000,
        'the delivery to fail',
      );
      assert.equal(failed.attempts, 4);
      assert.match(failed.last_error ?? '', /^refused to connect: localhost resolves to 127\.0\.0\.1/);
      assert.equal(counter.connections(), 0);
    } finally {
      await counter.close();
    }
  });
});
