import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import {
  breakingChanges,
  compareContracts,
  formatSnapshot,
  OPENAPI_FILE,
  parseSnapshot,
  SNAPSHOT_FILE,
  snapshot,
  type ContractChanges,
} from './contract.ts';
import { isObject, type Json, type JsonObject } from './contract/json.ts';

const fixtures = path.join(import.meta.dirname, 'fixtures', 'contract');
const root = path.resolve(import.meta.dirname, '..');

/** Today's style: every schema inline, TypeBox's literal unions and anyOf-null. */
const inline = load('inline.openapi.json');
/** The coming style: named components, $ref'd parameters, responses, headers and path items. */
const components = load('components.openapi.json');

function load(name: string): JsonObject {
  const value = JSON.parse(fs.readFileSync(path.join(fixtures, name), 'utf8')) as Json;
  assert.ok(isObject(value));
  return value;
}

/** The object at `keys` inside `value` (keys, not a pointer: paths are full of slashes). */
function at(value: JsonObject, ...keys: string[]): JsonObject {
  let node: Json = value;
  for (const key of keys) {
    assert.ok(isObject(node), `no object above ${key}`);
    node = node[key] as Json;
  }
  assert.ok(isObject(node), `no object at ${keys.join(' ')}`);
  return node;
}

function list(value: JsonObject, key: string): Json[] {
  const items = value[key];
  assert.ok(Array.isArray(items), `${key} is not a list`);
  return items;
}

const schemas = (document: JsonObject, name: string) => at(document, 'components', 'schemas', name);
const operation = (document: JsonObject, path: string, method: string) => at(document, 'paths', path, method);

function changed(document: JsonObject, change: (copy: JsonObject) => void): JsonObject {
  const copy = structuredClone(document);
  change(copy);
  return copy;
}

function changesFrom(document: JsonObject, change: (copy: JsonObject) => void): ContractChanges {
  return compareContracts(snapshot(document), snapshot(changed(document, change)));
}

function breaksFrom(document: JsonObject, change: (copy: JsonObject) => void): string[] {
  return breakingChanges(snapshot(document), snapshot(changed(document, change)));
}

const PRODUCT = 'GET /storefront/v1/products/{id}';
const PRODUCTS = 'GET /storefront/v1/products';
const REPLACE_CART = 'PUT /storefront/v1/carts/{id}';
const CREATE_CART = 'POST /storefront/v1/carts';

/** A change to a copy of `document` (the components fixture unless named) and the lines it must produce. */
type Case = { name: string; document?: JsonObject; change: (document: JsonObject) => void; expect: string[] };

