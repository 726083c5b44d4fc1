import Type from 'typebox';

/** Wire schemas of the email sender API (spec 2.14, 2.15). */

const status = (description: string) =>
  Type.Union([Type.Literal('pending'), Type.Literal('verified'), Type.Literal('failed')], { description });
const Time = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const DnsRecordSchema = Type.Object(
  {
    type: Type.Union([Type.Literal('CNAME'), Type.Literal('MX'), Type.Literal('TXT')]),
    name: Type.String({ description: 'Fully qualified record name, without a trailing dot.' }),
    value: Type.String({ description: 'The CNAME target, MX host or TXT value to publish.' }),
    priority: Type.Optional(Type.Integer({ description: 'MX only.' })),
    status: status(
      'Result of the last check of this record: pending (not found yet), verified, or failed (a wrong value, or missing once the domain failed or after it was verified).',
    ),
  },
  { title: 'DnsRecord' },
);

export const SendingDomainSchema = Type.Object(
  {
    domain: Type.String({ description: 'Normalised: lower case, IDNA (punycode), no trailing dot.' }),
    status: status(
      'pending until all five records are seen, then verified; failed when verification gave up.',
    ),
    fromLocalPart: Type.String(),
    dnsRecords: Type.Array(DnsRecordSchema, {
      description: 'Exactly five: three DKIM CNAMEs, the MX and the SPF TXT of mail.<domain>.',
    }),
    createdAt: Type.String({ format: 'date-time' }),
    lastCheckedAt: Time,
    verifiedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the domain became verified; null unless verified.',
    }),
    failedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When verification gave up; null unless failed.',
    }),
    releaseAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description:
        "Unless verified by then, the domain is released (deleted, so that its real owner can register it): DOMAIN_RELEASE_AFTER (30 days) after registration, or after a verified domain's records were first found missing. Verify-now does not move it; null while verified.",
    }),
  },
  { title: 'SendingDomain' },
);

export const SenderStateSchema = Type.Object(
  {
    mode: Type.Union([Type.Literal('platform-fallback'), Type.Literal('custom-domain')]),
    effectiveFrom: Type.String({ description: 'The address customers see as sender.' }),
    effectiveFromName: Type.String({ description: 'Display name of the sender (the store name).' }),
    replyTo: Type.Union([Type.String(), Type.Null()], {
      description: "The store's reply-to address, attached to every store mail (null: none set).",
    }),
    domain: Type.Optional(SendingDomainSchema),
  },
  { title: 'SenderState' },
);

export const RegisterDomainBody = Type.Object(
  {
    domain: Type.String({ minLength: 1, maxLength: 300, description: 'e.g. example.com (IDN allowed).' }),
    fromLocalPart: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'Local part of the sender address, e.g. "orders" for orders@example.com.',
    }),
  },
  { title: 'NewSendingDomain', additionalProperties: false },
);
