import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import Type from 'typebox';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../test/harness.ts';
import { IdParams } from './schemas.ts';

let t: TestApp;
let shop: TestStore;

before(async () => {
  t = await startTestApp({
    routes(app) {
      app.post(
        '/test/echo',
        {
          schema: {
            body: Type.Object(
              { name: Type.String({ minLength: 1 }), count: Type.Integer({ minimum: 1 }) },
              { additionalProperties: false },
            ),
          },
        },
        (request) => request.body,
      );
      app.get('/test/items/:id', { schema: { params: IdParams } }, (request) => request.params);
      app.get('/test/boom', () => {
        throw new Error('secret internal detail');
      });
      app.get('/test/sql', async () => sql`SELECT * FROM no_such_table_xyz`.execute(t.db.kysely));
    },
  });
  // The two test routes above fail on purpose; any other error-level line still fails this file.
  t.expectErrorLogs(/^request failed: (secret internal detail|relation "no_such_table_xyz")/);
  shop = await createTestStore(t);
});
after(() => t.close());

function assertProblem(
  response: { statusCode: number; headers: Record<string, unknown>; body: string },
  status: number,
  title: string,
) {
  assert.equal(response.statusCode, status, response.body);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
  const body = JSON.parse(response.body) as Record<string, unknown>;
  assert.equal(body.type, 'about:blank');
  assert.equal(body.title, title);
  assert.equal(body.status, status);
  assert.equal(typeof body.detail, 'string');
  return body;
}

describe('problem+json errors', () => {
  test('an unknown route is 404', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/nope' });
    assertProblem(response, 404, 'not_found');
  });

  test('an unknown storefront route with a valid key is 404', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/storefront/v1/nope',
      headers: { 'x-publishable-key': shop.publishableKey },
    });
    assertProblem(response, 404, 'not_found');
  });

  test('a known path with the wrong method is 405 with Allow', async () => {
    const response = await t.app.inject({ method: 'DELETE', url: '/healthz' });
    assertProblem(response, 405, 'method_not_allowed');
    assert.match(String(response.headers.allow), /GET/);
  });

  test('a body that breaks the schema is 400 validation_failed with pointers', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/test/echo',
      payload: { name: '', count: 0, extra: 1 },
    });
    const body = assertProblem(response, 400, 'validation_failed');
    const errors = body.errors as { pointer: string; detail: string }[];
    const pointers = errors.map((e) => e.pointer).sort();
    assert.deepEqual(pointers, ['/count', '/extra', '/name']);
    for (const error of errors) assert.equal(typeof error.detail, 'string');
  });

  test('a missing required field is named by its pointer', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/test/echo', payload: { name: 'a' } });
    const body = assertProblem(response, 400, 'validation_failed');
    assert.deepEqual(
      (body.errors as { pointer: string }[]).map((e) => e.pointer),
      ['/count'],
    );
  });

  test('a valid body passes through', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/test/echo',
      payload: { name: 'a', count: 2 },
    });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { name: 'a', count: 2 });
  });

  test('broken JSON is 400', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": "a",',
    });
    assertProblem(response, 400, 'validation_failed');
  });

  test('a non-JSON body is 415', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'text/plain' },
      payload: 'name=a',
    });
    assertProblem(response, 415, 'unsupported_media_type');
  });

  test('a body over 1 MiB is 413', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10), count: 1 }),
    });
    assertProblem(response, 413, 'payload_too_large');
  });

  test('a malformed UUID path parameter is 400 validation_failed', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/test/items/not-a-uuid' });
    const body = assertProblem(response, 400, 'validation_failed');
    assert.deepEqual(
      (body.errors as { pointer: string }[]).map((e) => e.pointer),
      ['/id'],
    );
    const ok = await t.app.inject({ method: 'GET', url: '/test/items/8f14e45f-ceea-467f-a0e6-2e4f6b2a0c11' });
    assert.equal(ok.statusCode, 200);
  });

  test('an unexpected error is 500 without the message or a stack, and is logged with the request id', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/test/boom',
      headers: { 'x-request-id': 'req-boom-1' },
    });
    const body = assertProblem(response, 500, 'internal_error');
    assert.doesNotMatch(response.body, /secret internal detail|at .*\.ts|stack/);
    assert.equal(response.headers['x-request-id'], 'req-boom-1');
    assert.equal(Object.keys(body).sort().join(','), 'detail,status,title,type');
    const logged = t.logs.find((line) => line.reqId === 'req-boom-1' && line.level === 50);
    assert.ok(logged, 'the error is logged with the request id');
    assert.match(JSON.stringify(logged), /secret internal detail/);
  });

  test('a database error is 500 without SQL in the body', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/test/sql' });
    assertProblem(response, 500, 'internal_error');
    assert.doesNotMatch(response.body, /no_such_table_xyz|SELECT/i);
  });

  test('every response carries a request id', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/healthz' });
    assert.match(String(response.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  });
});

