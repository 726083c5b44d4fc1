/**
 * The block tree with drag and drop (dnd-kit): one DndContext, one SortableContext per list (the
 * top level and each columns block's children), so a block can be reordered in its list or moved
 * into another one. Pointer and keyboard both work (KeyboardSensor with
 * sortableKeyboardCoordinates: up and down reorder, right moves into the columns block beside,
 * left moves out); the inspector's buttons do the same moves without dragging.
 */
import {
  closestCorners,
  DndContext,
  DragOverlay,
  KeyboardSensor,
  MeasuringStrategy,
  PointerSensor,
  pointerWithin,
  useSensor,
  useSensors,
  type Announcements,
  type CollisionDetection,
  type DragEndEvent,
  type DragOverEvent,
  type DragStartEvent,
  type DroppableContainer,
  type DroppableContainers,
  type KeyboardCoordinateGetter,
  type UniqueIdentifier,
} from '@dnd-kit/core';
import { sortableKeyboardCoordinates } from '@dnd-kit/sortable';
import {
  childrenOf,
  findBlock,
  flattenBlocks,
  listOf,
  moveBlock,
  moveProblem,
  type Block,
} from '@storefront/blocks';
import { useEffect, useMemo, useRef, useState } from 'react';
import { blockLabel, blockSummary, placeLabel, TYPE_LABELS } from './labels.ts';
import { isList, listId, listParent, TreeContext, type Target } from './block-tree-context.ts';
import { BlockList } from './block-list.tsx';

export const INSTRUCTIONS =
  'To move a block, focus its handle and press Space or Enter to pick it up. Use the up and down arrow keys to move it, right to move it into the columns block beside it and left to move it out. Press Space or Enter to drop it, or Escape to cancel.';

function position(blocks: readonly Block[], id: string): string {
  const at = findBlock(blocks, id);
  if (!at) return '';
  const count = listOf(blocks, at.parentId)?.length ?? 0;
  return `position ${at.index + 1} of ${count} in ${placeLabel(blocks, at.parentId)}`;
}

/** Half the height of a block's row in the tree (its handle button and padding), in CSS pixels. */
const HALF_ROW = 20;

/** The block's row in the tree as it is on screen now. */
function rectOf(id: string): DOMRect | null {
  return document.querySelector(`[data-block-id="${CSS.escape(id)}"]`)?.getBoundingClientRect() ?? null;
}

/** The index in the list where a point falls: the number of its blocks whose middle is above it. */
function indexAt(blocks: readonly Block[], parentId: string | null, y: number): number {
  const list = listOf(blocks, parentId) ?? [];
  let index = 0;
  for (const block of list) {
    const rect = rectOf(block.id);
    if (rect && rect.top + rect.height / 2 < y) index++;
  }
  return index;
}

