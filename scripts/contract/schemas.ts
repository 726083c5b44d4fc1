/**
 * Comparing two versions of one schema, from the side of the client that relies on it.
 *
 * - `response` (responses and webhook payloads, which clients read): every field a client may
 *   read must still come, in a type it can read. A removed field, a required field becoming
 *   optional or nullable, a changed type or a removed enum value breaks it; new fields and new
 *   enum values do not (clients ignore fields they do not know and must expect new values).
 * - `request` (parameters and bodies, which clients send): everything a client may have sent
 *   must still be accepted. A narrowed type, a new or tighter constraint, a removed enum value, a
 *   new required field or a closed object breaks it; widening anything does not.
 */
import { canonical, isObject, type Json } from './json.ts';
import { resolveRecursive } from './snapshot.ts';
import { ALL_TYPES, viewOf, withoutNull, type SchemaView } from './views.ts';

export type Direction = 'request' | 'response';

/** The changes found so far, each a line naming where it is and what changed. */
export class Changes {
  readonly breaking: string[] = [];
  readonly additive: string[] = [];

  break(where: string, what: string): void {
    this.breaking.push(`${where}: ${what}`);
  }

  add(where: string, what: string): void {
    this.additive.push(`${where}: ${what}`);
  }
}

type Comparison = {
  direction: Direction;
  /** Prefix of every line: `GET /storefront/v1/products/{id} 200 application/json`. */
  where: string;
  changes: Changes;
  beforeRoot: Json;
  afterRoot: Json;
  /** Pairs of (resolved) schemas already compared: recursive schemas would otherwise never end. */
  compared: Map<object, Set<object>>;
};

/** Far deeper than any real schema; reaching it means a cycle escaped the `compared` guard. */
const MAX_DEPTH = 500;

/** Compares two inlined schemas (a media type's, a parameter's) and records what changed. */
export function compareSchemaRoots(
  changes: Changes,
  direction: Direction,
  where: string,
  before: Json,
  after: Json,
): void {
  const comparison: Comparison = {
    direction,
    where,
    changes,
    beforeRoot: before,
    afterRoot: after,
    compared: new Map(),
  };
  compareSchemas(comparison, before, after, '', 0);
}

/** `field "a.b"` + phrase, or the bare phrase for the root value. */
function field(path: string, phrase: string): string {
  return path === '' ? phrase : `field "${path}" ${phrase}`;
}

/** `field "a.b": ` + attribute change, or the bare text for the root value. */
function attribute(path: string, phrase: string): string {
  return path === '' ? phrase : `field "${path}": ${phrase}`;
}

