import Type from 'typebox';
import { EVENT_TYPES } from '../events/events.ts';

const Timestamp = Type.String({ format: 'date-time' });
const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

export const EventNameSchema = Type.Union(
  [Type.Literal('*'), ...EVENT_TYPES.map((type) => Type.Literal(type))],
  { description: 'One of the ten event types, or `*` for all of them.' },
);

const EventList = Type.Array(EventNameSchema, { minItems: 1, maxItems: 11, uniqueItems: true });
const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'https URL of the receiver. Private, loopback, link-local, multicast and metadata addresses are refused.',
});
const Description = Type.Union([Type.String({ maxLength: 500 }), Type.Null()]);

export const EndpointSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    url: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    events: Type.Array(Type.String()),
    enabled: Type.Boolean(),
    disabledReason: Type.Union(
      [Type.Literal('manual'), Type.Literal('gone'), Type.Literal('secret_unreadable'), Type.Null()],
      {
        description:
          '`gone`: the receiver answered 410 and the endpoint was disabled; `manual`: by staff; `secret_unreadable`: the service cannot decrypt the signing secret (SECRET_KEY changed without SECRET_KEY_PREVIOUS): deliveries wait until an operator fixes the keys and the endpoint is enabled again.',
      },
    ),
    previousSecretExpiresAt: Type.Union([Timestamp, Type.Null()], {
      description: 'After a rotation, until when the previous secret still signs (a second signature).',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'WebhookEndpoint' },
);

export const EndpointWithSecretSchema = Type.Intersect([
  EndpointSchema,
  Type.Object({
    secret: Type.String({
      description: 'The signing secret (whsec_…). Shown only in this response; store it now.',
    }),
  }),
]);

export const CreateEndpointBody = Type.Object(
  {
    url: Url,
    events: EventList,
    description: Type.Optional(Description),
  },
  { additionalProperties: false },
);

export const UpdateEndpointBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(EventList),
    description: Type.Optional(Description),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const ReplayBody = Type.Object(
  {
    since: Type.String({ format: 'date-time', description: 'Re-send events created at or after this time.' }),
    until: Type.Optional(
      Type.String({ format: 'date-time', description: 'Only events created before this time.' }),
    ),
  },
  { additionalProperties: false },
);

export const ReplayResponse = Type.Object({
  replayed: Type.Integer({ description: 'Delivery rows queued (one per matching event).' }),
});

export const DeliveryStatusSchema = Type.Union([
  Type.Literal('pending'),
  Type.Literal('delivered'),
  Type.Literal('failed'),
]);

export const DeliverySchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'Sent as x-webhook-delivery.' }),
    endpointId: Type.String({ format: 'uuid' }),
    eventId: Type.String({ format: 'uuid', description: 'The envelope id and x-webhook-id.' }),
    event: Type.String(),
    kind: Type.Union([Type.Literal('event'), Type.Literal('replay'), Type.Literal('test')]),
    status: DeliveryStatusSchema,
    attempts: Type.Integer({ description: 'Attempts started so far.' }),
    lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
    lastError: Type.Union([Type.String(), Type.Null()]),
    lastAttemptAt: NullableTimestamp,
    nextAttemptAt: Type.Union([Timestamp, Type.Null()], { description: 'Set while pending.' }),
    deliveredAt: NullableTimestamp,
    failedAt: NullableTimestamp,
    createdAt: Timestamp,
  },
  { title: 'WebhookDelivery' },
);

export const ThemeSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    settings: Type.Record(Type.String(), Type.Unknown()),
    live: Type.Boolean({ description: 'The published theme; at most one per store.' }),
    publishedAt: NullableTimestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'Theme' },
);

export const CreateThemeBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    settings: Type.Optional(
      Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), {
        description: 'Free-form theme settings (at most 64 KiB of JSON).',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AppSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    scopes: Type.Array(Type.String()),
    installedAt: Timestamp,
  },
  { title: 'App' },
);

export const InstallAppBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    scopes: Type.Array(Type.String({ pattern: '^(read|write)_[a-z]+(_[a-z]+)*$', maxLength: 64 }), {
      maxItems: 50,
      uniqueItems: true,
      description: 'Access scopes such as read_products or write_orders.',
    }),
  },
  { additionalProperties: false },
);

export const TestSendBody = Type.Object(
  {
    event: Type.Optional(
      Type.Union(
        EVENT_TYPES.map((type) => Type.Literal(type)),
        {
          description:
            "The event type to send (default: the endpoint's first subscribed type, or product.updated for *).",
        },
      ),
    ),
  },
  { additionalProperties: false },
);

export const TestSendResponse = Type.Object({
  eventId: Type.String({ format: 'uuid', description: 'The envelope id (x-webhook-id) of the test event.' }),
  event: Type.String(),
  ok: Type.Boolean({ description: 'The endpoint answered 2xx.' }),
  statusCode: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The HTTP status of the answer; null when none came.',
  }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why the send failed, when it did.' }),
  durationMs: Type.Integer({ minimum: 0 }),
});
