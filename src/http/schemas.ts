import Type, { type TProperties, type TSchema } from 'typebox';

/** Shared wire schemas. Every route's request and response is described with these. */

export const Uuid = Type.String({ format: 'uuid', description: 'A UUID.' });

export const IdParams = Type.Object({ id: Uuid }, { additionalProperties: false });

export const CurrencyCode = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 currency code.' });

/** Money is an integer amount in minor units with an explicit currency; no floats on the wire. */
export const MoneySchema = Type.Object(
  {
    amount: Type.Integer({ description: 'Minor units (e.g. cents).' }),
    currency: CurrencyCode,
  },
  { title: 'Money' },
);

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String({ description: 'Stable machine-readable code, e.g. validation_failed.' }),
    status: Type.Integer(),
    detail: Type.String(),
    errors: Type.Optional(
      Type.Array(
        Type.Object(
          {
            pointer: Type.String({ description: 'JSON Pointer into the request part named by `in`.' }),
            detail: Type.String(),
            in: Type.Optional(Type.String()),
          },
          { additionalProperties: true },
        ),
      ),
    ),
  },
  { additionalProperties: true, description: 'RFC 9457 problem details (application/problem+json).' },
);

/** Standard error responses for documentation; the error handler produces them. */
export const problemResponses = {
  '4xx': ProblemSchema,
  '5xx': ProblemSchema,
};

export const PageQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'Page size, default 20; values above 100 are clamped to 100.',
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
  return Type.Object({
    items: Type.Array(item),
    nextCursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as `cursor` for the next page; null on the last page.',
    }),
  });
}

/** PageQuery plus list-specific filters (one closed object, so unknown parameters stay 400). */
export function PageQueryWith<T extends TProperties>(filters: T) {
  return Type.Object({ ...PageQuery.properties, ...filters }, { additionalProperties: false });
}
