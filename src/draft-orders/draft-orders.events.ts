import Type from 'typebox';
import type { Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import { recordEvent } from '../events/events.ts';
import { EventId, eventData, type EmittedData } from '../events/events.schemas.ts';

/** The data of the draft order events (webhook payloads, decision `draft-orders`). */

const Fields = {
  draftOrderId: EventId,
  status: Type.Union(
    [Type.Literal('open'), Type.Literal('invoiced'), Type.Literal('completed'), Type.Literal('deleted')],
    { description: 'The draft’s status after the change; `deleted` when staff deleted it.' },
  ),
  orderId: Type.Union([EventId, Type.Null()], {
    description:
      'The order the draft made (its invoice’s pending order, or its completion’s paid one); null while open.',
  }),
};

export const DraftOrderCreatedData = eventData(
  'DraftOrderCreatedData',
  'Staff created a draft order.',
  Fields,
);

export const DraftOrderUpdatedData = eventData(
  'DraftOrderUpdatedData',
  'A draft order changed: edited, invoiced (a pending order holds its stock; `orderId`), or deleted.',
  Fields,
);

export const DraftOrderCompletedData = eventData(
  'DraftOrderCompletedData',
  'A draft order was completed with a payment taken outside: `orderId` is the paid order it made.',
  Fields,
);

/** Records draft_order.created/updated/completed in the caller's transaction. */
export async function recordDraftEvent(
  trx: Transaction<Database>,
  type: 'draft_order.created' | 'draft_order.updated' | 'draft_order.completed',
  storeId: string,
  data: EmittedData<typeof DraftOrderCreatedData>,
): Promise<void> {
  await recordEvent(trx, { storeId, type, resource: `draft_order:${data.draftOrderId}`, data });
}
