/** What the block tree's lists and rows share: the lists' droppable ids and the tree's context. */
import { type UniqueIdentifier } from '@dnd-kit/core';
import { createContext, useContext } from 'react';

/** Where a dragged block would land: a list and the index there, counting the block where it still is. */
export interface Target {
  parentId: string | null;
  index: number;
}

// A list's droppable id. Block ids never hold U+0000 (the server refuses it), so they never collide.
export const LIST = 'list\u0000';
export const listId = (parentId: string | null) => `${LIST}${parentId ?? ''}`;
export const isList = (id: UniqueIdentifier) => String(id).startsWith(LIST);
export const listParent = (id: UniqueIdentifier) => String(id).slice(LIST.length) || null;

export interface TreeContextValue {
  selectedId: string | null;
  onSelect: (id: string) => void;
  issueCount: (id: string) => number;
  /** Droppables inside the block being dragged: it cannot be dropped into itself. */
  blocked: ReadonlySet<string>;
  /** Where the dragged block lands when dropped now, when that is another list than its own. */
  target: Target | null;
}
export const TreeContext = createContext<TreeContextValue | null>(null);
export const useTree = () => useContext(TreeContext)!;
