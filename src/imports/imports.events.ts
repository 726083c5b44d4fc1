import Type from 'typebox';
import { EventId, eventData } from '../events/events.schemas.ts';

/** The data of `import.completed` (decision `csv-imports`): what the import did, never a row's content. */
export const ImportCompletedData = eventData(
  'ImportCompletedData',
  'An import completed: a dry run checked every row (`errors` counts the bad ones), or a file was written (`created`, `updated`, `unchanged` count products, customers or variants).',
  {
    importId: EventId,
    kind: Type.Union([Type.Literal('products'), Type.Literal('customers'), Type.Literal('inventory')]),
    dryRun: Type.Boolean(),
    rows: Type.Integer({ minimum: 0, description: 'The file’s data rows.' }),
    errors: Type.Integer({
      minimum: 0,
      description: 'Bad rows (a dry run), or rows that left something out.',
    }),
    created: Type.Optional(Type.Integer({ minimum: 0 })),
    updated: Type.Optional(Type.Integer({ minimum: 0 })),
    unchanged: Type.Optional(Type.Integer({ minimum: 0 })),
  },
);
