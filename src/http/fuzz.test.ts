/**
 * A fuzz test generated from the served `/openapi.json` (decision `input-hygiene`): every operation gets requests
 * with valid, invalid and missing credentials, wrong types, boundary numbers, NUL characters, lone
 * surrogates, long strings and odd percent-encoding, over real HTTP. No answer may be a 5xx, and
 * every error must be problem+json. Seeded and bounded: FUZZ_SEED repeats a run, FUZZ_REQUESTS
 * sizes it (at least 3,000 by default). Any error-level log line fails the file (the harness).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { openStaffSession } from '../staff/staff.service.ts';
import {
  createTestStore,
  startTestApp,
  testConfig,
  type HttpMethod,
  type TestApp,
  type TestStore,
} from '../test/harness.ts';
import { webhookTestConfig } from '../webhooks/webhooks.test-support.ts';

/** A 1 × 1 PNG, uploaded so that media URLs in requests name a real file. */
const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAADElEQVQImWM4E2oMAANFAVWNHRN+AAAAAElFTkSuQmCC',
  'base64',
);
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 3200);
const PARALLEL = 8;

/** mulberry32: a small, fast, seeded PRNG (the same seed gives the same run). */
class Rng {
  #state: number;
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }
  next(): number {
    let t = (this.#state += 0x6d2b79f5);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

interface Schema {
  type?: string | string[];
  format?: string;
  pattern?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
}

interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body: Schema | null;
  /** The body is a form (application/x-www-form-urlencoded), not JSON. */
  form: boolean;
  /** An HTML page (the sandbox's hosted payment page): its errors are HTML pages, not problems. */
  html: boolean;
}

/** What the fixtures made: real ids and names, so some requests reach deep into the handlers. */
interface Pools {
  uuids: string[];
  slugs: string[];
  refs: string[];
  /** The store's id (media URLs name it) and an uploaded image's `<sha256>.<ext>`. */
  storeId: string;
  files: string[];
}

const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '😀',
  'x'.repeat(300),
  'y'.repeat(10_000),
  '../../etc/passwd',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  'javascript:alert(1)',
  '%00',
  '\u202e\u0301',
  'NaN',
  '0x10',
  '1e2',
];
const HOSTILE_VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  2 ** 31,
  2 ** 53 + 2,
  -(2 ** 53),
  1e308,
  [],
  {},
  [null],
  { __proto__: { polluted: true } },
  { constructor: { prototype: { polluted: true } } },
  ...HOSTILE_STRINGS,
];
/** Past the largest integer JSON holds exactly (2^53 − 1), and past PostgreSQL's bigint. */
const HUGE_NUMBERS = [
  '9007199254740992',
  '9007199254740993',
  '99999999999999999999',
  '-99999999999999999999',
];
const QUERY_NUMBERS = [
  '0',
  '-1',
  '1',
  '20',
  '100',
  '101',
  '9007199254740991',
  ...HUGE_NUMBERS,
  '1e2',
  '0x10',
  ' 5',
  '05',
  '+5',
  '5.0',
  '',
  'abc',
  '%00',
];
const ODD_SEGMENTS = [
  '%00',
  '%E0%A4%A',
  '%ED%A0%80',
  '%',
  '%%',
  '%2e%2e',
  '%2F',
  '..',
  'a'.repeat(250),
  '%F0%9F%98%80',
  'x%20y',
];

function typeOf(schema: Schema): string | undefined {
  return Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
}

/** A value that satisfies the schema as far as a generator easily can. */
function plausible(schema: Schema, rng: Rng, pools: Pools, depth = 0): unknown {
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return plausible(rng.pick(union), rng, pools, depth);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return rng.pick(schema.enum);
  switch (typeOf(schema)) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        if (schema.required?.includes(name) || rng.chance(0.5))
          out[name] = plausible(property, rng, pools, depth + 1);
      }
      return out;
    }
    case 'array':
      return depth > 4
        ? []
        : Array.from({ length: rng.int(3) }, () => plausible(schema.items ?? {}, rng, pools, depth + 1));
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? 0;
      const max = Math.min(schema.maximum ?? min + 10_000, min + 10_000);
      return min + rng.int(max - min + 1);
    }
    case 'boolean':
      return rng.chance(0.5);
    case 'null':
      return null;
    case 'string':
      return plausibleString(schema, rng, pools);
    case undefined:
    default:
      return rng.pick(['x', 1, true]);
  }
}

