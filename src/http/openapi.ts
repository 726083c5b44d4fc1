import type { FastifySchema, RouteOptions } from 'fastify';
import { isCacheableOnSend } from './read-cache.ts';
import { PROBLEMS, type ProblemTitle } from './problems.ts';
import { ProblemSchema, ValidationProblemSchema } from './schemas.ts';
import { HEADERS, headerRef, SECURITY_SCHEMES, TAGS, type HeaderName } from './openapi-vocabulary.ts';

export { SECURITY_SCHEMES, TAGS, type HeaderName } from './openapi-vocabulary.ts';

/**
 * The OpenAPI document, refined from what @fastify/swagger derives of the route schemas (one
 * source): named component schemas (every schema with a `title`), problem+json error responses
 * listing the titles each operation can return, response headers, conditional requests, security
 * per surface, tags in reading order, and the webhooks the composition passes in.
 */

declare module 'fastify' {
  interface FastifySchema {
    /** Problem titles this route returns besides those every route of its surface can (problems.ts). */
    'x-problems'?: readonly ProblemTitle[];
    /** Headers a success response carries besides the surface's (names of components.headers). */
    'x-response-headers'?: Readonly<Record<number, readonly HeaderName[]>>;
    /** On admin routes, the lowest staff role that may call (set from ADMIN_ACCESS, admin-access.ts). */
    'x-staff-role'?: 'owner' | 'admin' | 'staff';
    /**
     * A `multipart/form-data` request body, for the document only: the route reads the parts from
     * the stream itself (an upload), so there is no `body` schema to validate.
     */
    'x-multipart-body'?: object;
  }
}

type Json = Record<string, unknown>;

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Json;
}

interface Response {
  description: string;
  headers?: Record<string, Json>;
  content?: Record<string, { schema?: Json }>;
}

interface Operation {
  operationId?: string;
  tags?: string[];
  summary?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Json }> };
  responses: Record<string, Response>;
  security?: Record<string, string[]>[];
  'x-problems'?: ProblemTitle[];
  'x-response-headers'?: Record<string, HeaderName[]>;
  'x-cacheable'?: boolean;
  'x-staff-role'?: string;
  'x-multipart-body'?: Json;
  [key: string]: unknown;
}

export interface OpenApiDocument {
  openapi: string;
  info: Json;
  servers?: Json[];
  tags?: Json[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas?: Record<string, Json>; securitySchemes?: Json; headers?: Json } & Json;
  webhooks?: Record<string, Json>;
  [key: string]: unknown;
}

type Surface = 'storefront' | 'admin' | 'other';

/**
 * Marks what the document cannot see in a route's schema but the route does: a cacheable read
 * (its onSend is the catalog cache hook). Used as @fastify/swagger's per-route `transform`.
 */
export function transformRoute({
  schema,
  url,
  route,
}: {
  schema: FastifySchema;
  url: string;
  route: RouteOptions;
}): {
  schema: FastifySchema;
  url: string;
} {
  const onSend = route.onSend;
  const hooks = Array.isArray(onSend) ? onSend : onSend ? [onSend] : [];
  const cacheable = hooks.some(isCacheableOnSend);
  return { schema: cacheable ? ({ ...schema, 'x-cacheable': true } as FastifySchema) : schema, url };
}

export interface RefineOptions {
  storefrontPrefix: string;
  adminPrefix: string;
  /** OpenAPI 3.1 webhooks (the events sent to merchants' endpoints). */
  webhooks?: Record<string, Json>;
}

