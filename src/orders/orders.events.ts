import Type from 'typebox';
import { EventId, eventData } from '../events/events.schemas.ts';
import { MoneySchema } from '../http/schemas.ts';

/** The data of the order events (webhook payloads). */

export const OrderCreatedData = eventData('OrderCreatedData', 'Checkout created a pending order.', {
  orderId: EventId,
  number: Type.Integer({ description: 'The store-scoped order number (1001, 1002, …).' }),
  status: Type.Literal('pending'),
  total: MoneySchema,
});

export const OrderPaidData = eventData(
  'OrderPaidData',
  "The payment provider's signed webhook confirmed payment.",
  {
    orderId: EventId,
    number: Type.Integer(),
    total: MoneySchema,
  },
);

export const OrderRefundedData = eventData('OrderRefundedData', 'A refund settled (partial or full).', {
  orderId: EventId,
  number: Type.Integer(),
  refundId: EventId,
  amount: MoneySchema,
  refunded: MoneySchema,
});