function plausibleString(schema: Schema, rng: Rng, pools: Pools): string {
  switch (schema.format) {
    case 'uuid':
      return rng.chance(0.7) ? rng.pick(pools.uuids) : randomUUID();
    case 'email':
      return `fuzz${rng.int(1000)}@example.com`;
    case 'date-time':
      return new Date(Date.now() + (rng.int(200) - 100) * 86_400_000).toISOString();
    case 'uri':
      return rng.pick(['https://example.com/a.png', 'http://127.0.0.1:9/hook', '/relative']);
    case undefined:
    default:
      break;
  }
  const text = rng.pick([
    ...pools.slugs,
    'demo',
    'Fuzz Title',
    'USD',
    'US',
    'ABC-123',
    'https://shop.example',
  ]);
  return text.slice(0, schema.maxLength ?? text.length).padEnd(schema.minLength ?? 0, 'x');
}

/** The valid value with one part broken: a hostile value, a missing required field, an unknown one. */
function mutate(value: unknown, schema: Schema, rng: Rng, pools: Pools): unknown {
  if (rng.chance(0.15)) return rng.pick(HOSTILE_VALUES);
  if (typeOf(schema) === 'object' && value && typeof value === 'object' && !Array.isArray(value)) {
    const out = { ...(value as Record<string, unknown>) };
    const names = Object.keys(schema.properties ?? {});
    const roll = rng.next();
    if (roll < 0.2 && schema.required?.length) delete out[rng.pick(schema.required)];
    else if (roll < 0.3)
      out[rng.pick(['unknown', 'extra', '\u0000key', 'k\ud800'])] = rng.pick(HOSTILE_VALUES);
    else if (names.length > 0) {
      const name = rng.pick(names);
      out[name] = rng.chance(0.5)
        ? rng.pick(HOSTILE_VALUES)
        : mutate(
            out[name] ?? plausible(schema.properties![name]!, rng, pools),
            schema.properties![name]!,
            rng,
            pools,
          );
    }
    return out;
  }
  if (typeOf(schema) === 'array') {
    if (rng.chance(0.3)) return Array.from({ length: 1500 }, () => plausible(schema.items ?? {}, rng, pools));
    return [mutate(plausible(schema.items ?? {}, rng, pools), schema.items ?? {}, rng, pools)];
  }
  return rng.pick(HOSTILE_VALUES);
}

function pathValue(parameter: Parameter, rng: Rng, pools: Pools): string {
  const roll = rng.next();
  if (roll < 0.2) return rng.pick(ODD_SEGMENTS); // already percent-encoded (or not) on purpose
  if (roll < 0.35) return encodeURIComponent(rng.pick(HOSTILE_STRINGS.filter((s) => s.isWellFormed())));
  if (parameter.name === 'storeId' && rng.chance(0.8)) return caseOf(pools.storeId, rng);
  if (parameter.name === 'file' && rng.chance(0.8)) return rng.pick(pools.files);
  if (parameter.schema.format === 'uuid')
    return caseOf(rng.chance(0.8) ? rng.pick(pools.uuids) : randomUUID(), rng);
  if (parameter.name === 'provider') return rng.pick(['sandbox', 'stripe', 'nope']);
  if (parameter.name === 'ref') return rng.pick([...pools.refs, 'pi_sbx_nope']);
  return encodeURIComponent(rng.pick(pools.slugs));
}

/** A UUID as a client may write it: mostly lower case, sometimes upper case (both are the same id). */
function caseOf(uuid: string, rng: Rng): string {
  return rng.chance(0.25) ? uuid.toUpperCase() : uuid;
}

function queryValue(parameter: Parameter, rng: Rng, pools: Pools): string {
  const type = typeOf(parameter.schema);
  if (type === 'integer' || type === 'number')
    return rng.chance(0.8) ? rng.pick(QUERY_NUMBERS) : String(rng.int(50));
  if (rng.chance(0.3)) return rng.pick(['%00', '%ED%A0%80', '%E0%A4%A', 'a'.repeat(2000), '%2B']);
  return encodeURIComponent(String(plausible(parameter.schema, rng, pools)));
}

