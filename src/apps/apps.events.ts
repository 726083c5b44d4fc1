import Type from 'typebox';
import { EventId, eventData } from '../events/events.schemas.ts';

export const AppInstalledData = eventData('AppInstalledData', 'A merchant installed an app.', {
  appId: EventId,
  name: Type.String(),
  scopes: Type.Array(Type.String()),
});
