import Type from 'typebox';
import { EventId, eventData } from '../events/events.schemas.ts';

/**
 * The data of the customer events (decisions `customer-accounts` and `customer-events-without-personal-data`): ids and flags, never personal data (the events
 * outlive an erasure; a receiver reads the customer through the Admin API).
 */

const Flags = {
  customerId: EventId,
  hasAccount: Type.Boolean({ description: 'A sign-in code proved the email.' }),
  acceptsMarketing: Type.Boolean(),
};

export const CustomerCreatedData = eventData(
  'CustomerCreatedData',
  'A customer appeared: a first checkout with their email (a guest) or a first sign-in (an account).',
  Flags,
);

export const CustomerUpdatedData = eventData(
  'CustomerUpdatedData',
  'A customer changed their profile or addresses, a guest proved their email (`hasAccount`), or staff changed the customer’s groups (`groups`).',
  {
    ...Flags,
    changed: Type.Array(
      Type.Union([
        Type.Literal('name'),
        Type.Literal('phone'),
        Type.Literal('acceptsMarketing'),
        Type.Literal('hasAccount'),
        Type.Literal('addresses'),
        Type.Literal('groups'),
      ]),
      { description: 'What changed.' },
    ),
  },
);

export const CustomerDeletedData = eventData(
  'CustomerDeletedData',
  'A customer was erased (by staff or by themselves): their personal data is gone; orders keep their numbers and amounts.',
  { customerId: EventId },
);