interface Credentials {
  shop: TestStore;
  /** A staff token per sign-out request (sign-out ends the session it is sent with). */
  spareToken(): Promise<string>;
}

async function headersFor(op: Operation, rng: Rng, creds: Credentials): Promise<Record<string, string>> {
  const headers: Record<string, string> = {};
  const roll = rng.next();
  if (op.path.startsWith('/storefront/')) {
    if (roll < 0.7) headers['x-publishable-key'] = creds.shop.publishableKey;
    else if (roll < 0.8) headers.authorization = `Bearer ${creds.shop.publishableKey}`;
    else if (roll < 0.9)
      headers['x-publishable-key'] = rng.pick(['pk_nope', 'pk_' + 'x'.repeat(32), creds.shop.staffToken]);
    if (rng.chance(0.2)) headers.origin = rng.pick(['https://shop.example', 'https://evil.example', 'null']);
  } else if (op.path.startsWith('/admin/')) {
    const token = op.path === '/admin/v1/auth/sign-out' ? await creds.spareToken() : creds.shop.staffToken;
    if (roll < 0.75) headers.authorization = `Bearer ${token}`;
    else if (roll < 0.85)
      headers.authorization = rng.pick([
        'Bearer st_nope',
        `Bearer ${creds.shop.publishableKey}`,
        'Basic Zm9vOmJhcg==',
      ]);
  }
  for (const parameter of op.parameters.filter((p) => p.in === 'header')) {
    if (rng.chance(0.8)) {
      headers[parameter.name] =
        parameter.name === 'idempotency-key'
          ? rng.pick([randomUUID(), `"${randomUUID()}"`, 'not-a-uuid', ''])
          : rng.pick(['*', '"1-abc"', '"v1"', 'W/"x"', 'garbage']);
    }
  }
  return headers;
}

let t: TestApp;
let base = '';
let creds: Credentials;
const pools: Pools = { uuids: [], slugs: [], refs: [], storeId: '', files: [] };

/** Fixtures: a store with one of everything, so ids in requests are often real. */
before(async () => {
  t = await startTestApp({
    config: {
      ...webhookTestConfig(),
      rateLimits: {
        ...testConfig().rateLimits,
        publicRead: 1e7,
        publicWrite: 1e7,
        ipRead: 1e7,
        ipWrite: 1e7,
        signIn: 1e7,
        customerSignIn: 1e7,
      },
    },
  });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const shop = await createTestStore(t);
  creds = {
    shop,
    spareToken: async () => (await openStaffSession(t.deps, shop.store.id, shop.ownerEmail)).token,
  };
  const admin = async (method: HttpMethod, url: string, body?: unknown) =>
    (await t.admin(shop).request(method, url, body)).json<Record<string, unknown>>();
  const product = await admin('POST', '/products', {
    title: 'Fuzzed',
    status: 'active',
    tags: ['fuzz'],
    variants: [{ label: 'One', sku: 'FZ-1', priceAmount: 1000, onHand: 1000 }],
  });
  const variantId = (product.variants as { id: string }[])[0]!.id;
  const collection = await admin('POST', '/collections', {
    title: 'Fuzz',
    slug: 'fuzz',
    kind: 'manual',
    productIds: [product.id],
  });
  await admin('PUT', '/pages/fuzz', { title: 'Fuzz', body: 'Hello' });
  await admin('PUT', '/menus/main', { items: [{ label: 'Home', url: '/' }] });
  await admin('PUT', '/regions/hero/draft', { blocks: [{ id: 'a', type: 'text', settings: { text: 'x' } }] });
  await admin('POST', '/regions/hero/publish');
  const endpoint = await admin('POST', '/webhooks/endpoints', {
    url: 'http://127.0.0.1:9/fuzz',
    events: ['*'],
  });
  const discount = await admin('POST', '/discounts', { code: 'FUZZ10', kind: 'percent', value: 10 });
  const theme = await admin('POST', '/themes', { name: 'Fuzz', settings: {} });
  const app = await admin('POST', '/apps', { name: 'Fuzz', scopes: ['read_products'] });
  const spareKey = await admin('POST', '/integrations/storefront-keys', {
    label: 'spare',
    allowedOrigins: [],
  });
  const staff = await admin('POST', '/staff', { email: 'fuzz-staff@example.com', role: 'staff' });
  const storefront = async (
    method: HttpMethod,
    url: string,
    body: unknown,
    headers: Record<string, string> = {},
  ) => (await t.storefront(shop).request(method, url, body, headers)).json<Record<string, unknown>>();
  const cart = await storefront('POST', '/carts', { items: [{ variantId, quantity: 1 }] });
  const spareCart = await storefront('POST', '/carts', { items: [{ variantId, quantity: 2 }] });
  const checkout = await storefront(
    'POST',
    '/checkout',
    { cartId: cart.id, email: 'f@example.com' },
    { 'idempotency-key': randomUUID() },
  );
  const order = checkout.order as { id: string };
  const payment = checkout.payment as { ref: string };
  // Never the credentials the fuzzer itself signs in with: deleting them would only end the run early.
  pools.uuids.push(
    ...[
      product.id,
      variantId,
      collection.id,
      endpoint.id,
      discount.id,
      theme.id,
      app.id,
      spareKey.id,
      staff.id,
      cart.id,
      spareCart.id,
      order.id,
    ].map(String),
  );
  pools.slugs.push('fuzz', 'main', 'hero', 'about', 'FUZZ10', 'US', String(shop.store.slug));
  pools.refs.push(payment.ref);
  pools.storeId = shop.store.id;
  const form = new FormData();
  form.append('file', new Blob([PNG_1X1]), 'pixel.png');
  const media = (await (
    await fetch(`${base}/admin/v1/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.staffToken}` },
      body: form,
    })
  ).json()) as { url: string };
  pools.files.push(media.url.split('/').pop()!);
});
after(() => t.close());

