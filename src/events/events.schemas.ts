import Type, { type Static, type TProperties, type TSchema } from 'typebox';

/**
 * Helpers for the schemas of event data (the `data` of a webhook envelope, spec 2.16). Each
 * feature declares the data of the events it emits in its `*.events.ts`; the composition lists
 * them in the OpenAPI document's `webhooks`. Data objects are open: fields are only ever added.
 */
export const EventId = Type.String({ format: 'uuid' });

export function eventData<T extends TProperties>(title: string, description: string, properties: T) {
  return Type.Object(
    {
      storeId: Type.String({ format: 'uuid', description: 'The store the event belongs to.' }),
      ...properties,
    },
    { title, description, additionalProperties: true },
  );
}

/** What an emitter passes as `data` for an event whose schema is T (recordEvent adds `storeId`). */
export type EmittedData<T extends TSchema> = Omit<Static<T>, 'storeId'>;
