/**
 * The tax report (GET /admin/v1/reports/tax): what was taxed in a period, by area, class and rate,
 * in one currency, as the merchant files it (OSS in the EU, by state in the US); refunds are netted
 * by refund time. "Download CSV" asks for the same report as text/csv and saves it.
 */
import { countryName } from '@storefront/address';
import { useId, useState, type FormEvent } from 'react';
import { useCurrency } from '../../data/settings.ts';
import { useTaxReport, useTaxReportCsv, type TaxReportQuery } from '../../data/tax.ts';
import { DataTable, ErrorBanner, PageHeader, TextField } from '../../ui/components.tsx';
import { formatMoney, formatPercent } from '../../ui/money.ts';
import { QueryView } from '../../ui/queries.tsx';
import '../orders.css';

/** The first of this month and today, as the dates the form starts with (UTC). */
function thisMonth(): { from: string; to: string } {
  const today = new Date().toISOString().slice(0, 10);
  return { from: `${today.slice(0, 8)}01`, to: today };
}

/** `tax-<from>-<to>-<currency>.csv`, with the dates as the form shows them (`to` included). */
function csvName(query: TaxReportQuery): string {
  const lastDay = new Date(Date.parse(query.to) - 86_400_000).toISOString().slice(0, 10);
  return `tax-${query.from.slice(0, 10)}-${lastDay}-${query.currency}.csv`;
}

/** Saves the CSV as `csvName` says through the browser's download. */
function saveCsv(blob: Blob, query: TaxReportQuery): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = csvName(query);
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** The period as the report takes it: `to` is a whole day, so the end is the next day's start. */
function periodOf(from: string, to: string, currency: string): TaxReportQuery {
  const end = new Date(`${to}T00:00:00Z`);
  end.setUTCDate(end.getUTCDate() + 1);
  return { from: `${from}T00:00:00Z`, to: end.toISOString(), currency };
}

export function TaxReport() {
  const storeCurrency = useCurrency();
  const formId = useId();
  const [dates, setDates] = useState(thisMonth);
  const [currency, setCurrency] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [query, setQuery] = useState<TaxReportQuery | null>(null);
  const report = useTaxReport(query);
  const csv = useTaxReportCsv();
  const shownCurrency = currency ?? storeCurrency;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!dates.from || !dates.to || dates.from > dates.to) {
      setProblem('Choose a period whose start is not after its end.');
      return;
    }
    if (!/^[A-Z]{3}$/.test(shownCurrency)) {
      setProblem('Enter a currency code, like EUR.');
      return;
    }
    setProblem(null);
    setQuery(periodOf(dates.from, dates.to, shownCurrency));
  }

  return (
    <>
      <PageHeader title="Tax report" />
      <p className="muted">
        Tax charged on paid orders by area, class and rate, refunds netted by the time they were made.
      </p>
      <form
        className="panel orders-panel orders-form-panel"
        onSubmit={submit}
        noValidate
        aria-labelledby={formId}
      >
        <h2 id={formId}>Period</h2>
        <div className="orders-form-grid">
          <TextField
            label="From"
            type="date"
            value={dates.from}
            onChange={(event) => setDates((d) => ({ ...d, from: event.target.value }))}
          />
          <TextField
            label="To (included)"
            type="date"
            value={dates.to}
            onChange={(event) => setDates((d) => ({ ...d, to: event.target.value }))}
          />
          <TextField
            label="Currency"
            autoComplete="off"
            maxLength={3}
            value={shownCurrency}
            error={problem ?? undefined}
            onChange={(event) => setCurrency(event.target.value.toUpperCase())}
          />
        </div>
        <div className="actions">
          <button type="submit" className="primary">
            Show report
          </button>
          <button
            type="button"
            disabled={query === null || csv.isPending}
            onClick={() => {
              if (query) csv.mutate(query, { onSuccess: (blob) => saveCsv(blob, query) });
            }}
          >
            {csv.isPending ? 'Downloading…' : 'Download CSV'}
          </button>
        </div>
        <ErrorBanner error={csv.error} />
      </form>
      {query ? (
        <QueryView query={report} loading="Loading the report…" empty={<p>No tax in this period.</p>}>
          {(data) => (
            <DataTable
              wrap="orders-table-wrap"
              className="row-headed"
              caption={`Tax from ${dates.from} to ${dates.to} in ${query.currency}`}
              columns={[
                'Area',
                'Class',
                { label: 'Rate', num: true },
                { label: 'Orders', num: true },
                { label: 'Net', num: true },
                { label: 'Tax', num: true },
                { label: 'Gross', num: true },
                { label: 'Tax refunded', num: true },
              ]}
            >
              {data.items.map((row) => (
                <tr
                  key={`${row.currency}-${row.country ?? ''}-${row.region ?? ''}-${row.class}-${row.rateBps ?? ''}`}
                >
                  <th scope="row">
                    {row.region ?? (row.country ? countryName(row.country) : 'Unknown country')}
                    {row.region && row.country ? (
                      <span className="muted"> ({countryName(row.country)})</span>
                    ) : null}
                  </th>
                  <td>
                    <code>{row.class}</code>
                  </td>
                  <td className="num">
                    {row.rateBps === null ? 'not recorded' : formatPercent(row.rateBps)}
                  </td>
                  <td className="num">{row.orders}</td>
                  <td className="num">{formatMoney(row.net.amount, row.net.currency)}</td>
                  <td className="num">{formatMoney(row.tax.amount, row.tax.currency)}</td>
                  <td className="num">{formatMoney(row.gross.amount, row.gross.currency)}</td>
                  <td className="num">{formatMoney(row.taxRefunded.amount, row.taxRefunded.currency)}</td>
                </tr>
              ))}
            </DataTable>
          )}
        </QueryView>
      ) : null}
    </>
  );
}
