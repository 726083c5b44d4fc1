/** The block tree's lists and rows: each list a sortable context, each row a draggable block. */
import { useDroppable } from '@dnd-kit/core';
import { SortableContext, useSortable, type SortingStrategy } from '@dnd-kit/sortable';
import { CSS as DndCSS } from '@dnd-kit/utilities';
import { childrenOf, type Block } from '@storefront/blocks';
import { useMemo } from 'react';
import { DragHandle } from '../ui/sortable.tsx';
import { blockLabel, blockSummary, TYPE_LABELS } from './labels.ts';
import { listId, useTree } from './block-tree-context.ts';

/** Blocks do not shift while one is dragged (nested lists would move under the pointer): a line shows the place. */
const stayInPlace: SortingStrategy = () => null;

export function BlockList({
  parentId,
  blocks,
  label,
}: {
  parentId: string | null;
  blocks: readonly Block[];
  label: string;
}) {
  const { blocked, target } = useTree();
  const id = listId(parentId);
  const { setNodeRef } = useDroppable({ id, disabled: blocked.has(id) });
  const dropIndex = target && target.parentId === parentId ? target.index : null;
  const items = useMemo(() => blocks.map((b) => b.id), [blocks]);
  return (
    <SortableContext id={id} items={items} strategy={stayInPlace}>
      <ol
        ref={setNodeRef}
        className={`block-list${parentId === null ? ' top' : ' nested'}${dropIndex !== null ? ' over' : ''}`}
        aria-label={label}
      >
        {blocks.map((block, i) => (
          <BlockNode
            key={block.id}
            block={block}
            parentId={parentId}
            drop={
              dropIndex === i
                ? 'before'
                : dropIndex === blocks.length && i === blocks.length - 1
                  ? 'after'
                  : null
            }
          />
        ))}
        {blocks.length === 0 ? (
          <li className="drop-hint">
            {parentId === null
              ? 'No blocks yet: add one from the palette.'
              : 'Empty: drag blocks here, or select a block and use “Move into”.'}
          </li>
        ) : null}
      </ol>
    </SortableContext>
  );
}

function BlockNode({
  block,
  parentId,
  drop,
}: {
  block: Block;
  parentId: string | null;
  drop: 'before' | 'after' | null;
}) {
  const { selectedId, onSelect, issueCount, blocked } = useTree();
  const sortable = useSortable({
    id: block.id,
    disabled: { draggable: false, droppable: blocked.has(block.id) },
  });
  const { setNodeRef, transform, transition, isDragging } = sortable;
  const problems = issueCount(block.id);
  const selected = selectedId === block.id;
  const label = blockLabel(block);
  return (
    <li
      ref={setNodeRef}
      className={`block-node${selected ? ' selected' : ''}${isDragging ? ' dragging' : ''}${problems > 0 ? ' invalid' : ''}${drop ? ` drop-${drop}` : ''}`}
      style={{ transform: DndCSS.Translate.toString(transform), transition }}
      data-block-id={block.id}
      data-parent-id={parentId ?? undefined}
    >
      <div className="block-row">
        <DragHandle label={`Drag ${label}`} sortable={sortable} />
        <button
          type="button"
          className="block-select"
          aria-pressed={selected}
          onClick={() => onSelect(block.id)}
        >
          <span className="block-type">{TYPE_LABELS[block.type]}</span>{' '}
          <span className="block-summary">{blockSummary(block)}</span>
          {problems > 0 ? (
            <span className="block-problems">
              {' '}
              · {problems} {problems === 1 ? 'problem' : 'problems'}
            </span>
          ) : null}
        </button>
      </div>
      {block.type === 'columns' ? (
        <BlockList parentId={block.id} blocks={childrenOf(block)} label={`Blocks in ${label}`} />
      ) : null}
    </li>
  );
}
