import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestStore, startTestApp, waitFor, type TestApp } from '../test/harness.ts';
import { as, emit, hmacHex, registerEndpoint, webhookTestConfig } from './webhooks.test-support.ts';

/**
 * Runs the receiver example of docs/webhooks.md, exactly as printed there, against a real relay:
 * the guide's code is what is tested.
 */

const DOC = path.resolve(import.meta.dirname, '../../docs/webhooks.md');

function exampleFromDoc(): string {
  const doc = fs.readFileSync(DOC, 'utf8');
  const match = /<!-- receiver-example:start -->\s*```js\n([\s\S]*?)```\s*<!-- receiver-example:end -->/.exec(
    doc,
  );
  if (!match) throw new Error('docs/webhooks.md has no receiver example block');
  return match[1]!;
}

interface Line {
  action: string;
  id?: string;
  event?: string;
  url?: string;
  reason?: string;
}

let t: TestApp;
let child: ChildProcess | null = null;
const lines: Line[] = [];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-receiver-'));

before(async () => {
  t = await startTestApp({ workers: true, config: webhookTestConfig() });
});
after(async () => {
  child?.kill('SIGTERM');
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function startExample(secret: string): Promise<string> {
  const file = path.join(dir, 'webhook-receiver.mjs');
  fs.writeFileSync(file, exampleFromDoc());
  child = spawn(process.execPath, [file], {
    env: { PATH: process.env.PATH, WEBHOOK_SECRET: secret, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let buffer = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    for (const part of parts) if (part.trim() !== '') lines.push(JSON.parse(part) as Line);
  });
  const listening = await waitFor(
    () => lines.find((line) => line.action === 'listening'),
    10_000,
    'the receiver',
  );
  return `${listening.url!}hooks`;
}

const logged = (action: string, id?: string) =>
  waitFor(
    () => lines.find((line) => line.action === action && (id === undefined || line.id === id)),
    8000,
    `the receiver to log ${action} ${id ?? ''}`,
  );

describe('the receiver example in docs/webhooks.md', () => {
  test('verifies, deduplicates, answers fast, and keeps working through a secret rotation', async () => {
    const shop = await createTestStore(t);
    const headers = as(shop.staffToken);
    const endpoint = await registerEndpoint(t, shop, 'http://127.0.0.1:9/placeholder');
    const url = await startExample(endpoint.secret);
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/admin/v1/webhooks/endpoints/${endpoint.id}`,
      headers,
      payload: { url },
    });
    assert.equal(patched.statusCode, 200, patched.body);

    const product = await emit(t, shop.store.id, 'product.updated', { productId: 'p-doc' }, 'product:p-doc');
    assert.equal((await logged('invalidate', product.id)).event, 'product.updated');
    const order = await emit(t, shop.store.id, 'order.paid', { orderId: 'o-doc' }, 'order:o-doc');
    assert.equal((await logged('handled', order.id)).event, 'order.paid');

    // The same event again (a manual retry): processed once, acknowledged again.
    const list = await t.app.inject({
      method: 'GET',
      url: `/admin/v1/webhooks/deliveries?endpointId=${endpoint.id}`,
      headers,
    });
    const delivery = list
      .json<{ items: { id: string; eventId: string }[] }>()
      .items.find((d) => d.eventId === product.id)!;
    await t.app.inject({
      method: 'POST',
      url: `/admin/v1/webhooks/deliveries/${delivery.id}/retry`,
      headers,
    });
    await logged('duplicate', product.id);
    assert.equal(lines.filter((line) => line.id === product.id && line.action === 'invalidate').length, 1);

    // A test send is verified and acknowledged, and not handled as a change.
    const sent = await t.app.inject({
      method: 'POST',
      url: `/admin/v1/webhooks/endpoints/${endpoint.id}/test`,
      headers,
      payload: { event: 'order.paid' },
    });
    const test = sent.json<{ eventId: string; ok: boolean; statusCode: number }>();
    assert.deepEqual([test.ok, test.statusCode], [true, 204], sent.body);
    assert.equal((await logged('test', test.eventId)).event, 'order.paid');
    assert.ok(!lines.some((line) => line.id === test.eventId && line.action !== 'test'));

    // A forged request is refused before it is parsed.
    const body = JSON.stringify({ id: 'forged', event: 'order.paid', createdAt: '', data: {} });
    const forged = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': hmacHex('whsec_wrong', body) },
      body,
    });
    assert.equal(forged.status, 401);
    assert.ok(!lines.some((line) => line.id === 'forged'));

    // After a rotation the receiver still holds the old secret: the second signature lets it in.
    const rotated = await t.app.inject({
      method: 'POST',
      url: `/admin/v1/webhooks/endpoints/${endpoint.id}/rotate-secret`,
      headers,
    });
    assert.equal(rotated.statusCode, 200);
    const later = await emit(t, shop.store.id, 'app.installed', { appId: 'a-doc' }, 'app:a-doc');
    await logged('handled', later.id);
    const deliveries = await waitFor(async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: `/admin/v1/webhooks/deliveries?endpointId=${endpoint.id}&status=delivered`,
        headers,
      });
      const items = response.json<{ items: { eventId: string; attempts: number; kind: string }[] }>().items;
      return items.length === 4 ? items : undefined;
    });
    assert.deepEqual(
      deliveries.map((d) => [d.eventId, d.kind, d.attempts]),
      [
        [product.id, 'event', 2],
        [order.id, 'event', 1],
        [test.eventId, 'test', 1],
        [later.id, 'event', 1],
      ],
    );
  });
});
