import Type, { type Static } from 'typebox';
import { Uuid } from '../http/schemas.ts';

/** The wire schemas of customer groups (decision `customer-groups`). */

const Time = Type.String({ format: 'date-time' });
const Name = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '\\S',
  description: 'Unique in the store, whatever its case (`Wholesale` and `wholesale` are one name).',
});

/** At most this many groups per customer, and per price list. */
export const MAX_GROUPS = 100;

export const CustomerGroupSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    memberCount: Type.Integer({ minimum: 0, description: 'How many customers are in the group.' }),
    createdAt: Time,
    updatedAt: Time,
  },
  { title: 'CustomerGroup' },
);
export type CustomerGroup = Static<typeof CustomerGroupSchema>;

export const CustomerGroupBodySchema = Type.Object(
  { name: Name },
  { title: 'CustomerGroupInput', additionalProperties: false },
);
export type CustomerGroupBody = Static<typeof CustomerGroupBodySchema>;

export const CustomerGroupsBodySchema = Type.Object(
  {
    groupIds: Type.Array(Uuid, {
      maxItems: MAX_GROUPS,
      description:
        'The groups the customer is in from now on (replaces them; `[]` takes them out of every group).',
    }),
  },
  { title: 'CustomerGroupsInput', additionalProperties: false },
);
export type CustomerGroupsBody = Static<typeof CustomerGroupsBodySchema>;

export const CustomerGroupIdsSchema = Type.Object(
  { groupIds: Type.Array(Type.String({ format: 'uuid' }), { description: 'Sorted.' }) },
  { title: 'CustomerGroupIds' },
);
export type CustomerGroupIds = Static<typeof CustomerGroupIdsSchema>;