/** The document with every local `$ref` replaced by what it names (component schemas and headers). */
function dereferenced<T>(doc: T): T {
  const root = doc as unknown as Record<string, unknown>;
  const resolve = (value: unknown, seen: readonly string[]): unknown => {
    if (Array.isArray(value)) return value.map((item) => resolve(item, seen));
    if (value === null || typeof value !== 'object') return value;
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/')) {
      assert.ok(!seen.includes(ref), `a $ref cycle through ${ref}`);
      const target = ref
        .slice(2)
        .split('/')
        .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], root);
      assert.ok(target !== undefined, `${ref} names nothing`);
      return resolve(target, [...seen, ref]);
    }
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, resolve(child, seen)]));
  };
  return resolve(doc, []) as T;
}

function operationsOf(doc: {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Parameter[];
        requestBody?: { content?: Record<string, { schema: Schema }> };
        responses?: Record<string, { content?: Record<string, unknown> }>;
      }
    >
  >;
}): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const content = op.requestBody?.content ?? {};
      const form = content['application/x-www-form-urlencoded']?.schema;
      return {
        method: method.toUpperCase(),
        path,
        parameters: op.parameters ?? [],
        body: content['application/json']?.schema ?? form ?? null,
        form: form !== undefined,
        html: Object.values(op.responses ?? {}).some((response) => response.content?.['text/html']),
      };
    }),
  );
}

/** A value as a form field carries it (text only). */
function formValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A form body: the fields of an object (or one odd field), encoded as a browser does. */
function formBody(value: unknown): string {
  const fields: [string, string][] =
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.entries(value as Record<string, unknown>).map(([name, field]) => [name, formValue(field)])
      : [['value', formValue(value)]];
  return new URLSearchParams(fields).toString();
}

