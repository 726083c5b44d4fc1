/**
 * Comparing two contract snapshots: operations, their parameters, bodies and responses, and
 * webhook events. Schemas are compared by ./schemas.ts, from the side of the client that
 * relies on them.
 */
import { own } from './json.ts';
import { Changes, compareSchemaRoots, type Direction } from './schemas.ts';
import type {
  MediaSchemas,
  OperationContract,
  ParameterContract,
  ResponseContract,
  Snapshot,
} from './snapshot.ts';

export type ContractChanges = {
  /** Changes that break a client written against `before`; each line names where and what. */
  breaking: string[];
  /** Changes that keep every such client working: additions, widened requests, doc-free shifts. */
  additive: string[];
};

/**
 * This API rejects unknown query parameters (docs/api-conventions.md: query strings are closed),
 * so removing one breaks clients that send it; unknown headers and cookies are ignored.
 */
const CLOSED_PARAMETER_LOCATIONS = new Set(['query', 'path']);

export function compareContracts(before: Snapshot, after: Snapshot): ContractChanges {
  const changes = new Changes();
  compareOperations(changes, before.operations, after.operations);
  compareWebhooks(changes, before.webhooks, after.webhooks);
  return { breaking: changes.breaking, additive: changes.additive };
}

export function breakingChanges(before: Snapshot, after: Snapshot): string[] {
  return compareContracts(before, after).breaking;
}

// Operations

/** `GET /a/{id}` and `GET /a/{productId}` are the same route: only the parameter's name differs. */
function routeShape(key: string): string {
  return key.replace(/\{[^}]*\}/g, '{}');
}

function findOperation(operations: Snapshot['operations'], key: string): string | undefined {
  if (Object.hasOwn(operations, key)) return key;
  const sameShape = Object.keys(operations).filter((other) => routeShape(other) === routeShape(key));
  return sameShape.length === 1 ? sameShape[0] : undefined;
}

function compareOperations(
  changes: Changes,
  before: Snapshot['operations'],
  after: Snapshot['operations'],
): void {
  const matched = new Set<string>();
  for (const [key, operation] of Object.entries(before)) {
    const afterKey = findOperation(after, key);
    if (afterKey === undefined) {
      changes.break(key, 'operation removed');
      continue;
    }
    matched.add(afterKey);
    compareOperation(changes, key, afterKey, operation, after[afterKey] as OperationContract);
  }
  for (const key of Object.keys(after)) {
    if (!matched.has(key)) changes.add(key, 'new operation');
  }
}

/** `beforeKey` and `key` differ when a path parameter was renamed; lines name the route as it is now. */
function compareOperation(
  changes: Changes,
  beforeKey: string,
  key: string,
  before: OperationContract,
  after: OperationContract,
): void {
  // Generated clients name their methods after it.
  if (before.operationId !== null && before.operationId !== after.operationId) {
    changes.break(
      key,
      `operationId changed from "${before.operationId}" to "${after.operationId ?? 'none'}"`,
    );
  }
  compareParameters(changes, { before: beforeKey, after: key }, before.parameters, after.parameters);
  compareRequestBody(changes, key, before.requestBody, after.requestBody);
  compareResponses(changes, key, before.responses, after.responses);
}

// Parameters

/** Path parameters are matched by their position in the path; the others by location and name. */
function parameterKey(operationKey: string, parameter: ParameterContract): string {
  if (parameter.in !== 'path') return `${parameter.in} ${parameter.name}`;
  const names = [...operationKey.matchAll(/\{([^}]*)\}/g)].map((match) => match[1]);
  const position = names.indexOf(parameter.name);
  return position === -1 ? `path ${parameter.name}` : `path #${position}`;
}

function compareParameters(
  changes: Changes,
  keys: { before: string; after: string },
  before: ParameterContract[],
  after: ParameterContract[],
): void {
  const key = keys.after;
  const afterByKey = new Map(after.map((parameter) => [parameterKey(keys.after, parameter), parameter]));
  const beforeKeys = new Set<string>();
  for (const parameter of before) {
    const parameterId = parameterKey(keys.before, parameter);
    beforeKeys.add(parameterId);
    const match = afterByKey.get(parameterId);
    if (match === undefined) {
      const name = parameterName(parameter);
      if (CLOSED_PARAMETER_LOCATIONS.has(parameter.in)) changes.break(key, `${name} removed`);
      else changes.add(key, `${name} no longer declared`);
      continue;
    }
    const name = parameterName(match);
    if (!parameter.required && match.required) changes.break(key, `${name} became required`);
    else if (parameter.required && !match.required) changes.add(key, `${name} became optional`);
    compareSchemaRoots(changes, 'request', `${key} ${name}`, parameter.schema, match.schema);
  }
  for (const [parameterId, parameter] of afterByKey) {
    if (beforeKeys.has(parameterId)) continue;
    if (parameter.required) changes.break(key, `new required ${parameterName(parameter)}`);
    else changes.add(key, `new ${parameterName(parameter)}`);
  }
}

