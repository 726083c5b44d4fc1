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

/** A canonical decimal integer (D34): `0`, `17`, `-3`; never `1e2`, `0x10`, ` 5`, `05` or `+5`. */
const CANONICAL_INTEGER = /^(?:0|-?[1-9][0-9]*)$/;

interface ValidateFunction {
  (data: unknown): boolean;
  errors?: AjvTypes.ErrorObject[] | null;
}

/** Names of the top-level properties of an object schema that are integers or numbers. */
function numericProperties(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.entries(properties)
    .filter(([, property]) => property.type === 'integer' || property.type === 'number')
    .map(([name]) => name);
}

/**
 * Text parts (query, path, headers) are coerced to numbers by Ajv, which would also read `1e2`,
 * `0x10` or ` 5` as numbers. Each numeric value must first be written as a canonical integer.
 */
function canonicalNumbers(validate: ValidateFunction, numeric: string[]): ValidateFunction {
  const wrapped: ValidateFunction = (data) => {
    const values = (data ?? {}) as Record<string, unknown>;
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
 * canonical decimal integers. Each validator is compiled on its first use unless `eager` (decision
 * `lazy-schema-compilation`): compiling all of them at start-up took a third of it, and most are
 * rarely or never used by one process.
 */
export function createValidatorCompiler(options: { eager?: boolean } = {}): FastifySchemaCompiler<unknown> {
  const body = makeAjv(false);
  const text = makeAjv('array');
  const compile: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
    if (httpPart === 'body') return body.compile(schema as object);
    const validate = text.compile(schema as object);
    const numeric = numericProperties(schema);
    return numeric.length === 0 ? validate : canonicalNumbers(validate, numeric);
  };
  if (options.eager) return compile;
  return (route) => compiledOnFirstUse(() => compile(route) as ValidateFunction);
}
