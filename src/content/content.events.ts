import Type from 'typebox';
import { eventData } from '../events/events.schemas.ts';

/** The data of content.updated for menus, pages and regions (webhook payloads). */

const deleted = Type.Optional(Type.Literal(true, { description: 'Present when the item was deleted.' }));

export const MenuUpdatedData = eventData(
  'MenuContentUpdatedData',
  'A menu was created, changed or deleted.',
  {
    kind: Type.Literal('menu'),
    handle: Type.String(),
    deleted,
  },
);

export const PageUpdatedData = eventData(
  'PageContentUpdatedData',
  'A page was created, changed or deleted.',
  {
    kind: Type.Literal('page'),
    slug: Type.String(),
    deleted,
  },
);

export const RegionUpdatedData = eventData('RegionContentUpdatedData', 'A region was published or deleted.', {
  kind: Type.Literal('region'),
  key: Type.String(),
  deleted,
});