describe('operations endpoints', () => {
  test('/healthz and /readyz answer 200', async () => {
    assert.deepEqual((await t.app.inject({ method: 'GET', url: '/healthz' })).json(), { status: 'ok' });
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json(), { status: 'ready' });
  });

  test('/openapi.json is OpenAPI 3.1 and every route has a response schema', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(response.statusCode, 200);
    const doc = response.json<{
      openapi: string;
      paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
    }>();
    assert.equal(doc.openapi, '3.1.0');
    assert.ok(doc.paths['/storefront/v1/store']?.get, 'the store route is documented');
    for (const [path, operations] of Object.entries(doc.paths)) {
      if (path.startsWith('/test/')) continue;
      for (const [method, operation] of Object.entries(operations)) {
        const codes = Object.keys(operation.responses ?? {});
        // A success is a 2xx, or a redirect where the operation's answer is one (the hosted
        // payment page's form post answers 303 back to the shop).
        assert.ok(
          codes.some((code) => code.startsWith('2') || code === '303'),
          `${method.toUpperCase()} ${path} documents a success response`,
        );
      }
    }
  });

  test('/docs serves the interactive reference', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /text\/html/);
  });
});

describe('readiness', () => {
  test('/readyz is 503 problem+json when the database does not answer', async () => {
    const broken = await startTestApp();
    try {
      await broken.db.close();
      const response = await broken.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(response.statusCode, 503);
      assert.equal(response.json<{ title: string }>().title, 'service_unavailable');
      assert.equal((await broken.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    } finally {
      await broken.close();
    }
  });
});

describe('shutdown', () => {
  test('a request that arrives while the server closes is 503 problem+json; the one in flight finishes', async () => {
    // Each step waits for the previous one to have happened, not for a time (a loaded machine).
    let handlerStarted!: () => void;
    const inHandler = new Promise<void>((resolve) => (handlerStarted = resolve));
    let closeStarted!: () => void;
    const inClose = new Promise<void>((resolve) => (closeStarted = resolve));
    const closing = await startTestApp({
      routes(app) {
        // It finishes once the server has the request sent after it on the same connection.
        let secondArrived!: () => void;
        const second = new Promise<void>((resolve) => (secondArrived = resolve));
        app.server.on('request', (request: { url?: string }) => {
          if (request.url === '/healthz') secondArrived();
        });
        app.get('/test/slow', async () => {
          handlerStarted();
          await second;
          return { done: true };
        });
        // After the app's own preClose hook, which marks it closing.
        app.addHook('preClose', (done) => {
          closeStarted();
          done();
        });
      },
    });
    try {
      const address = await closing.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = new URL(address);
      const socket = net.connect(Number(port), '127.0.0.1');
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (received += chunk));
      const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      socket.write('GET /test/slow HTTP/1.1\r\nHost: x\r\n\r\n');
      await inHandler;
      const closed = closing.app.close();
      await inClose;
      // Same connection (it is busy, so the server keeps it open while the first request runs).
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      await closed;
      await ended;
      const responses = received.split(/(?=HTTP\/1\.1 )/);
      assert.equal(responses.length, 2, received);
      assert.match(responses[0]!, /^HTTP\/1\.1 200 /);
      assert.match(responses[0]!, /"done":true/);
      assert.match(responses[1]!, /^HTTP\/1\.1 503 /);
      assert.match(responses[1]!, /content-type: application\/problem\+json/i);
      assert.match(responses[1]!, /"title":"service_unavailable"/);
    } finally {
      await closing.close();
    }
  });
});
