import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestStore, startTestApp, type TestApp } from '../test/harness.ts';
import Value from 'typebox/value';
import { EVENT_DATA } from '../webhook-events.ts';
import { PROBLEMS } from './problems.ts';

interface Response {
  description: string;
  headers?: Record<string, { $ref?: string }>;
  content?: Record<string, { schema?: { $ref?: string } }>;
}
interface Operation {
  operationId?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> };
  responses: Record<string, Response>;
  security?: Record<string, string[]>[];
}
interface Document {
  openapi: string;
  tags: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

let t: TestApp;
let doc: Document;
before(async () => {
  t = await startTestApp();
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<Document>();
});
after(() => t.close());

const operations = (): [string, string, Operation][] =>
  Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]): [string, string, Operation] => [method, path, op]),
  );
const byId = (operationId: string): Operation => {
  const found = operations().find(([, , op]) => op.operationId === operationId);
  assert.ok(found, `no operation ${operationId}`);
  return found[2];
};

describe('the OpenAPI document', () => {
  test('every operation has a unique operationId and a described success response', () => {
    const ids = operations().map(([method, path, op]) => {
      assert.match(op.operationId ?? '', /^[a-z][A-Za-z]+$/, `${method} ${path}`);
      // A form post of an HTML page may succeed with a redirect (303 See Other).
      const success = Object.entries(op.responses).filter(
        ([status]) => status.startsWith('2') || status === '303',
      );
      assert.ok(success.length > 0, `${op.operationId} has a success response`);
      for (const [status, response] of success) {
        assert.notEqual(response.description, 'Default Response', `${op.operationId} ${status}`);
      }
      return op.operationId;
    });
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    assert.ok(ids.length >= 94);
  });

  test('resources, request bodies and problems are named component schemas used by $ref', () => {
    for (const name of [
      'ProductCard',
      'ProductDetail',
      'Variant',
      'Cart',
      'CartInput',
      'CheckoutInput',
      'CheckoutResult',
      'StorefrontOrder',
      'Payment',
      'Money',
      'Problem',
      'ValidationProblem',
      'FieldError',
    ]) {
      assert.ok(doc.components.schemas[name], `components.schemas.${name}`);
    }
    const json = (op: Operation, status: string) =>
      op.responses[status]?.content?.['application/json']?.schema;
    assert.deepEqual(json(byId('getProduct'), '200'), { $ref: '#/components/schemas/ProductDetail' });
    assert.deepEqual(json(byId('listProducts'), '200'), { $ref: '#/components/schemas/ProductCardList' });
    assert.deepEqual(byId('createCheckout').requestBody?.content?.['application/json']?.schema, {
      $ref: '#/components/schemas/CheckoutInput',
    });
  });

  test('every request and response body that is an object is a named component schema', () => {
    const webhooks = (doc as unknown as { webhooks: Record<string, Record<string, Operation>> }).webhooks;
    const inline: string[] = [];
    const bodies = (where: string, op: Operation) => {
      const media = [
        ...Object.entries(op.requestBody?.content ?? {}).map(
          ([type, m]) => [`${where} body ${type}`, m] as const,
        ),
        ...Object.entries(op.responses).flatMap(([status, response]) =>
          Object.entries(response.content ?? {}).map(
            ([type, m]) => [`${where} ${status} ${type}`, m] as const,
          ),
        ),
      ];
      for (const [at, { schema }] of media) {
        if (schema === undefined || schema.$ref !== undefined) continue;
        const plain = schema as { type?: unknown; properties?: unknown; anyOf?: unknown; allOf?: unknown };
        if (plain.type === 'object' || plain.properties || plain.anyOf || plain.allOf) inline.push(at);
      }
    };
    for (const [method, path, op] of operations()) bodies(`${method} ${path}`, op);
    for (const [event, item] of Object.entries(webhooks)) bodies(`webhook ${event}`, item.post!);
    assert.deepEqual(inline, []);
    assert.deepEqual(byId('adminRequestSignInCode').requestBody?.content?.['application/json']?.schema, {
      $ref: '#/components/schemas/SignInCodeRequest',
    });
    const checkout = doc.components.schemas.CheckoutResult as { properties: Record<string, unknown> };
    assert.deepEqual(checkout.properties.payment, { $ref: '#/components/schemas/CheckoutPayment' });
  });

  test('enumerations are plain enums: no union of single literal values is left anywhere', () => {
    const unions: string[] = [];
    const isLiteral = (schema: unknown): boolean => {
      const s = schema as { const?: unknown; enum?: unknown[] };
      return s.const !== undefined || (Array.isArray(s.enum) && s.enum.length === 1);
    };
    const walk = (value: unknown, at: string): void => {
      if (value === null || typeof value !== 'object') return;
      for (const [key, child] of Object.entries(value)) walk(child, `${at}/${key}`);
      const anyOf = (value as { anyOf?: unknown[] }).anyOf;
      if (Array.isArray(anyOf) && anyOf.filter(isLiteral).length > 1) unions.push(at);
    };
    walk(doc, '#');
    assert.deepEqual(unions, []);
    const schemas = doc.components.schemas as Record<string, { properties: Record<string, unknown> }>;
    assert.deepEqual(schemas.AdminOrder?.properties.status, {
      type: 'string',
      enum: ['pending', 'paid', 'expired', 'cancelled'],
    });
    // A nullable enumeration: the enum and null.
    assert.deepEqual((schemas.WebhookEndpoint?.properties.disabledReason as { anyOf: unknown[] }).anyOf, [
      { type: 'string', enum: ['manual', 'gone', 'secret_unreadable'] },
      { type: 'null' },
    ]);
    // In query parameters and in the webhooks' payloads too.
    const status = byId('adminListOrders').parameters?.find((p) => p.name === 'status') as {
      schema?: unknown;
    };
    assert.deepEqual(status.schema, { type: 'string', enum: ['pending', 'paid', 'expired', 'cancelled'] });
    const reason = schemas.ProductDeletedData?.properties.reason as { enum?: unknown[] };
    assert.deepEqual(reason.enum, ['deleted', 'archived', 'draft']);
  });

  test('every error response is application/problem+json and lists the titles it can carry', () => {
    const pages = new Set(['openSandboxPaymentPage', 'confirmSandboxPaymentPage']);
    for (const [method, path, op] of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        if (pages.has(op.operationId ?? '')) {
          // The sandbox's hosted payment page answers browsers: its errors are HTML pages.
          assert.deepEqual(Object.keys(response.content ?? {}), ['text/html'], `${method} ${path} ${status}`);
          continue;
        }
        assert.deepEqual(
          Object.keys(response.content ?? {}),
          ['application/problem+json'],
          `${method} ${path} ${status}`,
        );
        for (const title of response.description.matchAll(/`([a-z_]+)`/g)) {
          assert.equal(
            PROBLEMS[title[1] as keyof typeof PROBLEMS][0],
            Number(status),
            `${title[1]} is a ${status}`,
          );
        }
      }
    }
    const checkout = byId('createCheckout');
    for (const [status, title] of [
      ['400', 'idempotency_key_required'],
      ['409', 'insufficient_stock'],
      ['409', 'idempotency_in_progress'],
      ['422', 'idempotency_key_reused'],
      ['429', 'rate_limited'],
      ['502', 'provider_unavailable'],
    ] as const) {
      assert.match(
        checkout.responses[status]?.description ?? '',
        new RegExp(`\`${title}\``),
        `${status} ${title}`,
      );
    }
    assert.ok(
      checkout.responses['409']?.headers?.['Retry-After'],
      '409 idempotency_in_progress says Retry-After',
    );
  });

  test('checkout requires its Idempotency-Key; the replay header is documented', () => {
    const checkout = byId('createCheckout');
    const key = checkout.parameters?.find((p) => p.in === 'header' && p.name === 'Idempotency-Key');
    assert.equal(key?.required, true);
    assert.ok(checkout.responses['201']?.headers?.['Idempotent-Replayed']);
  });

  test('conditional requests: cacheable reads take If-None-Match (304), cart writes If-Match (412)', () => {
    for (const id of ['listProducts', 'getProduct', 'getCollection', 'getPage', 'getRegion', 'getStore']) {
      const op = byId(id);
      assert.ok(
        op.parameters?.some((p) => p.name === 'If-None-Match'),
        `${id} If-None-Match`,
      );
      assert.ok(op.responses['304'], `${id} 304`);
      assert.ok(op.responses['200']?.headers?.ETag, `${id} ETag`);
    }
    assert.ok(!byId('getCart').parameters?.some((p) => p.name === 'If-None-Match'), 'carts are not cached');
    const replace = byId('replaceCart');
    assert.ok(replace.parameters?.some((p) => p.name === 'If-Match'));
    assert.match(replace.responses['412']?.description ?? '', /precondition_failed/);
    assert.ok(byId('createCart').responses['201']?.headers?.Location);
  });

  test('security per surface: a publishable key in either header, a staff token, or nothing; a customer token beside the key', () => {
    assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), [
      'customerToken',
      'publishableKey',
      'publishableKeyBearer',
      'staffSession',
    ]);
    for (const [method, path, op] of operations()) {
      const signedIn = [{ publishableKey: [], customerToken: [] }];
      const expected = /^\/storefront\/v1\/customers\/(me|sign-out)/.test(path)
        ? signedIn
        : path === '/storefront/v1/checkout'
          ? [{ publishableKey: [] }, { publishableKeyBearer: [] }, ...signedIn]
          : path.startsWith('/storefront/v1')
            ? [{ publishableKey: [] }, { publishableKeyBearer: [] }]
            : path.startsWith('/admin/v1/auth/sign-in') || path.startsWith('/admin/v1/auth/verify')
              ? []
              : path.startsWith('/admin/v1')
                ? [{ staffSession: [] }]
                : [];
      assert.deepEqual(op.security, expected, `${method} ${path}`);
    }
  });

  test('tags read storefront first, then admin, then operations', () => {
    const names = doc.tags.map((tag) => tag.name);
    assert.equal(names[0], 'Storefront');
    assert.ok(names.indexOf('Admin: authentication') > names.indexOf('Storefront: checkout'));
    assert.deepEqual(names.slice(-2), ['Operations', 'Webhooks']);
    assert.ok(Object.keys(doc.paths)[0]?.startsWith('/storefront/v1'), 'paths start with the storefront');
  });

  test('a real error answer is one the document lists for that operation', async () => {
    const shop = await createTestStore(t);
    const missing = await t.app.inject({
      method: 'GET',
      url: `/storefront/v1/products/${randomUUID()}`,
      headers: { 'x-publishable-key': shop.publishableKey },
    });
    assert.equal(missing.statusCode, 404);
    assert.match(String(missing.headers['content-type']), /^application\/problem\+json/);
    assert.match(
      byId('getProduct').responses['404']?.description ?? '',
      new RegExp(`\`${missing.json<{ title: string }>().title}\``),
    );

    const noKey = await t.app.inject({
      method: 'POST',
      url: '/storefront/v1/checkout',
      headers: { 'x-publishable-key': shop.publishableKey },
      payload: { cartId: randomUUID(), email: 'a@example.com' },
    });
    assert.equal(noKey.statusCode, 400);
    assert.match(
      byId('createCheckout').responses['400']?.description ?? '',
      new RegExp(`\`${noKey.json<{ title: string }>().title}\``),
    );
  });

  test('every problem title the code raises is in the catalogue', () => {
    const root = path.resolve(import.meta.dirname, '..');
    const raised = new Set<string>();
    for (const file of fs.globSync('**/*.ts', { cwd: root })) {
      if (file.endsWith('.test.ts')) continue;
      const text = fs.readFileSync(path.join(root, file), 'utf8');
      for (const match of text.matchAll(/new AppError\(\s*'([a-z_]+)'/g)) raised.add(match[1]!);
    }
    assert.ok(raised.size >= 30, `${raised.size} titles found`);
    for (const title of raised) assert.ok(title in PROBLEMS, `${title} is in src/http/problems.ts`);
  });
});

