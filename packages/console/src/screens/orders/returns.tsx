/**
 * Returns on an order's page (docs/fulfillment.md, decision `returns`): the units that came back, each return with
 * its items, whether they were restocked and what it refunded; and "Return items", the section of
 * the form that records one (return-form.tsx).
 */
import type { AdminOrder } from '@storefront/client';
import { useId } from 'react';
import { useCreateReturn, type OrderReturn, type ReturnBody } from '../../data/orders.ts';
import { useStaffSession } from '../../data/staff.ts';
import { Notice, StatusBadge } from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import { formatMoney } from '../../ui/money.ts';
import { returnsOf, units, unitsToReturn, variantName } from './parts.tsx';
import { ReturnForm } from './return-form.tsx';

// ---- The returns recorded ----

function ReturnItem({ order, back, index }: { order: AdminOrder; back: OrderReturn; index: number }) {
  const titleId = useId();
  const refund = back.refundId
    ? order.refunds.find((candidate) => candidate.id === back.refundId)
    : undefined;
  return (
    <li className="shipment" aria-labelledby={titleId}>
      <h3 id={titleId}>Return {index + 1}</h3>
      <ul className="shipment-lines">
        {back.lines.map((line) => (
          <li key={line.variantId}>
            {line.quantity} × {variantName(order, line.variantId)} ·{' '}
            {line.restock ? 'restocked' : <span className="muted">not restocked</span>}
          </li>
        ))}
      </ul>
      <p>
        {back.refundAmount.amount > 0 ? (
          <>
            Refund of {formatMoney(back.refundAmount.amount, back.refundAmount.currency)}
            {refund ? (
              <>
                {' '}
                <StatusBadge status={refund.status} />
              </>
            ) : null}
          </>
        ) : (
          <span className="muted">Nothing refunded</span>
        )}
      </p>
      {back.reason ? <p>Reason: {back.reason}</p> : null}
      <p className="muted">
        Received <time dateTime={back.createdAt}>{formatDateTime(back.createdAt)}</time>
      </p>
    </li>
  );
}

/** The order's returns, oldest first; nothing while it has none. */
function Returns({ order }: { order: AdminOrder }) {
  const titleId = useId();
  const returns = returnsOf(order);
  if (returns.length === 0) return null;
  return (
    <section className="panel orders-panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Returns</h2>
      <ol className="orders-plain-list shipments">
        {returns.map((back, index) => (
          <ReturnItem key={back.id} order={order} back={back} index={index} />
        ))}
      </ol>
    </section>
  );
}

/** What a recorded return says (above the form, which starts again from what can come back). */
function returnedNotice(back: OrderReturn, body: ReturnBody): string {
  const count = back.lines.reduce((sum, line) => sum + line.quantity, 0);
  const restocked = back.lines.filter((line) => line.restock).reduce((sum, line) => sum + line.quantity, 0);
  let stock = 'not restocked';
  if (restocked === count) stock = 'restocked';
  else if (restocked > 0) stock = `${restocked} restocked`;
  const refund =
    back.refundAmount.amount > 0
      ? `A refund of ${formatMoney(back.refundAmount.amount, back.refundAmount.currency)} is on its way; it settles when the payment provider confirms it.`
      : 'Nothing was refunded.';
  const mail = body.notifyCustomer === false ? 'The customer was not emailed.' : 'The customer is emailed.';
  return `Return recorded: ${units(count)}, ${stock}. ${refund} ${mail}`;
}

/**
 * "Return items": for a paid order with units shipped and not returned yet. A return refunds money,
 * so it takes the admin role (as a refund does): a staff member reads that instead of the form.
 */
function ReturnSection({ order, create }: { order: AdminOrder; create: ReturnType<typeof useCreateReturn> }) {
  const session = useStaffSession();
  const titleId = useId();
  const done = create.isSuccess ? returnedNotice(create.data, create.variables) : null;
  const rows = unitsToReturn(order);
  const left = rows.reduce((sum, row) => sum + row.left, 0);
  if (order.status !== 'paid' || (left === 0 && !done)) return null;
  return (
    <section className="panel orders-panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Return items</h2>
      {done ? <Notice tone="success">{done}</Notice> : null}
      {left === 0 ? (
        <p className="muted">Every unit shipped has come back.</p>
      ) : session.data?.staff.role === 'staff' ? (
        <p className="muted">Only the store&apos;s owners and admins can record returns.</p>
      ) : (
        // What can come back changes with every return and shipment: the form starts again from it.
        <ReturnForm
          key={rows.map((row) => `${row.variantId}:${row.left}`).join(',')}
          order={order}
          rows={rows}
          create={create}
        />
      )}
    </section>
  );
}

/** The order's returns and the form that records one. */
export function OrderReturns({ order }: { order: AdminOrder }) {
  const create = useCreateReturn(order.id);
  return (
    <>
      <Returns order={order} />
      <ReturnSection order={order} create={create} />
    </>
  );
}
