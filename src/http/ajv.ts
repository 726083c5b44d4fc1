import AjvModule from 'ajv';
import formatsModule from 'ajv-formats';
import type * as AjvTypes from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';

// ajv and ajv-formats are CommonJS with `exports.default`; under Node's ESM the default import is
// already the constructor/function. Their type declarations disagree, hence the casts.
type AjvInstance = AjvTypes.default;
type AjvOptions = AjvTypes.Options;
const Ajv = AjvModule as unknown as new (options: AjvOptions) => AjvInstance;
const addFormats = formatsModule as unknown as (ajv: AjvInstance) => AjvInstance;

function makeAjv(coerceTypes: false | 'array'): AjvInstance {
  const ajv = new Ajv({
    coerceTypes,
    useDefaults: true,
    removeAdditional: false,
    allErrors: true,
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}

/** A canonical decimal integer (decision `canonical-text-parameters`): `0`, `17`, `-3`; never `1e2`, `0x10`, ` 5`, `05` or `+5`. */
const CANONICAL_INTEGER = /^(?:0|-?[1-9][0-9]*)$/;

interface ValidateFunction {
  (data: unknown): boolean;
  errors?: AjvTypes.ErrorObject[] | null;
}

interface PropertySchema {
  type?: unknown;
  format?: unknown;
  items?: { format?: unknown };
}

/** Names of the top-level properties of an object schema that match `test`. */
function propertiesWhere(schema: unknown, test: (property: PropertySchema) => boolean): string[] {
  const properties = (schema as { properties?: Record<string, PropertySchema> }).properties ?? {};
  return Object.entries(properties)
    .filter(([, property]) => test(property))
    .map(([name]) => name);
}

const isNumeric = (property: PropertySchema) => property.type === 'integer' || property.type === 'number';
const isUuid = (property: PropertySchema) => property.format === 'uuid' || property.items?.format === 'uuid';

/**
 * Text parts (query, path, headers) are coerced to numbers by Ajv, which would also read `1e2`,
 * `0x10` or ` 5` as numbers: each numeric value must first be written as a canonical integer. A
 * UUID is taken in either case and goes on in lower case, the form the service writes and stores
 * (decision `canonical-text-parameters`): `/media/{storeId}/…` names a directory by it, and no
 * comparison after the schema has to think of case.
 */
function canonicalText(validate: ValidateFunction, numeric: string[], uuids: string[]): ValidateFunction {
  const wrapped: ValidateFunction = (data) => {
    const values = (data ?? {}) as Record<string, unknown>;
    for (const name of uuids) {
      const value = values[name];
      if (typeof value === 'string') values[name] = value.toLowerCase();
      else if (Array.isArray(value))
        values[name] = value.map((item: unknown) => (typeof item === 'string' ? item.toLowerCase() : item));
    }
    for (const name of numeric) {
      const value = values[name];
      if (typeof value === 'string' && !CANONICAL_INTEGER.test(value)) {
        wrapped.errors = [
          {
            instancePath: `/${name}`,
            schemaPath: `#/properties/${name}/type`,
            keyword: 'type',
            params: {},
            message: 'must be an integer written in plain decimal digits (e.g. 20)',
          },
        ];
        return false;
      }
    }
    const valid = validate(data);
    wrapped.errors = validate.errors ?? null;
    return valid;
  };
  return wrapped;
}

/** A validator compiled on its first call: until a route is used, its schema costs nothing. */
function compiledOnFirstUse(compile: () => ValidateFunction): ValidateFunction {
  let validate: ValidateFunction | null = null;
  const wrapped: ValidateFunction = (data) => {
    validate ??= compile();
    const valid = validate(data);
    wrapped.errors = validate.errors ?? null;
    return valid;
  };
  return wrapped;
}

/**
 * Bodies are validated strictly (no type coercion: `"2"` is not a quantity); query strings, path
 * parameters and headers arrive as text and are coerced to the schema's types, numbers only from
 * canonical decimal integers, UUIDs to lower case. Each validator is compiled on its first use unless `eager` (decision
 * `lazy-schema-compilation`): compiling all of them at start-up took a third of it, and most are
 * rarely or never used by one process.
 */
export function createValidatorCompiler(options: { eager?: boolean } = {}): FastifySchemaCompiler<unknown> {
  const body = makeAjv(false);
  const text = makeAjv('array');
  const compile: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
    if (httpPart === 'body') return body.compile(schema as object);
    const validate = text.compile(schema as object);
    const numeric = propertiesWhere(schema, isNumeric);
    const uuids = propertiesWhere(schema, isUuid);
    return numeric.length + uuids.length === 0 ? validate : canonicalText(validate, numeric, uuids);
  };
  if (options.eager) return compile;
  return (route) => compiledOnFirstUse(() => compile(route) as ValidateFunction);
}