/** The refined document (a new object; the input is not changed). */
export function refineDocument(input: OpenApiDocument, options: RefineOptions): OpenApiDocument {
  const doc = structuredClone(input);
  const surfaceOf = (path: string): Surface =>
    path.startsWith(options.storefrontPrefix)
      ? 'storefront'
      : path.startsWith(options.adminPrefix)
        ? 'admin'
        : 'other';

  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      refineOperation(operation, method, path, surfaceOf(path));
    }
  }
  doc.paths = Object.fromEntries(
    Object.entries(doc.paths).sort(([a], [b]) => pathRank(a, options) - pathRank(b, options)),
  );
  doc.tags = TAGS.map((tag) => ({ ...tag }));
  doc['x-tagGroups'] = [
    { name: 'Storefront API', tags: TAGS.filter((t) => t.name.startsWith('Storefront')).map((t) => t.name) },
    { name: 'Admin API', tags: TAGS.filter((t) => t.name.startsWith('Admin')).map((t) => t.name) },
    {
      name: 'Payments and operations',
      tags: TAGS.filter((t) => !/^(Storefront|Admin|Webhooks)/.test(t.name)).map((t) => t.name),
    },
    { name: 'Webhooks', tags: ['Webhooks'] },
  ];
  doc.components = {
    ...doc.components,
    securitySchemes: SECURITY_SCHEMES,
    headers: HEADERS,
    schemas: {},
  };
  if (options.webhooks) doc.webhooks = structuredClone(options.webhooks);
  hoistNamedSchemas(doc, ProblemSchema as unknown as Json, ValidationProblemSchema as unknown as Json);
  plainEnums(doc);
  return doc;
}

/** A schema that allows exactly one value (`{const: v}` or `{enum: [v]}`, TypeBox's `Literal`): the value. */
function literalOf(schema: unknown): { value: unknown } | null {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return null;
  const { type, const: constant, enum: values, ...rest } = schema as Json;
  if (Object.keys(rest).length > 0) return null; // a described or constrained branch stays as it is
  const listed: readonly unknown[] = Array.isArray(values) ? values : [];
  const value = constant !== undefined ? constant : listed.length === 1 ? listed[0] : undefined;
  if (value === undefined) return null;
  if (type !== undefined && type !== jsonType(value)) return null;
  return { value };
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/**
 * Rewrites every union of literals (`anyOf: [{const: "a"}, {const: "b"}, …]`, how TypeBox spells
 * `Union([Literal…])`) as one plain `{type, enum: [...]}`: the same values, but what generated
 * clients and validators expect of an enumeration (a named string union, not one type per value).
 * Other alternatives of the union (`null`, an object) stay beside the enum in the `anyOf`.
 */
function plainEnums(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) plainEnums(item);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const node = value as Json;
  for (const child of Object.values(node)) plainEnums(child);
  if (!Array.isArray(node.anyOf)) return;
  const branches: readonly unknown[] = node.anyOf;
  const literals = branches.map(literalOf);
  const values = literals.filter((literal) => literal !== null).map((literal) => literal.value);
  if (values.length < 2) return;
  const types = [...new Set(values.map(jsonType))];
  const enumeration: Json = { type: types.length === 1 ? types[0] : types, enum: values };
  const others = branches.filter((_, index) => literals[index] === null);
  delete node.anyOf;
  if (others.length === 0) {
    // The enum's keywords first, then the union's own (description, …).
    const own = { ...node };
    for (const key of Object.keys(node)) delete node[key];
    Object.assign(node, enumeration, own);
  } else {
    node.anyOf = [enumeration, ...others];
  }
}

function pathRank(path: string, options: RefineOptions): number {
  if (path.startsWith(options.storefrontPrefix)) return 0;
  if (path.startsWith(options.adminPrefix)) return 1;
  return 2;
}

