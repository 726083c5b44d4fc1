/**
 * A manual collection's products in the merchant's order: drag to reorder (dnd-kit, with the
 * keyboard too: Space, the arrow keys, Space) or use Move up / Move down, each move announced;
 * remove; and the picker that finds products by title or SKU to add.
 */
import type { Announcements, UniqueIdentifier } from '@dnd-kit/core';
import { arrayMove, useSortable } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { useState } from 'react';
import { Link } from 'react-router';
import { useProducts } from '../../data/products.ts';
import { StatusBadge } from '../../ui/components.tsx';
import { fieldMessage, type FormProblem } from '../../ui/problems.ts';
import { QueryView } from '../../ui/queries.tsx';
import { PickerSearchField, useDebounced } from '../../ui/search.tsx';
import { DragHandle, MoveButtons, SortableList, useFocusAfterMove } from '../../ui/sortable.tsx';
import { priceRange, Thumb, type AdminProduct } from '../catalog-parts.tsx';

export function ManualProducts({
  members,
  onChange,
  problem,
}: {
  members: AdminProduct[];
  onChange: (members: AdminProduct[]) => void;
  problem: FormProblem | null;
}) {
  const [announcement, setAnnouncement] = useState('');
  const focusAfterMove = useFocusAfterMove();

  const titleOf = (id: UniqueIdentifier) => members.find((p) => p.id === id)?.title ?? 'The product';
  const positionOf = (id: UniqueIdentifier) => members.findIndex((p) => p.id === id) + 1;
  const count = members.length;
  const announcements: Announcements = {
    onDragStart: ({ active }) =>
      `Picked up ${titleOf(active.id)}, at position ${positionOf(active.id)} of ${count}.`,
    onDragOver: ({ active, over }) =>
      over ? `${titleOf(active.id)} is over position ${positionOf(over.id)} of ${count}.` : undefined,
    onDragEnd: ({ active, over }) =>
      over
        ? `${titleOf(active.id)} dropped at position ${positionOf(over.id)} of ${count}.`
        : `${titleOf(active.id)} dropped.`,
    onDragCancel: ({ active }) =>
      `Moving cancelled. ${titleOf(active.id)} stays at position ${positionOf(active.id)} of ${count}.`,
  };

  function move(from: number, to: number, button?: 'up' | 'down') {
    if (to < 0 || to >= members.length || from === to) return;
    const product = members[from]!;
    onChange(arrayMove(members, from, to));
    if (button) {
      setAnnouncement(`${product.title} moved to position ${to + 1} of ${members.length}.`);
      focusAfterMove(product.id, button);
    }
  }

  return (
    <section className="panel" aria-labelledby="collection-products">
      <h2 id="collection-products">Products</h2>
      <p className="hint" id="order-help">
        The shop lists them in this order. Drag a product by its handle, or focus the handle and press Space,
        then the arrow keys, then Space again; or use Move up and Move down. Save to keep the order.
      </p>
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
      {members.length === 0 ? (
        <p className="muted">No products yet. Find products below and add them.</p>
      ) : (
        <SortableList
          ids={members.map((p) => p.id)}
          className="sortable"
          label="Products in this collection, in order"
          announcements={announcements}
          instructions="To move a product, press Space or Enter to pick it up, the up and down arrow keys to move it, Space or Enter to drop it, or Escape to cancel."
          onMove={move}
        >
          {members.map((product, index) => (
            <MemberRow
              key={product.id}
              product={product}
              index={index}
              count={members.length}
              error={fieldMessage(problem, `/productIds/${index}`, 'This product')}
              onMove={(to, button) => move(index, to, button)}
              onRemove={() => {
                onChange(members.filter((p) => p.id !== product.id));
                setAnnouncement(`${product.title} removed from the collection.`);
              }}
            />
          ))}
        </SortableList>
      )}
      <ProductPicker
        members={members}
        onAdd={(product) => {
          onChange([...members, product]);
          setAnnouncement(`${product.title} added at position ${members.length + 1}.`);
        }}
      />
    </section>
  );
}

function MemberRow({
  product,
  index,
  count,
  error,
  onMove,
  onRemove,
}: {
  product: AdminProduct;
  index: number;
  count: number;
  error: string | undefined;
  onMove: (to: number, button: 'up' | 'down') => void;
  onRemove: () => void;
}) {
  const sortable = useSortable({ id: product.id });
  const { setNodeRef, transform, transition, isDragging } = sortable;
  return (
    <li
      ref={setNodeRef}
      className={`sortable-item${isDragging ? ' dragging' : ''}${error ? ' invalid' : ''}`}
      style={{ transform: CSS.Transform.toString(transform), transition }}
      data-product-id={product.id}
    >
      <DragHandle label={`Drag ${product.title}`} sortable={sortable} />
      <span className="position" aria-hidden="true">
        {index + 1}.
      </span>
      <Thumb image={product.image} />
      <span className="member-title">
        <Link to={`/products/${product.id}`}>{product.title}</Link>{' '}
        {product.status === 'active' ? null : <StatusBadge status={product.status} />}
        {error ? <span className="field-error"> {error}</span> : null}
      </span>
      <span className="member-actions">
        <MoveButtons id={product.id} name={product.title} index={index} count={count} onMove={onMove} />
        <button type="button" className="danger" onClick={onRemove}>
          Remove<span className="visually-hidden"> {product.title}</span>
        </button>
      </span>
    </li>
  );
}

function ProductPicker({
  members,
  onAdd,
}: {
  members: AdminProduct[];
  onAdd: (product: AdminProduct) => void;
}) {
  const [text, setText] = useState('');
  const q = useDebounced(text.trim(), 250);
  const results = useProducts({ limit: 8, ...(q ? { q } : {}) });
  const inCollection = new Set(members.map((p) => p.id));
  return (
    <div className="picker">
      <h3>Add products</h3>
      <PickerSearchField label="Find products" value={text} placeholder="Title or SKU" onText={setText} />
      <QueryView query={results} loading="Searching…">
        {(data) =>
          data.items.length === 0 ? (
            <p className="muted" role="status">
              {q ? `No products match “${q}”.` : 'Your store has no products yet.'}
            </p>
          ) : (
            <ul className="picker-results" aria-label="Search results">
              {data.items.map((product) => {
                const added = inCollection.has(product.id);
                return (
                  <li key={product.id}>
                    <Thumb image={product.image} />
                    <span className="member-title">
                      {product.title} <span className="muted">{priceRange(product)}</span>{' '}
                      {product.status === 'active' ? null : <StatusBadge status={product.status} />}
                    </span>
                    <button type="button" onClick={() => onAdd(product)} disabled={added}>
                      {added ? (
                        <>
                          Added
                          <span className="visually-hidden"> ({product.title} is in the collection)</span>
                        </>
                      ) : (
                        <>
                          Add<span className="visually-hidden"> {product.title}</span>
                        </>
                      )}
                    </button>
                  </li>
                );
              })}
            </ul>
          )
        }
      </QueryView>
    </div>
  );
}
