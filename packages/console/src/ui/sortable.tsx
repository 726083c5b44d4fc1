/**
 * Lists in the merchant's order (a collection's products, a product's images, the builder's blocks):
 * an item is dragged by its handle with the pointer or the keyboard (dnd-kit: Space, the arrow keys,
 * Space), or moved with Move up / Move down, focus staying on the moved item's button.
 */
import {
  closestCenter,
  DndContext,
  KeyboardSensor,
  PointerSensor,
  useSensor,
  useSensors,
  type Announcements,
  type DragEndEvent,
} from '@dnd-kit/core';
import {
  SortableContext,
  sortableKeyboardCoordinates,
  verticalListSortingStrategy,
  type useSortable,
} from '@dnd-kit/sortable';
import { useEffect, useState, type ReactNode } from 'react';
import './sortable.css';

/**
 * A vertical list that sorts by dragging (`ids`: its items' ids, in order): each drop is a move
 * (`onMove(from, to)`, indexes), `announcements` and `instructions` are what screen readers hear.
 */
export function SortableList({
  ids,
  label,
  className,
  announcements,
  instructions,
  onMove,
  children,
}: {
  ids: string[];
  label: string;
  className: string;
  announcements: Announcements;
  /** How to move an item with the keyboard, read when its handle is focused. */
  instructions: string;
  onMove: (from: number, to: number) => void;
  children: ReactNode;
}) {
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );

  function onDragEnd({ active, over }: DragEndEvent) {
    if (!over || active.id === over.id) return;
    onMove(ids.indexOf(String(active.id)), ids.indexOf(String(over.id)));
  }

  return (
    <DndContext
      sensors={sensors}
      collisionDetection={closestCenter}
      onDragEnd={onDragEnd}
      accessibility={{ announcements, screenReaderInstructions: { draggable: instructions } }}
    >
      <SortableContext items={ids} strategy={verticalListSortingStrategy}>
        <ol className={className} aria-label={label}>
          {children}
        </ol>
      </SortableContext>
    </DndContext>
  );
}

/** The handle an item is dragged by (`sortable`: the item's `useSortable`), named "Drag …". */
export function DragHandle({ label, sortable }: { label: string; sortable: ReturnType<typeof useSortable> }) {
  return (
    <button
      type="button"
      className="drag-handle"
      ref={sortable.setActivatorNodeRef}
      {...sortable.attributes}
      {...sortable.listeners}
      aria-label={label}
    >
      <span aria-hidden="true">⠿</span>
    </button>
  );
}

type Direction = 'up' | 'down';

/**
 * After a Move up/down, keeps focus on the moved item's button (or its other one at an end):
 * call what it returns with the item's id and the button used, the buttons being `MoveButtons`'.
 */
export function useFocusAfterMove(): (id: string, button: Direction) => void {
  const [focusAfter, setFocusAfter] = useState<{ id: string; button: Direction } | null>(null);
  useEffect(() => {
    if (!focusAfter) return;
    const wanted = document.getElementById(
      `move-${focusAfter.button}-${focusAfter.id}`,
    ) as HTMLButtonElement | null;
    const other = document.getElementById(
      `move-${focusAfter.button === 'up' ? 'down' : 'up'}-${focusAfter.id}`,
    ) as HTMLButtonElement | null;
    (wanted && !wanted.disabled ? wanted : other)?.focus();
    setFocusAfter(null);
  }, [focusAfter]);
  return (id, button) => setFocusAfter({ id, button });
}

/** Move up and Move down of the item `id` at `index` of `count` (`name`: the item, heard after "Move"). */
export function MoveButtons({
  id,
  name,
  index,
  count,
  onMove,
}: {
  id: string;
  name: string;
  index: number;
  count: number;
  onMove: (to: number, button: Direction) => void;
}) {
  return (
    <>
      <button
        type="button"
        id={`move-up-${id}`}
        onClick={() => onMove(index - 1, 'up')}
        disabled={index === 0}
      >
        Move<span className="visually-hidden"> {name}</span> up
      </button>
      <button
        type="button"
        id={`move-down-${id}`}
        onClick={() => onMove(index + 1, 'down')}
        disabled={index === count - 1}
      >
        Move<span className="visually-hidden"> {name}</span> down
      </button>
    </>
  );
}