function parameterName(parameter: ParameterContract): string {
  return `${parameter.in} parameter "${parameter.name}"`;
}

// Request bodies

function compareRequestBody(
  changes: Changes,
  key: string,
  before: OperationContract['requestBody'],
  after: OperationContract['requestBody'],
): void {
  if (before === null) {
    if (after?.required) changes.break(key, 'request body is now required');
    else if (after) changes.add(key, 'new optional request body');
    return;
  }
  if (after === null) {
    // Clients that send one cannot know the server now ignores it rather than rejects it.
    changes.break(key, 'request body removed');
    return;
  }
  if (!before.required && after.required) changes.break(key, 'request body is now required');
  compareContent(changes, `${key} request body`, 'request', before.content, after.content, true);
}

// Responses

/** 2xx: what a client gets when the call works. Error responses may come and go. */
function isSuccess(status: string): boolean {
  return status.startsWith('2');
}

function compareResponses(
  changes: Changes,
  key: string,
  before: Record<string, ResponseContract>,
  after: Record<string, ResponseContract>,
): void {
  for (const [status, response] of Object.entries(before)) {
    // A status may now be covered by its range (`200` by `2XX`).
    const match = own(after, status) ?? own(after, `${status.charAt(0)}XX`);
    if (match === undefined) {
      if (isSuccess(status)) changes.break(key, `response ${status} removed`);
      else changes.add(key, `response ${status} no longer declared`);
      continue;
    }
    const where = `${key} ${status}`;
    compareContent(changes, where, 'response', response.content, match.content, isSuccess(status));
    compareHeaders(changes, where, response.headers, match.headers);
  }
  for (const status of Object.keys(after)) {
    if (!Object.hasOwn(before, status)) changes.add(key, `new response ${status}`);
  }
}

function compareHeaders(changes: Changes, where: string, before: string[], after: string[]): void {
  for (const name of before) {
    if (!after.includes(name)) changes.break(where, `header "${name}" removed`);
  }
  for (const name of after) {
    if (!before.includes(name)) changes.add(where, `new header "${name}"`);
  }
}

/**
 * Media types of one body or response. `strict`: a media type clients use may not go (a success
 * response, a request body). Otherwise (an error response) it may be replaced by another JSON
 * media type, application/problem+json for application/json say, whose fields are then compared.
 */
function compareContent(
  changes: Changes,
  where: string,
  direction: Direction,
  before: MediaSchemas,
  after: MediaSchemas,
  strict: boolean,
): void {
  const added = Object.keys(after).filter((type) => !Object.hasOwn(before, type));
  for (const [type, schema] of Object.entries(before)) {
    const same = own(after, type);
    if (same !== undefined) {
      compareSchemaRoots(changes, direction, `${where} ${type}`, schema, same);
    } else if (strict) {
      changes.break(where, `content type ${type} removed`);
    } else {
      const jsonAdded = added.filter(isJson);
      const replacement = isJson(type) && jsonAdded.length === 1 ? (jsonAdded[0] as string) : undefined;
      if (replacement === undefined) {
        changes.add(where, `content type ${type} no longer declared`);
      } else {
        compareSchemaRoots(
          changes,
          direction,
          `${where} ${replacement}`,
          schema,
          own(after, replacement) ?? {},
        );
      }
    }
  }
  for (const type of added) changes.add(where, `new content type ${type}`);
}

function isJson(mediaType: string): boolean {
  return /^application\/(.+\+)?json(;|$)/i.test(mediaType);
}

// Webhooks

function compareWebhooks(changes: Changes, before: Snapshot['webhooks'], after: Snapshot['webhooks']): void {
  for (const [event, methods] of Object.entries(before)) {
    const match = own(after, event);
    if (match === undefined) {
      changes.break(`webhook ${event}`, 'event removed');
      continue;
    }
    for (const [method, content] of Object.entries(methods)) {
      const where = method === 'POST' ? `webhook ${event}` : `webhook ${event} ${method}`;
      const afterContent = own(match, method);
      if (afterContent === undefined) changes.break(`webhook ${event}`, `${method} removed`);
      // Receivers read the payload the way clients read a response.
      else compareContent(changes, where, 'response', content, afterContent, true);
    }
    for (const method of Object.keys(match)) {
      if (!Object.hasOwn(methods, method)) changes.add(`webhook ${event}`, `new ${method}`);
    }
  }
  for (const event of Object.keys(after)) {
    if (!Object.hasOwn(before, event)) changes.add(`webhook ${event}`, 'new event');
  }
}
