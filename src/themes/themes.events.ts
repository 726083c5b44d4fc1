import Type from 'typebox';
import { EventId, eventData } from '../events/events.schemas.ts';

export const ThemePublishedData = eventData('ThemePublishedData', 'A theme went live.', {
  themeId: EventId,
  name: Type.String(),
  previousThemeId: Type.Union([EventId, Type.Null()], { description: 'The theme that was live before.' }),
});
