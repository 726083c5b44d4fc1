import Type, { type Static } from 'typebox';

const Origins = Type.Array(Type.String({ maxLength: 300 }), {
  maxItems: 50,
  description:
    'Browser origins (scheme://host[:port]) allowed to use the key. A request with another Origin is 403; requests without Origin (server code) pass. A guard against embedding on other sites, not a secret.',
});

const Budget = Type.Union([Type.Integer({ minimum: 1, maximum: 10_000_000 }), Type.Null()]);

export const StorefrontKeySchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    label: Type.String(),
    keyPrefix: Type.String({ description: 'The first 12 characters of the key, to recognise it.' }),
    allowedOrigins: Type.Array(Type.String()),
    rateLimits: Type.Object(
      { publicRead: Budget, publicWrite: Budget },
      { description: 'Per-key budgets per window; null means the platform default.' },
    ),
    createdAt: Type.String({ format: 'date-time' }),
    revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'StorefrontKey' },
);
export type StorefrontKey = Static<typeof StorefrontKeySchema>;

export const CreatedKeySchema = Type.Intersect(
  [
    StorefrontKeySchema,
    Type.Object({ key: Type.String({ description: 'The full pk_ key. Shown only in this response.' }) }),
  ],
  { title: 'CreatedStorefrontKey' },
);
export type CreatedKey = Static<typeof CreatedKeySchema>;

export const NewKeySchema = Type.Object(
  { label: Type.String({ minLength: 1, maxLength: 200 }), allowedOrigins: Type.Optional(Origins) },
  { title: 'NewStorefrontKey', additionalProperties: false },
);
export type NewKey = Static<typeof NewKeySchema>;

export const KeyPatchSchema = Type.Object(
  {
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    allowedOrigins: Type.Optional(Origins),
    rateLimits: Type.Optional(
      Type.Object(
        { publicRead: Type.Optional(Budget), publicWrite: Type.Optional(Budget) },
        { additionalProperties: false },
      ),
    ),
  },
  { title: 'StorefrontKeyChange', additionalProperties: false },
);
export type KeyPatch = Static<typeof KeyPatchSchema>;