async function request(op: Operation, rng: Rng): Promise<Answer> {
  let url = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const parameter = op.parameters.find((p) => p.in === 'path' && p.name === name) ?? {
      name,
      in: 'path',
      schema: { type: 'string' },
    };
    return pathValue(parameter, rng, pools);
  });
  const query = op.parameters
    .filter((p) => p.in === 'query' && rng.chance(0.6))
    .map((p) => `${p.name}=${queryValue(p, rng, pools)}`);
  if (rng.chance(0.05)) query.push(`unknown=${rng.pick(['1', '%00'])}`);
  if (query.length > 0) url += `?${query.join('&')}`;
  const headers = await headersFor(op, rng, creds);
  let body: string | undefined;
  const bodyAllowed = op.method !== 'GET' && op.method !== 'HEAD';
  if (bodyAllowed && (op.body || rng.chance(0.1))) {
    const valid = op.body ? plausible(op.body, rng, pools) : {};
    const value = rng.chance(0.35) ? valid : mutate(valid, op.body ?? {}, rng, pools);
    body = rng.chance(0.05)
      ? rng.pick(['{', '{"a":', 'null', '[]', '"\\ud800"', '{"a":"\\u0000"}', '\u0000', ''])
      : op.form
        ? formBody(value)
        : JSON.stringify(value);
    const type = rng.next();
    const [usual, other] = op.form
      ? ['application/x-www-form-urlencoded', 'application/json']
      : ['application/json', 'application/x-www-form-urlencoded'];
    headers['content-type'] = type < 0.9 ? usual : type < 0.95 ? 'text/plain' : other;
  } else if (bodyAllowed && rng.chance(0.2)) {
    headers['content-type'] = 'application/json'; // a bodyless request declaring JSON
  }
  return send(op, url, headers, body);
}

async function send(
  op: Operation,
  url: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<Answer> {
  const response = await fetch(`${base}${url}`, {
    method: op.method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    body: await response.text(),
    url: `${op.method} ${url}`,
    html: op.html,
  };
}

interface Answer {
  status: number;
  type: string;
  body: string;
  url: string;
  html: boolean;
}

/** What is wrong with an answer: a 5xx, an error that is not problem+json (or an HTML page's), a stack. */
function badAnswer(answer: Answer): string[] {
  const failures: string[] = [];
  if (answer.status >= 500) failures.push(`${answer.status} ${answer.url}: ${answer.body.slice(0, 200)}`);
  else if (answer.status >= 400 && answer.html && answer.type.startsWith('text/html')) {
    // An HTML page's error (errors raised before routing, e.g. bad percent-encoding, stay problems).
    if (!answer.body.startsWith('<!doctype html>'))
      failures.push(`${answer.status} not an HTML page ${answer.url}: ${answer.body.slice(0, 200)}`);
  } else if (answer.status >= 400) {
    let problem: { title?: unknown; status?: unknown } = {};
    try {
      problem = JSON.parse(answer.body) as typeof problem;
    } catch {
      // reported below
    }
    if (
      !answer.type.startsWith('application/problem+json') ||
      typeof problem.title !== 'string' ||
      problem.status !== answer.status
    ) {
      failures.push(
        `${answer.status} not problem+json (${answer.type}) ${answer.url}: ${answer.body.slice(0, 200)}`,
      );
    }
  }
  if (/\bat \S+\.ts:\d+/.test(answer.body)) failures.push(`stack trace in ${answer.url}`);
  return failures;
}

test(`fuzzing every operation of /openapi.json (${REQUESTS} requests, seed ${SEED}): no 5xx, every error problem+json (an HTML page's: HTML)`, async () => {
  const doc = (await (await fetch(`${base}/openapi.json`)).json()) as Parameters<typeof operationsOf>[0];
  const operations = operationsOf(dereferenced(doc));
  assert.ok(operations.length >= 90, `${operations.length} operations`);
  const perOperation = Math.ceil(REQUESTS / operations.length);
  const rng = new Rng(SEED);
  const jobs = operations.flatMap((op) => Array.from({ length: perOperation }, () => op));
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < jobs.length) {
        const op = jobs[next++]!;
        const answer = await request(op, rng);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        failures.push(...badAnswer(answer));
      }
    }),
  );
  const total = [...statuses.values()].reduce((a, b) => a + b, 0);
  process.stdout.write(
    `# fuzz: ${total} requests over ${operations.length} operations, seed ${SEED}; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}\n`,
  );
  assert.ok(total >= 3000, `${total} requests`);
  assert.ok(
    [...statuses.keys()].some((status) => status < 300),
    'some requests succeed (the fuzzer reaches the handlers)',
  );
  assert.deepEqual(failures.slice(0, 20), [], `${failures.length} bad answers`);
});

/** The values a numeric parameter is swept with: its bounds, one past each, and huge numbers. */
function boundaryNumbers(schema: Schema): string[] {
  const values = new Set(HUGE_NUMBERS);
  for (const bound of [schema.minimum, schema.maximum]) {
    if (bound === undefined) continue;
    const exact = BigInt(bound);
    for (const value of [exact - 1n, exact, exact + 1n]) values.add(String(value));
  }
  return [...values];
}

