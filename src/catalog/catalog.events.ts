import Type from 'typebox';
import { EventId, eventData } from '../events/events.schemas.ts';

/** The data of the catalog's events (webhook payloads). */

export const InventoryUpdatedData = eventData(
  'InventoryUpdatedData',
  'Sellable stock of a variant changed.',
  {
    variantId: EventId,
    productId: EventId,
    available: Type.Integer({ minimum: 0, description: 'On hand minus reserved, after the change.' }),
  },
);

export const ProductCreatedData = eventData(
  'ProductCreatedData',
  'A product became visible to the storefront (created active, or activated).',
  { productId: EventId },
);

export const ProductUpdatedData = eventData('ProductUpdatedData', 'Product or variant fields changed.', {
  productId: EventId,
});

export const ProductDeletedData = eventData('ProductDeletedData', 'A product left the storefront catalog.', {
  productId: EventId,
  reason: Type.Union([Type.Literal('deleted'), Type.Literal('archived'), Type.Literal('draft')], {
    description: 'deleted, or the status it moved to.',
  }),
});

export const CollectionUpdatedData = eventData(
  'CollectionContentUpdatedData',
  'A collection was created, changed or deleted.',
  {
    kind: Type.Literal('collection'),
    collectionId: EventId,
    slug: Type.String(),
    previousSlug: Type.Optional(Type.String({ description: 'When the slug changed.' })),
    deleted: Type.Optional(Type.Literal(true)),
  },
);