describe('the webhooks of the document', () => {
  test('every event (the ten of the spec and those of decision `event-types`), each with its envelope, data schema and signature headers', () => {
    const webhooks = (doc as unknown as { webhooks: Record<string, { post: Operation }> }).webhooks;
    assert.deepEqual(Object.keys(webhooks).sort(), Object.keys(EVENT_DATA).sort());
    assert.equal(Object.keys(webhooks).length, 26);
    for (const [event, item] of Object.entries(webhooks)) {
      const schema = item.post.requestBody?.content?.['application/json']?.schema;
      assert.match(schema?.$ref ?? '', /^#\/components\/schemas\/\w+Event$/, event);
      const signature = item.post.parameters?.find((p) => p.name === 'x-webhook-signature');
      assert.equal(signature?.required, true, `${event} is signed`);
    }
    const paid = doc.components.schemas.OrderPaidEvent as { properties: Record<string, unknown> };
    assert.deepEqual(paid.properties.data, { $ref: '#/components/schemas/OrderPaidData' });
  });

  test('the data a feature records matches the schema it declares', async () => {
    const shop = await createTestStore(t);
    const auth = { authorization: `Bearer ${shop.staffToken}` };
    const created = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/products',
      headers: auth,
      payload: { title: 'Mug', status: 'active', variants: [{ label: 'Mug', priceAmount: 1200, onHand: 3 }] },
    });
    assert.equal(created.statusCode, 201);
    const product = created.json<{ id: string; variants: { id: string }[] }>();
    await t.app.inject({
      method: 'PATCH',
      url: `/admin/v1/variants/${product.variants[0]!.id}`,
      headers: auth,
      payload: { onHand: 5 },
    });
    await t.app.inject({ method: 'PUT', url: '/admin/v1/menus/main', headers: auth, payload: { items: [] } });
    await t.app.inject({ method: 'DELETE', url: `/admin/v1/products/${product.id}`, headers: auth });

    const events = await t.db.kysely
      .selectFrom('events')
      .select(['type', 'data'])
      .where('store_id', '=', shop.store.id)
      .execute();
    const types = new Set(events.map((e) => e.type));
    for (const type of ['product.created', 'inventory.updated', 'content.updated', 'product.deleted']) {
      assert.ok(types.has(type), `${type} was recorded`);
    }
    for (const event of events) {
      const schema = EVENT_DATA[event.type as keyof typeof EVENT_DATA];
      assert.ok(Value.Check(schema, event.data), `${event.type} ${JSON.stringify(event.data)}`);
    }
  });
});

