/** The region builder's palette: the block types to add, and the list they are added to. */
import {
  BLOCK_TYPES,
  childrenOf,
  findBlock,
  flattenBlocks,
  REGION_LIMITS,
  type Block,
  type BlockType,
} from '@storefront/blocks';
import { useId } from 'react';
import { blockLabel, TYPE_HINTS, TYPE_LABELS } from './labels.ts';

/** Where the palette adds: a list (null: the top level) and, when it holds the selected block, after it. */
export function addPlace(
  blocks: readonly Block[],
  selectedId: string | null,
  chosen: string | null | undefined,
) {
  const lists = flattenBlocks(blocks).filter(
    (l) =>
      l.block.type === 'columns' &&
      l.depth < REGION_LIMITS.maxDepth &&
      childrenOf(l.block).length < REGION_LIMITS.maxChildren,
  );
  const selected = selectedId === null ? null : findBlock(blocks, selectedId);
  const fromSelection =
    selected?.block.type === 'columns' && lists.some((l) => l.block.id === selected.block.id)
      ? selected.block.id
      : selected?.parentId !== undefined && lists.some((l) => l.block.id === selected.parentId)
        ? selected.parentId
        : null;
  const parentId =
    chosen !== undefined && (chosen === null || lists.some((l) => l.block.id === chosen))
      ? chosen
      : fromSelection;
  const index = selected && selected.parentId === parentId ? selected.index + 1 : undefined;
  return { parentId, index, lists };
}

export function Palette({
  place,
  full,
  maxBlocks,
  onAddTo,
  onAdd,
}: {
  place: ReturnType<typeof addPlace>;
  /** The region holds as many blocks as it may. */
  full: boolean;
  maxBlocks: number;
  onAddTo: (parentId: string | null) => void;
  onAdd: (type: BlockType) => void;
}) {
  const paletteId = useId();
  const addToId = useId();
  return (
    <div className="palette" role="group" aria-labelledby={paletteId}>
      <p id={paletteId} className="palette-label">
        Add a block
      </p>
      <div className="field add-to">
        <label htmlFor={addToId}>Add to</label>
        <select
          id={addToId}
          value={place.parentId ?? ''}
          onChange={(e) => onAddTo(e.target.value === '' ? null : e.target.value)}
        >
          <option value="">The top level</option>
          {place.lists.map((l) => (
            <option key={l.block.id} value={l.block.id}>
              Inside {blockLabel(l.block)}
            </option>
          ))}
        </select>
      </div>
      <div className="palette-buttons">
        {BLOCK_TYPES.map((type) => (
          <button
            key={type}
            type="button"
            title={TYPE_HINTS[type]}
            onClick={() => onAdd(type)}
            disabled={full}
          >
            <span aria-hidden="true">+ </span>
            <span className="visually-hidden">Add </span>
            {TYPE_LABELS[type]}
          </button>
        ))}
      </div>
      {full ? (
        <p className="hint">A region holds at most {maxBlocks} blocks; remove one to add another.</p>
      ) : null}
    </div>
  );
}
