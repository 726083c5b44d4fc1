import { randomUUID } from 'node:crypto';
import Type, { type Static, type TSchema } from 'typebox';
import { AppInstalledData } from './apps/apps.events.ts';
import {
  CollectionUpdatedData,
  InventoryUpdatedData,
  ProductCreatedData,
  ProductDeletedData,
  ProductUpdatedData,
} from './catalog/catalog.events.ts';
import {
  CustomerCreatedData,
  CustomerDeletedData,
  CustomerUpdatedData,
} from './customers/customers.events.ts';
import { GiftCardIssuedData, GiftCardUpdatedData } from './gift-cards/gift-cards.events.ts';
import { ImportCompletedData } from './imports/imports.events.ts';
import { MenuUpdatedData, PageUpdatedData, RegionUpdatedData } from './content/content.events.ts';
import {
  DraftOrderCompletedData,
  DraftOrderCreatedData,
  DraftOrderUpdatedData,
} from './draft-orders/draft-orders.events.ts';
import type { EventType } from './events/events.ts';
import {
  FulfillmentCreatedData,
  FulfillmentUpdatedData,
  OrderCancelledData,
  OrderCreatedData,
  OrderPaidData,
  OrderRefundedData,
  ReturnCreatedData,
} from './orders/orders.events.ts';
import {
  PromotionCreatedData,
  PromotionDeletedData,
  PromotionUpdatedData,
} from './promotions/promotions.events.ts';
import { storeCurrency, type StoresDeps } from './stores/stores.service.ts';
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
  'fulfillment.created': FulfillmentCreatedData,
  'fulfillment.updated': FulfillmentUpdatedData,
  'order.cancelled': OrderCancelledData,
  'return.created': ReturnCreatedData,
  'customer.created': CustomerCreatedData,
  'customer.updated': CustomerUpdatedData,
  'customer.deleted': CustomerDeletedData,
  'promotion.created': PromotionCreatedData,
  'promotion.updated': PromotionUpdatedData,
  'promotion.deleted': PromotionDeletedData,
  'gift_card.issued': GiftCardIssuedData,
  'gift_card.updated': GiftCardUpdatedData,
  'import.completed': ImportCompletedData,
  'draft_order.created': DraftOrderCreatedData,
  'draft_order.updated': DraftOrderUpdatedData,
  'draft_order.completed': DraftOrderCompletedData,
};

/** What a sample payload is made for: the store's own id and currency. */
export interface SampleStore {
  storeId: string;
  currency: string;
}

/**
 * Sample data of each event for test sends (POST /admin/v1/webhooks/endpoints/{id}/test): what a
 * real event of the type carries, valid against its schema above, with fresh ids, amounts in the
 * store's currency (integer minor units) and the store's own id. The envelope, not the data, says
 * it is a test (`test: true`), so a receiver's validation and parsing code runs as for real events.
 */
