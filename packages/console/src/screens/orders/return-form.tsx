/**
 * "Return items": the form that records a return for a paid order with shipped units not returned
 * yet (a quantity and "Restock" per item, a reason, the refund, and whether the customer is
 * emailed). The refund starts at what the server suggests for the units chosen (their share of what
 * was paid for goods, asked again as the quantities change) and the merchant may change it, up to
 * what is left to refund (0: none).
 */
import { StorefrontError, type AdminOrder } from '@storefront/client';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { useReturnPreview, type ReturnBody, type useCreateReturn } from '../../data/orders.ts';
import { CheckboxField, DataTable, ProblemBanner } from '../../ui/components.tsx';
import { MoneyField } from '../../ui/money-field.tsx';
import { formatMoney } from '../../ui/money.ts';
import {
  errorMessage,
  fieldMessage,
  localProblem,
  unclaimed,
  type FieldMessage,
  type FormProblem,
} from '../../ui/problems.ts';
import {
  linesProblem,
  QuantityField,
  ReasonField,
  refundableAmount,
  returnsOf,
  units,
  withItemNames,
  type UnitsToReturn,
} from './parts.tsx';

/** How long the quantities rest before the suggested refund is asked for again. */
const PREVIEW_DELAY_MS = 400;

// ---- Recording a return ----

/** What is wrong with a typed quantity, or undefined (a whole number from 0 to what can come back). */
function quantityProblem(text: string, left: number): string | undefined {
  if (!/^\d+$/.test(text.trim())) return `Enter a whole number from 0 to ${left}.`;
  if (Number(text) > left) return `At most ${left} can come back: ${units(left)} shipped and not returned.`;
  return undefined;
}

/**
 * The server's refusal in the form's words: `return_exceeds_fulfilled` names variants by id, so
 * they are named as the items are; `refund_too_large` says what is left now (the order was read
 * again); line pointers (`/lines/0/…`, the lines as sent) become the item's (`/lines/<variantId>`).
 */
function serverProblem(
  order: AdminOrder,
  error: unknown,
  sent: ReturnBody | undefined,
  max: string,
): FormProblem {
  if (error instanceof StorefrontError && error.title === 'return_exceeds_fulfilled') {
    const detail = withItemNames(order, error.detail, 'More units than shipped and not returned.');
    return localProblem(
      `${detail} Another return or a cancelled shipment was recorded meanwhile: the quantities below now show what can come back.`,
      [],
    );
  }
  if (error instanceof StorefrontError && error.title === 'refund_too_large') {
    const detail = `That is more than can be refunded now: at most ${max} is left on this order.`;
    return localProblem(detail, [{ pointer: '/refundAmount', detail }]);
  }
  return linesProblem(error, sent);
}

/** `value` once it has stopped changing for `ms` (compared as JSON). */
function useSettled<T>(value: T, ms: number): { settled: T; current: boolean } {
  const text = JSON.stringify(value);
  const [settledText, setSettledText] = useState(text);
  useEffect(() => {
    const timer = setTimeout(() => setSettledText(text), ms);
    return () => clearTimeout(timer);
  }, [text, ms]);
  const settled = useMemo(() => JSON.parse(settledText) as T, [settledText]);
  return { settled, current: settledText === text };
}