describe('/docs', () => {
  test('serves the reference on this server, with no third-party cloud, AI or font requests', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(page.statusCode, 200);
    const html = page.body;
    for (const src of html.matchAll(/<(?:script|link)[^>]+(?:src|href)="([^"]+)"/g)) {
      assert.ok(!/^https?:\/\//.test(src[1]!), `loads ${src[1]} from elsewhere`);
    }
    const compact = html.replace(/\s+/g, '');
    assert.match(compact, /"agent":\{"disabled":true\}/);
    assert.match(compact, /"mcp":\{"disabled":true\}/);
    assert.match(compact, /"showDeveloperTools":"never"/);
    assert.match(compact, /"withDefaultFonts":false/);
    assert.match(compact, /"telemetry":false/);
  });

  test("every answer is locked down: a CSP of this origin, whose only inline script is the page's own (by hash)", async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs/' });
    const inline = [...page.body.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)];
    assert.equal(inline.length, 1, 'the page starts the reference with one inline script');
    const hash = createHash('sha256').update(inline[0]![1]!).digest('base64');
    for (const url of ['/docs', '/docs/', '/docs/js/scalar.js']) {
      const response = await t.app.inject({ method: 'GET', url });
      const csp = String(response.headers['content-security-policy']);
      const directives = new Map(
        csp.split('; ').map((directive) => [directive.split(' ')[0]!, directive.split(' ').slice(1)]),
      );
      assert.deepEqual(directives.get('default-src'), ["'self'"], url);
      assert.deepEqual(
        directives.get('script-src'),
        url === '/docs/' ? ["'self'", `'sha256-${hash}'`] : ["'self'"],
        `${url}: scripts from this origin, and on the page its own inline script`,
      );
      assert.deepEqual(directives.get('frame-ancestors'), ["'none'"], url);
      assert.deepEqual(directives.get('object-src'), ["'none'"], url);
      assert.deepEqual(directives.get('base-uri'), ["'none'"], url);
      assert.doesNotMatch(csp, /unsafe-eval|https?:|\*/, `${url}: no other origin, no eval`);
      assert.equal(response.headers['x-frame-options'], 'DENY', url);
      assert.equal(response.headers['x-content-type-options'], 'nosniff', url);
      assert.equal(response.headers['referrer-policy'], 'no-referrer', url);
    }
  });
});
