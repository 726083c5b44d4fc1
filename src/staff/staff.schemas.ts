import Type, { type Static } from 'typebox';

export const StaffRoleSchema = Type.Union([
  Type.Literal('owner'),
  Type.Literal('admin'),
  Type.Literal('staff'),
]);

export const StaffMemberSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    email: Type.String(),
    role: StaffRoleSchema,
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { title: 'StaffMember' },
);
export type StaffMember = Static<typeof StaffMemberSchema>;

export const NewStaffMemberSchema = Type.Object(
  { email: Type.String({ format: 'email', maxLength: 254 }), role: StaffRoleSchema },
  { title: 'NewStaffMember', additionalProperties: false },
);
