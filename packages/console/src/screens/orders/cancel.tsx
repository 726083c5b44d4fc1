/**
 * Cancelling an order from its page (docs/fulfillment.md#cancellation): offered for a pending order
 * and for a paid one that has not shipped, after a dialog that says what happens. A pending order's
 * reserved stock is released and its payment cancelled; a paid order is restocked and refunded
 * unless the merchant unticks either. The buyer is emailed; the reason is for staff only.
 */
import type { AdminOrder } from '@storefront/client';
import { useEffect, useId, useRef, useState, type FormEvent, type RefObject } from 'react';
import type { useCancelOrder } from '../../data/orders.ts';
import { useStaffSession } from '../../data/staff.ts';
import { CheckboxField, ErrorBanner } from '../../ui/components.tsx';
import { formatMoney } from '../../ui/money.ts';
import { messageAt } from '../../ui/problems.ts';
import { ReasonField, refundableAmount } from './parts.tsx';

type CancelMutation = ReturnType<typeof useCancelOrder>;

/** How many units the order's lines hold. */
const unitCount = (order: AdminOrder) => order.lines.reduce((sum, line) => sum + line.quantity, 0);

/** "3 items" or "1 item": the units of the order's lines. */
function items(order: AdminOrder): string {
  const count = unitCount(order);
  return `${count} ${count === 1 ? 'item' : 'items'}`;
}

/** What the cancellation did, for the notice above the cancelled order. */
function cancelledNotice(order: AdminOrder, restocked: boolean): string {
  const refund = order.refunds.find(
    (candidate) => candidate.reason === 'order_cancelled' && candidate.status !== 'failed',
  );
  const parts = [`Order #${order.number} cancelled.`];
  if (order.paidAt) {
    if (restocked) parts.push(`Its ${items(order)} ${unitCount(order) === 1 ? 'is' : 'are'} back in stock.`);
    if (refund)
      parts.push(
        `A refund of ${formatMoney(refund.amount.amount, refund.amount.currency)} is on its way; it settles when the payment provider confirms it.`,
      );
  } else {
    parts.push("The reserved stock was released and the buyer's payment cancelled.");
  }
  parts.push('The buyer is emailed.');
  return parts.join(' ');
}

/** The dialog's form: mounted each time the dialog opens, so it starts again from the defaults. */
function CancelForm({
  order,
  cancel,
  dialog,
  onCancelled,
}: {
  order: AdminOrder;
  cancel: CancelMutation;
  dialog: RefObject<HTMLDialogElement | null>;
  /** With what the cancellation did, in words (the page shows it once this section is gone). */
  onCancelled: (notice: string) => void;
}) {
  const paid = order.status === 'paid';
  const refundable = refundableAmount(order);
  const money = formatMoney(refundable, order.total.currency);
  const [restock, setRestock] = useState(true);
  const [refund, setRefund] = useState(true);
  const [reason, setReason] = useState('');
  const reasonProblem = messageAt(cancel.error, '/reason');

  function submit(event: FormEvent) {
    event.preventDefault();
    const note = reason.trim();
    const body = {
      ...(note ? { reason: note } : {}),
      ...(paid ? { restock, refund: refund && refundable > 0 } : {}),
    };
    cancel.mutate(body, {
      onSuccess: (cancelled) => {
        dialog.current?.close();
        onCancelled(cancelledNotice(cancelled, paid && restock));
      },
    });
  }

  return (
    <form onSubmit={submit} noValidate>
      {paid ? (
        <>
          <p>The order will not ship. What happens to what was sold and paid:</p>
          <CheckboxField
            label={`Restock ${items(order)}`}
            hint="Put the units back on hand, for sale again."
            checked={restock}
            onChange={(event) => setRestock(event.target.checked)}
          />
          {refundable > 0 ? (
            <CheckboxField
              label={`Refund ${money}`}
              hint="What was paid minus refunds made or pending. It settles when the payment provider confirms it; unticked, you can still refund later."
              checked={refund}
              onChange={(event) => setRefund(event.target.checked)}
            />
          ) : (
            <p className="muted">Nothing is left to refund: everything paid is refunded or being refunded.</p>
          )}
        </>
      ) : (
        <p>
          The reserved stock is released and the buyer&apos;s payment is cancelled. Should the payment still
          go through, it is refunded in full.
        </p>
      )}
      <ReasonField
        label="Reason for cancelling (optional)"
        value={reason}
        error={reasonProblem}
        onChange={setReason}
      />
      <p>The buyer is emailed that the order was cancelled.</p>
      {cancel.isError && !reasonProblem ? <ErrorBanner error={cancel.error} /> : null}
      <div className="actions">
        <button type="button" onClick={() => dialog.current?.close()}>
          Keep the order
        </button>
        <button type="submit" className="danger" disabled={cancel.isPending}>
          {cancel.isPending ? 'Cancelling…' : 'Cancel order'}
        </button>
      </div>
    </form>
  );
}

