/**
 * A draft's totals as the server priced them (never worked out here), and what is done with an
 * open draft: send the invoice (a pending order holding its stock until a time, a mail with the
 * link to pay), mark it paid with a payment taken outside (a paid order at once), delete it. Each
 * refusal shows the API's own message (409 `draft_order_not_open`, `insufficient_stock` …).
 */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import {
  useDeleteDraftOrder,
  usePlaceDraftOrder,
  useUpdateDraftOrder,
  type DraftOrder,
  type DraftOrderPlaced,
} from '../../data/draft-orders.ts';
import { useOrder } from '../../data/orders.ts';
import { ConfirmButton, ErrorBanner, ProblemBanner, StatusBadge, TextField } from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import { formatMoney } from '../../ui/money.ts';
import { fieldMessage, toFormProblem, unclaimed, type FormProblem } from '../../ui/problems.ts';
import { localInputToIso } from '../integrations-parts.tsx';

export function Totals({ draft }: { draft: DraftOrder }) {
  const { totals } = draft;
  const money = (value: { amount: number; currency: string }) => formatMoney(value.amount, value.currency);
  return (
    <section className="panel orders-panel draft-totals" aria-labelledby="draft-totals-title">
      <h2 id="draft-totals-title">Totals</h2>
      <p className="hint">Priced by the server as checkout would charge for the same lines now.</p>
      <dl className="totals" aria-live="polite">
        <dt>Subtotal</dt>
        <dd data-total="subtotal">{money(totals.subtotal)}</dd>
        <dt>Discounts</dt>
        <dd data-total="discount">
          {totals.discount.amount > 0 ? `−${money(totals.discount)}` : money(totals.discount)}
        </dd>
        <dt>Shipping{draft.shipping ? ` (${draft.shipping.name})` : ''}</dt>
        <dd data-total="shipping">{money(totals.shipping)}</dd>
        <dt>Tax{totals.taxIncluded ? ' (included)' : ''}</dt>
        <dd data-total="tax">{money(totals.tax)}</dd>
        <dt className="total">Total</dt>
        <dd className="total" data-total="total">
          {money(totals.total)}
        </dd>
      </dl>
      {draft.promotions.length > 0 || draft.discount ? (
        <ul className="orders-plain-list draft-discounts" aria-label="Discounts applied">
          {draft.promotions.map((promotion) => (
            <li key={promotion.id}>
              Promotion {promotion.name}: −{money(promotion.amount)}
              {promotion.shipping.amount > 0 ? `, shipping −${money(promotion.shipping)}` : ''}
            </li>
          ))}
          {draft.discount ? (
            <li>
              Staff discount ({draft.discount.reason}): −{money(draft.discount.amount)}
            </li>
          ) : null}
        </ul>
      ) : null}
    </section>
  );
}

/**
 * The order a draft made: its number, status and (while unpaid) until when it holds its stock. An
 * invoice still unpaid can be marked paid when the money came another way (a bank transfer): the
 * pending order is paid with a payment taken outside (decision `draft-order-mark-paid`).
 */
export function DraftOrderOutcome({
  draft,
  canComplete,
  onPlaced,
  onRefused,
}: {
  draft: DraftOrder;
  canComplete: boolean;
  onPlaced: (placed: DraftOrderPlaced) => void;
  onRefused: (error: unknown) => void;
}) {
  const order = useOrder(draft.orderId ?? '');
  const completeKey = useIdempotencyKey();
  const complete = usePlaceDraftOrder(draft.id, 'complete');
  if (!draft.orderId) return null;
  const data = order.data;
  const awaiting = draft.status === 'invoiced' && data?.status === 'pending';
  return (
    <section className="panel orders-panel" aria-labelledby="draft-outcome-title">
      <h2 id="draft-outcome-title">{draft.status === 'invoiced' ? 'Invoice' : 'Order'}</h2>
      {draft.status === 'invoiced' ? (
        <p>
          The invoice was mailed to {draft.email} with a link to pay.{' '}
          {data?.status === 'pending' && data.expiresAt ? (
            <>
              The order holds its stock until{' '}
              <time dateTime={data.expiresAt} data-reserve-until>
                {formatDateTime(data.expiresAt)}
              </time>
              .
            </>
          ) : null}
        </p>
      ) : (
        <p>Marked as paid with a payment taken outside: the order is paid.</p>
      )}
      <p>
        <Link to={`/orders/${draft.orderId}`}>{data ? `View order #${data.number}` : 'View the order'}</Link>{' '}
        {data ? <StatusBadge status={data.status} /> : null}
      </p>
      {awaiting && canComplete ? (
        <div className="actions">
          <ConfirmButton
            danger={false}
            title="Mark as paid?"
            body={
              <p>
                Records a payment of {formatMoney(data.total.amount, data.total.currency)} taken outside (bank
                transfer, cash) for order #{data.number}: it is paid at once, its held stock sold, and the
                link to pay no longer takes a payment.
              </p>
            }
            confirmLabel="Mark as paid"
            disabled={complete.isPending}
            onConfirm={() => {
              onRefused(null);
              complete.mutateAsync(completeKey).then(onPlaced, onRefused);
            }}
          >
            {complete.isPending ? 'Marking as paid…' : 'Mark as paid'}
          </ConfirmButton>
        </div>
      ) : null}
      <ErrorBanner error={order.error} />
    </section>
  );
}

