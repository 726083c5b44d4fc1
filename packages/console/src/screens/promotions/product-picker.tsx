/**
 * Products chosen for a promotion (its conditions, or the units of a buy X get Y): the chosen ones
 * by title, each with Remove, and a search that finds products by title or SKU (or a product's id
 * pasted) to add. Each change is announced.
 */
import { useId, useState } from 'react';
import { useProducts, useProductTitles } from '../../data/products.ts';
import { StatusBadge } from '../../ui/components.tsx';
import { PickerSearchField, useDebounced } from '../../ui/search.tsx';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function ProductsField({
  legend,
  hint,
  ids,
  titles,
  error,
  onChange,
}: {
  legend: string;
  hint: string;
  ids: readonly string[];
  /** The chosen products' titles (null: deleted; absent: being read). */
  titles: ReadonlyMap<string, string | null>;
  error?: string | undefined;
  onChange: (ids: string[]) => void;
}) {
  const hintId = useId();
  const [text, setText] = useState('');
  const [announcement, setAnnouncement] = useState('');
  const q = useDebounced(text.trim(), 250);
  const pastedId = UUID.test(q) ? q.toLowerCase() : null;
  const results = useProducts({ limit: 6, ...(q && !pastedId ? { q } : {}) });
  const pasted = useProductTitles(pastedId ? [pastedId] : []);
  const found: { id: string; title: string; status?: string }[] = pastedId
    ? pasted.get(pastedId)
      ? [{ id: pastedId, title: pasted.get(pastedId)! }]
      : []
    : q
      ? (results.data?.items ?? []).map(({ id, title, status }) => ({ id, title, status }))
      : [];
  const titleOf = (id: string) =>
    titles.get(id) ?? (titles.has(id) ? 'A deleted product' : 'A product (loading…)');

  return (
    <fieldset className="promotion-products" aria-describedby={hintId}>
      <legend>{legend}</legend>
      <p className="hint" id={hintId}>
        {hint}
      </p>
      {error ? <p className="field-error">{error}</p> : null}
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
      {ids.length === 0 ? (
        <p className="muted">None chosen.</p>
      ) : (
        <ul className="chosen" aria-label={`${legend}, chosen`}>
          {ids.map((id) => (
            <li key={id}>
              <span>{titleOf(id)}</span>
              <button
                type="button"
                onClick={() => {
                  onChange(ids.filter((each) => each !== id));
                  setAnnouncement(`${titleOf(id)} removed.`);
                }}
              >
                Remove<span className="visually-hidden"> {titleOf(id)}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <PickerSearchField
        label="Find a product"
        value={text}
        placeholder="Title, SKU or product id"
        onText={setText}
      />
      {q && results.isFetched && found.length === 0 && !(pastedId && !pasted.has(pastedId)) ? (
        <p className="muted">No product matches “{q}”.</p>
      ) : null}
      {found.length > 0 ? (
        <ul className="picker-results" aria-label={`${legend}, search results`}>
          {found.map((product) => {
            const chosen = ids.includes(product.id);
            return (
              <li key={product.id}>
                <span>
                  {product.title}{' '}
                  {product.status && product.status !== 'active' ? (
                    <StatusBadge status={product.status} />
                  ) : null}
                </span>
                <button
                  type="button"
                  disabled={chosen}
                  onClick={() => {
                    onChange([...ids, product.id]);
                    setAnnouncement(`${product.title} added.`);
                  }}
                >
                  {chosen ? 'Added' : 'Add'}
                  <span className="visually-hidden"> {product.title}</span>
                </button>
              </li>
            );
          })}
        </ul>
      ) : null}
    </fieldset>
  );
}
