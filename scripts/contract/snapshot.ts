/**
 * The contract snapshot: what clients of the Storefront API depend on, read out of the OpenAPI
 * document. Every operation under /storefront/v1 and every webhook event, with
 *
 * - schemas inlined: `$ref`s are replaced by what they name, so renaming a component changes
 *   nothing while changing its structure does. A reference back into a schema being expanded
 *   (a tree of menus, say) becomes `{"$recursive": "#/json/pointer"}`, pointing to where that
 *   schema starts inside the same inlined schema, so no component name is kept there either;
 * - no text: descriptions, summaries, titles, examples and extensions (`x-…`) are not contract;
 * - sets sorted (`required`, `type`, `enum`, parameters, header names) and, when printed, keys
 *   sorted, so the file only changes when the contract does.
 */
import {
  arrayAt,
  atPointer,
  isObject,
  objectAt,
  own,
  pointerOf,
  sortedSet,
  type Json,
  type JsonObject,
} from './json.ts';

export const STOREFRONT_PREFIX = '/storefront/v1';

/** Media type → schema. */
export type MediaSchemas = Record<string, Json>;

export type ParameterContract = { in: string; name: string; required: boolean; schema: Json };

export type ResponseContract = { content: MediaSchemas; headers: string[] };

export type OperationContract = {
  operationId: string | null;
  parameters: ParameterContract[];
  requestBody: { required: boolean; content: MediaSchemas } | null;
  responses: Record<string, ResponseContract>;
};

export type Snapshot = {
  /** `GET /storefront/v1/products/{id}` → the operation. */
  operations: Record<string, OperationContract>;
  /** Event type (`order.paid`) → HTTP method (`POST`) → the payload's media types and schemas. */
  webhooks: Record<string, Record<string, MediaSchemas>>;
};

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** OpenAPI ignores these when declared as header parameters: they are described elsewhere. */
const IGNORED_HEADER_PARAMETERS = new Set(['accept', 'content-type', 'authorization']);

/** Keywords that are text for people or bookkeeping for `$ref`, not a constraint on values. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'summary',
  'examples',
  'example',
  '$comment',
  'externalDocs',
  'deprecated',
  'xml',
  '$schema',
  '$id',
  '$anchor',
  '$dynamicAnchor',
  // Inlined where they are referenced.
  '$defs',
  'definitions',
]);

/** Keywords whose value is a map from names to schemas: the names are data, never keywords. */
const SCHEMA_MAP_KEYWORDS = new Set(['properties', 'patternProperties', 'dependentSchemas']);
const SCHEMA_LIST_KEYWORDS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SCHEMA_KEYWORDS = new Set([
  'items',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'contentSchema',
]);
const SET_KEYWORDS = new Set(['required', 'type', 'enum']);

export function isStorefrontPath(path: string): boolean {
  return path === STOREFRONT_PREFIX || path.startsWith(`${STOREFRONT_PREFIX}/`);
}

export function snapshot(document: Json): Snapshot {
  const reader = new DocumentReader(objectAt(document));
  return {
    operations: storefrontOperations(reader, objectAt(own(objectAt(document), 'paths'))),
    webhooks: webhookPayloads(reader, objectAt(own(objectAt(document), 'webhooks'))),
  };
}

/** Resolves local `$ref`s (`#/components/...`) in the document. Other references are not supported. */
class DocumentReader {
  readonly #document: JsonObject;

  constructor(document: JsonObject) {
    this.#document = document;
  }