const breakingCases: Case[] = [
  {
    name: 'a removed path',
    change: (d) => delete at(d, 'paths')['/storefront/v1/products'],
    expect: [`${PRODUCTS}: operation removed`],
  },
  {
    name: 'a renamed path',
    change: (d) => {
      const paths = at(d, 'paths');
      paths['/storefront/v1/items/{id}'] = at(paths, '/storefront/v1/products/{id}');
      delete paths['/storefront/v1/products/{id}'];
    },
    expect: [`${PRODUCT}: operation removed`],
  },
  {
    name: 'a renamed method',
    change: (d) => {
      const item = at(d, 'paths', '/storefront/v1/carts/{id}');
      item.patch = at(item, 'put');
      delete item.put;
    },
    expect: [`${REPLACE_CART}: operation removed`],
  },
  {
    name: 'a changed operationId',
    change: (d) => (operation(d, '/storefront/v1/products/{id}', 'get').operationId = 'fetchProduct'),
    expect: [`${PRODUCT}: operationId changed from "getProduct" to "fetchProduct"`],
  },
  {
    name: 'a removed response field, deep in an array',
    change: (d) =>
      (at(schemas(d, 'Variant'), 'properties').price = {
        type: 'object',
        required: ['currency'],
        properties: { currency: { type: 'string', pattern: '^[A-Z]{3}$' } },
      }),
    expect: [`${PRODUCT} 200 application/json: field "variants[].price.amount" removed`],
  },
  {
    name: 'a required response field becoming optional',
    change: (d) =>
      (schemas(d, 'Product').required = ['id', 'status', 'variants', 'media', 'position', 'createdAt']),
    expect: [`${PRODUCT} 200 application/json: field "title" became optional`],
  },
  {
    name: 'a response field becoming nullable by type',
    change: (d) => (at(schemas(d, 'Product'), 'properties', 'createdAt').type = ['string', 'null']),
    expect: [`${PRODUCT} 200 application/json: field "createdAt" became nullable`],
  },
  {
    name: 'a response field becoming nullable by anyOf',
    change: (d) =>
      (at(schemas(d, 'ProductSummary'), 'properties').title = {
        anyOf: [{ type: 'string' }, { type: 'null' }],
      }),
    expect: [`${PRODUCTS} 200 application/json: field "items[].title" became nullable`],
  },
  {
    name: 'a removed response enum value',
    change: (d) => (schemas(d, 'ProductStatus').enum = ['active']),
    expect: [`${PRODUCT} 200 application/json: field "status": enum value "draft" removed`],
  },
  {
    name: 'a removed response enum value of a TypeBox literal union',
    document: inline,
    change: (d) => list(at(productSchema(d), 'properties', 'status'), 'anyOf').pop(),
    expect: [`${PRODUCT} 200 application/json: field "status": enum value "draft" removed`],
  },
  {
    name: 'a changed webhook const',
    change: (d) => (at(schemas(d, 'OrderPaid'), 'properties', 'event').enum = ['order.captured']),
    expect: ['webhook order.paid application/json: field "event": enum value "order.paid" removed'],
  },
  {
    name: 'a removed request enum value',
    change: (d) => (at(parameter(d, '/storefront/v1/products', 'sort'), 'schema').enum = ['newest']),
    expect: [`${PRODUCTS} query parameter "sort": enum value "oldest" removed`],
  },
  {
    name: 'a narrowed response type',
    change: (d) => (at(schemas(d, 'Product'), 'properties').position = { type: 'integer' }),
    expect: [
      `${PRODUCT} 200 application/json: field "position": type narrowed from [integer, string] to integer`,
    ],
  },
  {
    name: 'a changed response type inside one alternative',
    change: (d) => (at(schemas(d, 'VideoMedia'), 'properties', 'seconds').type = 'string'),
    expect: [
      `${PRODUCT} 200 application/json: field "media[]<kind=video>.seconds": type changed from integer to string`,
    ],
  },
  {
    name: 'a changed response format',
    change: (d) => (at(schemas(d, 'Product'), 'properties', 'createdAt').format = 'date'),
    expect: [`${PRODUCT} 200 application/json: field "createdAt": format changed from "date-time" to "date"`],
  },
  {
    name: 'a removed response alternative',
    change: (d) => list(schemas(d, 'Media'), 'oneOf').pop(),
    expect: [`${PRODUCT} 200 application/json: field "media[]": alternative <kind=video> removed`],
  },
  {
    name: 'a narrowed request type',
    change: (d) => (at(parameter(d, '/storefront/v1/products', 'q'), 'schema').type = 'integer'),
    expect: [`${PRODUCTS} query parameter "q": type narrowed from string to integer`],
  },
  {
    name: 'a request field no longer accepting null',
    change: (d) => (at(schemas(d, 'ReplaceCart'), 'properties').note = { type: 'string', maxLength: 500 }),
    expect: [`${REPLACE_CART} request body application/json: field "note" no longer accepts null`],
  },
  {
    name: 'a smaller maxLength',
    change: (d) =>
      (list(at(schemas(d, 'ReplaceCart'), 'properties', 'note'), 'anyOf')[0] = {
        type: 'string',
        maxLength: 100,
      }),
    expect: [
      `${REPLACE_CART} request body application/json: field "note": maxLength lowered from 500 to 100`,
    ],
  },
  {
    name: 'a smaller maxItems, in every body that uses it',
    change: (d) => (schemas(d, 'Lines').maxItems = 100),
    expect: [
      `${CREATE_CART} request body application/json: field "items": maxItems lowered from 1000 to 100`,
      `${REPLACE_CART} request body application/json: field "items": maxItems lowered from 1000 to 100`,
    ],
  },
  {
    name: 'a smaller maximum',
    change: (d) => (at(d, 'components', 'parameters', 'Limit', 'schema').maximum = 50),
    expect: [`${PRODUCTS} query parameter "limit": maximum lowered from 100 to 50`],
  },
  {
    name: 'a larger minimum',
    change: (d) => (at(d, 'components', 'parameters', 'Limit', 'schema').minimum = 10),
    expect: [`${PRODUCTS} query parameter "limit": minimum raised from 1 to 10`],
  },
  {
    name: 'a larger minLength',
    change: (d) => (at(parameter(d, '/storefront/v1/products', 'cursor'), 'schema').minLength = 8),
    expect: [`${PRODUCTS} query parameter "cursor": minLength raised from 1 to 8`],
  },
  {
    name: 'a new minItems',
    change: (d) => (schemas(d, 'Lines').minItems = 1),
    expect: [
      `${CREATE_CART} request body application/json: field "items": new minItems 1`,
      `${REPLACE_CART} request body application/json: field "items": new minItems 1`,
    ],
  },
  {
    name: 'a smaller header maxLength',
    change: (d) => (at(d, 'components', 'parameters', 'IfMatch', 'schema').maxLength = 64),
    expect: [`${REPLACE_CART} header parameter "if-match": maxLength lowered from 200 to 64`],
  },
  {
    name: 'a new pattern on a free field',
    change: (d) => (at(parameter(d, '/storefront/v1/products', 'q'), 'schema').pattern = '^[a-z]+$'),
    expect: [`${PRODUCTS} query parameter "q": new pattern "^[a-z]+$"`],
  },
  {
    name: 'a new format on a free field',
    change: (d) => (at(parameter(d, '/storefront/v1/products', 'q'), 'schema').format = 'email'),
    expect: [`${PRODUCTS} query parameter "q": new format "email"`],
  },
  {
    name: 'a new enum on a free field',
    change: (d) => (at(parameter(d, '/storefront/v1/products', 'q'), 'schema').enum = ['shirts', 'shoes']),
    expect: [`${PRODUCTS} query parameter "q": now restricted to the values "shirts", "shoes"`],
  },
  {
    name: 'request additionalProperties true → false',
    change: (d) => (at(schemas(d, 'ReplaceCart'), 'properties', 'metadata').additionalProperties = false),
    expect: [
      `${REPLACE_CART} request body application/json: field "metadata": additionalProperties changed from true to false`,
    ],
  },
  {
    name: 'a schema for request properties that were free',
    change: (d) =>
      (at(schemas(d, 'ReplaceCart'), 'properties', 'metadata').additionalProperties = { type: 'string' }),
    expect: [
      `${REPLACE_CART} request body application/json: field "metadata{*}": type narrowed from any to string`,
    ],
  },
  {
    name: 'a new required body field',
    change: (d) => {
      const body = schemas(d, 'ReplaceCart');
      at(body, 'properties').currency = { type: 'string' };
      list(body, 'required').push('currency');
    },
    expect: [`${REPLACE_CART} request body application/json: new required field "currency"`],
  },
  {
    name: 'an optional body field becoming required',
    change: (d) => list(schemas(d, 'ReplaceCart'), 'required').push('note'),
    expect: [`${REPLACE_CART} request body application/json: field "note" became required`],
  },
  {
    name: 'a new required query parameter',
    change: (d) =>
      list(operation(d, '/storefront/v1/products', 'get'), 'parameters').push({
        in: 'query',
        name: 'channel',
        required: true,
        schema: { type: 'string' },
      }),
    expect: [`${PRODUCTS}: new required query parameter "channel"`],
  },
  {
    name: 'a query parameter becoming required',
    change: (d) => (at(d, 'components', 'parameters', 'Limit').required = true),
    expect: [`${PRODUCTS}: query parameter "limit" became required`],
  },
  {
    name: 'a header parameter becoming required',
    change: (d) => (at(d, 'components', 'parameters', 'IfMatch').required = true),
    expect: [`${REPLACE_CART}: header parameter "if-match" became required`],
  },
  {
    name: 'a request body becoming required',
    change: (d) => (at(operation(d, '/storefront/v1/carts', 'post'), 'requestBody').required = true),
    expect: [`${CREATE_CART}: request body is now required`],
  },
  {
    name: 'a removed request body',
    change: (d) => delete operation(d, '/storefront/v1/carts', 'post').requestBody,
    expect: [`${CREATE_CART}: request body removed`],
  },
  {
    name: 'a removed request content type',
    change: (d) => {
      const content = at(d, 'components', 'requestBodies', 'ReplaceCart', 'content');
      content['application/merge-patch+json'] = at(content, 'application/json');
      delete content['application/json'];
    },
    expect: [`${REPLACE_CART} request body: content type application/json removed`],
  },
  {
    name: 'a removed body field of a closed object',
    change: (d) => delete at(schemas(d, 'ReplaceCart'), 'properties').note,
    expect: [
      `${REPLACE_CART} request body application/json: field "note" removed (the object rejects unknown fields)`,
    ],
  },
  {
    name: 'a removed query parameter',
    change: (d) => {
      const get = operation(d, '/storefront/v1/products', 'get');
      get.parameters = list(get, 'parameters').filter((item) => !(isObject(item) && item.name === 'cursor'));
    },
    expect: [`${PRODUCTS}: query parameter "cursor" removed`],
  },
  {
    name: 'a removed success status',
    change: (d) => {
      const responses = at(operation(d, '/storefront/v1/products/{id}', 'get'), 'responses');
      responses['203'] = at(responses, '200');
      delete responses['200'];
    },
    expect: [`${PRODUCT}: response 200 removed`],
  },
  {
    name: 'a changed success content type',
    change: (d) => {
      const content = at(operation(d, '/storefront/v1/products/{id}', 'get'), 'responses', '200', 'content');
      content['application/vnd.product+json'] = at(content, 'application/json');
      delete content['application/json'];
    },
    expect: [`${PRODUCT} 200: content type application/json removed`],
  },
  {
    name: 'a removed response header',
    change: (d) => delete at(operation(d, '/storefront/v1/products/{id}', 'get'), 'responses', '200').headers,
    expect: [`${PRODUCT} 200: header "etag" removed`],
  },
  {
    name: 'an error response losing a field on its way to problem+json',
    change: (d) => {
      const content = at(d, 'components', 'responses', 'Problem', 'content');
      const problem = changed(schemas(d, 'Problem'), (schema) => {
        delete at(schema, 'properties').detail;
        schema.required = ['type', 'title', 'status'];
      });
      content['application/problem+json'] = { schema: problem };
      delete content['application/json'];
    },
    expect: [
      `${CREATE_CART} 4XX application/problem+json: field "detail" removed`,
      `${REPLACE_CART} 4XX application/problem+json: field "detail" removed`,
      `${PRODUCTS} 4XX application/problem+json: field "detail" removed`,
      `${PRODUCT} 4XX application/problem+json: field "detail" removed`,
    ],
  },
  {
    name: 'a removed webhook event',
    change: (d) => delete at(d, 'webhooks')['product.updated'],
    expect: ['webhook product.updated: event removed'],
  },
  {
    name: 'a webhook payload losing a field',
    change: (d) => {
      const data = at(schemas(d, 'ProductUpdated'), 'properties', 'data');
      data.properties = {};
      data.required = [];
    },
    expect: ['webhook product.updated application/json: field "data.productId" removed'],
  },
];