/**
 * The confirmation, a native modal <dialog> (focus is trapped, and given back to the button when it
 * closes, by the browser). Its form is there only while it is open: it is shown once it is rendered,
 * so the browser focuses its first field.
 */
function CancelDialog({
  order,
  cancel,
  dialog,
  open,
  onClosed,
  onCancelled,
}: {
  order: AdminOrder;
  cancel: CancelMutation;
  dialog: RefObject<HTMLDialogElement | null>;
  open: boolean;
  onClosed: () => void;
  onCancelled: (notice: string) => void;
}) {
  const titleId = useId();
  useEffect(() => {
    if (open && !dialog.current?.open) dialog.current?.showModal();
  }, [open, dialog]);
  return (
    <dialog
      ref={dialog}
      aria-labelledby={titleId}
      className="confirm cancel-dialog"
      onClose={() => {
        if (cancel.isError) cancel.reset();
        onClosed();
      }}
    >
      <h2 id={titleId}>Cancel order #{order.number}?</h2>
      {open ? <CancelForm order={order} cancel={cancel} dialog={dialog} onCancelled={onCancelled} /> : null}
    </dialog>
  );
}

/**
 * "Cancel order": the button and its dialog for a pending order and a paid one that has not shipped;
 * for a shipped one, why it is not offered. Nothing for a cancelled order (the page's notice says
 * so) or an expired one, unless the dialog is showing why it could not be cancelled: the dialog
 * stays while the order changes under it (a refusal reads the order again).
 */
export function CancelSection({
  order,
  cancel,
  onCancelled,
}: {
  order: AdminOrder;
  /** The page's: its success outlives this section, which goes once the order is cancelled. */
  cancel: CancelMutation;
  onCancelled: (notice: string) => void;
}) {
  const session = useStaffSession();
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  const titleId = useId();
  if (order.status === 'cancelled' || (order.status === 'expired' && !cancel.isError)) return null;
  const allowed = session.data?.staff.role !== 'staff';
  let body;
  if (order.status === 'expired') {
    body = <p className="muted">This order expired unpaid: there is nothing to cancel.</p>;
  } else if (order.status === 'paid' && order.fulfillmentStatus !== 'unfulfilled') {
    body = (
      <p className="muted">
        Shipped orders are returned, not cancelled: record the units that come back under “Return items”. A
        shipment recorded by mistake can be cancelled first.
      </p>
    );
  } else if (!allowed) {
    body = <p className="muted">Only the store&apos;s owners and admins can cancel orders.</p>;
  } else {
    body = (
      <>
        <p>
          {order.status === 'paid'
            ? 'Restocks the items and refunds the buyer, unless you choose otherwise.'
            : "Releases the reserved stock and cancels the buyer's payment."}
        </p>
        <button type="button" className="danger" onClick={() => setOpen(true)}>
          Cancel order…
        </button>
      </>
    );
  }
  return (
    <section className="panel orders-panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Cancel order</h2>
      {body}
      {allowed ? (
        <CancelDialog
          order={order}
          cancel={cancel}
          dialog={dialog}
          open={open}
          onClosed={() => setOpen(false)}
          onCancelled={onCancelled}
        />
      ) : null}
    </section>
  );
}