export const EVENT_SAMPLES: Record<EventType, (store: SampleStore) => Record<string, unknown>> = {
  'order.created': ({ storeId, currency }) =>
    ({
      storeId,
      orderId: randomUUID(),
      number: 1001,
      status: 'pending',
      total: { amount: 4200, currency },
    }) satisfies Static<typeof OrderCreatedData>,
  'order.paid': ({ storeId, currency }) =>
    ({
      storeId,
      orderId: randomUUID(),
      number: 1001,
      total: { amount: 4200, currency },
    }) satisfies Static<typeof OrderPaidData>,
  'order.refunded': ({ storeId, currency }) =>
    ({
      storeId,
      orderId: randomUUID(),
      number: 1001,
      refundId: randomUUID(),
      amount: { amount: 1500, currency },
      refunded: { amount: 1500, currency },
    }) satisfies Static<typeof OrderRefundedData>,
  'inventory.updated': ({ storeId }) =>
    ({
      storeId,
      variantId: randomUUID(),
      productId: randomUUID(),
      available: 7,
    }) satisfies Static<typeof InventoryUpdatedData>,
  'product.created': ({ storeId }) =>
    ({ storeId, productId: randomUUID() }) satisfies Static<typeof ProductCreatedData>,
  'product.updated': ({ storeId }) =>
    ({ storeId, productId: randomUUID() }) satisfies Static<typeof ProductUpdatedData>,
  'product.deleted': ({ storeId }) =>
    ({ storeId, productId: randomUUID(), reason: 'archived' }) satisfies Static<typeof ProductDeletedData>,
  'content.updated': ({ storeId }) =>
    ({ storeId, kind: 'page', slug: 'about-us' }) satisfies Static<typeof PageUpdatedData>,
  'theme.published': ({ storeId }) =>
    ({
      storeId,
      themeId: randomUUID(),
      name: 'Autumn',
      previousThemeId: randomUUID(),
    }) satisfies Static<typeof ThemePublishedData>,
  'app.installed': ({ storeId }) =>
    ({
      storeId,
      appId: randomUUID(),
      name: 'Reviews',
      scopes: ['read_products', 'read_orders'],
    }) satisfies Static<typeof AppInstalledData>,
  'fulfillment.created': ({ storeId }) => fulfillmentSample(storeId, 'shipped', 'partial'),
  'fulfillment.updated': ({ storeId }) => fulfillmentSample(storeId, 'delivered', 'fulfilled'),
  'order.cancelled': ({ storeId, currency }) =>
    ({
      storeId,
      orderId: randomUUID(),
      number: 1001,
      previousStatus: 'paid',
      reason: 'The customer changed their mind',
      restocked: true,
      refund: { amount: 4200, currency },
      total: { amount: 4200, currency },
    }) satisfies Static<typeof OrderCancelledData>,
  'return.created': ({ storeId, currency }) =>
    ({
      storeId,
      orderId: randomUUID(),
      number: 1001,
      returnId: randomUUID(),
      lines: [{ variantId: randomUUID(), quantity: 1, restock: true }],
      refund: { amount: 1500, currency },
      refundId: randomUUID(),
    }) satisfies Static<typeof ReturnCreatedData>,
  'customer.created': ({ storeId }) =>
    ({
      storeId,
      customerId: randomUUID(),
      hasAccount: true,
      acceptsMarketing: false,
    }) satisfies Static<typeof CustomerCreatedData>,
  'customer.updated': ({ storeId }) =>
    ({
      storeId,
      customerId: randomUUID(),
      hasAccount: true,
      acceptsMarketing: true,
      changed: ['name', 'acceptsMarketing'],
    }) satisfies Static<typeof CustomerUpdatedData>,
  'customer.deleted': ({ storeId }) =>
    ({ storeId, customerId: randomUUID() }) satisfies Static<typeof CustomerDeletedData>,
  'promotion.created': ({ storeId }) =>
    ({ storeId, promotionId: randomUUID(), code: 'SUMMER10' }) satisfies Static<typeof PromotionCreatedData>,
  'promotion.updated': ({ storeId }) =>
    ({ storeId, promotionId: randomUUID(), code: 'SUMMER10' }) satisfies Static<typeof PromotionUpdatedData>,
  'promotion.deleted': ({ storeId }) =>
    ({ storeId, promotionId: randomUUID(), code: null }) satisfies Static<typeof PromotionDeletedData>,
  'gift_card.issued': ({ storeId, currency }) =>
    ({
      storeId,
      giftCardId: randomUUID(),
      last4: 'K7QX',
      balance: { amount: 5000, currency },
      orderId: randomUUID(),
    }) satisfies Static<typeof GiftCardIssuedData>,
  'gift_card.updated': ({ storeId, currency }) =>
    ({
      storeId,
      giftCardId: randomUUID(),
      last4: 'K7QX',
      balance: { amount: 3250, currency },
      changed: ['balance'],
    }) satisfies Static<typeof GiftCardUpdatedData>,
  'import.completed': ({ storeId }) =>
    ({
      storeId,
      importId: randomUUID(),
      kind: 'products',
      dryRun: false,
      rows: 120,
      errors: 0,
      created: 40,
      updated: 2,
      unchanged: 0,
    }) satisfies Static<typeof ImportCompletedData>,
  'draft_order.created': ({ storeId }) =>
    ({ storeId, draftOrderId: randomUUID(), status: 'open', orderId: null }) satisfies Static<
      typeof DraftOrderCreatedData
    >,
  'draft_order.updated': ({ storeId }) =>
    ({ storeId, draftOrderId: randomUUID(), status: 'invoiced', orderId: randomUUID() }) satisfies Static<
      typeof DraftOrderUpdatedData
    >,
  'draft_order.completed': ({ storeId }) =>
    ({ storeId, draftOrderId: randomUUID(), status: 'completed', orderId: randomUUID() }) satisfies Static<
      typeof DraftOrderCompletedData
    >,
};

function fulfillmentSample(
  storeId: string,
  status: 'shipped' | 'delivered',
  fulfillmentStatus: 'partial' | 'fulfilled',
): Record<string, unknown> {
  return {
    storeId,
    orderId: randomUUID(),
    number: 1001,
    fulfillmentId: randomUUID(),
    status,
    lines: [{ variantId: randomUUID(), quantity: 1 }],
    carrier: 'UPS',
    trackingNumber: '1Z999AA10123456784',
    trackingUrl: 'https://www.ups.com/track?tracknum=1Z999AA10123456784',
    fulfillmentStatus,
  } satisfies Static<typeof FulfillmentCreatedData>;
}

/** The webhooks' `sampleData` dependency: a sample of the event for the store, in its currency. */
export function webhookSampleData(
  deps: Pick<StoresDeps, 'db'>,
): (storeId: string, event: EventType) => Promise<Record<string, unknown>> {
  return async (storeId, event) =>
    EVENT_SAMPLES[event]({ storeId, currency: await storeCurrency(deps, storeId) });
}

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
                    test: Type.Optional(
                      Type.Literal(true, {
                        description:
                          'Present only on a test send (from the console or POST /admin/v1/webhooks/endpoints/{id}/test): `data` is sample data of this event, about nothing in the store. Acknowledge it and change nothing.',
                      }),
                    ),
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