/** Credentials that pass, so that a swept value reaches the handler. */
async function validHeaders(op: Operation): Promise<Record<string, string>> {
  if (op.path.startsWith('/storefront/')) return { 'x-publishable-key': creds.shop.publishableKey };
  if (op.path.startsWith('/admin/'))
    return {
      authorization: `Bearer ${op.path === '/admin/v1/auth/sign-out' ? await creds.spareToken() : creds.shop.staffToken}`,
    };
  return {};
}

test('a sweep of every operation: each numeric query parameter at, past and far past its bounds, and every UUID of a path in upper case; no 5xx, every error problem+json', async () => {
  const doc = (await (await fetch(`${base}/openapi.json`)).json()) as Parameters<typeof operationsOf>[0];
  const rng = new Rng(SEED);
  const failures: string[] = [];
  let sent = 0;
  let upperCased = 0;
  for (const op of operationsOf(dereferenced(doc))) {
    const uuids = op.parameters.filter((p) => p.in === 'path' && p.schema.format === 'uuid');
    const path = (upper: boolean) =>
      op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
        const parameter = op.parameters.find((p) => p.in === 'path' && p.name === name);
        if (name === 'storeId') return upper ? pools.storeId.toUpperCase() : pools.storeId;
        if (name === 'file') return pools.files[0]!;
        if (parameter?.schema.format === 'uuid') {
          const id = rng.pick(pools.uuids);
          return upper ? id.toUpperCase() : id;
        }
        return parameter ? pathValue({ ...parameter, name }, new Rng(SEED), pools) : 'x';
      });
    const body = () => (op.body ? JSON.stringify(plausible(op.body, rng, pools)) : undefined);
    const headers = async () => ({
      ...(await validHeaders(op)),
      ...(op.body
        ? { 'content-type': op.form ? 'application/x-www-form-urlencoded' : 'application/json' }
        : {}),
    });
    const urls: string[] = [];
    if (uuids.length > 0) {
      urls.push(path(true));
      upperCased += 1;
    }
    for (const parameter of op.parameters.filter((p) => p.in === 'query')) {
      const type = typeOf(parameter.schema);
      if (type !== 'integer' && type !== 'number') continue;
      for (const value of boundaryNumbers(parameter.schema))
        urls.push(`${path(false)}?${parameter.name}=${value}`);
    }
    for (const url of urls) {
      const answer = await send(op, url, await headers(), op.form ? undefined : body());
      sent += 1;
      failures.push(...badAnswer(answer));
    }
  }
  process.stdout.write(`# sweep: ${sent} requests, ${upperCased} operations with upper-case path UUIDs\n`);
  assert.ok(upperCased >= 50, `${upperCased} operations with a UUID in the path`);
  assert.deepEqual(failures.slice(0, 20), [], `${failures.length} bad answers`);
});

test('every number a request can carry has a maximum, at most 2^53 − 1 (parameters and JSON bodies, at any depth)', async () => {
  const doc = (await (await fetch(`${base}/openapi.json`)).json()) as Parameters<typeof operationsOf>[0];
  const unbounded: string[] = [];
  const visit = (schema: Schema | undefined, where: string, depth = 0): void => {
    if (!schema || depth > 12) return;
    const type = typeOf(schema);
    if ((type === 'integer' || type === 'number') && !(schema.maximum! <= Number.MAX_SAFE_INTEGER))
      unbounded.push(where);
    for (const alternative of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])])
      visit(alternative, where, depth + 1);
    for (const [name, property] of Object.entries(schema.properties ?? {}))
      visit(property, `${where}/${name}`, depth + 1);
    const patterns = (schema as { patternProperties?: Record<string, Schema> }).patternProperties ?? {};
    for (const [name, property] of Object.entries(patterns)) visit(property, `${where}/${name}`, depth + 1);
    visit(schema.items, `${where}/[]`, depth + 1);
  };
  for (const op of operationsOf(dereferenced(doc))) {
    for (const parameter of op.parameters)
      visit(parameter.schema, `${op.method} ${op.path} ${parameter.in} ${parameter.name}`);
    visit(op.body ?? undefined, `${op.method} ${op.path} body`);
  }
  assert.deepEqual(unbounded, []);
});
