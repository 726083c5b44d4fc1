/**
 * A price list's prices: the CSV box (`SKU,price` or `SKU,price,currency` a line) with the currency
 * of lines that name none, and the preview of what the box says, line by line, each resolved to its
 * variant by SKU or marked with what is wrong (csv.ts). A saved list's current prices are a table
 * too (CurrentPrices). Nothing in here sends anything.
 */
import type { VariantIndex, PriceListPrice } from '../../data/price-lists.ts';
import { DataTable, SelectField, TextAreaField } from '../../ui/components.tsx';
import { formatMoney } from '../../ui/money.ts';
import type { PriceLine } from './csv.ts';
import type { PriceListDraft } from './draft.ts';

/** The most ready lines the preview lists (every line with a problem is listed). */
const READY_SHOWN = 100;

/** "Tee: Small", or the product's title for a variant without a label. */
export const variantName = (variant: { productTitle: string; label: string }) =>
  variant.label ? `${variant.productTitle}: ${variant.label}` : variant.productTitle;

export function PricesPaste({
  draft,
  lines,
  currencies,
  editing,
  error,
  update,
}: {
  draft: PriceListDraft;
  lines: readonly PriceLine[];
  /** The currencies lines without one may be in: the store's and its markets'. */
  currencies: readonly string[];
  /** A saved list: an empty box keeps its prices. */
  editing: boolean;
  error: string | undefined;
  update: (changes: Partial<PriceListDraft>) => void;
}) {
  const bad = lines.filter((line) => line.problem !== null);
  const ready = lines.length - bad.length;
  const shown = [...bad, ...lines.filter((line) => line.problem === null).slice(0, READY_SHOWN)].sort(
    (a, b) => a.line - b.line,
  );
  return (
    <div className="price-list-paste">
      <TextAreaField
        label={editing ? 'New prices (CSV)' : 'Prices (CSV)'}
        value={draft.csv}
        rows={8}
        spellCheck={false}
        autoComplete="off"
        className="csv"
        hint={
          <>
            One price a line: <code>SKU,price</code> or <code>SKU,price,currency</code>, like{' '}
            <code>TEE-S,19.99</code> or <code>TEE-S,17.50,EUR</code>. A header line may come first; tabs or
            semicolons may separate too (a price with a decimal comma, like 19,99, needs them).
            {editing ? ' Empty: the list keeps its prices; lines pasted here replace them all.' : ''}
          </>
        }
        error={error}
        onChange={(event) => update({ csv: event.target.value })}
      />
      <SelectField
        label="Currency of lines without one"
        value={draft.currency}
        options={currencies}
        onChange={(event) => update({ currency: event.target.value })}
      />
      <p role="status" className="price-list-summary">
        {lines.length === 0
          ? ''
          : `${lines.length} ${lines.length === 1 ? 'line' : 'lines'}: ${ready} ready${bad.length > 0 ? `, ${bad.length} to fix` : ''}.`}
      </p>
      {lines.length > 0 ? (
        <DataTable
          wrap="orders-table-wrap"
          className="row-headed price-lines"
          caption="The pasted prices, line by line"
          columns={['Line', 'SKU', 'Variant', { label: 'Price', num: true }, 'Problem']}
        >
          {shown.map((line) => (
            <tr key={line.line} className={line.problem ? 'invalid' : undefined}>
              <th scope="row">{line.line}</th>
              <td>
                <code>{line.sku}</code>
              </td>
              <td>{line.variant ? variantName(line.variant) : <span className="muted">—</span>}</td>
              <td className="num">
                {line.amount !== null ? formatMoney(line.amount, line.currency) : line.price}
              </td>
              <td>{line.problem ?? <span className="muted">Ready</span>}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      {ready > READY_SHOWN ? (
        <p className="muted">
          {ready - READY_SHOWN} more ready {ready - READY_SHOWN === 1 ? 'line is' : 'lines are'} not listed.
        </p>
      ) : null}
    </div>
  );
}

/** A saved list's prices: variant, SKU, price. */
export function CurrentPrices({
  prices,
  index,
}: {
  prices: readonly PriceListPrice[];
  index: VariantIndex | undefined;
}) {
  if (prices.length === 0) return <p className="muted">The list has no prices.</p>;
  return (
    <DataTable
      wrap="orders-table-wrap"
      className="row-headed"
      caption="The list’s current prices"
      columns={['Variant', 'SKU', { label: 'Price', num: true }]}
    >
      {prices.map((price) => {
        const variant = index?.byId.get(price.variantId);
        return (
          <tr key={`${price.variantId} ${price.currency}`}>
            <th scope="row">
              {variant ? variantName(variant) : <span className="muted">A variant ({price.variantId})</span>}
            </th>
            <td>{variant?.sku ? <code>{variant.sku}</code> : <span className="muted">—</span>}</td>
            <td className="num">{formatMoney(price.amount, price.currency)}</td>
          </tr>
        );
      })}
    </DataTable>
  );
}
