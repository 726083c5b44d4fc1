import Type from 'typebox';
import { EventId, eventData } from '../events/events.schemas.ts';

/** The data of the promotion events (webhook payloads). */

const Fields = {
  promotionId: EventId,
  code: Type.Union([Type.String(), Type.Null()], {
    description: 'Its code; null for an automatic promotion.',
  }),
};

export const PromotionCreatedData = eventData(
  'PromotionCreatedData',
  'A promotion was created (also a discount code through `POST /discounts`).',
  Fields,
);

export const PromotionUpdatedData = eventData('PromotionUpdatedData', 'A promotion was changed.', Fields);

export const PromotionDeletedData = eventData(
  'PromotionDeletedData',
  'A promotion was deleted (also a discount code through `DELETE /discounts/{id}`).',
  Fields,
);