function refineOperation(operation: Operation, method: string, path: string, surface: Surface): void {
  const multipart = operation['x-multipart-body'];
  delete operation['x-multipart-body'];
  if (multipart) {
    operation.requestBody = { required: true, content: { 'multipart/form-data': { schema: multipart } } };
  }
  const hasBody = operation.requestBody !== undefined;
  const hasPathParams = path.includes('{');
  const parameters = operation.parameters ?? [];
  const cacheable = operation['x-cacheable'] === true;

  // Security: a storefront key in either header; the staff token on the admin surface (the
  // routes marked public, sign-in, carry none); nothing elsewhere.
  // A route that needs a signed-in customer declares `[{ publishableKey: [], customerToken: [] }]`
  // (both at once); checkout accepts the token optionally.
  const signedIn = operation.security?.some((requirement) => 'customerToken' in requirement) === true;
  if (surface === 'storefront' && !signedIn)
    operation.security = [{ publishableKey: [] }, { publishableKeyBearer: [] }];
  else if (surface === 'other') operation.security = [];
  const authenticated = (operation.security?.length ?? 0) > 0;

  // Headers that are parameters in the route schema but a conditional or idempotent request.
  for (const parameter of parameters) {
    const name = parameter.name.toLowerCase();
    if (parameter.in !== 'header') continue;
    if (name === 'idempotency-key') {
      parameter.name = 'Idempotency-Key';
      parameter.required = true;
      parameter.schema = { type: 'string', format: 'uuid' };
      parameter.description =
        'A UUID made once per checkout attempt and reused on every retry of it: a retry replays the first answer (Idempotent-Replayed: true) and never reserves stock twice.';
    }
    if (name === 'if-match') parameter.name = 'If-Match';
  }
  if (cacheable && method === 'get') {
    parameters.push({
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description: 'The ETag of a representation you hold: 304 Not Modified when it is still current.',
      schema: { type: 'string' },
    });
  }
  if (parameters.length > 0) operation.parameters = parameters;
  const conditionalWrite = parameters.some((p) => p.in === 'header' && p.name === 'If-Match');

  // An HTML page (the sandbox's hosted payment page) answers browsers, its errors too: the route
  // documents each of its answers itself, and no problem+json is added.
  const htmlPage = Object.values(operation.responses).some((response) => response.content?.['text/html']);
  const titles = htmlPage
    ? new Set<ProblemTitle>()
    : problemTitles(operation, surface, { authenticated, hasPathParams, hasBody, conditionalWrite });
  delete operation['x-problems'];

  const responses: Record<string, Response> = {};
  for (const [status, response] of Object.entries(operation.responses)) {
    if (htmlPage) responses[status] = response;
    else if (/^[45]/.test(status))
      continue; // replaced by the statuses the titles name
    else responses[status] = refineSuccess(response, Number(status), method);
  }
  const extraHeaders = operation['x-response-headers'] ?? {};
  delete operation['x-response-headers'];
  for (const [status, response] of Object.entries(responses)) {
    const names: HeaderName[] = ['X-Request-Id', ...(extraHeaders[status] ?? [])];
    if (surface === 'storefront') names.push('RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset');
    if (cacheable && status === '200') names.push('ETag', 'Cache-Control');
    response.headers = {
      ...response.headers,
      ...Object.fromEntries([...new Set(names)].map((name) => [name, headerRef(name)])),
    };
  }
  if (cacheable && method === 'get') {
    responses['304'] = {
      description: 'Not Modified: the representation named by If-None-Match is current; no body.',
      headers: { ETag: headerRef('ETag'), 'X-Request-Id': headerRef('X-Request-Id') },
    };
  }
  for (const [status, list] of problemsByStatus(titles)) {
    const names: HeaderName[] = ['X-Request-Id'];
    if (status === 429 || list.includes('idempotency_in_progress')) names.push('Retry-After');
    if (surface === 'storefront' && status !== 401 && status !== 403) {
      names.push('RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset');
    }
    const onlyValidation = list.length === 1 && list[0] === 'validation_failed';
    const role = operation['x-staff-role'];
    const needs = role === 'owner' ? 'the owner role' : `the ${role} role or higher`;
    responses[String(status)] = {
      description: list
        .map(
          (title) =>
            `\`${title}\`: ${PROBLEMS[title][1]}${title === 'forbidden' && role ? ` Needs ${needs}.` : ''}`,
        )
        .join('\n\n'),
      headers: Object.fromEntries(names.map((name) => [name, headerRef(name)])),
      content: {
        'application/problem+json': {
          schema: { $ref: `#/components/schemas/${onlyValidation ? 'ValidationProblem' : 'Problem'}` },
        },
      },
    };
  }
  operation.responses = Object.fromEntries(
    Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)),
  );
  delete operation['x-cacheable'];
}

