import Type from 'typebox';
import { EventId, eventData } from '../events/events.schemas.ts';
import { MoneySchema } from '../http/schemas.ts';

/**
 * The data of the gift card events (decision `gift-card-ledger`): the card's id, last 4 and balance,
 * never its code or hash, nor staff's note.
 */

const Card = {
  giftCardId: EventId,
  last4: Type.String({ description: 'The code’s last 4 characters.' }),
  balance: MoneySchema,
};

export const GiftCardIssuedData = eventData(
  'GiftCardIssuedData',
  'A gift card was issued, by staff or sold by an order (a gift card product); `balance` is its initial amount.',
  {
    ...Card,
    orderId: Type.Optional({
      ...EventId,
      description:
        'The order that sold the card (decision `gift-card-products`); absent when staff issued it.',
    }),
  },
);

export const GiftCardUpdatedData = eventData(
  'GiftCardUpdatedData',
  'Staff changed a gift card, or its balance moved (a checkout held or released an amount, a refund paid back to it).',
  {
    ...Card,
    changed: Type.Array(
      Type.Union([
        Type.Literal('balance'),
        Type.Literal('expiresAt'),
        Type.Literal('note'),
        Type.Literal('customerId'),
        Type.Literal('disabled'),
      ]),
      { description: 'What changed.' },
    ),
  },
);

export type GiftCardChange = 'balance' | 'expiresAt' | 'note' | 'customerId' | 'disabled';
