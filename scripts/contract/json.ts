/** JSON values as read from the OpenAPI document and the contract snapshot, and how they print. */

export type Json = null | boolean | number | string | Json[] | JsonObject;
export type JsonObject = { [key: string]: Json };

export function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An own member only: a key such as `constructor` must not find Object.prototype's. */
export function own<T>(object: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

export function objectAt(value: Json | undefined): JsonObject {
  return isObject(value) ? value : {};
}

export function arrayAt(value: Json | undefined): Json[] {
  return Array.isArray(value) ? value : [];
}

export function stringsAt(value: Json | undefined): string[] {
  return arrayAt(value).filter((item): item is string => typeof item === 'string');
}

/** The same value with object keys sorted at every depth, so equal values print identically. */
export function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key): [string, Json] => [key, sortKeys(value[key] as Json)]),
  );
}

/** A text that is equal for equal values, whatever the order of their keys. */
export function canonical(value: Json): string {
  return JSON.stringify(sortKeys(value));
}

/** Sorted, without duplicates: for keywords whose order carries no meaning (`required`, `type`, `enum`). */
export function sortedSet(values: Json[]): Json[] {
  const byText = new Map(values.map((item) => [canonical(item), item]));
  return [...byText.keys()].sort().map((text) => byText.get(text) as Json);
}

/** Two-space indented, keys sorted, one trailing newline: the same bytes for the same value. */
export function formatJson(value: Json): string {
  return `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}

/** A JSON Pointer (RFC 6901) as its reference tokens; `#` fragments may be percent-encoded. */
export function pointerTokens(pointer: string): string[] {
  const text = pointer.startsWith('#') ? decodeURIComponent(pointer.slice(1)) : pointer;
  if (text === '') return [];
  if (!text.startsWith('/')) throw new Error(`Not a JSON Pointer: ${pointer}`);
  return text
    .slice(1)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}

export function pointerOf(tokens: readonly string[]): string {
  return `#${tokens.map((token) => `/${token.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')}`;
}

/** The value a pointer names inside `root`, or undefined. */
export function atPointer(root: Json, pointer: string): Json | undefined {
  let node: Json | undefined = root;
  for (const token of pointerTokens(pointer)) {
    if (Array.isArray(node)) node = /^(0|[1-9]\d*)$/.test(token) ? node[Number(token)] : undefined;
    else if (isObject(node)) node = own(node, token);
    else return undefined;
  }
  return node;
}
