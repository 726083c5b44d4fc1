import Type, { type Static } from 'typebox';

const Timestamp = Type.String({ format: 'date-time' });

export const TaxServiceSchema = Type.Object(
  {
    url: Type.String(),
    active: Type.Boolean({
      description: 'Whether previews and checkouts ask the service; when inactive the built-in rates apply.',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'TaxService' },
);
export type TaxService = Static<typeof TaxServiceSchema>;

export const TaxServiceWithSecretSchema = Type.Intersect(
  [
    TaxServiceSchema,
    Type.Object({
      secret: Type.String({
        description:
          'The signing secret (whsec_…) the quotes are signed with, as webhooks are. Shown only in this response; store it now.',
      }),
    }),
  ],
  { title: 'TaxServiceWithSecret' },
);
export type TaxServiceWithSecret = Static<typeof TaxServiceWithSecretSchema>;

export const TaxServiceBodySchema = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        'https URL the signed quotes are posted to. Private, loopback, link-local, multicast and metadata addresses are refused, as for webhook endpoints; a server run with ALLOW_HTTP_WEBHOOKS=1 (development) also accepts loopback addresses, and plain http to them.',
    }),
    active: Type.Optional(Type.Boolean({ description: 'Default true.' })),
  },
  { title: 'TaxServiceBody', additionalProperties: false },
);
export type TaxServiceBody = Static<typeof TaxServiceBodySchema>;
