/** Storage shapes of the content module: menu items and region block trees (the wire shapes are in content.schemas.ts). */

export interface MenuItem {
  label: string;
  url: string;
}

export { BLOCK_TYPES, SPACER_SIZES } from '@storefront/blocks';
export type { Block, BlockType, SpacerSize } from '@storefront/blocks';
