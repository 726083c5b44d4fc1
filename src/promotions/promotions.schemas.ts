import Type, { type Static } from 'typebox';
import { MoneySchema, Uuid } from '../http/schemas.ts';

/** The wire schemas of promotions (decision `promotions-resource`). */

const Time = Type.String({ format: 'date-time' });

/** At most this many ids in one list of a promotion (products, collections, groups, markets). */
export const MAX_IDS = 200;

const Ids = (what: string) =>
  Type.Array(Uuid, { maxItems: MAX_IDS, uniqueItems: true, description: `${what} (at most ${MAX_IDS}).` });

const Percent = (description: string) =>
  Type.Number({
    exclusiveMinimum: 0,
    maximum: 100,
    description: `${description} A percentage, 0.01 to 100 in steps of 0.01 (\`12.5\` is 12.5 %), as Stripe's \`percent_off\` and Shopify's percentage.`,
  });

const Quantity = Type.Integer({ minimum: 1, maximum: 1000 });

export const ConditionsSchema = Type.Object(
  {
    minSubtotal: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1_000_000_000_00,
        description:
          'The matching lines’ amount before discounts must reach this, in minor units of the store’s currency.',
      }),
    ),
    minQuantity: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1_000_000,
        description: 'The matching lines’ units must reach this.',
      }),
    ),
    productIds: Type.Optional(Ids('Lines of these products match')),
    collectionIds: Type.Optional(Ids('Lines of products in these collections match')),
    customerGroupIds: Type.Optional(Ids('Only for buyers in one of these customer groups')),
    marketIds: Type.Optional(Ids('Only in these markets')),
    firstOrderOnly: Type.Optional(Type.Boolean({ description: 'Only for a buyer’s first order.' })),
  },
  {
    title: 'PromotionConditions',
    additionalProperties: false,
    description:
      'What must hold. Absent conditions (and empty lists) set none. Without `productIds` and `collectionIds` every line matches.',
  },
);
export type Conditions = Static<typeof ConditionsSchema>;

const Units = {
  quantity: Quantity,
  productIds: Type.Optional(Ids('Units of these products count')),
  collectionIds: Type.Optional(Ids('Units of products in these collections count')),
};

export const ActionSchema = Type.Object(
  {
    kind: Type.Union(
      [
        Type.Literal('percent'),
        Type.Literal('amount'),
        Type.Literal('free_shipping'),
        Type.Literal('buy_x_get_y'),
      ],
      {
        description:
          '`percent` or `amount` off the order or the matching items; `free_shipping`; `buy_x_get_y`: for every `buy.quantity` units bought, `get.quantity` more (the cheapest qualifying) at `get.percent` off.',
      },
    ),
    value: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1_000_000_000_00,
        description:
          '`percent`: a percentage, 0.01 to 100 in steps of 0.01 (`12.5` is 12.5 %). `amount`: minor units of the store’s currency (an integer). Not for the other kinds.',
      }),
    ),
    target: Type.Optional(
      Type.Union([Type.Literal('order'), Type.Literal('items')], {
        description: '`percent` and `amount`: the whole order (default) or the lines the conditions match.',
      }),
    ),
    buy: Type.Optional(Type.Object(Units, { title: 'PromotionBuy', additionalProperties: false })),
    get: Type.Optional(
      Type.Object(
        { ...Units, percent: Percent('Off each unit got; 100 makes it free.') },
        { title: 'PromotionGet', additionalProperties: false },
      ),
    ),
  },
  { title: 'PromotionAction', additionalProperties: false },
);
export type Action = Static<typeof ActionSchema>;

export const CombinesWithSchema = Type.Object(
  {
    order: Type.Boolean({
      description: 'May apply together with order promotions (percent or amount off the order).',
    }),
    items: Type.Boolean({
      description: 'May apply together with item promotions (off matching items, buy X get Y).',
    }),
    shipping: Type.Boolean({ description: 'May apply together with free shipping.' }),
  },
  { title: 'PromotionCombinesWith', additionalProperties: false },
);

const CombinesWithInput = Type.Object(
  {
    order: Type.Optional(Type.Boolean()),
    items: Type.Optional(Type.Boolean()),
    shipping: Type.Optional(Type.Boolean()),
  },
  {
    title: 'PromotionCombinesWithInput',
    additionalProperties: false,
    description:
      'Which kinds of promotion it may apply together with (false when left out); both promotions of a pair must allow each other.',
  },
);

export const PromotionSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    code: Type.Union([Type.String(), Type.Null()], {
      description: 'Upper case; null for an automatic promotion.',
    }),
    automatic: Type.Boolean(),
    conditions: ConditionsSchema,
    action: ActionSchema,
    combinesWith: CombinesWithSchema,
    startsAt: Type.Union([Time, Type.Null()]),
    endsAt: Type.Union([Time, Type.Null()]),
    usageLimit: Type.Union([Type.Integer(), Type.Null()]),
    perCustomerLimit: Type.Union([Type.Integer(), Type.Null()]),
    usedCount: Type.Integer({
      description: 'Uses so far: orders placed with it, less those expired or cancelled.',
    }),
    createdAt: Time,
    updatedAt: Time,
  },
  { title: 'Promotion' },
);
export type Promotion = Static<typeof PromotionSchema>;

const Code = Type.String({
  pattern: '^[A-Za-z0-9_-]{1,64}$',
  description: 'What the buyer types, whatever its case; stored upper case, unique in the store.',
});
const Limit = (description: string) =>
  Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000_000, description }), Type.Null()]);
const Name = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  description: 'Shown to buyers on the cart.',
});

const Optional = {
  code: Type.Optional(Type.Union([Code, Type.Null()])),
  automatic: Type.Optional(
    Type.Boolean({ description: 'Applied without a code whenever it qualifies (then it has no code).' }),
  ),
  conditions: Type.Optional(ConditionsSchema),
  combinesWith: Type.Optional(CombinesWithInput),
  startsAt: Type.Optional(Type.Union([Time, Type.Null()])),
  endsAt: Type.Optional(Type.Union([Time, Type.Null()])),
  usageLimit: Type.Optional(Limit('Uses in all.')),
  perCustomerLimit: Type.Optional(Limit('Uses per buyer (customer, else email).')),
};

export const PromotionBodySchema = Type.Object(
  { name: Name, action: ActionSchema, ...Optional },
  { title: 'NewPromotion', additionalProperties: false },
);
export type PromotionBody = Static<typeof PromotionBodySchema>;

export const PromotionPatchSchema = Type.Object(
  { name: Type.Optional(Name), action: Type.Optional(ActionSchema), ...Optional },
  {
    title: 'PromotionChanges',
    additionalProperties: false,
    description:
      'The fields to change; `conditions`, `action` and `combinesWith` are replaced whole; `null` clears `code`, dates and limits.',
  },
);
export type PromotionPatch = Static<typeof PromotionPatchSchema>;

/** What a promotion took off a cart or an order (decision `cart-promotions`). */
export const AppliedPromotionSchema = Type.Object(
  {
    id: Uuid,
    name: Type.String({ description: 'Its name, as the merchant gave it: what the shopper is shown.' }),
    code: Type.Union([Type.String(), Type.Null()], {
      description: 'The code that applied it; null for an automatic promotion.',
    }),
    amount: MoneySchema,
    shipping: MoneySchema,
  },
  {
    title: 'AppliedPromotion',
    description:
      'A promotion applied, with what it took off the goods and the shipping together (`amount`; free shipping: the shipping it took off), and of that what it took off the shipping (`shipping`: a shop can say “Free shipping” apart from the discount).',
  },
);
