/**
 * @storefront/blocks: the region block tree, once (decision `front-ends-on-the-public-api`): its types, the rules the server
 * validates drafts with (and the console's builder checks with), JSON Pointer lookups, and the safe
 * renderer the shop and the builder's preview share; pure tree edits and a tree diff for editors.
 */
export { BLOCK_TYPES, SPACER_SIZES } from './types.ts';
export type { Block, BlockProblem, BlockType, SpacerSize } from './types.ts';
export { charLength, effectiveScheme, urlProblem } from './text.ts';
export type { UrlUse } from './text.ts';
export { BLOCK_SETTINGS, REGION_LIMITS, pointerToken, regionProblems, summarizeProblems } from './rules.ts';
export type { SettingRule } from './rules.ts';
export { renderBlocks, safeUrl, toElements } from './render.ts';
export type { CreateElement, RenderElement, RenderNode, RenderTag } from './render.ts';
export { blockAtPointer } from './pointer.ts';
export { deliveryEstimate } from './delivery.ts';
export type { DeliveryDays } from './delivery.ts';
export {
  blockHeight,
  childrenOf,
  countBlocks,
  diffBlocks,
  findBlock,
  flattenBlocks,
  insertBlock,
  isWithin,
  listOf,
  moveBlock,
  moveProblem,
  newBlock,
  removeBlock,
  uniqueBlockId,
  updateBlock,
} from './tree.ts';
export type { BlockChange, BlockLocation, BlockPlace } from './tree.ts';