function parameter(document: JsonObject, path: string, name: string): JsonObject {
  const found = list(operation(document, path, 'get'), 'parameters').find(
    (item) => isObject(item) && item.name === name,
  );
  assert.ok(isObject(found), `no parameter ${name}`);
  return found;
}

function productSchema(document: JsonObject): JsonObject {
  return at(
    operation(document, '/storefront/v1/products/{id}', 'get'),
    'responses',
    '200',
    'content',
    'application/json',
    'schema',
  );
}

/** A change that must break nothing, and the additions it must report among others. */
type AdditiveCase = { name: string; change: (document: JsonObject) => void; additions: string[] };

const additiveCases: AdditiveCase[] = [
  {
    name: 'a new operation',
    change: (d) =>
      (at(d, 'paths')['/storefront/v1/orders/{id}'] = {
        get: { operationId: 'getOrder', responses: { '200': { description: 'The order.' } } },
      }),
    additions: ['GET /storefront/v1/orders/{id}: new operation'],
  },
  {
    name: 'a new optional query parameter',
    change: (d) =>
      list(operation(d, '/storefront/v1/products', 'get'), 'parameters').push({
        in: 'query',
        name: 'vendor',
        schema: { type: 'string' },
      }),
    additions: [`${PRODUCTS}: new query parameter "vendor"`],
  },
  {
    name: 'a new optional request field',
    change: (d) => (at(schemas(d, 'ReplaceCart'), 'properties').giftWrap = { type: 'boolean' }),
    additions: [`${REPLACE_CART} request body application/json: new field "giftWrap"`],
  },
  {
    name: 'a new response field, deep in an array',
    change: (d) => (at(schemas(d, 'Variant'), 'properties').weight = { type: 'integer' }),
    additions: [`${PRODUCT} 200 application/json: new field "variants[].weight"`],
  },
  {
    name: 'a new response enum value',
    change: (d) => list(schemas(d, 'ProductStatus'), 'enum').push('archived'),
    additions: [`${PRODUCT} 200 application/json: field "status": enum value "archived" added`],
  },
  {
    name: 'a response field becoming non-nullable',
    change: (d) => (at(schemas(d, 'Variant'), 'properties').sku = { type: 'string' }),
    additions: [
      `${PRODUCT} 200 application/json: field "variants[].sku": type narrowed from [null, string] to string`,
    ],
  },
  {
    name: 'a new webhook event',
    change: (d) =>
      (at(d, 'webhooks')['order.refunded'] = {
        post: { requestBody: { content: { 'application/json': { schema: { type: 'object' } } } } },
      }),
    additions: ['webhook order.refunded: new event'],
  },
  {
    name: 'a new optional response header',
    change: (d) =>
      (at(operation(d, '/storefront/v1/carts/{id}', 'put'), 'responses', '200').headers = {
        ETag: { $ref: '#/components/headers/ETag' },
      }),
    additions: [`${REPLACE_CART} 200: new header "etag"`],
  },
  {
    name: 'widened request types',
    change: (d) => {
      const limit = at(d, 'components', 'parameters', 'Limit', 'schema');
      limit.maximum = 250;
      delete limit.minimum;
      at(schemas(d, 'LineInput'), 'properties', 'quantity').type = 'number';
      list(at(parameter(d, '/storefront/v1/products', 'sort'), 'schema'), 'enum').push('price');
    },
    additions: [
      `${PRODUCTS} query parameter "limit": maximum raised from 100 to 250`,
      `${PRODUCTS} query parameter "limit": minimum 1 removed`,
      `${REPLACE_CART} request body application/json: field "items[].quantity": type widened from integer to number`,
      `${PRODUCTS} query parameter "sort": enum value "price" added`,
    ],
  },
  {
    name: 'a new error response',
    change: (d) =>
      (at(operation(d, '/storefront/v1/carts/{id}', 'put'), 'responses')['409'] = {
        $ref: '#/components/responses/Problem',
      }),
    additions: [`${REPLACE_CART}: new response 409`],
  },
  {
    name: 'errors declared as application/problem+json',
    change: (d) => {
      const content = at(d, 'components', 'responses', 'Problem', 'content');
      content['application/problem+json'] = at(content, 'application/json');
      delete content['application/json'];
    },
    additions: [`${PRODUCT} 4XX: new content type application/problem+json`],
  },
];