  target(ref: string): Json {
    if (!ref.startsWith('#')) throw new Error(`Only local $refs (#/…) are supported, not ${ref}`);
    const value = atPointer(this.#document, ref);
    if (value === undefined) throw new Error(`Unresolvable $ref ${ref}`);
    return value;
  }

  /** An OpenAPI object (parameter, response, request body, path item) with its `$ref` chain followed. */
  object(value: Json | undefined): JsonObject {
    const followed = new Set<string>();
    let current = value;
    while (isObject(current) && typeof current.$ref === 'string') {
      if (followed.has(current.$ref)) throw new Error(`$ref cycle through ${current.$ref}`);
      followed.add(current.$ref);
      current = this.target(current.$ref);
    }
    return objectAt(current);
  }

  /** A schema with annotations stripped and every `$ref` inlined (see the top of this file). */
  schema(value: Json | undefined): Json {
    return this.#inline(value ?? {}, [], new Map());
  }

  /**
   * `at` is where `schema` lands inside the inlined root schema; `expanding` maps each `$ref`
   * being expanded on the way here to where its expansion started, to recognise a cycle.
   */
  #inline(schema: Json, at: readonly string[], expanding: ReadonlyMap<string, string>): Json {
    if (!isObject(schema)) return schema;
    if (typeof schema.$ref === 'string') return this.#inlineReference(schema, schema.$ref, at, expanding);
    const entries: [string, Json][] = [];
    for (const [key, value] of Object.entries(schema)) {
      if (ANNOTATIONS.has(key) || key.startsWith('x-')) continue;
      entries.push([key, this.#inlineKeyword(key, value, [...at, key], expanding)]);
    }
    return Object.fromEntries(entries);
  }

  #inlineReference(
    schema: JsonObject,
    ref: string,
    at: readonly string[],
    expanding: ReadonlyMap<string, string>,
  ): Json {
    // OpenAPI 3.1 lets a $ref have sibling keywords; they constrain the value as well.
    const siblings = Object.entries(schema).filter(
      ([key]) => key !== '$ref' && !ANNOTATIONS.has(key) && !key.startsWith('x-'),
    );
    if (siblings.length > 0) {
      return this.#inline({ allOf: [{ $ref: ref }, Object.fromEntries(siblings)] }, at, expanding);
    }
    const started = expanding.get(ref);
    if (started !== undefined) return { $recursive: started };
    return this.#inline(this.target(ref), at, new Map(expanding).set(ref, pointerOf(at)));
  }

  #inlineKeyword(
    key: string,
    value: Json,
    at: readonly string[],
    expanding: ReadonlyMap<string, string>,
  ): Json {
    if (SCHEMA_MAP_KEYWORDS.has(key) && isObject(value)) {
      return Object.fromEntries(
        Object.entries(value).map(([name, schema]) => [name, this.#inline(schema, [...at, name], expanding)]),
      );
    }
    if ((SCHEMA_LIST_KEYWORDS.has(key) || key === 'items') && Array.isArray(value)) {
      return value.map((schema, index) => this.#inline(schema, [...at, String(index)], expanding));
    }
    if (SCHEMA_KEYWORDS.has(key)) return this.#inline(value, at, expanding);
    if (SET_KEYWORDS.has(key) && Array.isArray(value)) return sortedSet(value);
    // The mapping names components; the alternatives it points to are inlined in oneOf/anyOf.
    if (key === 'discriminator' && isObject(value)) return { propertyName: value.propertyName ?? null };
    return value;
  }
}

function storefrontOperations(reader: DocumentReader, paths: JsonObject): Snapshot['operations'] {
  const operations: Snapshot['operations'] = {};
  for (const path of Object.keys(paths).filter(isStorefrontPath).sort()) {
    const item = reader.object(own(paths, path));
    for (const method of METHODS) {
      const operation = own(item, method);
      if (!isObject(operation)) continue;
      operations[`${method.toUpperCase()} ${path}`] = operationContract(
        reader,
        operation,
        arrayAt(own(item, 'parameters')),
      );
    }
  }
  return operations;
}

function operationContract(reader: DocumentReader, operation: JsonObject, shared: Json[]): OperationContract {
  return {
    operationId: typeof operation.operationId === 'string' ? operation.operationId : null,
    parameters: parameterContracts(reader, [...shared, ...arrayAt(operation.parameters)]),
    requestBody: requestBodyContract(reader, operation.requestBody),
    responses: responseContracts(reader, objectAt(operation.responses)),
  };
}

/** Path-item parameters first: an operation's parameter of the same name and location replaces one. */
function parameterContracts(reader: DocumentReader, declared: Json[]): ParameterContract[] {
  const byKey = new Map<string, ParameterContract>();
  for (const item of declared) {
    const parameter = reader.object(item);
    const location = typeof parameter.in === 'string' ? parameter.in : '';
    const rawName = typeof parameter.name === 'string' ? parameter.name : '';
    // Header names are case-insensitive: `If-Match` and `if-match` are the same parameter.
    const name = location === 'header' ? rawName.toLowerCase() : rawName;
    if (location === 'header' && IGNORED_HEADER_PARAMETERS.has(name)) continue;
    byKey.set(`${location} ${name}`, {
      in: location,
      name,
      required: location === 'path' || parameter.required === true,
      schema: reader.schema(parameterSchema(parameter)),
    });
  }
  return [...byKey.values()].sort((a, b) => a.in.localeCompare(b.in) || a.name.localeCompare(b.name));
}

/** A parameter has a `schema`, or a `content` map with one media type. */
function parameterSchema(parameter: JsonObject): Json | undefined {
  if (parameter.schema !== undefined) return parameter.schema;
  const [media] = Object.values(objectAt(parameter.content));
  return objectAt(media).schema;
}

function requestBodyContract(
  reader: DocumentReader,
  value: Json | undefined,
): OperationContract['requestBody'] {
  if (value === undefined) return null;
  const body = reader.object(value);
  return { required: body.required === true, content: mediaSchemas(reader, body.content) };
}

function responseContracts(reader: DocumentReader, responses: JsonObject): OperationContract['responses'] {
  const contracts: OperationContract['responses'] = {};
  for (const status of Object.keys(responses).sort()) {
    const response = reader.object(own(responses, status));
    contracts[status] = {
      content: mediaSchemas(reader, response.content),
      headers: Object.keys(objectAt(response.headers))
        .map((name) => name.toLowerCase())
        // OpenAPI ignores a Content-Type response header: the content map says it.
        .filter((name) => name !== 'content-type')
        .sort(),
    };
  }
  return contracts;
}

function mediaSchemas(reader: DocumentReader, content: Json | undefined): MediaSchemas {
  const media = objectAt(content);
  return Object.fromEntries(
    Object.keys(media)
      .sort()
      .map((type) => [type, reader.schema(objectAt(own(media, type)).schema)]),
  );
}

/** OpenAPI 3.1 `webhooks`: each event's request body is the payload receivers read. */
function webhookPayloads(reader: DocumentReader, webhooks: JsonObject): Snapshot['webhooks'] {
  const events: Snapshot['webhooks'] = {};
  for (const event of Object.keys(webhooks).sort()) {
    const item = reader.object(own(webhooks, event));
    const methods: Record<string, MediaSchemas> = {};
    for (const method of METHODS) {
      const operation = own(item, method);
      if (!isObject(operation)) continue;
      methods[method.toUpperCase()] = mediaSchemas(reader, reader.object(operation.requestBody).content);
    }
    events[event] = methods;
  }
  return events;
}

/** Where a `{"$recursive": pointer}` marker leads inside the inlined schema `root`. */
export function resolveRecursive(schema: Json, root: Json): Json {
  let current = schema;
  for (let hops = 0; isObject(current) && typeof current.$recursive === 'string'; hops += 1) {
    const target = atPointer(root, current.$recursive);
    if (target === undefined || hops >= 100) {
      throw new Error(`Snapshot marker {"$recursive": "${current.$recursive}"} leads nowhere`);
    }
    current = target;
  }
  return current;
}
