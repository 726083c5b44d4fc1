import Type, { type Static } from 'typebox';

export const AppSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    scopes: Type.Array(Type.String()),
    installedAt: Type.String({ format: 'date-time' }),
  },
  { title: 'App' },
);
export type InstalledApp = Static<typeof AppSchema>;

export const NewAppSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    scopes: Type.Array(Type.String({ pattern: '^(read|write)_[a-z]+(_[a-z]+)*$', maxLength: 64 }), {
      maxItems: 50,
      uniqueItems: true,
      description: 'Access scopes such as read_products or write_orders.',
    }),
  },
  { title: 'NewApp', additionalProperties: false },
);
export type NewApp = Static<typeof NewAppSchema>;
