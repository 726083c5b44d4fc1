/** The Pricing screen's discount codes: the list, their states, and the form that creates one. */
import { StorefrontError } from '@storefront/client';
import { useId, useRef, useState, type FormEvent } from 'react';
import { useCreateDiscount, useDeleteDiscount, useDiscounts, type Discount } from '../../data/discounts.ts';
import { useCurrency } from '../../data/settings.ts';
import {
  ACTIONS,
  ConfirmButton,
  DataTable,
  ErrorBanner,
  Notice,
  Pager,
  SelectField,
  StatusBadge,
  TextField,
  useCursorPager,
} from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import { MoneyField } from '../../ui/money-field.tsx';
import { formatMoney, formatPercent } from '../../ui/money.ts';
import { errorMessage, messageAt } from '../../ui/problems.ts';
import { QueryView } from '../../ui/queries.tsx';
import '../orders.css';

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

export function Discounts() {
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
