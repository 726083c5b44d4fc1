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

/**
 * Bodies are validated strictly (no type coercion: `"2"` is not a quantity); query strings, path
 * parameters and headers arrive as text and are coerced to the schema's types.
 */
export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const body = makeAjv(false);
  const text = makeAjv('array');
  return ({ schema, httpPart }) => (httpPart === 'body' ? body : text).compile(schema as object);
}
