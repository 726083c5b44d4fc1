import Type, { type TSchema } from 'typebox';
import { AppInstalledData } from './apps/apps.events.ts';
import {
  CollectionUpdatedData,
  InventoryUpdatedData,
  ProductCreatedData,
  ProductDeletedData,
  ProductUpdatedData,
} from './catalog/catalog.events.ts';
import { MenuUpdatedData, PageUpdatedData, RegionUpdatedData } from './content/content.events.ts';
import type { EventType } from './events/events.ts';
import { OrderCreatedData, OrderPaidData, OrderRefundedData } from './orders/orders.events.ts';
import { ThemePublishedData } from './themes/themes.events.ts';

/**
 * The data schema of each of the ten events (spec 6.1), declared by the feature that emits it:
 * what the OpenAPI document's `webhooks` section and the additive-only check are made of.
 */
export const EVENT_DATA: Record<EventType, TSchema> = {
  'order.created': OrderCreatedData,
  'order.paid': OrderPaidData,
  'order.refunded': OrderRefundedData,
  'inventory.updated': InventoryUpdatedData,
  'product.created': ProductCreatedData,
  'product.updated': ProductUpdatedData,
  'product.deleted': ProductDeletedData,
  'content.updated': Type.Union(
    [MenuUpdatedData, PageUpdatedData, RegionUpdatedData, CollectionUpdatedData],
    {
      title: 'ContentUpdatedData',
      description: 'A region was published, or a page, menu or collection changed; `kind` says which.',
    },
  ),
  'theme.published': ThemePublishedData,
  'app.installed': AppInstalledData,
};

const SIGNATURE_HEADERS = [
  ['x-webhook-event', 'The event type (same as `event`).'],
  [
    'x-webhook-signature',
    'Lowercase hex HMAC-SHA-256 of the exact raw body, keyed with the endpoint secret (including `whsec_`). Verify it in constant time before parsing.',
  ],
  [
    'x-webhook-signature-previous',
    'During the 24 h after a secret rotation: the same HMAC keyed with the previous secret.',
  ],
  ['x-webhook-attempt', 'Attempt number: 1, 2, …'],
  ['x-webhook-id', 'The event id (same as `id`): deduplicate on it.'],
  ['x-webhook-delivery', 'The delivery id (one per endpoint and event).'],
  ['x-webhook-timestamp', 'Unix time (seconds) when this attempt was sent.'],
  ['webhook-id', 'Standard Webhooks: the event id.'],
  ['webhook-timestamp', 'Standard Webhooks: Unix time of this attempt.'],
  ['webhook-signature', 'Standard Webhooks: `v1,<base64 HMAC>` per secret, space-separated.'],
] as const;

const camel = (event: string) =>
  event.replace(/[._](\w)/g, (_m, c: string) => c.toUpperCase()).replace(/^\w/, (c) => c.toUpperCase());

/** The OpenAPI 3.1 `webhooks` section: one POST per event, its envelope, data and headers. */
export function webhookDocuments(): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    Object.entries(EVENT_DATA).map(([event, data]) => [
      event,
      {
        post: {
          operationId: `on${camel(event)}`,
          summary: event,
          description: `${(data as { description?: string }).description ?? ''} Delivered at least once: deduplicate on \`id\`. See docs/webhooks.md.`,
          tags: ['Webhooks'],
          // Authenticated by the HMAC signature headers below, not by a security scheme.
          security: [],
          parameters: SIGNATURE_HEADERS.map(([name, description]) => ({
            name,
            in: 'header',
            required: !name.endsWith('-previous'),
            description,
            schema: { type: 'string' },
          })),
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: Type.Object(
                  {
                    id: Type.String({
                      format: 'uuid',
                      description: 'The event id; the same on every attempt.',
                    }),
                    event: Type.Literal(event),
                    createdAt: Type.String({
                      format: 'date-time',
                      description: 'When the change committed.',
                    }),
                    data,
                  },
                  { title: `${camel(event)}Event`, additionalProperties: true },
                ),
              },
            },
          },
          responses: {
            '2XX': { description: 'Any 2xx answer acknowledges the delivery; the body is ignored.' },
            default: { description: 'Anything else (or no answer within 15 s) is retried with backoff.' },
          },
        },
      },
    ]),
  );
}
