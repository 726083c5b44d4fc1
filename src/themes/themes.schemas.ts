import Type, { type Static } from 'typebox';

const Timestamp = Type.String({ format: 'date-time' });

export const ThemeSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    settings: Type.Record(Type.String(), Type.Unknown()),
    live: Type.Boolean({ description: 'The published theme; at most one per store.' }),
    publishedAt: Type.Union([Timestamp, Type.Null()]),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'Theme' },
);
export type Theme = Static<typeof ThemeSchema>;

export const NewThemeSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    settings: Type.Optional(
      Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), {
        description: 'Free-form theme settings (at most 64 KiB of JSON).',
      }),
    ),
  },
  { title: 'NewTheme', additionalProperties: false },
);
export type NewTheme = Static<typeof NewThemeSchema>;
