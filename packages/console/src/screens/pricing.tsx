/**
 * Discounts, tax and shipping: discount codes, and per-country tax rate and flat shipping (the
 * country's default shipping method; zones and methods are on the Shipping screen).
 */
import { StorefrontError } from '@storefront/client';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useCreateDiscount, useDeleteDiscount, useDiscounts, type Discount } from '../data/discounts.ts';
import { useCurrency } from '../data/settings.ts';
import { useDeleteTaxRate, useSetTaxRate, useTaxRates, type TaxRate } from '../data/shipping.ts';
import { useStaffSession } from '../data/staff.ts';
import {
  ACTIONS,
  ConfirmButton,
  DataTable,
  ErrorBanner,
  Notice,
  PageHeader,
  Pager,
  SelectField,
  StatusBadge,
  TextField,
  useCursorPager,
} from '../ui/components.tsx';
import { formatDateTime } from '../ui/dates.ts';
import { MoneyField } from '../ui/money-field.tsx';
import { bpsToPercentText, formatMoney, formatPercent, percentTextToBps } from '../ui/money.ts';
import { errorMessage, messageAt } from '../ui/problems.ts';
import { QueryView } from '../ui/queries.tsx';
import { countryName } from '@storefront/address';
import { CountrySelect } from '../ui/country-select.tsx';
import './orders.css';

const CODE = /^[A-Za-z0-9_-]{1,64}$/;

function discountState(discount: Discount, now = Date.now()): string {
  if (discount.usageLimit !== null && discount.usedCount >= discount.usageLimit) return 'used_up';
  if (discount.endsAt && Date.parse(discount.endsAt) <= now) return 'ended';
  if (discount.startsAt && Date.parse(discount.startsAt) > now) return 'scheduled';
  return 'active';
}

/** A `datetime-local` value (the browser's time zone) as ISO 8601, or null when empty. */
function localToIso(value: string): string | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

// ---- Discount codes ----

interface DiscountProblems {
  code?: string;
  value?: string;
  endsAt?: string;
  usageLimit?: string;
}

