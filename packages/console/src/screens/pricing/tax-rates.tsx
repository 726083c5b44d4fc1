/** The Pricing screen's tax rates by country or region, and the form that sets one. */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useCurrency } from '../../data/settings.ts';
import { useDeleteTaxRate, useSetTaxRate, useTaxRates, type TaxRate } from '../../data/shipping.ts';
import { ACTIONS, ConfirmButton, DataTable, ErrorBanner, Notice, TextField } from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import { MoneyField } from '../../ui/money-field.tsx';
import { bpsToPercentText, formatMoney, formatPercent, percentTextToBps } from '../../ui/money.ts';
import { messageAt } from '../../ui/problems.ts';
import { QueryView } from '../../ui/queries.tsx';
import { countryName } from '@storefront/address';
import { CountrySelect } from '../../ui/country-select.tsx';
import '../orders.css';

function RateForm({ editing, onSaved }: { editing: TaxRate | null; onSaved: (country: string) => void }) {
  const currency = useCurrency();
  const titleId = useId();
  const [country, setCountry] = useState(editing?.country ?? '');
  const [rate, setRate] = useState(editing ? bpsToPercentText(editing.taxRateBps) : '');
  const [shipping, setShipping] = useState<number | null>(editing?.shippingAmount ?? null);
  const [shippingProblem, setShippingProblem] = useState<string | null>(null);
  const [problems, setProblems] = useState<{ country?: string; rate?: string; shipping?: string }>({});
  const form = useRef<HTMLFormElement>(null);

  // The flat shipping is the country's default method: the Shipping screen shows it too.
  const save = useSetTaxRate((saved) => onSaved(saved.country));
  // Editing a row: its form opens with the rate ready to change.
  useEffect(() => {
    if (editing) form.current?.querySelector<HTMLInputElement>('input[inputmode="decimal"]')?.focus();
  }, [editing]);

  const server = save.error;
  const fieldLevel = ['/country', '/taxRateBps', '/shippingAmount'].some((p) => messageAt(server, p));

  function submit(event: FormEvent) {
    event.preventDefault();
    const found: typeof problems = {};
    if (!/^[A-Z]{2}$/.test(country)) found.country = 'Choose a country.';
    const parsed = percentTextToBps(rate);
    if (!parsed.ok) found.rate = parsed.message;
    if (shippingProblem) found.shipping = shippingProblem;
    setProblems(found);
    if (Object.keys(found).length > 0 || !parsed.ok) {
      requestAnimationFrame(() => form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
      return;
    }
    save.mutate({ country, taxRateBps: parsed.bps, shippingAmount: shipping ?? 0 });
  }

  return (
    <section className="panel orders-panel orders-form-panel" aria-labelledby={titleId}>
      <h3 id={titleId}>
        {editing ? `Change the rate for ${countryName(editing.country)}` : 'Set a country rate'}
      </h3>
      <form ref={form} onSubmit={submit} noValidate>
        <div className="orders-form-grid">
          <CountrySelect
            label="Country"
            value={country}
            disabled={editing !== null}
            hint={editing ? undefined : 'A country that has a rate already gets the new one.'}
            error={problems.country ?? messageAt(server, '/country')}
            onChange={(code) => {
              setCountry(code);
              setProblems(({ country: _, ...rest }) => rest);
            }}
          />
          <TextField
            label="Tax rate (%)"
            hint="Up to 2 decimals, e.g. 8.25; 0 for no tax."
            inputMode="decimal"
            autoComplete="off"
            value={rate}
            error={problems.rate ?? messageAt(server, '/taxRateBps')}
            onChange={(event) => {
              setRate(event.target.value);
              setProblems(({ rate: _, ...rest }) => rest);
            }}
          />
          <MoneyField
            label="Flat shipping"
            currency={currency}
            value={shipping}
            optional
            hint="Per order; empty or 0 for free shipping."
            error={problems.shipping ?? messageAt(server, '/shippingAmount')}
            onChange={(next, problem) => {
              setShipping(next);
              setShippingProblem(problem);
              setProblems(({ shipping: _, ...rest }) => rest);
            }}
          />
        </div>
        {save.isError && !fieldLevel ? <ErrorBanner error={save.error} /> : null}
        <div className="actions">
          <button type="submit" className="primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save rate'}
          </button>
          {editing ? (
            <button type="button" onClick={() => onSaved('')}>
              Cancel
            </button>
          ) : null}
        </div>
      </form>
    </section>
  );
}

export function TaxRates() {
  const [editing, setEditing] = useState<TaxRate | null>(null);
  const [formKey, setFormKey] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
  const rates = useTaxRates();
  const remove = useDeleteTaxRate({
    onDone: (country) => {
      setNotice(`The rate for ${countryName(country)} was deleted.`);
      if (editing?.country === country) setEditing(null);
    },
  });

  return (
    <section aria-labelledby="rates-title">
      <h2 id="rates-title">Tax and shipping by country</h2>
      <p className="muted">
        Checkout adds the tax rate of the buyer&apos;s country. Its flat shipping is the country&apos;s
        default shipping method, charged when a checkout names none; zones and their methods are on the{' '}
        <Link to="/shipping">Shipping</Link> page.
      </p>
      {notice ? <Notice tone="success">{notice}</Notice> : null}
      <ErrorBanner error={remove.error} />
      <QueryView query={rates} loading="Loading rates…" keepData empty={<p>No country rates yet.</p>}>
        {(data) => (
          <DataTable
            wrap="orders-table-wrap"
            className="row-headed"
            caption="Tax and flat shipping by country"
            columns={[
              'Country',
              { label: 'Tax', num: true },
              { label: 'Shipping', num: true },
              'Updated',
              ACTIONS,
            ]}
          >
            {data.items.map((rate) => (
              <RateRow
                key={rate.country}
                rate={rate}
                busy={remove.isPending}
                onEdit={() => {
                  setNotice(null);
                  setEditing(rate);
                  setFormKey((k) => k + 1);
                }}
                onDelete={() => remove.mutate(rate.country)}
              />
            ))}
          </DataTable>
        )}
      </QueryView>
      <RateForm
        key={formKey}
        editing={editing}
        onSaved={(country) => {
          setNotice(country ? `The rate for ${countryName(country)} was saved.` : null);
          setEditing(null);
          setFormKey((k) => k + 1);
        }}
      />
    </section>
  );
}

function RateRow({
  rate,
  busy,
  onEdit,
  onDelete,
}: {
  rate: TaxRate;
  busy: boolean;
  onEdit: () => void;
  onDelete: () => void;
}) {
  const currency = useCurrency();
  const name = countryName(rate.country);
  return (
    <tr>
      <th scope="row">
        {name} <span className="muted">({rate.country})</span>
      </th>
      <td className="num">{formatPercent(rate.taxRateBps)}</td>
      <td className="num">
        {rate.shippingAmount === 0 ? 'Free' : formatMoney(rate.shippingAmount, currency)}
      </td>
      <td>{formatDateTime(rate.updatedAt)}</td>
      <td>
        <div className="actions">
          <button type="button" onClick={onEdit}>
            Edit<span className="visually-hidden"> the rate for {name}</span>
          </button>
          <ConfirmButton
            title={`Delete the rate for ${name}?`}
            body={
              <p>Buyers in {name} will pay no tax, and its default shipping method is deleted with it.</p>
            }
            confirmLabel="Delete rate"
            disabled={busy}
            onConfirm={onDelete}
          >
            Delete<span className="visually-hidden"> the rate for {name}</span>
          </ConfirmButton>
        </div>
      </td>
    </tr>
  );
}
