/**
 * A schema seen the way the comparison needs it: which JSON types and values it allows, its
 * fields, its items, its constraints. The many ways JSON Schema and OpenAPI spell one thing read
 * the same here, so rewriting a schema into another spelling is not a change:
 *
 * - `nullable: true`, `type: ["string", "null"]` and `anyOf: [{type: "string"}, {type: "null"}]`;
 * - `const: "a"`, `enum: ["a"]`, and a union of one-value alternatives (`anyOf: [{const: "a"}, …]`,
 *   TypeBox's `Union(Literal…)`) versus `enum: ["a", "b"]`;
 * - `allOf` parts, merged into one shape (an envelope with a per-event `data`, say);
 * - `$recursive` markers, followed into the inlined schema they point to.
 *
 * Alternatives that cannot merge (objects of different shapes) stay apart as `branches`.
 */
import { arrayAt, canonical, isObject, objectAt, stringsAt, type Json, type JsonObject } from './json.ts';
import { resolveRecursive } from './snapshot.ts';

export const ALL_TYPES: ReadonlySet<string> = new Set([
  'array',
  'boolean',
  'integer',
  'null',
  'number',
  'object',
  'string',
]);

/** Keywords that restrict values of a type; the comparison decides which ones tighten. */
export const CONSTRAINT_KEYWORDS = [
  'maxLength',
  'minLength',
  'pattern',
  'format',
  'maximum',
  'minimum',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'multipleOf',
  'maxItems',
  'minItems',
  'uniqueItems',
  'contains',
  'maxProperties',
  'minProperties',
  'propertyNames',
  'not',
] as const;

export type SchemaView = {
  /** The JSON types a value may have (`null` among them when it is nullable). */
  types: ReadonlySet<string>;
  /** The non-null values allowed, when the schema lists them (enum, const, literal unions); else null. */
  values: readonly Json[] | null;
  properties: ReadonlyMap<string, Json>;
  required: ReadonlySet<string>;
  /** `additionalProperties` (or `unevaluatedProperties`); undefined when absent, i.e. unknown fields are allowed. */
  additional: Json | undefined;
  items: Json | undefined;
  constraints: ReadonlyMap<string, Json>;
  /** The property an OpenAPI `discriminator` names, when there is one. */
  discriminator: string | null;
  /** Alternatives of an anyOf/oneOf that keep different shapes, without null; null for one shape. */
  branches: readonly SchemaView[] | null;
};

const ANYTHING: SchemaView = {
  types: ALL_TYPES,
  values: null,
  properties: new Map(),
  required: new Set(),
  additional: undefined,
  items: undefined,
  constraints: new Map(),
  discriminator: null,
  branches: null,
};

const NOTHING: SchemaView = { ...ANYTHING, types: new Set() };
const ONLY_NULL: SchemaView = { ...ANYTHING, types: new Set(['null']) };

/** `root` is the inlined schema `schema` belongs to, where its `$recursive` markers point. */
export function viewOf(schema: Json, root: Json): SchemaView {
  const resolved = resolveRecursive(schema, root);
  if (resolved === false) return NOTHING;
  if (!isObject(resolved)) return ANYTHING;
  let view = plainView(resolved);
  for (const part of arrayAt(resolved.allOf)) view = intersect(view, viewOf(part, root));
  for (const alternatives of [resolved.anyOf, resolved.oneOf]) {
    // oneOf's "exactly one" is not checked: what matters to clients is which shapes may occur.
    if (Array.isArray(alternatives)) {
      view = intersect(view, union(alternatives.map((item) => viewOf(item, root))));
    }
  }
  return view;
}

/** The keywords of one schema object, without its allOf/anyOf/oneOf. */
function plainView(schema: JsonObject): SchemaView {
  const values = listedValues(schema);
  let types = declaredTypes(schema.type) ?? (values ? new Set(values.map(typeOfValue)) : ALL_TYPES);
  // OpenAPI 3.0's spelling of a nullable type.
  if (schema.nullable === true) types = new Set([...types, 'null']);
  const constraints = new Map<string, Json>();
  for (const keyword of CONSTRAINT_KEYWORDS) {
    const value = schema[keyword];
    if (value !== undefined) constraints.set(keyword, value);
  }
  return {
    types,
    values: values?.filter((value) => value !== null) ?? null,
    properties: new Map(Object.entries(objectAt(schema.properties))),
    required: new Set(stringsAt(schema.required)),
    additional: schema.additionalProperties ?? schema.unevaluatedProperties,
    // An array `items` is draft-04 tuple validation, not a schema for every item.
    items: Array.isArray(schema.items) ? undefined : schema.items,
    constraints,
    discriminator: discriminatorOf(schema),
    branches: null,
  };
}