/** The route's own problem titles plus those every route of its surface can return. */
function problemTitles(
  operation: Operation,
  surface: Surface,
  has: { authenticated: boolean; hasPathParams: boolean; hasBody: boolean; conditionalWrite: boolean },
): Set<ProblemTitle> {
  const titles = new Set<ProblemTitle>(operation['x-problems'] ?? []);
  titles.add('internal_error');
  if (surface !== 'other') {
    titles.add('validation_failed');
    titles.add('service_unavailable');
    if (has.authenticated) {
      titles.add('unauthorized');
      // A storefront key may be refused for its origin; a staff member for a role too low.
      if (operation['x-staff-role'] !== 'staff') titles.add('forbidden');
    }
    if (has.hasPathParams) titles.add('not_found');
  }
  // Every Storefront and Admin API request counts against a budget (rate-limits.md).
  if (surface === 'storefront' || surface === 'admin') titles.add('rate_limited');
  if (has.hasBody) {
    titles.add('payload_too_large');
    titles.add('unsupported_media_type');
  }
  if (has.conditionalWrite) titles.add('precondition_failed');
  return titles;
}

function problemsByStatus(titles: Set<ProblemTitle>): [number, ProblemTitle[]][] {
  const byStatus = new Map<number, ProblemTitle[]>();
  for (const title of [...titles].sort()) {
    const status = PROBLEMS[title][0];
    byStatus.set(status, [...(byStatus.get(status) ?? []), title]);
  }
  return [...byStatus.entries()].sort(([a], [b]) => a - b);
}

const SUCCESS: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted: the work continues in the background',
  204: 'Done; no body',
};

function refineSuccess(response: Response, status: number, method: string): Response {
  if (response.description !== 'Default Response') return response;
  const schema = response.content?.['application/json']?.schema;
  const title = typeof schema?.title === 'string' ? schema.title : null;
  const what = title ? `: the ${title}` : '';
  return {
    ...response,
    description:
      status === 200 && method === 'get' && title?.endsWith('List')
        ? `A page of ${title.slice(0, -'List'.length)} items and the cursor of the next page`
        : `${SUCCESS[status] ?? 'Success'}${what}`,
  };
}

/**
 * Moves every schema with a `title` into components.schemas under that title and refers to it with
 * `$ref`, children first. Two different schemas with one title are a mistake in the route schemas:
 * building the document fails, naming the title.
 */
function hoistNamedSchemas(doc: OpenApiDocument, ...always: Json[]): void {
  const components: Record<string, Json> = {};
  const fingerprints = new Map<string, string>();

  const hoist = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(hoist);
    if (value === null || typeof value !== 'object') return value;
    const object: Json = {};
    for (const [key, child] of Object.entries(value as Json)) object[key] = hoist(child);
    const title = object.title;
    if (typeof title !== 'string' || !/^[A-Z][A-Za-z0-9]*$/.test(title)) return object;
    const fingerprint = JSON.stringify(object);
    const known = fingerprints.get(title);
    if (known !== undefined && known !== fingerprint) {
      throw new Error(`OpenAPI: two different schemas are titled ${title}; give one another title`);
    }
    fingerprints.set(title, fingerprint);
    components[title] = object;
    return { $ref: `#/components/schemas/${title}` };
  };

  for (const schema of always) hoist(schema);
  for (const item of Object.values(doc.paths)) {
    for (const operation of Object.values(item)) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.schema) parameter.schema = hoist(parameter.schema) as Json;
      }
      for (const media of Object.values(operation.requestBody?.content ?? {})) {
        if (media.schema) media.schema = hoist(media.schema) as Json;
      }
      for (const response of Object.values(operation.responses)) {
        for (const media of Object.values(response.content ?? {})) {
          if (media.schema) media.schema = hoist(media.schema) as Json;
        }
      }
    }
  }
  if (doc.webhooks) doc.webhooks = hoist(doc.webhooks) as Record<string, Json>;
  doc.components.schemas = Object.fromEntries(
    Object.entries(components).sort(([a], [b]) => a.localeCompare(b)),
  );
}
