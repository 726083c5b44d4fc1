/**
 * Tree edits and a tree diff, for editors of a region (the console's builder): every function is
 * pure and returns a new tree, leaving its input untouched. Blocks are found by their `id` (unique
 * in a tree, a rule of `regionProblems`); a parent is a columns block's id, or null for the
 * top-level list.
 */
import { REGION_LIMITS } from './rules.ts';
import type { Block, BlockType } from './types.ts';

/** Where a block sits: its parent (null at the top level), its index there, its depth (top level 1), its JSON Pointer. */
export interface BlockLocation {
  block: Block;
  parentId: string | null;
  index: number;
  depth: number;
  pointer: string;
}

/** The children of a columns block (its own array or none), [] for any other block. */
export function childrenOf(block: Block): readonly Block[] {
  return block.type === 'columns' ? (block.children ?? []) : [];
}

function walk(
  blocks: readonly Block[],
  visit: (location: BlockLocation) => boolean | void,
  parentId: string | null = null,
  depth = 1,
  at = '/blocks',
): boolean {
  for (let index = 0; index < blocks.length; index++) {
    const block = blocks[index]!;
    const pointer = `${at}/${index}`;
    if (visit({ block, parentId, index, depth, pointer }) === true) return true;
    if (walk(childrenOf(block), visit, block.id, depth + 1, `${pointer}/children`)) return true;
  }
  return false;
}

/** Every block with its location, in document order (a parent before its children). */
export function flattenBlocks(blocks: readonly Block[]): BlockLocation[] {
  const out: BlockLocation[] = [];
  walk(blocks, (location) => {
    out.push(location);
  });
  return out;
}

/** The block with this id and where it sits, or null. */
export function findBlock(blocks: readonly Block[], id: string): BlockLocation | null {
  let found: BlockLocation | null = null;
  walk(blocks, (location) => {
    if (location.block.id !== id) return false;
    found = location;
    return true;
  });
  return found;
}

/** The list a parent holds: the top level for null, a columns block's children, or null when there is no such columns block. */
export function listOf(blocks: readonly Block[], parentId: string | null): readonly Block[] | null {
  if (parentId === null) return blocks;
  const parent = findBlock(blocks, parentId)?.block;
  return parent?.type === 'columns' ? childrenOf(parent) : null;
}

/** Blocks in all, at every depth. */
export function countBlocks(blocks: readonly Block[]): number {
  return flattenBlocks(blocks).length;
}

/** Levels a block occupies: 1 for a leaf or an empty columns block, 1 + its deepest child's otherwise. */
export function blockHeight(block: Block): number {
  let deepest = 0;
  for (const child of childrenOf(block)) deepest = Math.max(deepest, blockHeight(child));
  return 1 + deepest;
}

/** Whether `id` is `ancestorId` or inside it. */
export function isWithin(blocks: readonly Block[], id: string, ancestorId: string): boolean {
  const ancestor = findBlock(blocks, ancestorId)?.block;
  if (!ancestor) return false;
  return ancestor.id === id || flattenBlocks(childrenOf(ancestor)).some((l) => l.block.id === id);
}

/** Replaces the list of a parent with what `change` makes of it. */
function withList(
  blocks: readonly Block[],
  parentId: string | null,
  change: (list: Block[]) => Block[],
): Block[] {
  if (parentId === null) return change([...blocks]);
  return blocks.map((block) => {
    if (block.type !== 'columns') return block;
    if (block.id === parentId) return { ...block, children: change([...(block.children ?? [])]) };
    if (!block.children) return block;
    const children = withList(block.children, parentId, change);
    return children.every((child, i) => child === block.children![i]) ? block : { ...block, children };
  });
}

/** The tree with `block` inserted into the parent's list at `index` (clamped; the end when omitted). */
export function insertBlock(
  blocks: readonly Block[],
  parentId: string | null,
  block: Block,
  index?: number,
): Block[] {
  return withList(blocks, parentId, (list) => {
    const at = index === undefined ? list.length : Math.max(0, Math.min(index, list.length));
    list.splice(at, 0, block);
    return list;
  });
}

/** The tree without the block (and its children). */
export function removeBlock(blocks: readonly Block[], id: string): Block[] {
  const location = findBlock(blocks, id);
  if (!location) return [...blocks];
  return withList(blocks, location.parentId, (list) => list.filter((b) => b.id !== id));
}

/** The tree with the block replaced by what `update` makes of it. */
export function updateBlock(blocks: readonly Block[], id: string, update: (block: Block) => Block): Block[] {
  const location = findBlock(blocks, id);
  if (!location) return [...blocks];
  return withList(blocks, location.parentId, (list) => list.map((b) => (b.id === id ? update(b) : b)));
}

/**
 * Why the block cannot move into that parent, or null when it can: the parent must be a columns
 * block (or null, the top level) outside the block itself, and the move must keep the region's
 * depth and children limits.
 */
export function moveProblem(blocks: readonly Block[], id: string, parentId: string | null): string | null {
  const location = findBlock(blocks, id);
  if (!location) return 'is not in the region';
  if (parentId === null) return null;
  const parent = findBlock(blocks, parentId);
  if (!parent) return 'cannot move into a block that is not in the region';
  if (parent.block.type !== 'columns') return 'can only move into a columns block';
  if (isWithin(blocks, parentId, id)) return 'cannot move into itself';
  if (parent.depth + blockHeight(location.block) > REGION_LIMITS.maxDepth)
    return `would be nested more than ${REGION_LIMITS.maxDepth} levels deep`;
  const siblings = childrenOf(parent.block);
  if (location.parentId !== parentId && siblings.length >= REGION_LIMITS.maxChildren)
    return `the columns block already has ${REGION_LIMITS.maxChildren} blocks`;
  return null;
}

