/** The Pricing screen's tax rates by country or region, and the form that sets one. */
import { useState } from 'react';
import { Link } from 'react-router';
import { useCurrency } from '../../data/settings.ts';
import { useDeleteTaxRate, useTaxRates, type TaxRate } from '../../data/shipping.ts';
import { useTaxClasses } from '../../data/tax.ts';
import { ACTIONS, ConfirmButton, DataTable, ErrorBanner, Notice } from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import { formatMoney, formatPercent } from '../../ui/money.ts';
import { QueryView } from '../../ui/queries.tsx';
import { countryName } from '@storefront/address';
import '../orders.css';
import { RateForm, SHIPPING_TAX_LABELS } from './tax-rate-form.tsx';

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
        Checkout taxes each line at its class&apos;s rate in the buyer&apos;s country (the standard rate when
        its class has none there). Its flat shipping is the country&apos;s default shipping method, charged
        when a checkout names none; zones and their methods are on the <Link to="/shipping">Shipping</Link>{' '}
        page.
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
              { label: 'Standard', num: true },
              'Other classes',
              'Shipping tax',
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
  const classes = useTaxClasses().data?.items ?? [];
  const className = (code: string) => classes.find((c) => c.code === code)?.name ?? code;
  const classRates = Object.entries(rate.classRates);
  const name = countryName(rate.country);
  return (
    <tr>
      <th scope="row">
        {name} <span className="muted">({rate.country})</span>
      </th>
      <td className="num">{formatPercent(rate.taxRateBps)}</td>
      <td>
        {classRates.length === 0 ? (
          <span className="muted">Standard rate</span>
        ) : (
          classRates.map(([code, bps]) => (
            <div key={code}>
              {className(code)}: {formatPercent(bps)}
            </div>
          ))
        )}
      </td>
      <td>{SHIPPING_TAX_LABELS[rate.shippingTax]}</td>
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
