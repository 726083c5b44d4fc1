/**
 * A draft's items: the lines with their quantity (changed on Enter or when the field is left) and
 * Remove, and a search that finds products by title or SKU and lists their variants to add. Prices
 * and line totals are the server's (a draft not yet created shows none); each change is announced.
 */
import { useEffect, useId, useState } from 'react';
import type { DraftOrder } from '../../data/draft-orders.ts';
import { useProducts, type AdminProduct, type AdminVariant } from '../../data/products.ts';
import { StatusBadge, TextField } from '../../ui/components.tsx';
import { formatMoney } from '../../ui/money.ts';
import { PickerSearchField, useDebounced } from '../../ui/search.tsx';

/** A line as the items table shows it; money only once the server priced it. */
export interface ShownLine {
  key: string;
  title: string;
  label: string;
  sku: string | null;
  quantity: number;
  custom: boolean;
  unitPrice: DraftOrder['lines'][number]['unitPrice'] | null;
  lineTotal: DraftOrder['lines'][number]['lineTotal'] | null;
  discount: DraftOrder['lines'][number]['discount'] | null;
}

export interface ChosenVariant {
  variantId: string;
  title: string;
  label: string;
  sku: string | null;
}

/** The name a line is read by: "Blue mug, Large". */
export const lineName = (line: { title: string; label: string }) =>
  line.label && line.label !== 'Default' ? `${line.title}, ${line.label}` : line.title;

const QUANTITY = /^\d{1,3}$/;

/** A line's quantity: typed freely, sent on Enter or when the field is left, if it is 1 to 999. */
function QuantityInput({
  line,
  disabled,
  onChange,
}: {
  line: ShownLine;
  disabled: boolean;
  onChange: (quantity: number) => void;
}) {
  const [text, setText] = useState(String(line.quantity));
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => setText(String(line.quantity)), [line.quantity]);
  const commit = () => {
    const trimmed = text.trim();
    const quantity = QUANTITY.test(trimmed) ? Number(trimmed) : NaN;
    if (!(quantity >= 1 && quantity <= 999)) {
      setProblem('Enter a whole number from 1 to 999.');
      return;
    }
    setProblem(null);
    if (quantity !== line.quantity) onChange(quantity);
  };
  return (
    <TextField
      label={`Quantity of ${lineName(line)}`}
      hideLabel
      inputMode="numeric"
      className="draft-quantity"
      value={text}
      disabled={disabled}
      error={problem ?? undefined}
      onChange={(event) => setText(event.target.value)}
      onBlur={commit}
      onKeyDown={(event) => {
        if (event.key === 'Enter') {
          event.preventDefault();
          commit();
        }
      }}
    />
  );
}

export function LinesTable({
  lines,
  readOnly,
  busy,
  onQuantity,
  onRemove,
}: {
  lines: readonly ShownLine[];
  readOnly: boolean;
  busy: boolean;
  onQuantity: (key: string, quantity: number) => void;
  onRemove: (key: string) => void;
}) {
  if (lines.length === 0) return <p className="muted">No items yet: find a product below to add it.</p>;
  const priced = lines.some((line) => line.unitPrice !== null);
  return (
    <div className="table-wrap orders-table-wrap">
      <table className="draft-lines">
        <caption className="visually-hidden">Items of the draft order</caption>
        <thead>
          <tr>
            <th scope="col">Product</th>
            <th scope="col" className="num">
              Quantity
            </th>
            {priced ? (
              <>
                <th scope="col" className="num">
                  Price
                </th>
                <th scope="col" className="num">
                  Total
                </th>
              </>
            ) : null}
            {readOnly ? null : (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {lines.map((line) => (
            <tr key={line.key}>
              <th scope="row">
                {line.title}
                {line.label && line.label !== 'Default' ? <div className="muted">{line.label}</div> : null}
                {line.sku ? <div className="muted">SKU {line.sku}</div> : null}
                {line.custom ? <div className="muted">Custom item</div> : null}
              </th>
              <td className="num">
                {readOnly ? (
                  line.quantity
                ) : (
                  <QuantityInput
                    line={line}
                    disabled={busy}
                    onChange={(quantity) => onQuantity(line.key, quantity)}
                  />
                )}
              </td>
              {priced ? (
                <>
                  <td className="num">
                    {line.unitPrice ? formatMoney(line.unitPrice.amount, line.unitPrice.currency) : '—'}
                  </td>
                  <td className="num">
                    {line.lineTotal ? formatMoney(line.lineTotal.amount, line.lineTotal.currency) : '—'}
                    {line.discount && line.discount.amount > 0 ? (
                      <div className="muted">
                        −{formatMoney(line.discount.amount, line.discount.currency)} discount
                      </div>
                    ) : null}
                  </td>
                </>
              ) : null}
              {readOnly ? null : (
                <td>
                  <button type="button" disabled={busy} onClick={() => onRemove(line.key)}>
                    Remove<span className="visually-hidden"> {lineName(line)}</span>
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const sellable = (variant: AdminVariant) => !variant.archived;

/**
 * Finds products by title or SKU and lists each one's variants with Add (a variant already on the
 * draft says Added: one line per variant). Only active products sell; the others are marked.
 */
export function VariantPicker({
  chosen,
  disabled,
  onAdd,
}: {
  /** The variants on the draft already. */
  chosen: ReadonlySet<string>;
  disabled: boolean;
  onAdd: (variant: ChosenVariant) => void;
}) {
  const hintId = useId();
  const [text, setText] = useState('');
  const q = useDebounced(text.trim(), 250);
  const results = useProducts({ limit: 6, ...(q ? { q } : {}) });
  const found: AdminProduct[] = q ? (results.data?.items ?? []) : [];
  return (
    <div className="draft-picker" role="group" aria-labelledby={`${hintId}-label`}>
      <h3 id={`${hintId}-label`}>Add a product</h3>
      <PickerSearchField
        label="Find a product"
        value={text}
        placeholder="Title or SKU"
        hint="Each of its variants is listed with Add; a variant is one line, its quantity changed on the line."
        onText={setText}
      />
      {q && results.isFetched && found.length === 0 ? (
        <p className="muted">No product matches “{q}”.</p>
      ) : null}
      {found.length > 0 ? (
        <ul className="picker-results" aria-label="Products found">
          {found.map((product) =>
            product.variants.filter(sellable).map((variant) => {
              const added = chosen.has(variant.id);
              const name = lineName({ title: product.title, label: variant.label });
              return (
                <li key={variant.id}>
                  <span>
                    {name}
                    {variant.sku ? <span className="muted"> · SKU {variant.sku}</span> : null}
                    <span className="muted">
                      {' '}
                      · {formatMoney(variant.priceAmount, product.currency)} · {variant.available} available
                    </span>{' '}
                    {product.status !== 'active' ? <StatusBadge status={product.status} /> : null}
                  </span>
                  <button
                    type="button"
                    disabled={added || disabled || product.status !== 'active'}
                    onClick={() =>
                      onAdd({
                        variantId: variant.id,
                        title: product.title,
                        label: variant.label,
                        sku: variant.sku,
                      })
                    }
                  >
                    {added ? 'Added' : 'Add'}
                    <span className="visually-hidden"> {name}</span>
                  </button>
                </li>
              );
            }),
          )}
        </ul>
      ) : null}
    </div>
  );
}
