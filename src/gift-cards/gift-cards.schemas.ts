import Type, { type Static } from 'typebox';
import { CurrencyCode, MoneySchema, PageQueryWith, Uuid } from '../http/schemas.ts';

/** The wire schemas of gift cards (decisions `gift-card-codes`, `gift-card-ledger`). */

const Time = Type.String({ format: 'date-time' });
const NullableTime = Type.Union([Time, Type.Null()]);
const Note = Type.String({ maxLength: 500, description: 'Staff’s note (not shown to buyers).' });
/** The largest amount a card may hold or move at once, in minor units. */
export const MAX_GIFT_CARD_AMOUNT = 100_000_000;
/** How many of a card's latest ledger entries its read shows. */
export const LEDGER_SHOWN = 200;

const Last4 = Type.String({ pattern: '^[2-9A-HJ-NP-Za-hj-np-z]{4}$' });

export const GiftCardLedgerEntrySchema = Type.Object(
  {
    kind: Type.Union(
      [
        Type.Literal('issue'),
        Type.Literal('reserve'),
        Type.Literal('commit'),
        Type.Literal('release'),
        Type.Literal('refund'),
        Type.Literal('adjust'),
      ],
      {
        description:
          '`issue`: the card was made. `reserve`: a checkout holds an amount. `commit`: the order was paid, the hold is spent. `release`: a hold given back (the order expired or was cancelled). `refund`: a refund paid back to the card. `adjust`: staff changed the balance.',
      },
    ),
    amount: Type.Integer({ description: 'The entry’s effect on the balance, in minor units (signed).' }),
    held: Type.Integer({
      description: 'Its effect on what the order holds on the card (reserve +, commit and release −).',
    }),
    orderId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    reason: Type.Union([Type.String(), Type.Null()], { description: 'An adjustment’s reason.' }),
    createdAt: Time,
  },
  { title: 'GiftCardLedgerEntry' },
);
export type GiftCardLedgerEntry = Static<typeof GiftCardLedgerEntrySchema>;

const cardProperties = {
  id: Type.String({ format: 'uuid' }),
  last4: Type.String({ description: 'The code’s last 4 characters: the code itself is never shown again.' }),
  initialAmount: MoneySchema,
  balance: MoneySchema,
  status: Type.Union([Type.Literal('active'), Type.Literal('disabled'), Type.Literal('expired')], {
    description: '`disabled` by staff, or `expired` (past `expiresAt`): neither pays.',
  }),
  disabled: Type.Boolean(),
  expiresAt: NullableTime,
  note: Type.Union([Type.String(), Type.Null()]),
  customerId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  orderId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
    description:
      'The order that sold the card (a gift card product, decision `gift-card-products`); null when staff issued it.',
  }),
  createdAt: Time,
  updatedAt: Time,
};

export const GiftCardSchema = Type.Object(cardProperties, { title: 'GiftCard' });
export type GiftCard = Static<typeof GiftCardSchema>;

export const GiftCardDetailSchema = Type.Object(
  {
    ...cardProperties,
    ledger: Type.Array(GiftCardLedgerEntrySchema, {
      description: `The card's history, oldest first (its latest ${LEDGER_SHOWN} entries).`,
    }),
  },
  { title: 'GiftCardDetail' },
);
export type GiftCardDetail = Static<typeof GiftCardDetailSchema>;

export const IssuedGiftCardSchema = Type.Object(
  {
    ...cardProperties,
    code: Type.String({
      pattern: '^[2-9A-HJ-NP-Z]{4}(-[2-9A-HJ-NP-Z]{4}){3}$',
      description: 'The code, `XXXX-XXXX-XXXX-XXXX`: shown in this answer only, never again.',
    }),
  },
  { title: 'IssuedGiftCard' },
);
export type IssuedGiftCard = Static<typeof IssuedGiftCardSchema>;

export const GiftCardCreateSchema = Type.Object(
  {
    initialAmount: Type.Integer({ minimum: 1, maximum: MAX_GIFT_CARD_AMOUNT, description: 'Minor units.' }),
    currency: CurrencyCode,
    expiresAt: Type.Optional(Type.Union([Time, Type.Null()], { description: 'In the future; null: never.' })),
    note: Type.Optional(Type.Union([Note, Type.Null()])),
    customerId: Type.Optional(
      Type.Union([Uuid, Type.Null()], { description: 'A customer of the store the card belongs to.' }),
    ),
  },
  { title: 'GiftCardInput', additionalProperties: false },
);
export type GiftCardCreate = Static<typeof GiftCardCreateSchema>;

export const GiftCardPatchSchema = Type.Object(
  {
    expiresAt: Type.Optional(Type.Union([Time, Type.Null()])),
    note: Type.Optional(Type.Union([Note, Type.Null()])),
    customerId: Type.Optional(Type.Union([Uuid, Type.Null()])),
    disabled: Type.Optional(
      Type.Boolean({ description: 'A disabled card pays nothing until enabled again.' }),
    ),
    adjustment: Type.Optional(
      Type.Object(
        {
          amount: Type.Integer({
            minimum: -MAX_GIFT_CARD_AMOUNT,
            maximum: MAX_GIFT_CARD_AMOUNT,
            description: 'Added to the balance (negative: taken off; never below 0; not 0).',
          }),
          reason: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
        },
        { additionalProperties: false, description: 'A balance change, kept in the ledger with its reason.' },
      ),
    ),
  },
  { title: 'GiftCardPatch', additionalProperties: false, minProperties: 1 },
);
export type GiftCardPatch = Static<typeof GiftCardPatchSchema>;

export const GiftCardListQuery = PageQueryWith({
  last4: Type.Optional({ ...Last4, description: 'Only the cards whose code ends so (any case).' }),
  orderId: Type.Optional(Type.String({ format: 'uuid', description: 'Only the cards this order sold.' })),
});