function discriminatorOf(schema: JsonObject): string | null {
  const property = objectAt(schema.discriminator).propertyName;
  return typeof property === 'string' ? property : null;
}

function declaredTypes(type: Json | undefined): Set<string> | null {
  if (typeof type === 'string') return new Set([type]);
  if (Array.isArray(type)) return new Set(stringsAt(type));
  return null;
}

/** `const` and `enum` together allow the values both list. */
function listedValues(schema: JsonObject): Json[] | null {
  const constant = schema.const === undefined ? null : [schema.const];
  const listed = Array.isArray(schema.enum) ? schema.enum : null;
  if (constant && listed) return sameValues(constant, listed);
  return constant ?? listed;
}

export function typeOfValue(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function sameValues(a: readonly Json[], b: readonly Json[]): Json[] {
  const inB = new Set(b.map(canonical));
  return a.filter((value) => inB.has(canonical(value)));
}

/** An integer is a number: `integer` and `number` intersect in `integer`. */
function intersectTypes(a: ReadonlySet<string>, b: ReadonlySet<string>): Set<string> {
  const types = new Set([...a].filter((type) => b.has(type)));
  if ((a.has('integer') && b.has('number')) || (a.has('number') && b.has('integer'))) types.add('integer');
  return types;
}

/** Both schemas must hold: a schema for a property both describe is their `allOf`. */
function both(a: Json | undefined, b: Json | undefined): Json | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return { allOf: [a, b] };
}

function intersect(a: SchemaView, b: SchemaView): SchemaView {
  if (a.branches || b.branches) return distribute(a, b);
  const properties = new Map(a.properties);
  for (const [name, schema] of b.properties) properties.set(name, both(properties.get(name), schema) as Json);
  return {
    types: intersectTypes(a.types, b.types),
    values: a.values && b.values ? sameValues(a.values, b.values) : (a.values ?? b.values),
    properties,
    required: new Set([...a.required, ...b.required]),
    additional: a.additional === false || b.additional === false ? false : both(a.additional, b.additional),
    items: both(a.items, b.items),
    // A keyword both parts set keeps the second's value: good enough for the parts that occur
    // (an envelope and its data), which constrain different things.
    constraints: new Map([...a.constraints, ...b.constraints]),
    discriminator: a.discriminator ?? b.discriminator,
    branches: null,
  };
}

/** (A or B) and C is (A and C) or (B and C). */
function distribute(a: SchemaView, b: SchemaView): SchemaView {
  const alternatives: SchemaView[] = [];
  for (const left of a.branches ?? [withoutNull(a)]) {
    for (const right of b.branches ?? [withoutNull(b)]) alternatives.push(intersect(left, right));
  }
  if (a.types.has('null') && b.types.has('null')) alternatives.push(ONLY_NULL);
  const view = union(alternatives);
  return { ...view, discriminator: view.discriminator ?? a.discriminator ?? b.discriminator };
}

export function withoutNull(view: SchemaView): SchemaView {
  return { ...view, types: new Set([...view.types].filter((type) => type !== 'null')) };
}

/** Only types (and values): such alternatives merge into one type set and one value list. */
function isPlain(view: SchemaView): boolean {
  return (
    view.branches === null &&
    view.properties.size === 0 &&
    view.required.size === 0 &&
    view.additional === undefined &&
    view.items === undefined &&
    view.constraints.size === 0
  );
}

/** anyOf/oneOf: null alternatives make the whole nullable; plain alternatives merge. */
function union(views: readonly SchemaView[]): SchemaView {
  const nullable = views.some((view) => view.types.has('null'));
  const shapes = views
    .flatMap((view) => view.branches ?? [view])
    .map(withoutNull)
    .filter((view) => view.types.size > 0);
  const merged = mergePlain(shapes);
  const types = new Set(merged.flatMap((view) => [...view.types]));
  if (nullable) types.add('null');
  if (merged.length === 0) return { ...NOTHING, types };
  if (merged.length === 1) return { ...(merged[0] as SchemaView), types };
  return { ...ANYTHING, types, branches: merged, discriminator: null };
}

/** `"a" | "b"` is one string enum; `string | integer` is one type set; anything else stays apart. */
function mergePlain(shapes: SchemaView[]): SchemaView[] {
  if (shapes.length < 2 || !shapes.every(isPlain)) return shapes;
  const types = new Set(shapes.flatMap((view) => [...view.types]));
  const listed = shapes.map((view) => view.values);
  if (listed.every((values) => values !== null)) {
    const byText = new Map(listed.flat().map((value) => [canonical(value), value]));
    return [{ ...ANYTHING, types, values: [...byText.values()] }];
  }
  if (listed.every((values) => values === null)) return [{ ...ANYTHING, types }];
  return shapes;
}