function member(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

function show(value: Json | undefined): string {
  return JSON.stringify(value) ?? 'none';
}

function breaking(comparison: Comparison, text: string): void {
  comparison.changes.break(comparison.where, text);
}

function additive(comparison: Comparison, text: string): void {
  comparison.changes.add(comparison.where, text);
}

function compareSchemas(
  comparison: Comparison,
  before: Json,
  after: Json,
  path: string,
  depth: number,
): void {
  const b = resolveRecursive(before, comparison.beforeRoot);
  const a = resolveRecursive(after, comparison.afterRoot);
  if (alreadyCompared(comparison, b, a)) return;
  if (depth > MAX_DEPTH) throw new Error(`${comparison.where}: schemas nested too deep at ${path}`);
  compareViews(comparison, viewOf(b, comparison.beforeRoot), viewOf(a, comparison.afterRoot), path, depth);
}

function alreadyCompared(comparison: Comparison, before: Json, after: Json): boolean {
  if (!isObject(before) || !isObject(after)) return false;
  const seen = comparison.compared.get(before) ?? new Set<object>();
  if (seen.has(after)) return true;
  comparison.compared.set(before, seen.add(after));
  return false;
}

function compareViews(
  comparison: Comparison,
  before: SchemaView,
  after: SchemaView,
  path: string,
  depth: number,
): void {
  compareTypes(comparison, before.types, after.types, path);
  if (before.branches || after.branches) {
    compareAlternatives(comparison, before, after, path, depth);
    return;
  }
  compareValues(comparison, before.values, after.values, path);
  compareConstraints(comparison, before.constraints, after.constraints, path);
  if (before.types.has('object') && after.types.has('object')) {
    compareObjects(comparison, before, after, path, depth);
  }
  if (before.types.has('array') && after.types.has('array') && (before.items ?? after.items) !== undefined) {
    compareSchemas(comparison, before.items ?? {}, after.items ?? {}, `${path}[]`, depth + 1);
  }
}

// Types

/** Whether a value of `type` is still one of `types` (an integer is a number). */
function admits(types: ReadonlySet<string>, type: string): boolean {
  return types.has(type) || (type === 'integer' && types.has('number'));
}

function showTypes(types: ReadonlySet<string>): string {
  if (types.size === ALL_TYPES.size) return 'any';
  const sorted = [...types].sort();
  return sorted.length === 1 ? (sorted[0] as string) : `[${sorted.join(', ')}]`;
}

function compareTypes(
  comparison: Comparison,
  before: ReadonlySet<string>,
  after: ReadonlySet<string>,
  path: string,
): void {
  const lost = [...before].filter((type) => !admits(after, type));
  const gained = [...after].filter((type) => !admits(before, type));
  const change = `from ${showTypes(before)} to ${showTypes(after)}`;
  if (comparison.direction === 'request') {
    if (lost.length === 1 && lost[0] === 'null') breaking(comparison, field(path, 'no longer accepts null'));
    else if (lost.length > 0) breaking(comparison, attribute(path, `type narrowed ${change}`));
    else if (gained.length > 0) additive(comparison, attribute(path, `type widened ${change}`));
    return;
  }
  // Responses: a client reads the value, so it must not meet a type it was not told about. Losing
  // null, or number becoming integer, only narrows what it meets and breaks nothing.
  const lostShapes = lost.filter((type) => type !== 'null' && !(type === 'number' && after.has('integer')));
  const gainedShapes = gained.filter((type) => type !== 'null');
  if (lostShapes.length > 0 && gainedShapes.length > 0) {
    breaking(comparison, attribute(path, `type changed ${change}`));
  } else if (lostShapes.length > 0) {
    breaking(comparison, attribute(path, `type narrowed ${change}`));
  } else if (gainedShapes.length > 0) {
    breaking(comparison, attribute(path, `type widened ${change}`));
  } else if (gained.includes('null')) {
    breaking(comparison, field(path, 'became nullable'));
  } else if (lost.length > 0) {
    additive(comparison, attribute(path, `type narrowed ${change}`));
  }
}

// Enum and const values

function compareValues(
  comparison: Comparison,
  before: readonly Json[] | null,
  after: readonly Json[] | null,
  path: string,
): void {
  if (before && after) {
    const inAfter = new Set(after.map(canonical));
    const inBefore = new Set(before.map(canonical));
    for (const value of before.filter((item) => !inAfter.has(canonical(item)))) {
      breaking(comparison, attribute(path, `enum value ${show(value)} removed`));
    }
    for (const value of after.filter((item) => !inBefore.has(canonical(item)))) {
      additive(comparison, attribute(path, `enum value ${show(value)} added`));
    }
  } else if (after) {
    // A response value that now comes from a list is still a value clients could read.
    if (comparison.direction === 'request') {
      breaking(comparison, attribute(path, `now restricted to the values ${after.map(show).join(', ')}`));
    }
  } else if (before) {
    additive(
      comparison,
      attribute(path, `no longer restricted to the values ${before.map(show).join(', ')}`),
    );
  }
}

// Constraints

/** Bounds a request value must stay under: lowering one (or adding one) rejects values sent before. */
const UPPER_BOUNDS = ['maxLength', 'maxItems', 'maxProperties', 'maximum', 'exclusiveMaximum'];
/**
 * What an absent upper bound means where it is not infinite: a JSON number is exact only up to
 * 2^53 − 1 (I-JSON, RFC 7493 § 2.2), so no client can rely on a larger one being taken, and a new
 * `maximum` at or above it rejects nothing a client could send.
 */
const IMPLICIT_UPPER_BOUNDS: Record<string, number> = { maximum: Number.MAX_SAFE_INTEGER };
/** Bounds a request value must stay over, with the value their absence means. */
const LOWER_BOUNDS: Record<string, number> = {
  minLength: 0,
  minItems: 0,
  minProperties: 0,
  minimum: -Infinity,
  exclusiveMinimum: -Infinity,
};
/** Constraints that cannot be ordered: any new or different one may reject values sent before. */
const OTHER_CONSTRAINTS = ['pattern', 'format', 'multipleOf', 'contains', 'propertyNames', 'not'];

function numberOf(value: Json | undefined): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

function loosened(keyword: string, was: number | undefined, is: number | undefined, verb: string): string {
  return is === undefined ? `${keyword} ${was} removed` : `${keyword} ${verb} from ${was} to ${is}`;
}

function compareConstraints(
  comparison: Comparison,
  before: ReadonlyMap<string, Json>,
  after: ReadonlyMap<string, Json>,
  path: string,
): void {
  if (comparison.direction === 'response') {
    compareResponseFormat(comparison, before.get('format'), after.get('format'), path);
    return;
  }
  for (const keyword of UPPER_BOUNDS) {
    const was = numberOf(before.get(keyword));
    const is = numberOf(after.get(keyword));
    const ceiling = was ?? IMPLICIT_UPPER_BOUNDS[keyword];
    if (is !== undefined && (ceiling === undefined || is < ceiling)) {
      breaking(
        comparison,
        attribute(
          path,
          was === undefined ? `new ${keyword} ${is}` : `${keyword} lowered from ${was} to ${is}`,
        ),
      );
    } else if (was !== is) {
      const change = was === undefined ? `new ${keyword} ${is}` : loosened(keyword, was, is, 'raised');
      additive(comparison, attribute(path, change));
    }
  }
  for (const [keyword, floor] of Object.entries(LOWER_BOUNDS)) {
    const was = numberOf(before.get(keyword));
    const is = numberOf(after.get(keyword));
    if (is !== undefined && is > (was ?? floor)) {
      breaking(
        comparison,
        attribute(
          path,
          was === undefined ? `new ${keyword} ${is}` : `${keyword} raised from ${was} to ${is}`,
        ),
      );
    } else if (was !== is) {
      additive(comparison, attribute(path, loosened(keyword, was, is, 'lowered')));
    }
  }
  if (after.get('uniqueItems') === true && before.get('uniqueItems') !== true) {
    breaking(comparison, attribute(path, 'items must now be unique'));
  }
  for (const keyword of OTHER_CONSTRAINTS) {
    const was = before.get(keyword);
    const is = after.get(keyword);
    if (is !== undefined && (was === undefined || canonical(was) !== canonical(is))) {
      breaking(
        comparison,
        attribute(
          path,
          was === undefined
            ? `new ${keyword} ${show(is)}`
            : `${keyword} changed from ${show(was)} to ${show(is)}`,
        ),
      );
    } else if (was !== undefined && is === undefined) {
      additive(comparison, attribute(path, `${keyword} ${show(was)} removed`));
    }
  }
}

/** Clients parse formatted strings (dates, ids): a response format may be added, never changed. */
function compareResponseFormat(
  comparison: Comparison,
  before: Json | undefined,
  after: Json | undefined,
  path: string,
): void {
  if (before === undefined || (after !== undefined && canonical(before) === canonical(after))) return;
  breaking(
    comparison,
    attribute(
      path,
      after === undefined
        ? `format ${show(before)} removed`
        : `format changed from ${show(before)} to ${show(after)}`,
    ),
  );
}

// Objects

/** Declared fields: properties, and names only listed as required. */
function fieldNames(view: SchemaView): Set<string> {
  return new Set([...view.properties.keys(), ...view.required]);
}

function compareObjects(
  comparison: Comparison,
  before: SchemaView,
  after: SchemaView,
  path: string,
  depth: number,
): void {
  const beforeFields = fieldNames(before);
  const afterFields = fieldNames(after);
  for (const name of [...beforeFields].sort()) {
    const at = member(path, name);
    if (!afterFields.has(name)) {
      compareRemovedField(comparison, before.properties.get(name) ?? {}, after, at, depth);
      continue;
    }
    compareRequired(comparison, before.required.has(name), after.required.has(name), at);
    compareSchemas(
      comparison,
      before.properties.get(name) ?? {},
      after.properties.get(name) ?? {},
      at,
      depth + 1,
    );
  }
  for (const name of [...afterFields].sort()) {
    if (beforeFields.has(name)) continue;
    const at = member(path, name);
    if (comparison.direction === 'request' && after.required.has(name)) {
      breaking(comparison, `new required field "${at}"`);
    } else {
      additive(comparison, `new field "${at}"`);
    }
  }
  compareAdditionalProperties(comparison, before.additional, after.additional, path, depth);
}

function compareRemovedField(
  comparison: Comparison,
  before: Json,
  after: SchemaView,
  at: string,
  depth: number,
): void {
  if (comparison.direction === 'response') {
    breaking(comparison, field(at, 'removed'));
  } else if (after.additional === false) {
    breaking(comparison, field(at, 'removed (the object rejects unknown fields)'));
  } else if (isObject(after.additional)) {
    // Still accepted as an additional property: what it accepts is what counts.
    compareSchemas(comparison, before, after.additional, at, depth + 1);
  } else {
    additive(comparison, field(at, 'no longer declared (still accepted as an unknown field)'));
  }
}

function compareRequired(comparison: Comparison, was: boolean, is: boolean, at: string): void {
  if (was === is) return;
  const breaks = comparison.direction === 'response' ? was : is;
  const text = field(at, is ? 'became required' : 'became optional');
  if (breaks) breaking(comparison, text);
  else additive(comparison, text);
}

function compareAdditionalProperties(
  comparison: Comparison,
  before: Json | undefined,
  after: Json | undefined,
  path: string,
  depth: number,
): void {
  if (comparison.direction === 'request' && after === false && before !== false) {
    const was = before === undefined || before === true ? 'true' : 'a schema';
    breaking(comparison, attribute(path, `additionalProperties changed from ${was} to false`));
    return;
  }
  if (after === false || before === false) return;
  const at = `${path}{*}`;
  if (isObject(before) && isObject(after)) {
    compareSchemas(comparison, before, after, at, depth + 1);
  } else if (comparison.direction === 'request' && isObject(after)) {
    // Unknown fields were accepted as anything: a schema for them now may reject some.
    compareSchemas(comparison, {}, after, at, depth + 1);
  }
}

// Alternatives (anyOf/oneOf of different shapes)

/**
 * Pairs the alternatives before and after: by discriminator value when they have one (a
 * property with one constant value in each, like a block's `type`), else by the fields they
 * share. Each pair is compared; an alternative without a partner was removed or added.
 */
function compareAlternatives(
  comparison: Comparison,
  before: SchemaView,
  after: SchemaView,
  path: string,
  depth: number,
): void {
  const old = before.branches ?? [withoutNull(before)];
  const current = after.branches ?? [withoutNull(after)];
  const tag =
    before.discriminator ??
    after.discriminator ??
    commonTag(old, comparison.beforeRoot) ??
    commonTag(current, comparison.afterRoot);
  const beforeLabels = labels(old, tag, comparison.beforeRoot);
  const afterLabels = labels(current, tag, comparison.afterRoot);
  const unpaired = new Set(current.keys());
  for (const [index, view] of old.entries()) {
    const label = beforeLabels[index] as string;
    const partner = findPartner(view, label, current, afterLabels, unpaired);
    if (partner === undefined) {
      breaking(comparison, attribute(path, `alternative <${label}> removed`));
      continue;
    }
    unpaired.delete(partner);
    compareViews(comparison, view, current[partner] as SchemaView, `${path}<${label}>`, depth + 1);
  }
  for (const index of unpaired) {
    additive(comparison, attribute(path, `alternative <${afterLabels[index] as string}> added`));
  }
}

/** The one value a property must have in an alternative (`type: {const: "image"}`), as text. */
function tagValue(view: SchemaView, property: string, root: Json): string | null {
  const schema = view.properties.get(property);
  if (schema === undefined) return null;
  const values = viewOf(schema, root).values;
  if (values?.length !== 1) return null;
  const [value] = values;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A property every alternative fixes to a different constant: the implicit discriminator. */
function commonTag(views: readonly SchemaView[], root: Json): string | null {
  const [first] = views;
  if (first === undefined) return null;
  for (const property of [...first.properties.keys()].sort()) {
    const values = views.map((view) => tagValue(view, property, root));
    if (values.every((value) => value !== null) && new Set(values).size === views.length) return property;
  }
  return null;
}

/** `type=image` with a discriminator; else the alternative's types (`object`), numbered if repeated. */
function labels(views: readonly SchemaView[], tag: string | null, root: Json): string[] {
  const typeLabels = views.map((view) => showTypes(view.types));
  return views.map((view, index) => {
    const value = tag === null ? null : tagValue(view, tag, root);
    if (value !== null) return `${tag}=${value}`;
    const types = typeLabels[index] as string;
    return typeLabels.filter((label) => label === types).length === 1 ? types : `#${index + 1}`;
  });
}

function findPartner(
  view: SchemaView,
  label: string,
  candidates: readonly SchemaView[],
  candidateLabels: readonly string[],
  unpaired: ReadonlySet<number>,
): number | undefined {
  const open = [...unpaired];
  const sameLabel = open.find((index) => candidateLabels[index] === label && !label.startsWith('#'));
  if (sameLabel !== undefined) return sameLabel;
  if (label.includes('=')) return undefined;
  // No distinctive label: the open alternative of a common type sharing the most fields.
  let best: number | undefined;
  let bestScore = 0;
  for (const index of open) {
    const candidate = candidates[index] as SchemaView;
    if (![...view.types].some((type) => admits(candidate.types, type))) continue;
    const shared = [...view.properties.keys()].filter((name) => candidate.properties.has(name)).length;
    if (best === undefined || shared + 1 > bestScore) {
      best = index;
      bestScore = shared + 1;
    }
  }
  return best;
}