/**
 * The tree with the block moved into the parent's list at `index`, counted in that list as it is
 * without the block (so moving within one list uses the final position). Unchanged when
 * `moveProblem` refuses the move.
 */
export function moveBlock(
  blocks: readonly Block[],
  id: string,
  parentId: string | null,
  index: number,
): Block[] {
  const location = findBlock(blocks, id);
  if (!location || moveProblem(blocks, id, parentId) !== null) return [...blocks];
  return insertBlock(removeBlock(blocks, id), parentId, location.block, index);
}

/** An id for a new block of the type, `heading-3`, not used in any of the trees (pass the published one too). */
export function uniqueBlockId(type: BlockType, ...trees: readonly (readonly Block[])[]): string {
  const taken = new Set(trees.flatMap((tree) => flattenBlocks(tree).map((l) => l.block.id)));
  for (let n = 1; ; n++) {
    const id = `${type}-${n}`;
    if (!taken.has(id)) return id;
  }
}

/** A new block of the type with default settings (images start without a source: the editor asks for one). */
export function newBlock(type: BlockType, id: string): Block {
  switch (type) {
    case 'heading':
      return { id, type, settings: { text: 'New heading', level: 2 } };
    case 'text':
      return { id, type, settings: { text: 'New text' } };
    case 'image':
      return { id, type, settings: { src: '', alt: '' } };
    case 'button':
      return { id, type, settings: { text: 'Shop now', href: '/' } };
    case 'spacer':
      return { id, type, settings: { size: 'md' } };
    case 'columns':
      return { id, type, settings: { columns: 2 }, children: [] };
  }
}

// ---- Diff ----

/** Where a block is in one tree, for a diff: its parent (null: the top level) and index there. */
export interface BlockPlace {
  parentId: string | null;
  index: number;
}

/** One difference between two trees, by block id. A block both edited and moved gives two entries. */
export type BlockChange =
  | { kind: 'added'; id: string; block: Block; to: BlockPlace }
  | { kind: 'removed'; id: string; block: Block; from: BlockPlace }
  | { kind: 'changed'; id: string; before: Block; after: Block; fields: string[] }
  | { kind: 'moved'; id: string; block: Block; from: BlockPlace; to: BlockPlace };

/** The longest common subsequence of two id lists, as a set. */
function commonOrder(a: readonly string[], b: readonly string[]): Set<string> {
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i]![j] =
        a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
    }
  }
  const kept = new Set<string>();
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      kept.add(a[i]!);
      i++;
      j++;
    } else if (table[i + 1]![j]! >= table[i]![j + 1]!) i++;
    else j++;
  }
  return kept;
}

function changedFields(before: Block, after: Block): string[] {
  if (before.type !== after.type) return ['type'];
  const a = before.settings as Record<string, unknown>;
  const b = after.settings as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys.filter((key) => a[key] !== b[key]);
}

/**
 * What changes from `before` (e.g. the published tree) to `after` (the draft), matching blocks by
 * id: blocks added, removed, with changed settings, and moved (to another parent, or out of the
 * order of their siblings that stayed: moving one block in a list names that block only). Added and
 * changed and moved entries follow `after`'s document order; removed ones follow `before`'s.
 */
export function diffBlocks(before: readonly Block[], after: readonly Block[]): BlockChange[] {
  const old = new Map(flattenBlocks(before).map((l) => [l.block.id, l]));
  const now = flattenBlocks(after);
  const nowIds = new Set(now.map((l) => l.block.id));

  // Per parent: the ids that stayed under it, in both orders; those out of the common order moved.
  const keptOrder = new Map<string | null, Set<string>>();
  const stayedIn = (list: readonly Block[], parentId: string | null, other: Map<string, BlockLocation>) =>
    list.filter((b) => other.get(b.id)?.parentId === parentId).map((b) => b.id);
  const parents = new Set<string | null>([null, ...now.map((l) => l.block.id)]);
  for (const parentId of parents) {
    const afterList = listOf(after, parentId);
    const beforeList = listOf(before, parentId);
    if (!afterList || !beforeList) continue;
    const nowMap = new Map(now.map((l) => [l.block.id, l]));
    keptOrder.set(
      parentId,
      commonOrder(stayedIn(beforeList, parentId, nowMap), stayedIn(afterList, parentId, old)),
    );
  }

  const changes: BlockChange[] = [];
  for (const location of now) {
    const { block, parentId, index } = location;
    const previous = old.get(block.id);
    const to = { parentId, index };
    if (!previous) {
      changes.push({ kind: 'added', id: block.id, block, to });
      continue;
    }
    const fields = changedFields(previous.block, block);
    if (fields.length > 0)
      changes.push({ kind: 'changed', id: block.id, before: previous.block, after: block, fields });
    const from = { parentId: previous.parentId, index: previous.index };
    if (previous.parentId !== parentId || !keptOrder.get(parentId)?.has(block.id))
      changes.push({ kind: 'moved', id: block.id, block, from, to });
  }
  for (const [id, location] of old) {
    if (!nowIds.has(id)) {
      changes.push({
        kind: 'removed',
        id,
        block: location.block,
        from: { parentId: location.parentId, index: location.index },
      });
    }
  }
  return changes;
}
