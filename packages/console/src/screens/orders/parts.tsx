/**
 * The order screen's own parts: what an order can still refund, ship and take back, and the fields
 * its forms share. (Rates in basis points are parsed and shown with money, in ui/money.ts.)
 */
import type { AdminOrder } from '@storefront/client';
import { useId } from 'react';
import type { OrderMail, OrderReturn } from '../../data/orders.ts';
import { TextAreaField } from '../../ui/components.tsx';
import { toFormProblem, type FormProblem } from '../../ui/problems.ts';

// ---- Refunds ----

/**
 * What can still be refunded on an order: the captured payment, and what gift cards paid of an
 * order that was paid, minus refunds made or pending (the server's rule, decisions `refund-path`
 * and `gift-card-tender`). Zero when nothing was captured.
 */
export function refundableAmount(order: AdminOrder): number {
  const byCards =
    order.paidAt === null ? 0 : order.giftCards.reduce((sum, card) => sum + card.amount.amount, 0);
  const captured =
    order.payments
      .filter((payment) => payment.status === 'succeeded')
      .reduce((sum, payment) => sum + payment.amount.amount, 0) + byCards;
  if (captured === 0) return 0;
  const held = order.refunds
    .filter((refund) => refund.status === 'pending' || refund.status === 'succeeded')
    .reduce((sum, refund) => sum + refund.amount.amount, 0);
  return Math.max(0, captured - held);
}

/**
 * The optional reason staff give for a refund, cancellation or return: seen by staff only, and at
 * most 500 characters (the server's limit).
 */
export function ReasonField({
  label,
  value,
  error,
  onChange,
}: {
  /** "Reason for cancelling (optional)". */
  label: string;
  value: string;
  error: string | undefined;
  onChange: (text: string) => void;
}) {
  return (
    <div className="refund-reason">
      <TextAreaField
        label={label}
        hint="Only staff see this; the buyer does not."
        maxLength={500}
        rows={2}
        value={value}
        error={error}
        onChange={(event) => onChange(event.target.value)}
      />
    </div>
  );
}

// ---- Fulfilment ----

/** A variant of the order as its shipments name it: "Blue mug (Large)". */
export function variantName(order: Pick<AdminOrder, 'lines'>, variantId: string): string {
  const line = order.lines.find((l) => l.variantId === variantId);
  if (!line) return 'An item no longer on this order';
  return line.variantLabel ? `${line.title} (${line.variantLabel})` : line.title;
}

/** One variant of an order: ordered, shipped by the shipments that count (not cancelled), left. */
export interface UnitsToShip {
  variantId: string;
  name: string;
  ordered: number;
  shipped: number;
  left: number;
}

/** What each variant of the order has left to ship (the server's rule, decision `fulfilments`), in the order's line order. */
export function unitsToShip(order: Pick<AdminOrder, 'lines' | 'fulfillments'>): UnitsToShip[] {
  const shipped = new Map<string, number>();
  for (const fulfillment of order.fulfillments) {
    if (fulfillment.status === 'cancelled') continue;
    for (const line of fulfillment.lines)
      shipped.set(line.variantId, (shipped.get(line.variantId) ?? 0) + line.quantity);
  }
  const rows = new Map<string, UnitsToShip>();
  for (const line of order.lines) {
    const row = rows.get(line.variantId) ?? {
      variantId: line.variantId,
      name: variantName(order, line.variantId),
      ordered: 0,
      shipped: shipped.get(line.variantId) ?? 0,
      left: 0,
    };
    row.ordered += line.quantity;
    row.left = Math.max(0, row.ordered - row.shipped);
    rows.set(line.variantId, row);
  }
  return [...rows.values()];
}

// ---- Returns ----

/** The order's returns, oldest first (an order from a server older than returns has none). */
export function returnsOf(order: AdminOrder): OrderReturn[] {
  return (order as Partial<AdminOrder>).returns ?? [];
}

/** The buyer's mails about the order, oldest first (none from a server older than them). */
export function mailsOf(order: AdminOrder): OrderMail[] {
  return (order as Partial<AdminOrder>).mails ?? [];
}

/** One variant of an order: shipped (not cancelled), returned already, and what can still come back. */
export interface UnitsToReturn {
  variantId: string;
  name: string;
  shipped: number;
  returned: number;
  left: number;
}

/** What each variant of the order can still be returned (shipped minus returned), in line order. */
export function unitsToReturn(order: AdminOrder): UnitsToReturn[] {
  const returned = new Map<string, number>();
  for (const back of returnsOf(order)) {
    for (const line of back.lines)
      returned.set(line.variantId, (returned.get(line.variantId) ?? 0) + line.quantity);
  }
  return unitsToShip(order).map((row) => {
    const back = returned.get(row.variantId) ?? 0;
    return {
      variantId: row.variantId,
      name: row.name,
      shipped: row.shipped,
      returned: back,
      left: Math.max(0, row.shipped - back),
    };
  });
}

/** How many units a shipment holds. */
export function unitsIn(fulfillment: AdminOrder['fulfillments'][number]): number {
  return fulfillment.lines.reduce((sum, line) => sum + line.quantity, 0);
}

/**
 * A refusal's detail (or `fallback`) with the variants it names by id ("variant 0f…") named as the
 * order's items are ("Blue mug (Large)").
 */
export function withItemNames(order: AdminOrder, detail: string | undefined, fallback: string): string {
  return (detail ?? fallback).replace(/variant ([0-9a-f-]{36})/gi, (_, variantId: string) =>
    variantName(order, variantId.toLowerCase()),
  );
}

/**
 * The server's refusal of the lines a form sent (fulfil, return): line pointers (`/lines/0/…`, the
 * lines as sent) become the item's (`/lines/<variantId>`), where the form shows them.
 */
export function linesProblem(
  error: unknown,
  sent: { lines: readonly { variantId: string }[] } | undefined,
): FormProblem {
  return toFormProblem(error, (pointer) => {
    const line = /^\/lines\/(\d+)(\/.*)?$/.exec(pointer);
    const variantId = line ? sent?.lines[Number(line[1])]?.variantId : undefined;
    return variantId ? `/lines/${variantId}` : pointer;
  });
}

/** "3 units" or "1 unit". */
export function units(count: number): string {
  return `${count} ${count === 1 ? 'unit' : 'units'}`;
}

/**
 * How many units of one item (to ship, or that came back), its label heard (not shown: the row
 * names the item). Shared by the fulfil and return forms.
 */
export function QuantityField({
  label,
  text,
  error,
  onChange,
}: {
  /** "Units of Blue mug (Large) to ship (0 to 3)". */
  label: string;
  text: string;
  error: string | undefined;
  onChange: (text: string) => void;
}) {
  const id = useId();
  return (
    <div className={`field${error ? ' invalid' : ''}`}>
      <label className="visually-hidden" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        inputMode="numeric"
        autoComplete="off"
        value={text}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(event) => onChange(event.target.value)}
      />
      {error ? (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}
