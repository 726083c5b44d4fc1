/** How the builder names blocks, their fields and places, for people (and screen readers). */
import { childrenOf, findBlock, type Block, type BlockType } from '@storefront/blocks';

export const TYPE_LABELS: Record<BlockType, string> = {
  heading: 'Heading',
  text: 'Text',
  image: 'Image',
  button: 'Button',
  spacer: 'Spacer',
  columns: 'Columns',
};

export const TYPE_HINTS: Record<BlockType, string> = {
  heading: 'A title, level 1 to 3',
  text: 'A paragraph of plain text',
  image: 'A picture from an https or relative URL',
  button: 'A link styled as a button',
  spacer: 'Empty space between blocks',
  columns: 'Side-by-side columns holding other blocks',
};

/** The label of each setting, by type. */
export const SETTING_LABELS: Record<BlockType, Record<string, string>> = {
  heading: { text: 'Heading text', level: 'Level' },
  text: { text: 'Text' },
  image: { src: 'Image URL', alt: 'Alternative text' },
  button: { text: 'Button label', href: 'Link' },
  spacer: { size: 'Size' },
  columns: { columns: 'Number of columns' },
};

const clip = (text: string, length = 40) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);

/** A short description of the block's content: its text, its image's alt text, its column count. */
export function blockSummary(block: Block): string {
  const settings = block.settings as Record<string, unknown>;
  const str = (key: string) => {
    const value = settings[key];
    return typeof value === 'string' ? value.trim() : '';
  };
  switch (block.type) {
    case 'heading':
    case 'text':
    case 'button':
      return clip(str('text')) || '(empty)';
    case 'image':
      return clip(str('alt') || str('src')) || '(no image yet)';
    case 'spacer':
      return { sm: 'small', md: 'medium', lg: 'large' }[str('size') || 'md'] ?? str('size');
    case 'columns': {
      const count = childrenOf(block).length;
      return `${String(settings.columns)} columns, ${count} ${count === 1 ? 'block' : 'blocks'}`;
    }
  }
}

/** `Heading “Summer sale”`; columns blocks by their id (`Columns “columns-1”`), as they hold no text. */
export function blockLabel(block: Block): string {
  if (block.type === 'columns') return `Columns “${block.id}”`;
  return `${TYPE_LABELS[block.type] ?? block.type} “${blockSummary(block)}”`;
}

/** The name of a field a problem points at (`settings/href` → Link). */
export function fieldLabel(block: Block | null, field: string): string {
  if (field === '') return 'Block';
  if (field === 'id') return 'Block ID';
  if (field === 'type') return 'Type';
  if (field === 'children') return 'Blocks inside';
  if (field === 'settings') return 'Settings';
  const key = field.startsWith('settings/') ? field.slice('settings/'.length) : field;
  return (block && SETTING_LABELS[block.type]?.[key]) ?? key;
}

/** Where a list is: "the top level" or `Columns “2 columns, 1 block”`. */
export function placeLabel(blocks: readonly Block[], parentId: string | null): string {
  if (parentId === null) return 'the top level';
  const parent = findBlock(blocks, parentId)?.block;
  return parent ? blockLabel(parent) : 'a removed block';
}