function NewDiscount() {
  const currency = useCurrency();
  const titleId = useId();
  const form = useRef<HTMLFormElement>(null);
  const [code, setCode] = useState('');
  const [kind, setKind] = useState<'percent' | 'fixed'>('percent');
  const [percent, setPercent] = useState('');
  const [fixed, setFixed] = useState<number | null>(null);
  const [fixedProblem, setFixedProblem] = useState<string | null>(null);
  const [startsAt, setStartsAt] = useState('');
  const [endsAt, setEndsAt] = useState('');
  const [usageLimit, setUsageLimit] = useState('');
  const [problems, setProblems] = useState<DiscountProblems>({});
  const [created, setCreated] = useState<string | null>(null);

  const create = useCreateDiscount({
    onSuccess: (discount) => {
      setCreated(`Discount code ${discount.code} created.`);
      setCode('');
      setPercent('');
      setFixed(null);
      setStartsAt('');
      setEndsAt('');
      setUsageLimit('');
    },
  });

  const server = create.error;
  const exists = server instanceof StorefrontError && server.title === 'discount_exists';
  const at = (field: keyof DiscountProblems, pointer: string) =>
    problems[field] ?? (field === 'code' && exists ? errorMessage(server) : messageAt(server, pointer));
  const fieldLevel =
    exists || ['/code', '/value', '/startsAt', '/endsAt', '/usageLimit'].some((p) => messageAt(server, p));

  function submit(event: FormEvent) {
    event.preventDefault();
    setCreated(null);
    const found: DiscountProblems = {};
    const trimmed = code.trim();
    if (!CODE.test(trimmed)) found.code = 'Use 1 to 64 letters, digits, hyphens or underscores.';
    let value: number | null = null;
    if (kind === 'percent') {
      const text = percent.trim().replace('%', '').trim();
      if (!/^\d{1,3}$/.test(text) || Number(text) < 1 || Number(text) > 100)
        found.value = 'Enter a whole percentage from 1 to 100.';
      else value = Number(text);
    } else if (fixedProblem) found.value = fixedProblem;
    else if (fixed === null || fixed < 1) found.value = 'Enter the amount taken off the order.';
    else value = fixed;
    const starts = localToIso(startsAt);
    const ends = localToIso(endsAt);
    if (starts && ends && Date.parse(ends) <= Date.parse(starts)) found.endsAt = 'End after the start.';
    let limit: number | null = null;
    if (usageLimit.trim() !== '') {
      if (!/^\d{1,9}$/.test(usageLimit.trim()) || Number(usageLimit) < 1)
        found.usageLimit = 'Enter a whole number of uses, 1 or more, or leave it empty for no limit.';
      else limit = Number(usageLimit);
    }
    setProblems(found);
    if (Object.keys(found).length > 0 || value === null) {
      const first = form.current?.querySelector<HTMLElement>('[aria-invalid="true"]');
      // The invalid state renders on the next paint: focus the first invalid field then.
      requestAnimationFrame(() =>
        (form.current?.querySelector<HTMLElement>('[aria-invalid="true"]') ?? first)?.focus(),
      );
      return;
    }
    create.mutate({
      code: trimmed,
      kind,
      value,
      ...(starts ? { startsAt: starts } : {}),
      ...(ends ? { endsAt: ends } : {}),
      ...(limit !== null ? { usageLimit: limit } : {}),
    });
  }

  return (
    <section className="panel orders-panel orders-form-panel" aria-labelledby={titleId}>
      <h3 id={titleId}>New discount code</h3>
      {created ? <Notice tone="success">{created}</Notice> : null}
      <form ref={form} onSubmit={submit} noValidate>
        <div className="orders-form-grid">
          <TextField
            label="Code"
            hint="What buyers type at checkout; not case-sensitive."
            value={code}
            autoComplete="off"
            autoCapitalize="characters"
            spellCheck={false}
            maxLength={64}
            error={at('code', '/code')}
            onChange={(event) => {
              setCode(event.target.value);
              setProblems(({ code: _, ...rest }) => rest);
            }}
          />
          <SelectField
            label="Type"
            value={kind}
            options={[
              { value: 'percent', label: 'Percentage off the subtotal' },
              { value: 'fixed', label: `Fixed amount off (${currency})` },
            ]}
            onChange={(event) => {
              setKind(event.target.value === 'fixed' ? 'fixed' : 'percent');
              setProblems(({ value: _, ...rest }) => rest);
            }}
          />
          {kind === 'percent' ? (
            <TextField
              label="Percent off"
              hint="A whole number from 1 to 100."
              inputMode="numeric"
              autoComplete="off"
              value={percent}
              error={at('value', '/value')}
              onChange={(event) => {
                setPercent(event.target.value);
                setProblems(({ value: _, ...rest }) => rest);
              }}
            />
          ) : (
            <MoneyField
              label="Amount off"
              currency={currency}
              value={fixed}
              optional
              error={at('value', '/value')}
              onChange={(next, problem) => {
                setFixed(next);
                setFixedProblem(problem);
                setProblems(({ value: _, ...rest }) => rest);
              }}
            />
          )}
          <TextField
            label="Usage limit (optional)"
            hint="How many orders may use it; empty for no limit."
            inputMode="numeric"
            autoComplete="off"
            value={usageLimit}
            error={at('usageLimit', '/usageLimit')}
            onChange={(event) => {
              setUsageLimit(event.target.value);
              setProblems(({ usageLimit: _, ...rest }) => rest);
            }}
          />
          <TextField
            label="Starts (optional)"
            type="datetime-local"
            hint="In your time zone; empty: from now."
            value={startsAt}
            error={messageAt(server, '/startsAt')}
            onChange={(event) => setStartsAt(event.target.value)}
          />
          <TextField
            label="Ends (optional)"
            type="datetime-local"
            hint="In your time zone; empty: no end."
            value={endsAt}
            error={at('endsAt', '/endsAt')}
            onChange={(event) => {
              setEndsAt(event.target.value);
              setProblems(({ endsAt: _, ...rest }) => rest);
            }}
          />
        </div>
        {create.isError && !fieldLevel ? <ErrorBanner error={create.error} /> : null}
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create discount code'}
        </button>
      </form>
    </section>
  );
}

