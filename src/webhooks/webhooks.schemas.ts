import Type, { type Static } from 'typebox';
import { EVENT_TYPES } from '../events/events.ts';
import { PageQueryWith, Uuid } from '../http/schemas.ts';

const Timestamp = Type.String({ format: 'date-time' });
const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

export const EventNameSchema = Type.Union(
  [Type.Literal('*'), ...EVENT_TYPES.map((type) => Type.Literal(type))],
  { description: 'One of the event types, or `*` for all of them (new types included).' },
);

// Every type and `*`: a merchant may tick each type one by one.
const EventList = Type.Array(EventNameSchema, {
  minItems: 1,
  maxItems: EVENT_TYPES.length + 1,
  uniqueItems: true,
});
const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'https URL of the receiver. Private, loopback, link-local, multicast and metadata addresses are refused; a server run with ALLOW_HTTP_WEBHOOKS=1 (development) also accepts loopback addresses, and plain http to them.',
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
export type Endpoint = Static<typeof EndpointSchema>;

export const EndpointWithSecretSchema = Type.Intersect(
  [
    EndpointSchema,
    Type.Object({
      secret: Type.String({
        description: 'The signing secret (whsec_…). Shown only in this response; store it now.',
      }),
    }),
  ],
  { title: 'WebhookEndpointWithSecret' },
);
export type EndpointWithSecret = Static<typeof EndpointWithSecretSchema>;

export const NewEndpointSchema = Type.Object(
  {
    url: Url,
    events: EventList,
    description: Type.Optional(Description),
  },
  { title: 'NewWebhookEndpoint', additionalProperties: false },
);
export type NewEndpoint = Static<typeof NewEndpointSchema>;

export const EndpointPatchSchema = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(EventList),
    description: Type.Optional(Description),
    enabled: Type.Optional(Type.Boolean()),
  },
  { title: 'WebhookEndpointChange', additionalProperties: false, minProperties: 1 },
);
export type EndpointPatch = Static<typeof EndpointPatchSchema>;

export const ReplaySchema = Type.Object(
  {
    since: Type.String({ format: 'date-time', description: 'Re-send events created at or after this time.' }),
    until: Type.Optional(
      Type.String({ format: 'date-time', description: 'Only events created before this time.' }),
    ),
  },
  { title: 'WebhookReplayRequest', additionalProperties: false },
);
export type Replay = Static<typeof ReplaySchema>;

export const ReplayResultSchema = Type.Object(
  { replayed: Type.Integer({ description: 'Delivery rows queued (one per matching event).' }) },
  { title: 'WebhookReplayResult' },
);
export type ReplayResult = Static<typeof ReplayResultSchema>;

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
export type Delivery = Static<typeof DeliverySchema>;

export const TestSendSchema = Type.Object(
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
  { title: 'WebhookTestRequest', additionalProperties: false },
);
export type TestSend = Static<typeof TestSendSchema>;

export const TestSendResultSchema = Type.Object(
  {
    eventId: Type.String({
      format: 'uuid',
      description: 'The envelope id (x-webhook-id) of the test event.',
    }),
    deliveryId: Type.String({
      format: 'uuid',
      description:
        'The test delivery in the deliveries log (kind `test`; sent as x-webhook-delivery). Not retried.',
    }),
    event: Type.String(),
    ok: Type.Boolean({ description: 'The endpoint answered 2xx.' }),
    statusCode: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The HTTP status of the answer; null when none came.',
    }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'Why the send failed, when it did.' }),
    durationMs: Type.Integer({ minimum: 0 }),
  },
  { title: 'WebhookTestResult' },
);
export type TestSendResult = Static<typeof TestSendResultSchema>;

export const DeliveryListQuerySchema = PageQueryWith({
  endpointId: Type.Optional(Uuid),
  status: Type.Optional(DeliveryStatusSchema),
});
export type DeliveryListQuery = Static<typeof DeliveryListQuerySchema>;
