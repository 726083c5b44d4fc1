import Type, { type Static } from 'typebox';
import { LineTaxSchema, TaxLineSchema } from '../carts/carts.schemas.ts';
import {
  AddressInputSchema,
  AddressSchema,
  CurrencyCode,
  MoneySchema,
  PageQuery,
  TAX_CLASS_CODE,
  Uuid,
} from '../http/schemas.ts';
import { AppliedPromotionSchema } from '../promotions/promotions.schemas.ts';

/** The Admin API's draft orders (decision `draft-orders`): request and response shapes. */

const Quantity = Type.Integer({ minimum: 1, maximum: 999 });
const MinorUnits = (description: string) =>
  Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description });
const Timestamp = Type.String({ format: 'date-time' });

const CatalogLineInput = Type.Object(
  {
    variantId: Uuid,
    quantity: Quantity,
    unitPrice: Type.Optional(
      MinorUnits(
        'A price staff agreed (minor units of the draft’s currency), in place of the price the customer would be charged at checkout.',
      ),
    ),
  },
  { title: 'DraftOrderCatalogLineInput', additionalProperties: false },
);

const CustomLineInput = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200 }),
    unitPrice: MinorUnits('Minor units of the draft’s currency.'),
    quantity: Quantity,
    taxClass: Type.Optional(
      Type.String({ pattern: TAX_CLASS_CODE, description: 'A tax class of the store; default `standard`.' }),
    ),
    requiresShipping: Type.Optional(Type.Boolean({ description: 'Default true.' })),
  },
  { title: 'DraftOrderCustomLineInput', additionalProperties: false },
);

const CustomShippingInput = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200 }),
    amount: MinorUnits('Minor units of the draft’s currency.'),
  },
  { title: 'DraftOrderCustomShippingInput', additionalProperties: false },
);

const DiscountInput = Type.Object(
  {
    kind: Type.Union([Type.Literal('percent'), Type.Literal('amount')]),
    value: Type.Number({
      exclusiveMinimum: 0,
      maximum: 100_000_000_000,
      description:
        '`percent`: a percentage up to 100 with at most 2 decimals (`12.5`); `amount`: minor units.',
    }),
    reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why (kept with the draft).' }),
  },
  { title: 'DraftOrderDiscountInput', additionalProperties: false },
);

const draftFields = {
  customerId: Type.Optional(Uuid),
  email: Type.Optional(Type.String({ minLength: 3, maxLength: 320 })),
  lines: Type.Array(Type.Union([CatalogLineInput, CustomLineInput]), { minItems: 1, maxItems: 100 }),
  shippingAddress: Type.Optional(Type.Union([AddressInputSchema, Type.Null()])),
  billingAddress: Type.Optional(Type.Union([AddressInputSchema, Type.Null()])),
  shippingMethodId: Type.Optional(Type.Union([Uuid, Type.Null()])),
  customShipping: Type.Optional(Type.Union([CustomShippingInput, Type.Null()])),
  discount: Type.Optional(Type.Union([DiscountInput, Type.Null()])),
  note: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
  reserveUntil: Type.Optional(Type.Union([Timestamp, Type.Null()])),
};

export const DraftOrderBodySchema = Type.Object(draftFields, {
  title: 'DraftOrderBody',
  additionalProperties: false,
  description:
    'A customer (`customerId`) or an `email` (its customer is found or made as a guest, as checkout does), and at least one line: a catalog variant (at its price for the customer, or at `unitPrice`) or a custom item. `shippingMethodId` or `customShipping`, not both. Amounts are integers in minor units of the draft’s currency: the currency of the market of the shipping address’s country.',
});
export type DraftOrderBody = Static<typeof DraftOrderBodySchema>;

export const DraftOrderPatchSchema = Type.Partial(DraftOrderBodySchema, {
  title: 'DraftOrderPatch',
  additionalProperties: false,
  description:
    'The fields to change; `lines` are replaced whole; `null` clears an address, the shipping, the discount, the note or `reserveUntil`. Only an open draft changes.',
});
export type DraftOrderPatch = Static<typeof DraftOrderPatchSchema>;

export const DraftOrderStatusSchema = Type.Union(
  [Type.Literal('open'), Type.Literal('invoiced'), Type.Literal('completed')],
  {
    description:
      '`open`: staff edit it; `invoiced`: a pending order holds its stock until it is paid through the mailed link or expires; `completed`: paid outside and made a paid order.',
  },
);

const DraftOrderLineSchema = Type.Object(
  {
    id: Uuid,
    variantId: Type.Union([Uuid, Type.Null()], { description: 'Null for a custom line.' }),
    productId: Type.Union([Uuid, Type.Null()]),
    title: Type.String(),
    variantLabel: Type.String(),
    sku: Type.Union([Type.String(), Type.Null()]),
    custom: Type.Boolean(),
    quantity: Type.Integer(),
    unitPrice: MoneySchema,
    priceSet: Type.Boolean({
      description: 'Staff set the price (a custom line, or `unitPrice` on a catalog line).',
    }),
    lineTotal: MoneySchema,
    discount: MoneySchema,
    tax: LineTaxSchema,
    taxClass: Type.String(),
    requiresShipping: Type.Boolean(),
  },
  { title: 'DraftOrderLine' },
);