function DiscountValue({ discount, currency }: { discount: Discount; currency: string }) {
  return discount.kind === 'percent' ? (
    <>{formatPercent(discount.value * 100)} off</>
  ) : (
    <>{formatMoney(discount.value, currency)} off</>
  );
}

function Discounts() {
  const currency = useCurrency();
  const pager = useCursorPager();
  const discounts = useDiscounts(pager.cursor);
  const remove = useDeleteDiscount({
    notice: (discount) => `Discount code ${discount.code} deleted.`,
    onDone: () => pager.reset(),
  });

  return (
    <section aria-labelledby="discounts-title">
      <h2 id="discounts-title">Discount codes</h2>
      {remove.notice ? <Notice tone="success">{remove.notice}</Notice> : null}
      <ErrorBanner error={remove.error} />
      <QueryView
        query={discounts}
        loading="Loading discount codes…"
        keepData
        empty={<p>No discount codes yet. Create one below.</p>}
      >
        {(data) => (
          <>
            <DataTable
              wrap="orders-table-wrap"
              className="row-headed"
              caption="Discount codes, newest first"
              columns={['Code', 'Discount', 'Active', { label: 'Used', num: true }, 'Status', ACTIONS]}
            >
              {data.items.map((discount) => (
                <tr key={discount.id}>
                  <th scope="row">
                    <code>{discount.code}</code>
                  </th>
                  <td>
                    <DiscountValue discount={discount} currency={currency} />
                  </td>
                  <td>
                    {discount.startsAt || discount.endsAt ? (
                      <>
                        {discount.startsAt ? <div>From {formatDateTime(discount.startsAt)}</div> : null}
                        {discount.endsAt ? <div>Until {formatDateTime(discount.endsAt)}</div> : null}
                      </>
                    ) : (
                      'Always'
                    )}
                  </td>
                  <td className="num">
                    {discount.usedCount}
                    {discount.usageLimit !== null ? ` of ${discount.usageLimit}` : ''}
                  </td>
                  <td>
                    <StatusBadge status={discountState(discount)} />
                  </td>
                  <td>
                    <ConfirmButton
                      title={`Delete the code ${discount.code}?`}
                      body={<p>Buyers can no longer use it. Orders that used it keep their discount.</p>}
                      confirmLabel="Delete code"
                      disabled={remove.isPending}
                      onConfirm={() => remove.mutate(discount)}
                    >
                      Delete<span className="visually-hidden"> {discount.code}</span>
                    </ConfirmButton>
                  </td>
                </tr>
              ))}
            </DataTable>
            <Pager pager={pager} nextCursor={data.nextCursor} />
          </>
        )}
      </QueryView>
      <NewDiscount />
    </section>
  );
}

// ---- Tax and shipping by country ----

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

function TaxRates() {
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

export function Pricing() {
  const session = useStaffSession();
  const role = session.data?.staff.role;
  return (
    <>
      <PageHeader title="Discounts, tax & shipping" />
      {role === 'staff' ? (
        // Pricing is for owners and admins (ADMIN_ACCESS): the API refuses a staff member with 403.
        <Notice tone="warning">
          <p>
            Only owners and admins can manage discounts, tax and shipping. Your role is staff. Ask the store
            owner if you need access.
          </p>
        </Notice>
      ) : (
        <>
          <Discounts />
          <TaxRates />
        </>
      )}
    </>
  );
}
