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

const FulfillmentFields = {
  orderId: EventId,
  number: Type.Integer(),
  fulfillmentId: EventId,
  status: Type.Union([Type.Literal('shipped'), Type.Literal('delivered'), Type.Literal('cancelled')]),
  lines: Type.Array(
    Type.Object(
      { variantId: EventId, quantity: Type.Integer({ minimum: 1 }) },
      { additionalProperties: false },
    ),
  ),
  carrier: Type.Union([Type.String(), Type.Null()]),
  trackingNumber: Type.Union([Type.String(), Type.Null()]),
  trackingUrl: Type.Union([Type.String(), Type.Null()]),
  fulfillmentStatus: Type.Union(
    [Type.Literal('unfulfilled'), Type.Literal('partial'), Type.Literal('fulfilled')],
    { description: "The order's fulfilment status after this change." },
  ),
};

export const FulfillmentCreatedData = eventData(
  'FulfillmentCreatedData',
  'Units of a paid order shipped: the parcel, its carrier and tracking.',
  FulfillmentFields,
);

export const FulfillmentUpdatedData = eventData(
  'FulfillmentUpdatedData',
  'A fulfilment changed: its tracking, delivered, or cancelled.',
  FulfillmentFields,
);

export const OrderCancelledData = eventData(
  'OrderCancelledData',
  'Staff cancelled an order: a pending one released its stock; a paid one may have been restocked and refunded.',
  {
    orderId: EventId,
    number: Type.Integer(),
    previousStatus: Type.Union([Type.Literal('pending'), Type.Literal('paid')]),
    reason: Type.Union([Type.String(), Type.Null()], { description: 'The reason staff gave, if any.' }),
    restocked: Type.Boolean({ description: 'The units of a paid order went back on hand.' }),
    refund: Type.Union([MoneySchema, Type.Null()], {
      description:
        'The refund the cancellation started (it settles with `order.refunded`); null when nothing was refunded.',
    }),
    total: MoneySchema,
  },
);

export const ReturnCreatedData = eventData(
  'ReturnCreatedData',
  'Units of a shipped order came back: each line restocked or not, and the refund it started.',
  {
    orderId: EventId,
    number: Type.Integer(),
    returnId: EventId,
    lines: Type.Array(
      Type.Object(
        { variantId: EventId, quantity: Type.Integer({ minimum: 1 }), restock: Type.Boolean() },
        { additionalProperties: false },
      ),
    ),
    refund: Type.Union([MoneySchema, Type.Null()], {
      description: 'The refund the return started (it settles with `order.refunded`); null when none.',
    }),
    refundId: Type.Union([EventId, Type.Null()]),
  },
);