/** Every description, summary, title and example rewritten: text is not contract. */
function rewriteText(value: Json): Json {
  if (Array.isArray(value)) return value.map(rewriteText);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]): [string, Json] => {
      if (['description', 'summary', 'title'].includes(key) && typeof item === 'string') {
        return [key, `${item}!`];
      }
      if (key === 'examples' || key === 'example') return [key, [{ rewritten: true }]];
      return [key, rewriteText(item)];
    }),
  );
}

/** Every component renamed (`Money` → `RenamedMoney`) and every $ref to it with it. */
function renameComponents(document: JsonObject): JsonObject {
  const text = JSON.stringify(document).replace(/#\/components\/(\w+)\/(\w+)/g, '#/components/$1/Renamed$2');
  const renamed = JSON.parse(text) as JsonObject;
  for (const group of Object.values(at(renamed, 'components'))) {
    assert.ok(isObject(group));
    for (const name of Object.keys(group)) {
      group[`Renamed${name}`] = group[name] as Json;
      delete group[name];
    }
  }
  return renamed;
}

const MENU_PATH = '/storefront/v1/menus/{handle}';

/** A document whose one operation answers with the component `rootName`, recursive or not. */
function menuDocument(schemaMap: JsonObject, rootName: string): JsonObject {
  return {
    openapi: '3.1.0',
    components: { schemas: schemaMap },
    paths: {
      [MENU_PATH]: {
        get: {
          operationId: 'getMenu',
          parameters: [{ in: 'path', name: 'handle', required: true, schema: { type: 'string' } }],
          responses: {
            '200': {
              description: 'The menu.',
              content: { 'application/json': { schema: { $ref: `#/components/schemas/${rootName}` } } },
            },
          },
        },
      },
    },
  };
}

/** A menu item whose children are menu items: a cycle through `$ref`. */
function menuItem(name: string): JsonObject {
  return {
    type: 'object',
    required: ['label', 'children'],
    properties: {
      label: { type: 'string' },
      children: { type: 'array', items: { $ref: `#/components/schemas/${name}` } },
    },
  };
}

describe('contract snapshot', () => {
  test('holds every /storefront/v1 operation and every webhook event, nothing else', () => {
    const contract = snapshot(inline);
    assert.deepEqual(Object.keys(contract.operations).sort(), [PRODUCTS, PRODUCT, CREATE_CART, REPLACE_CART]);
    assert.deepEqual(Object.keys(contract.webhooks), ['order.paid', 'product.updated']);
    assert.deepEqual(Object.keys(contract.webhooks['order.paid']!), ['POST']);
  });

  test('drops text but keeps fields named like annotations; header names are lower case', () => {
    const contract = snapshot(inline);
    const text = JSON.stringify(contract);
    for (const gone of ['Display name', 'description', 'summary', 'examples', '"title":"Money"', 'tags']) {
      assert.ok(!text.includes(gone), `${gone} is still in the snapshot`);
    }
    const problem = contract.operations[PRODUCT]!.responses['4XX']!.content['application/json'];
    assert.ok(isObject(problem));
    assert.deepEqual(Object.keys(at(problem, 'properties')), ['type', 'title', 'status', 'detail']);
    assert.deepEqual(contract.operations[PRODUCT]!.responses['200']!.headers, ['etag']);
    assert.deepEqual(
      contract.operations[REPLACE_CART]!.parameters.map((item) => `${item.in} ${item.name}`),
      ['header if-match', 'path id'],
    );
  });

  test('inlines $refs of schemas, parameters, responses, request bodies, headers and path items', () => {
    const text = JSON.stringify(snapshot(components));
    assert.ok(!text.includes('$ref'));
    assert.ok(!text.includes('#/components'));
    // The discriminator's mapping names components; only its property is kept.
    assert.ok(text.includes('"discriminator":{"propertyName":"kind"}'));
  });

  test('a renamed component with the same structure changes nothing, not even the snapshot', () => {
    const renamed = renameComponents(components);
    assert.ok(JSON.stringify(renamed).includes('#/components/schemas/RenamedMoney'));
    assert.deepEqual(snapshot(renamed), snapshot(components));
    assert.deepEqual(compareContracts(snapshot(components), snapshot(renamed)), {
      breaking: [],
      additive: [],
    });
  });

  test('the same contract spelled inline or with components compares equal both ways', () => {
    const empty = { breaking: [], additive: [] };
    assert.deepEqual(compareContracts(snapshot(inline), snapshot(components)), empty);
    assert.deepEqual(compareContracts(snapshot(components), snapshot(inline)), empty);
  });

  test('prints the same bytes for the same contract, whatever the order of keys', () => {
    const text = formatSnapshot(snapshot(components));
    const reversed = reverseKeys(components);
    assert.notEqual(JSON.stringify(reversed), JSON.stringify(components));
    assert.equal(formatSnapshot(snapshot(reversed)), text);
    assert.equal(formatSnapshot(parseSnapshot(text)), text);
    assert.ok(text.endsWith('}\n') && !text.endsWith('\n\n'));
  });

  test('a $ref cycle becomes a marker pointing into the same schema', () => {
    const contract = snapshot(menuDocument({ Menu: menuItem('Menu') }, 'Menu'));
    const schema = contract.operations[`GET ${MENU_PATH}`]!.responses['200']!.content['application/json'];
    assert.ok(isObject(schema));
    assert.deepEqual(at(schema, 'properties', 'children', 'items'), { $recursive: '#' });
  });

  test('refuses references it cannot follow', () => {
    const external = changed(
      components,
      (d) => (at(schemas(d, 'Variant'), 'properties').price = { $ref: 'money.json#/Money' }),
    );
    assert.throws(() => snapshot(external), /Only local \$refs/);
    const missing = changed(
      components,
      (d) => (at(schemas(d, 'Variant'), 'properties').price = { $ref: '#/nowhere' }),
    );
    assert.throws(() => snapshot(missing), /Unresolvable \$ref #\/nowhere/);
    const loop = changed(
      components,
      (d) => (at(d, 'components', 'parameters').Limit = { $ref: '#/components/parameters/Limit' }),
    );
    assert.throws(() => snapshot(loop), /\$ref cycle/);
  });
});

describe('breaking changes', () => {
  for (const { name, document, change, expect } of breakingCases) {
    test(name, () => {
      assert.deepEqual(breaksFrom(document ?? components, change), expect);
    });
  }

  test('each line names the operation and the field, as in the spec', () => {
    const lines = breaksFrom(inline, (d) => {
      const price = at(productSchema(d), 'properties', 'variants', 'items', 'properties', 'price');
      delete at(price, 'properties').amount;
      price.required = ['currency'];
    });
    assert.deepEqual(lines, [
      'GET /storefront/v1/products/{id} 200 application/json: field "variants[].price.amount" removed',
    ]);
  });
});

describe('additive changes', () => {
  test('an unchanged document has no changes at all', () => {
    assert.deepEqual(compareContracts(snapshot(components), snapshot(structuredClone(components))), {
      breaking: [],
      additive: [],
    });
  });

  for (const { name, change, additions } of additiveCases) {
    test(name, () => {
      const { breaking, additive } = changesFrom(components, change);
      assert.deepEqual(breaking, []);
      for (const line of additions)
        assert.ok(additive.includes(line), `missing "${line}" in ${additive.join('; ')}`);
    });
  }

  test('a new maximum on a number is breaking below 2^53 − 1 and not at it (no client relies on a larger JSON integer)', () => {
    const unbounded = changed(components, (d) => {
      delete at(d, 'components', 'parameters', 'Limit', 'schema').maximum;
    });
    const bounded = (maximum: number) =>
      compareContracts(
        snapshot(unbounded),
        snapshot(
          changed(unbounded, (d) => (at(d, 'components', 'parameters', 'Limit', 'schema').maximum = maximum)),
        ),
      );
    assert.deepEqual(bounded(Number.MAX_SAFE_INTEGER).breaking, []);
    assert.ok(
      bounded(Number.MAX_SAFE_INTEGER).additive.includes(
        `${PRODUCTS} query parameter "limit": new maximum 9007199254740991`,
      ),
    );
    assert.deepEqual(bounded(Number.MAX_SAFE_INTEGER - 1).breaking, [
      `${PRODUCTS} query parameter "limit": new maximum 9007199254740990`,
    ]);
  });

  test('rewritten descriptions, summaries, titles and examples are no change', () => {
    for (const document of [inline, components]) {
      const rewritten = rewriteText(document);
      assert.ok(isObject(rewritten));
      assert.notDeepEqual(rewritten, document);
      assert.deepEqual(snapshot(rewritten), snapshot(document));
    }
  });

  test('a renamed path parameter is the same route', () => {
    const { breaking, additive } = changesFrom(inline, (d) => {
      const paths = at(d, 'paths');
      const item = at(paths, '/storefront/v1/products/{id}');
      at(list(at(item, 'get'), 'parameters')[0] as JsonObject).name = 'productId';
      paths['/storefront/v1/products/{productId}'] = item;
      delete paths['/storefront/v1/products/{id}'];
    });
    assert.deepEqual({ breaking, additive }, { breaking: [], additive: [] });
  });

  test("today's inline document may become the components document with problem+json, headers, conditional requests and envelopes", () => {
    const future = changed(components, (d) => {
      const content = at(d, 'components', 'responses', 'Problem', 'content');
      content['application/problem+json'] = at(content, 'application/json');
      delete content['application/json'];
      at(d, 'components', 'parameters').IfNoneMatch = {
        in: 'header',
        name: 'If-None-Match',
        schema: { type: 'string' },
      };
      operation(d, '/storefront/v1/products/{id}', 'get').parameters = [
        { $ref: '#/components/parameters/IfNoneMatch' },
      ];
      at(operation(d, '/storefront/v1/carts/{id}', 'put'), 'responses', '200').headers = {
        ETag: { $ref: '#/components/headers/ETag' },
      };
      // The envelope as a shared component, each event's data joined to it by allOf.
      const schemaMap = at(d, 'components', 'schemas');
      schemaMap.Envelope = {
        type: 'object',
        required: ['id', 'event', 'createdAt', 'data'],
        properties: {
          id: { $ref: '#/components/schemas/Uuid' },
          event: { type: 'string' },
          createdAt: { type: 'string', format: 'date-time' },
          data: {},
        },
      };
      schemaMap.ProductUpdated = {
        allOf: [
          { $ref: '#/components/schemas/Envelope' },
          {
            properties: {
              event: { const: 'product.updated' },
              data: {
                type: 'object',
                required: ['productId'],
                properties: { productId: { $ref: '#/components/schemas/Uuid' } },
              },
            },
          },
        ],
      };
      at(d, 'webhooks')['order.refunded'] = {
        post: {
          requestBody: {
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Envelope' } } },
          },
        },
      };
    });
    const { breaking, additive } = compareContracts(snapshot(inline), snapshot(future));
    assert.deepEqual(breaking, []);
    for (const line of [
      `${PRODUCT}: new header parameter "if-none-match"`,
      `${REPLACE_CART} 200: new header "etag"`,
      `${PRODUCT} 4XX: new content type application/problem+json`,
      'webhook order.refunded: new event',
    ]) {
      assert.ok(additive.includes(line), `missing "${line}"`);
    }
  });
});

describe('recursive schemas', () => {
  const menu = snapshot(menuDocument({ Menu: menuItem('Menu') }, 'Menu'));

  test('renamed, or unrolled one level, they are the same contract', () => {
    const renamed = snapshot(menuDocument({ Item: menuItem('Item') }, 'Item'));
    const unrolled = snapshot(menuDocument({ Top: menuItem('Menu'), Menu: menuItem('Menu') }, 'Top'));
    const empty = { breaking: [], additive: [] };
    assert.deepEqual(compareContracts(menu, renamed), empty);
    assert.deepEqual(compareContracts(menu, unrolled), empty);
    assert.deepEqual(compareContracts(unrolled, menu), empty);
  });

  test('a removed field is reported once, where the recursion starts', () => {
    const item = menuItem('Menu');
    delete at(item, 'properties').label;
    item.required = ['children'];
    assert.deepEqual(breakingChanges(menu, snapshot(menuDocument({ Menu: item }, 'Menu'))), [
      `GET ${MENU_PATH} 200 application/json: field "label" removed`,
    ]);
  });

  test('mutual recursion ends and compares', () => {
    const pair = (countType: string): JsonObject => ({
      A: { type: 'object', properties: { b: { $ref: '#/components/schemas/B' } } },
      B: {
        type: 'object',
        properties: { a: { $ref: '#/components/schemas/A' }, count: { type: countType } },
      },
    });
    assert.deepEqual(
      breakingChanges(
        snapshot(menuDocument(pair('integer'), 'A')),
        snapshot(menuDocument(pair('string'), 'A')),
      ),
      [`GET ${MENU_PATH} 200 application/json: field "b.count": type changed from integer to string`],
    );
  });
});

describe('the committed contract', () => {
  test('contract/openapi.json keeps every promise of contract/storefront.snapshot.json', () => {
    const recorded = parseSnapshot(fs.readFileSync(SNAPSHOT_FILE, 'utf8'));
    const current = snapshot(JSON.parse(fs.readFileSync(OPENAPI_FILE, 'utf8')) as Json);
    assert.ok(Object.keys(recorded.operations).length >= 16);
    assert.deepEqual(breakingChanges(recorded, current), []);
  });
});

describe('command line', () => {
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [path.join(root, 'scripts', 'contract.ts'), ...args], {
      cwd: root,
      encoding: 'utf8',
    });

  function tempFiles(): { dir: string; openapi: string; snapshotFile: string } {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'contract-'));
    const openapi = path.join(dir, 'openapi.json');
    fs.writeFileSync(openapi, JSON.stringify(components));
    return { dir, openapi, snapshotFile: path.join(dir, 'snapshot.json') };
  }

  test('records, passes, then fails with one line per breaking change and refuses to record it', () => {
    const { dir, openapi, snapshotFile } = tempFiles();
    try {
      const files = [`--openapi=${openapi}`, `--snapshot=${snapshotFile}`];
      assert.equal(run(...files).status, 1, 'no snapshot yet');
      assert.equal(run('--update', ...files).status, 0);
      const recorded = fs.readFileSync(snapshotFile, 'utf8');
      assert.equal(recorded, formatSnapshot(snapshot(components)));

      const passed = run(...files);
      assert.equal(passed.status, 0);
      assert.equal(passed.stdout, 'Storefront contract: 4 operations, 2 webhook events, additive-only ✓\n');

      fs.writeFileSync(
        openapi,
        JSON.stringify(
          changed(components, (d) => (schemas(d, 'ProductStatus').enum = ['active', 'draft', 'archived'])),
        ),
      );
      assert.match(
        run(...files).stdout,
        /additive-only ✓; 1 addition; run npm run contract to record them\n$/,
      );

      fs.writeFileSync(
        openapi,
        JSON.stringify(changed(components, (d) => delete at(d, 'webhooks')['order.paid'])),
      );
      const failed = run(...files);
      assert.equal(failed.status, 1);
      assert.match(
        failed.stderr,
        /Storefront contract: 1 breaking change against .*\n {2}- webhook order\.paid: event removed\n/,
      );
      assert.equal(run('--update', ...files).status, 1);
      assert.equal(fs.readFileSync(snapshotFile, 'utf8'), recorded, 'a breaking change is not recorded');
      assert.equal(run('--update', '--accept-breaking', ...files).status, 0);
      assert.equal(run(...files).status, 0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The same document with every object's keys in reverse order. */
function reverseKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .reverse()
      .map((key): [string, Json] => [key, reverseKeys(value[key] as Json)]),
  );
}