export const DraftOrderSchema = Type.Object(
  {
    id: Uuid,
    status: DraftOrderStatusSchema,
    customerId: Uuid,
    email: Type.String(),
    currency: CurrencyCode,
    lines: Type.Array(DraftOrderLineSchema),
    unavailable: Type.Array(
      Type.Object({ variantId: Uuid, quantity: Type.Integer() }, { title: 'DraftOrderUnavailableLine' }),
      {
        description:
          'Catalog lines whose variant is no longer sold (deleted, or its product not active): left out of the totals; an invoice or completion refuses them.',
      },
    ),
    shippingAddress: Type.Union([AddressSchema, Type.Null()]),
    billingAddress: Type.Union([AddressSchema, Type.Null()]),
    shippingMethodId: Type.Union([Uuid, Type.Null()]),
    customShipping: Type.Union([
      Type.Object({ title: Type.String(), amount: MoneySchema }, { title: 'DraftOrderCustomShipping' }),
      Type.Null(),
    ]),
    shipping: Type.Union(
      [
        Type.Object(
          { id: Type.Union([Uuid, Type.Null()]), name: Type.String(), amount: MoneySchema },
          { title: 'DraftOrderShipping' },
        ),
        Type.Null(),
      ],
      {
        description:
          'What shipping is charged: the custom shipping (`id` null), the chosen method, else the destination’s automatic one; null when nothing ships or there is no destination yet.',
      },
    ),
    discount: Type.Union([
      Type.Object(
        {
          kind: Type.Union([Type.Literal('percent'), Type.Literal('amount')]),
          value: Type.Number(),
          reason: Type.String(),
          amount: MoneySchema,
        },
        {
          title: 'DraftOrderDiscount',
          description:
            'Staff’s discount and what it takes off (after the promotions), shared over the lines like every discount.',
        },
      ),
      Type.Null(),
    ]),
    promotions: Type.Array(AppliedPromotionSchema, {
      description: 'The automatic promotions that apply, as checkout applies them.',
    }),
    totals: Type.Object(
      {
        subtotal: MoneySchema,
        discount: MoneySchema,
        shipping: MoneySchema,
        tax: MoneySchema,
        total: MoneySchema,
        taxIncluded: Type.Boolean(),
      },
      {
        title: 'DraftOrderTotals',
        description:
          'Priced now by the quote checkout uses: what an invoice or a completion charges if nothing changes.',
      },
    ),
    taxLines: Type.Array(TaxLineSchema),
    note: Type.Union([Type.String(), Type.Null()]),
    reserveUntil: Type.Union([Timestamp, Type.Null()]),
    orderId: Type.Union([Uuid, Type.Null()], {
      description: 'The order the draft made (invoiced or completed).',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'DraftOrder' },
);
export type DraftOrder = Static<typeof DraftOrderSchema>;

export const DraftOrderListItemSchema = Type.Object(
  {
    id: Uuid,
    status: DraftOrderStatusSchema,
    customerId: Uuid,
    email: Type.String(),
    lineCount: Type.Integer(),
    orderId: Type.Union([Uuid, Type.Null()]),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'DraftOrderListItem', description: 'A draft in a list (GET one for its live totals).' },
);
export type DraftOrderListItem = Static<typeof DraftOrderListItemSchema>;

export const DraftOrdersQuerySchema = Type.Object(
  {
    ...PageQuery.properties,
    status: Type.Optional(DraftOrderStatusSchema),
  },
  { additionalProperties: false },
);

export const CompleteDraftBodySchema = Type.Object(
  {
    payment: Type.Literal('manual', {
      description: 'The payment was taken outside (bank transfer, cash): the order is paid at once.',
    }),
  },
  { title: 'CompleteDraftOrderBody', additionalProperties: false },
);

export const DraftOrderPlacedSchema = Type.Object(
  {
    draftOrder: DraftOrderSchema,
    order: Type.Object(
      {
        id: Uuid,
        number: Type.Integer(),
        status: Type.String(),
        total: MoneySchema,
        expiresAt: Timestamp,
      },
      { title: 'DraftOrderPlacedOrder' },
    ),
    payment: Type.Object(
      { provider: Type.String(), status: Type.String(), amount: MoneySchema },
      { title: 'DraftOrderPlacedPayment' },
    ),
    payUrl: Type.Union([Type.String(), Type.Null()], {
      description: 'The link mailed to the customer (an invoice); null for a completion.',
    }),
  },
  {
    title: 'DraftOrderPlaced',
    description:
      'The draft and the order it made: pending with its stock held (invoice), or paid (completion).',
  },
);
export type DraftOrderPlaced = Static<typeof DraftOrderPlacedSchema>;
