/**
 * The form that sets a country's tax: the standard rate, the rates of the store's other tax classes
 * (empty: the standard rate applies to the class), whether shipping is taxed (decision
 * shipping-tax), and the flat shipping that is the country's default shipping method.
 */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { countryName } from '@storefront/address';
import { useCurrency } from '../../data/settings.ts';
import { useSetTaxRate, type TaxRate } from '../../data/shipping.ts';
import { useTaxClasses, type TaxClass } from '../../data/tax.ts';
import { ErrorBanner, SelectField, TextField } from '../../ui/components.tsx';
import { CountrySelect } from '../../ui/country-select.tsx';
import { MoneyField } from '../../ui/money-field.tsx';
import { bpsToPercentText, percentTextToBps } from '../../ui/money.ts';
import { messageAt } from '../../ui/problems.ts';

type ShippingTax = TaxRate['shippingTax'];

export const SHIPPING_TAX_LABELS: Record<ShippingTax, string> = {
  none: 'Untaxed',
  follow_goods: 'Follows the goods',
};

/** The class rates as typed: percent text by class code, empty for "the standard rate". */
function classRateTexts(editing: TaxRate | null): Record<string, string> {
  const texts: Record<string, string> = {};
  for (const [code, bps] of Object.entries(editing?.classRates ?? {})) texts[code] = bpsToPercentText(bps);
  return texts;
}

/** The typed class rates in basis points, or the first class whose text is no rate. */
function parseClassRates(
  classes: readonly TaxClass[],
  texts: Record<string, string>,
): { rates: Record<string, number>; problems: Record<string, string> } {
  const rates: Record<string, number> = {};
  const problems: Record<string, string> = {};
  for (const taxClass of classes) {
    const text = (texts[taxClass.code] ?? '').trim();
    if (text === '') continue;
    const parsed = percentTextToBps(text);
    if (parsed.ok) rates[taxClass.code] = parsed.bps;
    else problems[taxClass.code] = parsed.message;
  }
  return { rates, problems };
}

export function RateForm({
  editing,
  onSaved,
}: {
  editing: TaxRate | null;
  onSaved: (country: string) => void;
}) {
  const currency = useCurrency();
  const titleId = useId();
  const [country, setCountry] = useState(editing?.country ?? '');
  const [rate, setRate] = useState(editing ? bpsToPercentText(editing.taxRateBps) : '');
  const [shipping, setShipping] = useState<number | null>(editing?.shippingAmount ?? null);
  const [shippingProblem, setShippingProblem] = useState<string | null>(null);
  const [problems, setProblems] = useState<{ country?: string; rate?: string; shipping?: string }>({});
  const [classTexts, setClassTexts] = useState(() => classRateTexts(editing));
  const [classProblems, setClassProblems] = useState<Record<string, string>>({});
  const [shippingTax, setShippingTax] = useState<ShippingTax>(editing?.shippingTax ?? 'none');
  const others = (useTaxClasses().data?.items ?? []).filter((c) => c.code !== 'standard');
  const form = useRef<HTMLFormElement>(null);

  // The flat shipping is the country's default method: the Shipping screen shows it too.
  const save = useSetTaxRate((saved) => onSaved(saved.country));
  // Editing a row: its form opens with the rate ready to change.
  useEffect(() => {
    if (editing) form.current?.querySelector<HTMLInputElement>('input[inputmode="decimal"]')?.focus();
  }, [editing]);

  const server = save.error;
  const fieldLevel = ['/country', '/taxRateBps', '/shippingAmount', '/shippingTax'].some((p) =>
    messageAt(server, p),
  );

  function submit(event: FormEvent) {
    event.preventDefault();
    const found: typeof problems = {};
    if (!/^[A-Z]{2}$/.test(country)) found.country = 'Choose a country.';
    const parsed = percentTextToBps(rate);
    if (!parsed.ok) found.rate = parsed.message;
    if (shippingProblem) found.shipping = shippingProblem;
    const classRates = parseClassRates(others, classTexts);
    setProblems(found);
    setClassProblems(classRates.problems);
    if (Object.keys(found).length > 0 || Object.keys(classRates.problems).length > 0 || !parsed.ok) {
      requestAnimationFrame(() => form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
      return;
    }
    save.mutate({
      country,
      taxRateBps: parsed.bps,
      classRates: classRates.rates,
      shippingTax,
      shippingAmount: shipping ?? 0,
    });
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
            hint="The standard class’s rate: up to 2 decimals, e.g. 8.25; 0 for no tax."
            inputMode="decimal"
            autoComplete="off"
            value={rate}
            error={problems.rate ?? messageAt(server, '/taxRateBps')}
            onChange={(event) => {
              setRate(event.target.value);
              setProblems(({ rate: _, ...rest }) => rest);
            }}
          />
          {others.map((taxClass) => (
            <TextField
              key={taxClass.code}
              label={`${taxClass.name} rate (%)`}
              hint="Empty: the standard rate."
              inputMode="decimal"
              autoComplete="off"
              value={classTexts[taxClass.code] ?? ''}
              error={classProblems[taxClass.code] ?? messageAt(server, `/classRates/${taxClass.code}`)}
              onChange={(event) => {
                const text = event.target.value;
                setClassTexts((texts) => ({ ...texts, [taxClass.code]: text }));
                setClassProblems(({ [taxClass.code]: _, ...rest }) => rest);
              }}
            />
          ))}
          <SelectField
            label="Shipping tax"
            hint="Follows the goods: shipping is taxed at the rates of what it carries."
            value={shippingTax}
            options={Object.entries(SHIPPING_TAX_LABELS).map(([value, label]) => ({ value, label }))}
            error={messageAt(server, '/shippingTax')}
            onChange={(event) => setShippingTax(event.target.value as ShippingTax)}
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