/** What an invoice or a completion answered, shown until the page is left. */
export function PlacedNotice({ placed }: { placed: DraftOrderPlaced }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), []);
  const total = formatMoney(placed.order.total.amount, placed.order.total.currency);
  return (
    <div ref={ref} tabIndex={-1} className="banner success focus-target" role="status">
      {placed.payUrl ? (
        <p>
          Invoice sent to {placed.draftOrder.email}: order #{placed.order.number} for {total} awaits payment
          and holds its stock until {formatDateTime(placed.order.expiresAt)}.
        </p>
      ) : (
        <p>
          Marked as paid: order #{placed.order.number} for {total} is paid.
        </p>
      )}
      <p>
        <Link to={`/orders/${placed.order.id}`}>Open order #{placed.order.number}</Link>
      </p>
    </div>
  );
}

/** A new key per open draft: a retry of the same placing answers with the same order. */
function useIdempotencyKey(): string {
  const [key] = useState(() => crypto.randomUUID());
  return key;
}

export function DraftActions({
  draft,
  canComplete,
  onPlaced,
  onRefused,
  onDeleted,
}: {
  draft: DraftOrder;
  /** Only owners and admins record a payment taken outside. */
  canComplete: boolean;
  onPlaced: (placed: DraftOrderPlaced) => void;
  /**
   * A refusal (shown by the page: a refused placing reads the draft again, which may have been
   * placed meanwhile, and this panel then goes).
   */
  onRefused: (error: unknown) => void;
  onDeleted: () => void;
}) {
  const titleId = useId();
  const invoiceKey = useIdempotencyKey();
  const completeKey = useIdempotencyKey();
  const complete = usePlaceDraftOrder(draft.id, 'complete');
  const remove = useDeleteDraftOrder(draft.id, onDeleted);
  const total = formatMoney(draft.totals.total.amount, draft.totals.total.currency);
  const cannot = draft.lines.length === 0 || draft.unavailable.length > 0;
  return (
    <section className="panel orders-panel draft-actions" aria-labelledby={titleId}>
      <h2 id={titleId}>Place the order</h2>
      {draft.unavailable.length > 0 ? (
        <p className="field-error">
          Some items are no longer sold: remove them (change any line) before placing the order.
        </p>
      ) : null}
      <div className="actions">
        <InvoiceButton draft={draft} idempotencyKey={invoiceKey} disabled={cannot} onPlaced={onPlaced} />
        <ConfirmButton
          danger={false}
          title="Mark as paid?"
          body={
            <p>
              Records a payment of {total} taken outside (bank transfer, cash): the order is made paid at
              once, its stock sold, and {draft.email} gets the order confirmation. The draft can no longer
              change.
            </p>
          }
          confirmLabel="Mark as paid"
          disabled={!canComplete || cannot || complete.isPending}
          onConfirm={() => {
            onRefused(null);
            // Promises, not mutate's callbacks: the answer re-renders the page without this panel.
            complete.mutateAsync(completeKey).then(onPlaced, onRefused);
          }}
        >
          {complete.isPending ? 'Marking as paid…' : 'Mark as paid'}
        </ConfirmButton>
        <ConfirmButton
          title="Delete this draft?"
          body={<p>The draft for {draft.email} is deleted; no order is made and nobody is told.</p>}
          confirmLabel="Delete draft"
          disabled={remove.isPending}
          onConfirm={() => {
            onRefused(null);
            remove.mutateAsync().catch(onRefused);
          }}
        >
          Delete
        </ConfirmButton>
      </div>
      {canComplete ? null : (
        <p className="hint">Only owners and admins mark a draft paid. Your role is staff.</p>
      )}
    </section>
  );
}

/**
 * "Send invoice": a dialog that says what happens and asks until when the stock is held (empty: 3
 * days, at most 30), then sets `reserveUntil` (when given) and invoices. A refusal stays in the
 * dialog, at its field or as the API's message.
 */
function InvoiceButton({
  draft,
  idempotencyKey,
  disabled,
  onPlaced,
}: {
  draft: DraftOrder;
  idempotencyKey: string;
  disabled: boolean;
  onPlaced: (placed: DraftOrderPlaced) => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [until, setUntil] = useState('');
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const update = useUpdateDraftOrder(draft.id);
  const invoice = usePlaceDraftOrder(draft.id, 'invoice');
  const busy = update.isPending || invoice.isPending;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setProblem(null);
    try {
      const reserveUntil = localInputToIso(until);
      if (reserveUntil !== null || draft.reserveUntil !== null) await update.mutateAsync({ reserveUntil });
      const placed = await invoice.mutateAsync(idempotencyKey);
      dialog.current?.close();
      onPlaced(placed);
    } catch (error) {
      setProblem(toFormProblem(error));
    }
  }

  return (
    <>
      <button
        type="button"
        className="primary"
        disabled={disabled || busy}
        onClick={() => {
          setProblem(null);
          dialog.current?.showModal();
        }}
      >
        {busy ? 'Sending invoice…' : 'Send invoice'}
      </button>
      <dialog ref={dialog} aria-labelledby={titleId} className="confirm">
        <form onSubmit={(event) => void submit(event)} noValidate>
          <h2 id={titleId}>Send the invoice?</h2>
          <ProblemBanner
            problem={problem}
            others={problem ? unclaimed(problem, (pointer) => pointer === '/reserveUntil') : []}
          />
          <p>
            {draft.email} gets a mail with a link to pay{' '}
            {formatMoney(draft.totals.total.amount, draft.totals.total.currency)}. The order holds its stock
            meanwhile; unpaid by then, it expires and the stock goes back. The draft can no longer change.
          </p>
          <TextField
            label="Hold the stock until (optional)"
            type="datetime-local"
            value={until}
            hint="In your time zone. Empty: 3 days from now; at most 30 days ahead."
            error={fieldMessage(problem, '/reserveUntil', 'The time')}
            onChange={(event) => setUntil(event.target.value)}
          />
          <div className="actions">
            <button type="button" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
            <button type="submit" className="primary" disabled={busy}>
              {busy ? 'Sending…' : 'Send invoice'}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}