export function BlockTree({
  blocks,
  onChange,
  selectedId,
  onSelect,
  issueCount,
  label,
}: {
  blocks: Block[];
  onChange: (blocks: Block[]) => void;
  selectedId: string | null;
  onSelect: (id: string) => void;
  issueCount: (id: string) => number;
  label: string;
}) {
  const [activeId, setActiveId] = useState<string | null>(null);
  const [target, setTarget] = useState<Target | null>(null);
  const latest = useRef(blocks);
  const lastOver = useRef<UniqueIdentifier | null>(null);
  const delta = useRef({ x: 0, y: 0 });
  const activator = useRef<Event | null>(null);
  const dropped = useRef<string | null>(null);
  useEffect(() => {
    latest.current = blocks;
  }, [blocks]);

  const blocked = useMemo(() => {
    const set = new Set<string>();
    const active = activeId === null ? null : findBlock(blocks, activeId)?.block;
    if (active) {
      set.add(listId(active.id));
      for (const { block } of flattenBlocks(childrenOf(active))) {
        set.add(block.id);
        set.add(listId(block.id));
      }
    }
    return set;
  }, [activeId, blocks]);
  const blockedRef = useRef(blocked);
  blockedRef.current = blocked;

  /**
   * Places the keys step through: every block, and the lists only where they are empty (a list
   * with blocks is reached through its blocks; stepping onto it would be a step that moves nothing).
   */
  const keyboardPlace = (id: UniqueIdentifier) =>
    !blockedRef.current.has(String(id)) &&
    (!isList(id) || (listOf(latest.current, listParent(id))?.length ?? 0) === 0);

  // sortableKeyboardCoordinates, over the places the keys step through.
  const keyboardCoordinates: KeyboardCoordinateGetter = (event, args) => {
    const all = args.context.droppableContainers;
    const Places = all.constructor as new (
      entries: [UniqueIdentifier, DroppableContainer][],
    ) => DroppableContainers;
    const places = new Places([...all.entries()].filter(([id]) => keyboardPlace(id)));
    return sortableKeyboardCoordinates(event, {
      ...args,
      context: { ...args.context, droppableContainers: places },
    });
  };

  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: keyboardCoordinates }),
  );

  // The pointer picks the innermost place under it (a block inside a columns block rather than
  // the columns block around it); the keyboard picks the place whose corners are closest.
  const collisions: CollisionDetection = (args) => {
    const candidates = args.droppableContainers.filter((c) => !blockedRef.current.has(String(c.id)));
    if (args.pointerCoordinates) {
      const under = pointerWithin({ ...args, droppableContainers: candidates });
      const area = (id: UniqueIdentifier) => {
        const rect = args.droppableRects.get(id);
        return rect ? rect.width * rect.height : Number.POSITIVE_INFINITY;
      };
      const innermost = under.reduce<(typeof under)[number] | null>(
        (best, hit) => (best === null || area(hit.id) < area(best.id) ? hit : best),
        null,
      );
      if (innermost) lastOver.current = innermost.id;
      return lastOver.current !== null ? [{ id: lastOver.current }] : [];
    }
    return closestCorners({ ...args, droppableContainers: candidates.filter((c) => keyboardPlace(c.id)) });
  };

  /**
   * The height the dragged block is at: the pointer's, or for the keyboard (which moves the block
   * onto a place's top edge) half a row below the top of where the keys moved it.
   */
  const referenceY = (event: Pick<DragOverEvent, 'active' | 'delta'>): number | null => {
    const start = activator.current;
    if (start instanceof MouseEvent) return start.clientY + event.delta.y;
    const initial = event.active.rect.current.initial;
    return initial ? initial.top + event.delta.y + HALF_ROW : null;
  };

  /**
   * Where the block lands if dropped now, or null when it stays. The tree does not change while
   * dragging (and nothing shifts: an insertion line shows the place), so the places under the
   * pointer stay where they are. Over a block of its own list it takes that block's place (before
   * it going up, after it going down), as in any sortable list; over another list's block it goes
   * before or after it by which half the dragged block's middle is in; over a list's empty space,
   * between the blocks around that point.
   */
  const targetOf = (event: Pick<DragOverEvent, 'active' | 'over' | 'delta'>): Target | null => {
    const { active, over } = event;
    if (!over) return null;
    const tree = latest.current;
    const id = String(active.id);
    const from = findBlock(tree, id);
    if (!from) return null;
    const middle = referenceY(event);
    let parentId: string | null;
    let index: number;
    if (isList(over.id)) {
      parentId = listParent(over.id);
      index = middle === null ? (listOf(tree, parentId)?.length ?? 0) : indexAt(tree, parentId, middle);
    } else {
      const onto = findBlock(tree, String(over.id));
      if (!onto || onto.block.id === id) return null;
      parentId = onto.parentId;
      if (parentId === from.parentId) index = onto.index + (onto.index > from.index ? 1 : 0);
      else {
        const rect = rectOf(onto.block.id) ?? over.rect;
        index = onto.index + (middle !== null && middle > rect.top + rect.height / 2 ? 1 : 0);
      }
    }
    if (parentId === from.parentId && (index === from.index || index === from.index + 1)) return null;
    return moveProblem(tree, id, parentId) === null ? { parentId, index } : null;
  };

  /** Where the block would land, in words (`Columns “c”, position 2`), or null when it stays. */
  const landing = (event: Pick<DragOverEvent, 'active' | 'over' | 'delta'>): string | null => {
    const into = targetOf(event);
    if (!into) return null;
    const from = findBlock(latest.current, String(event.active.id));
    const index = into.parentId === from?.parentId && into.index > from.index ? into.index - 1 : into.index;
    return `${placeLabel(latest.current, into.parentId)}, position ${index + 1}`;
  };

  const describe = (id: UniqueIdentifier) => {
    const block = findBlock(latest.current, String(id))?.block;
    return block ? blockLabel(block) : 'the block';
  };
  const announcements: Announcements = {
    onDragStart: ({ active }) =>
      `Picked up ${describe(active.id)}, ${position(latest.current, String(active.id))}.`,
    onDragOver: ({ active, over }) => {
      // Over itself: just picked up, or back where it started (the pick-up message stays).
      if (over?.id === active.id) return undefined;
      const place = landing({ active, over, delta: delta.current });
      return place
        ? `${describe(active.id)} will move to ${place}.`
        : `${describe(active.id)} stays where it is.`;
    },
    // dnd-kit announces after onDragEnd has moved the block: where it went was noted there.
    onDragEnd: ({ active }) => {
      const place = dropped.current;
      return place
        ? `Dropped ${describe(active.id)}: moved to ${place}.`
        : `Dropped ${describe(active.id)} where it was.`;
    },
    onDragCancel: ({ active }) => `Moving cancelled: ${describe(active.id)} stays where it was.`,
  };

  const onDragStart = ({ active, activatorEvent }: DragStartEvent) => {
    activator.current = activatorEvent;
    delta.current = { x: 0, y: 0 };
    lastOver.current = active.id;
    setTarget(null);
    setActiveId(String(active.id));
  };

  /** The target follows the pointer (or the keys) inside one place too: which half, which gap. */
  const onDragMove = (event: DragOverEvent) => {
    delta.current = event.delta;
    const next = targetOf(event);
    setTarget((current) =>
      current?.parentId === next?.parentId && current?.index === next?.index ? current : next,
    );
  };

  const onDragEnd = (event: DragEndEvent) => {
    dropped.current = landing(event);
    const tree = latest.current;
    const id = String(event.active.id);
    const from = findBlock(tree, id);
    const into = targetOf(event);
    if (from && into) {
      // The target counts the block where it still is; moveBlock counts its list without it.
      const index = into.parentId === from.parentId && into.index > from.index ? into.index - 1 : into.index;
      const next = moveBlock(tree, id, into.parentId, index);
      latest.current = next;
      onChange(next);
    }
    setTarget(null);
    setActiveId(null);
  };

  const onDragCancel = () => {
    setTarget(null);
    setActiveId(null);
  };

  const active = activeId === null ? null : findBlock(blocks, activeId)?.block;
  const context = useMemo(
    () => ({ selectedId, onSelect, issueCount, blocked, target }),
    [selectedId, onSelect, issueCount, blocked, target],
  );

  return (
    <TreeContext.Provider value={context}>
      <DndContext
        sensors={sensors}
        collisionDetection={collisions}
        // Places are measured before a drag starts, so the first arrow key already has them.
        measuring={{ droppable: { strategy: MeasuringStrategy.Always } }}
        accessibility={{ announcements, screenReaderInstructions: { draggable: INSTRUCTIONS } }}
        onDragStart={onDragStart}
        onDragMove={onDragMove}
        onDragOver={onDragMove}
        onDragEnd={onDragEnd}
        onDragCancel={onDragCancel}
      >
        <BlockList parentId={null} blocks={blocks} label={label} />
        <DragOverlay dropAnimation={null}>
          {active ? (
            <div className="drag-overlay">
              <span className="block-type">{TYPE_LABELS[active.type]}</span> {blockSummary(active)}
            </div>
          ) : null}
        </DragOverlay>
      </DndContext>
    </TreeContext.Provider>
  );
}
