import Type, { type Static } from 'typebox';
import { AddressInputSchema, AddressSchema, MoneySchema, PageQuery } from '../http/schemas.ts';
import { AdminOrderSchema } from '../orders/orders.schemas.ts';

/** The customer wire schemas (decision `customer-accounts`), Storefront and Admin. */

const Email = Type.String({ format: 'email', maxLength: 254 });
const Time = Type.String({ format: 'date-time' });

export const SignInBodySchema = Type.Object(
  { email: Email },
  { title: 'CustomerSignInRequest', additionalProperties: false },
);

export const VerifyBodySchema = Type.Object(
  {
    email: Email,
    code: Type.String({ pattern: '^[0-9]{6}$', description: 'The 6-digit code from the email.' }),
  },
  { title: 'CustomerVerifyRequest', additionalProperties: false },
);

export const CustomerSchema = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
    phone: Type.Union([Type.String(), Type.Null()]),
    acceptsMarketing: Type.Boolean({ description: 'Whether the customer agreed to marketing email.' }),
    hasAccount: Type.Boolean({
      description: 'A sign-in code proved the email; false for a guest known only from checkouts.',
    }),
    defaultAddressId: Type.Union([Type.String(), Type.Null()]),
    createdAt: Time,
    updatedAt: Time,
  },
  { title: 'Customer' },
);
export type Customer = Static<typeof CustomerSchema>;

export const CustomerSessionSchema = Type.Object(
  {
    token: Type.String({
      description:
        'ct_… token: send it as `Authorization: Bearer ct_…` beside the publishable key in `X-Publishable-Key`. Shown only here.',
    }),
    expiresAt: Time,
    customer: CustomerSchema,
  },
  { title: 'CustomerSession' },
);
export type CustomerSession = Static<typeof CustomerSessionSchema>;

export const CustomerPatchSchema = Type.Object(
  {
    name: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
    phone: Type.Optional(Type.Union([Type.String({ maxLength: 32 }), Type.Null()])),
    acceptsMarketing: Type.Optional(Type.Boolean()),
  },
  { title: 'CustomerUpdate', additionalProperties: false },
);
export type CustomerPatch = Static<typeof CustomerPatchSchema>;

export const CustomerAddressSchema = Type.Object(
  {
    id: Type.String(),
    ...AddressSchema.properties,
    isDefault: Type.Boolean(),
    createdAt: Time,
    updatedAt: Time,
  },
  { title: 'CustomerAddress' },
);
export type CustomerAddress = Static<typeof CustomerAddressSchema>;

export const CustomerAddressInputSchema = Type.Object(
  {
    ...AddressInputSchema.properties,
    isDefault: Type.Optional(Type.Boolean({ description: 'Make it the default address.' })),
  },
  { title: 'CustomerAddressInput', additionalProperties: false },
);
export type CustomerAddressInput = Static<typeof CustomerAddressInputSchema>;

export const CustomerAddressPatchSchema = Type.Partial(CustomerAddressInputSchema, {
  title: 'CustomerAddressUpdate',
  additionalProperties: false,
});
export type CustomerAddressPatch = Static<typeof CustomerAddressPatchSchema>;

export const AdminCustomerSchema = Type.Object(
  {
    ...CustomerSchema.properties,
    ordersCount: Type.Integer({ description: 'Paid orders (cancelled ones included once paid).' }),
    /** Paid order totals less refunds. */
    totalSpent: MoneySchema,
    lastOrderAt: Type.Union([Time, Type.Null()], { description: 'The last checkout, paid or not.' }),
    openOrders: Type.Integer({
      description:
        'Orders pending payment, or paid and not yet fully shipped: erasing the customer leaves them without an address.',
    }),
    groupIds: Type.Array(Type.String({ format: 'uuid' }), {
      description: 'The customer groups they are in, sorted (`PUT /customers/{id}/groups` sets them).',
    }),
  },
  { title: 'AdminCustomer' },
);
export type AdminCustomer = Static<typeof AdminCustomerSchema>;

export const AdminCustomerDetailSchema = Type.Object(
  {
    ...AdminCustomerSchema.properties,
    addresses: Type.Array(CustomerAddressSchema),
    orders: Type.Array(AdminOrderSchema, { description: 'The newest 50, newest first.' }),
  },
  { title: 'AdminCustomerDetail' },
);
export type AdminCustomerDetail = Static<typeof AdminCustomerDetailSchema>;

export const AdminCustomersQuerySchema = Type.Object(
  {
    q: Type.Optional(
      Type.String({
        maxLength: 200,
        description:
          'An email prefix when it holds an `@`; otherwise part of the name or email (case and accents ignored).',
      }),
    ),
    hasAccount: Type.Optional(Type.Boolean({ description: 'Accounts only (true) or guests only (false).' })),
    ...PageQuery.properties,
  },
  { additionalProperties: false },
);

export const PrivacyLogEntrySchema = Type.Object(
  {
    id: Type.String(),
    action: Type.Union([Type.Literal('export'), Type.Literal('erase')]),
    customerId: Type.String(),
    actor: Type.Union([Type.Literal('staff'), Type.Literal('customer')], {
      description: 'Staff through the Admin API, or the customer through the Storefront API.',
    }),
    staffEmail: Type.Union([Type.String(), Type.Null()]),
    createdAt: Time,
  },
  { title: 'PrivacyLogEntry' },
);
export type PrivacyLogEntry = Static<typeof PrivacyLogEntrySchema>;
