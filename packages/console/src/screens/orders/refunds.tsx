/** An order's refunds, and the form that refunds what is left of a captured payment. */
import { StorefrontError, type AdminOrder } from '@storefront/client';
import { useId, useRef, useState, type FormEvent } from 'react';
import { useRefundOrder } from '../../data/orders.ts';
import { useStaffSession } from '../../data/staff.ts';
import { ErrorBanner, Notice, StatusBadge } from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import { MoneyField } from '../../ui/money-field.tsx';
import { formatMoney } from '../../ui/money.ts';
import { messageAt } from '../../ui/problems.ts';
import { ReasonField, refundableAmount, returnsOf } from './parts.tsx';

export function Refunds({ order }: { order: AdminOrder }) {
  if (order.refunds.length === 0) return null;
  const returned = new Set(returnsOf(order).map((back) => back.refundId));
  return (
    <section className="panel orders-panel" aria-labelledby="refunds-title">
      <h2 id="refunds-title">Refunds</h2>
      <ul className="orders-plain-list refunds">
        {order.refunds.map((refund) => (
          <li key={refund.id}>
            <StatusBadge status={refund.status} />{' '}
            <strong>{formatMoney(refund.amount.amount, refund.amount.currency)}</strong>{' '}
            <span className="muted">
              requested <time dateTime={refund.createdAt}>{formatDateTime(refund.createdAt)}</time>
              {refund.settledAt ? (
                <>
                  , {refund.status === 'succeeded' ? 'settled' : 'closed'}{' '}
                  <time dateTime={refund.settledAt}>{formatDateTime(refund.settledAt)}</time>
                </>
              ) : null}
            </span>
            {refund.note ? <div>Reason: {refund.note}</div> : null}
            {refund.giftCards ? (
              <div className="muted">Paid back to the order&apos;s gift cards (settled at once).</div>
            ) : null}
            {refund.reason === 'expired_out_of_stock' ? (
              <div className="muted">Automatic: paid after the order expired, and the stock was gone.</div>
            ) : null}
            {refund.reason === 'order_cancelled' ? (
              <div className="muted">Made by the order&apos;s cancellation.</div>
            ) : null}
            {returned.has(refund.id) ? <div className="muted">For returned items (see Returns).</div> : null}
            {refund.status === 'pending' ? (
              <div className="muted">Waiting for the payment provider to confirm it.</div>
            ) : null}
            {refund.lastError && refund.status !== 'succeeded' ? (
              <div className="field-error">Provider: {refund.lastError}</div>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

function RefundForm({
  order,
  refundable,
  done,
  setDone,
}: {
  order: AdminOrder;
  refundable: number;
  /** The last refund made here, kept by the section (it outlives the form once nothing is left). */
  done: string | null;
  setDone: (text: string | null) => void;
}) {
  const currency = order.total.currency;
  const [amount, setAmount] = useState<number | null>(null);
  const [typing, setTyping] = useState<string | null>(null);
  const [reason, setReason] = useState('');
  const [tried, setTried] = useState(false);
  const amountBox = useRef<HTMLDivElement>(null);
  const titleId = useId();

  // Done or refused, the order is read again (the form's `max` is then what is left).
  const refund = useRefundOrder(order.id, {
    onSuccess: (started) => {
      const toCards = started.refund.giftCards ? started.refund : started.giftCardRefund;
      const toProvider = started.refund.giftCards ? null : started.refund;
      setDone(
        [
          toCards
            ? `${formatMoney(toCards.amount.amount, toCards.amount.currency)} went back to the gift cards.`
            : '',
          toProvider
            ? `Refund of ${formatMoney(toProvider.amount.amount, toProvider.amount.currency)} requested. It settles when the payment provider confirms it.`
            : '',
        ]
          .filter(Boolean)
          .join(' '),
      );
      setAmount(null);
      setReason('');
      setTried(false);
    },
  });

  const max = formatMoney(refundable, currency);
  let serverProblem: string | undefined;
  if (refund.error instanceof StorefrontError && refund.error.title === 'refund_too_large') {
    // Someone refunded meanwhile: the order was fetched again, and `max` is what is left now.
    serverProblem = `That is more than can be refunded now: at most ${max} is left on this order.`;
  } else {
    serverProblem = messageAt(refund.error, '/amount');
  }
  let problem: string | undefined;
  if (typing) problem = typing;
  else if (serverProblem) problem = serverProblem;
  else if (amount !== null && amount > refundable)
    problem = `That is more than can be refunded: at most ${max} is left on this order.`;
  else if (amount === 0) problem = 'Enter an amount greater than zero.';
  else if (amount === null && tried) problem = 'Enter the amount to refund.';
  const reasonProblem = messageAt(refund.error, '/reason');
  const fieldLevel = Boolean(serverProblem ?? reasonProblem);

  function submit(event: FormEvent) {
    event.preventDefault();
    setTried(true);
    setDone(null);
    if ((problem && !serverProblem) || amount === null || amount <= 0 || amount > refundable) {
      amountBox.current?.querySelector('input')?.focus();
      return;
    }
    const note = reason.trim();
    refund.mutate({ amount, ...(note ? { reason: note } : {}) });
  }

  return (
    <section className="panel orders-panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Refund</h2>
      {done ? <Notice tone="success">{done}</Notice> : null}
      <form onSubmit={submit} noValidate>
        <div ref={amountBox}>
          <MoneyField
            label="Amount to refund"
            currency={currency}
            value={amount}
            optional
            name="amount"
            hint={`At most ${max}: the amount paid minus refunds made or pending.`}
            error={problem}
            onChange={(next, parseProblem) => {
              // On a typing problem the field keeps the last good amount; the problem blocks the refund.
              setTyping(parseProblem);
              setAmount(next);
              if (refund.isError) refund.reset();
            }}
          />
        </div>
        <div className="actions quick-amounts">
          <button
            type="button"
            className="link"
            onClick={() => {
              setTyping(null);
              setAmount(refundable);
              if (refund.isError) refund.reset();
            }}
          >
            Refund everything left ({max})
          </button>
        </div>
        <ReasonField label="Reason (optional)" value={reason} error={reasonProblem} onChange={setReason} />
        {refund.isError && !fieldLevel ? <ErrorBanner error={refund.error} /> : null}
        <button type="submit" className="primary" disabled={refund.isPending}>
          {refund.isPending
            ? 'Refunding…'
            : amount !== null && amount > 0 && amount <= refundable
              ? `Refund ${formatMoney(amount, currency)}`
              : 'Refund'}
        </button>
      </form>
    </section>
  );
}

export function RefundSection({ order }: { order: AdminOrder }) {
  const session = useStaffSession();
  const [done, setDone] = useState<string | null>(null);
  const refundable = refundableAmount(order);
  const captured = order.payments.some((payment) => payment.status === 'succeeded');
  if (!captured) return null;
  if (session.data?.staff.role === 'staff') {
    return (
      <section className="panel orders-panel" aria-labelledby="refund-title">
        <h2 id="refund-title">Refund</h2>
        <p className="muted">Only the store&apos;s owners and admins can refund orders.</p>
      </section>
    );
  }
  if (refundable === 0) {
    return (
      <section className="panel orders-panel" aria-labelledby="refund-title">
        <h2 id="refund-title">Refund</h2>
        {done ? <Notice tone="success">{done}</Notice> : null}
        <p className="muted">Everything paid on this order is refunded or being refunded.</p>
      </section>
    );
  }
  return <RefundForm order={order} refundable={refundable} done={done} setDone={setDone} />;
}
