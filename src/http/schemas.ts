import Type, { type TProperties, type TSchema } from 'typebox';

/** Shared wire schemas. Every route's request and response is described with these. */

export const Uuid = Type.String({ format: 'uuid', description: 'A UUID.' });

export const IdParams = Type.Object({ id: Uuid }, { additionalProperties: false });

export const CurrencyCode = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 currency code.' });

/** A tax class's code (decision `tax-classes`): lower case letters, digits, `_` and `-` (`reduced`, `zero`). */
export const TAX_CLASS_CODE = '^[a-z0-9_-]{1,32}$';

/** Money is an integer amount in minor units with an explicit currency; no floats on the wire. */
export const MoneySchema = Type.Object(
  {
    amount: Type.Integer({ description: 'Minor units (e.g. cents).' }),
    currency: CurrencyCode,
  },
  { title: 'Money' },
);

/**
 * A postal address (decision `postal-addresses`). Which fields a country requires, its regions and its postal-code format
 * are checked against Google's address metadata (`@storefront/address`), not by this schema: a bad
 * field is 400 with its pointer.
 */
const AddressText = (description: string) => Type.String({ maxLength: 200, description });
export const AddressInputSchema = Type.Object(
  {
    name: AddressText('The recipient.'),
    company: Type.Optional(Type.Union([AddressText('Company, if any.'), Type.Null()])),
    line1: AddressText('Street and number.'),
    line2: Type.Optional(Type.Union([AddressText('Apartment, suite, floor…'), Type.Null()])),
    city: AddressText('City (in a city-state, its name).'),
    region: Type.Optional(
      Type.Union([
        Type.String({
          maxLength: 60,
          description:
            'ISO 3166-2 subdivision code (`US-CA`), or the code alone (`CA`), where the country has subdivisions; required where the country requires one.',
        }),
        Type.Null(),
      ]),
    ),
    postalCode: Type.Optional(
      Type.Union([
        Type.String({
          maxLength: 20,
          description: 'Required and checked where the country uses postal codes.',
        }),
        Type.Null(),
      ]),
    ),
    country: Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2.' }),
    phone: Type.Optional(Type.Union([Type.String({ maxLength: 32 }), Type.Null()])),
  },
  { title: 'AddressInput', additionalProperties: false },
);

export const AddressSchema = Type.Object(
  {
    name: Type.String(),
    company: Type.Union([Type.String(), Type.Null()]),
    line1: Type.String(),
    line2: Type.Union([Type.String(), Type.Null()]),
    city: Type.String(),
    region: Type.Union([Type.String({ description: 'ISO 3166-2 (`US-CA`).' }), Type.Null()]),
    postalCode: Type.Union([Type.String(), Type.Null()]),
    country: Type.String({ description: 'ISO 3166-1 alpha-2, upper case.' }),
    phone: Type.Union([Type.String(), Type.Null()]),
  },
  { title: 'Address' },
);

const FieldErrorSchema = Type.Object(
  {
    pointer: Type.String({
      description: 'JSON Pointer to the offending value within the request part named by `in`.',
    }),
    detail: Type.String({ description: 'What is wrong with it.' }),
    in: Type.Optional(
      Type.String({ description: 'body, query, path or header (absent: body).', examples: ['body'] }),
    ),
  },
  { additionalProperties: true, title: 'FieldError' },
);

const problemFields = {
  type: Type.String({ description: '`about:blank`: the title is the code.' }),
  title: Type.String({ description: 'Stable machine-readable code, e.g. validation_failed.' }),
  status: Type.Integer({ description: 'The HTTP status.' }),
  detail: Type.String({ description: 'Human-readable explanation of this occurrence.' }),
};

export const ProblemSchema = Type.Object(
  { ...problemFields, errors: Type.Optional(Type.Array(FieldErrorSchema)) },
  {
    additionalProperties: true,
    title: 'Problem',
    description: 'RFC 9457 problem details (application/problem+json). Clients ignore unknown fields.',
  },
);

export const ValidationProblemSchema = Type.Object(
  { ...problemFields, errors: Type.Array(FieldErrorSchema, { minItems: 1 }) },
  {
    additionalProperties: true,
    title: 'ValidationProblem',
    description: 'A `validation_failed` problem: `errors[]` points at each offending value (up to 20).',
  },
);

/** Standard error responses for documentation; the error handler produces them. */
export const problemResponses = {
  '4xx': ProblemSchema,
  '5xx': ProblemSchema,
};

/**
 * The largest value a numeric query parameter takes (decision `canonical-text-parameters`): the
 * largest integer a JSON number holds exactly, well inside PostgreSQL's `bigint`. Every numeric
 * parameter names a maximum, this one or a smaller one.
 */
export const MAX_QUERY_INTEGER = Number.MAX_SAFE_INTEGER;

export const PageQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_QUERY_INTEGER,
        description: 'Page size, default 20; values above 100 (up to 2^53 − 1) are clamped to 100.',
      }),
    ),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1024, description: 'Opaque cursor from a previous page.' }),
    ),
  },
  { additionalProperties: false },
);

/** The list envelope of every list endpoint: a page of items and an opaque next cursor. */
export function Page<T extends TSchema>(item: T) {
  const named: unknown = (item as { title?: unknown }).title;
  const title = typeof named === 'string' ? `${named}List` : undefined;
  return Type.Object(
    {
      items: Type.Array(item),
      nextCursor: Type.Union([Type.String(), Type.Null()], {
        description: 'Pass as `cursor` for the next page; null on the last page.',
      }),
    },
    title ? { title } : {},
  );
}

/** PageQuery plus list-specific filters (one closed object, so unknown parameters stay 400). */
export function PageQueryWith<T extends TProperties>(filters: T) {
  return Type.Object({ ...PageQuery.properties, ...filters }, { additionalProperties: false });
}