export function ReturnForm({
  order,
  rows,
  create,
}: {
  order: AdminOrder;
  rows: UnitsToReturn[];
  /** The section's: its refusal outlives this form, which starts again when what can come back changes. */
  create: ReturnType<typeof useCreateReturn>;
}) {
  const currency = order.total.currency;
  const money = (amount: number) => formatMoney(amount, currency);
  const [quantities, setQuantities] = useState<Record<string, string>>(() =>
    Object.fromEntries(rows.map((row) => [row.variantId, '0'])),
  );
  const [restock, setRestock] = useState<Record<string, boolean>>(() =>
    Object.fromEntries(rows.map((row) => [row.variantId, true])),
  );
  const [reason, setReason] = useState('');
  const [notify, setNotify] = useState(true);
  /** The refund the merchant typed (null: empty), or null while it follows the suggestion. */
  const [typed, setTyped] = useState<{ amount: number | null; problem: string | null } | null>(null);
  const [local, setLocal] = useState<FormProblem | null>(null);

  const wanted = rows.map((row) => ({ row, text: quantities[row.variantId] ?? '0' }));
  const readable = wanted.every(({ row, text }) => row.left === 0 || !quantityProblem(text, row.left));
  const chosen = wanted.filter(
    ({ row, text }) => row.left > 0 && !quantityProblem(text, row.left) && Number(text) > 0,
  );
  const total = chosen.reduce((sum, { text }) => sum + Number(text), 0);

  // The suggested refund of the units chosen, asked once the quantities rest (restocking does not change it).
  const asking = readable && chosen.length > 0;
  const { settled, current } = useSettled(
    asking ? chosen.map(({ row, text }) => ({ variantId: row.variantId, quantity: Number(text) })) : null,
    PREVIEW_DELAY_MS,
  );
  const version = `${order.refunded.amount}:${order.refunds.length}:${returnsOf(order).length}`;
  const preview = useReturnPreview(order.id, settled, version);
  const waiting = asking && (!current || preview.isFetching);
  // While the next answer is on its way the last one stays in the field (no flicker as one types).
  const suggestion = asking && preview.data ? preview.data.refundAmount.amount : null;
  const refundable = preview.data?.refundable.amount ?? refundableAmount(order);
  const max = money(refundable);
  const amount = typed ? typed.amount : suggestion;

  const problem =
    local ?? (create.isError ? serverProblem(order, create.error, create.variables, max) : null);
  const shown = new Set(['/reason', '/refundAmount', ...rows.map((row) => `/lines/${row.variantId}`)]);
  const others: FieldMessage[] = problem ? unclaimed(problem, (pointer) => shown.has(pointer)) : [];
  let amountProblem: string | undefined;
  if (amount !== null && amount > refundable)
    amountProblem = `That is more than can be refunded: at most ${max} is left on this order.`;
  else amountProblem = fieldMessage(problem, '/refundAmount', 'The refund');

  function edited() {
    setLocal(null);
    if (create.isError) create.reset();
  }

  function check(): FormProblem | null {
    const fields: FieldMessage[] = [];
    for (const { row, text } of wanted) {
      const detail = row.left === 0 ? undefined : quantityProblem(text, row.left);
      if (detail) fields.push({ pointer: `/lines/${row.variantId}`, detail });
    }
    if (typed?.problem) fields.push({ pointer: '/refundAmount', detail: typed.problem });
    else if (amount !== null && amount > refundable)
      fields.push({
        pointer: '/refundAmount',
        detail: `That is more than can be refunded: at most ${max} is left on this order.`,
      });
    if (fields.length > 0)
      return localProblem('Some fields need a look before this return can be recorded.', fields);
    if (total === 0) return localProblem('Choose at least one unit that came back.', []);
    return null;
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const found = check();
    setLocal(found);
    if (found) return;
    const note = reason.trim();
    create.mutate({
      lines: chosen.map(({ row, text }) => ({
        variantId: row.variantId,
        quantity: Number(text),
        restock: restock[row.variantId] ?? true,
      })),
      ...(note ? { reason: note } : {}),
      // Left as suggested (or emptied), the server refunds the units' share itself: the same amount,
      // and never more than is left should someone refund meanwhile.
      ...(typed && typed.amount !== null ? { refundAmount: typed.amount } : {}),
      notifyCustomer: notify,
    });
  }

  let status = '';
  if (waiting) status = 'Working out the refund for these units…';
  else if (asking && preview.isError)
    status = `The suggested refund could not be worked out: ${errorMessage(preview.error)} Enter the amount, or leave it empty.`;
  else if (suggestion !== null)
    status = `Suggested: ${money(suggestion)}, these units’ share of what was paid for the goods.`;

  return (
    <form onSubmit={submit} noValidate>
      <ProblemBanner problem={problem} others={others} />
      <DataTable
        wrap="orders-table-wrap fulfil-lines-wrap"
        className="fulfil-lines return-lines"
        caption="The units of each item that came back"
        columns={[
          'Item',
          { label: 'Shipped', num: true },
          { label: 'Returned', num: true },
          { label: 'Coming back', num: true },
          'Restock',
        ]}
      >
        {wanted.map(({ row, text }) => (
          <tr key={row.variantId}>
            <td>{row.name}</td>
            <td className="num">{row.shipped}</td>
            <td className="num">{row.returned}</td>
            {row.left === 0 ? (
              <td className="num" colSpan={2}>
                <span className="muted">{row.shipped === 0 ? 'Not shipped' : 'All returned'}</span>
              </td>
            ) : (
              <>
                <td className="num">
                  <QuantityField
                    label={`Units of ${row.name} to return (0 to ${row.left})`}
                    text={text}
                    error={
                      quantityProblem(text, row.left) ??
                      fieldMessage(problem, `/lines/${row.variantId}`, 'The quantity')
                    }
                    onChange={(value) => {
                      edited();
                      setQuantities((currentQuantities) => ({
                        ...currentQuantities,
                        [row.variantId]: value,
                      }));
                    }}
                  />
                </td>
                <td>
                  <label className="checkbox">
                    <input
                      type="checkbox"
                      checked={restock[row.variantId] ?? true}
                      onChange={(event) => {
                        const checked = event.target.checked;
                        setRestock((currentRestock) => ({ ...currentRestock, [row.variantId]: checked }));
                      }}
                    />
                    <span className="visually-hidden">Restock {row.name}</span>
                  </label>
                </td>
              </>
            )}
          </tr>
        ))}
      </DataTable>
      <p className="hint">
        Restocked units go back on hand, for sale again; leave it unticked for damaged ones.
      </p>
      <div className="orders-form-grid">
        <div>
          <MoneyField
            label="Refund amount"
            currency={currency}
            value={amount}
            optional
            name="refundAmount"
            hint={`Most you can refund: ${max}. 0 refunds nothing; left empty, the units’ share of what was paid.`}
            error={amountProblem}
            onChange={(next, parseProblem) => {
              edited();
              setTyped({ amount: next, problem: parseProblem });
            }}
          />
          <p className="hint return-suggestion" aria-live="polite">
            {status}
          </p>
          {typed && suggestion !== null && !waiting && typed.amount !== suggestion ? (
            <div className="actions quick-amounts">
              <button
                type="button"
                className="link"
                onClick={() => {
                  edited();
                  setTyped(null);
                }}
              >
                Refund the suggested {money(suggestion)}
              </button>
            </div>
          ) : null}
        </div>
        <ReasonField
          label="Reason for the return (optional)"
          value={reason}
          error={fieldMessage(problem, '/reason', 'The reason')}
          onChange={(text) => {
            edited();
            setReason(text);
          }}
        />
      </div>
      <CheckboxField
        label="Email the customer that the return was received"
        checked={notify}
        onChange={(event) => setNotify(event.target.checked)}
      />
      <button type="submit" className="primary" disabled={create.isPending}>
        {create.isPending ? 'Recording the return…' : total > 0 ? `Return ${units(total)}` : 'Return items'}
      </button>
    </form>
  );
}
