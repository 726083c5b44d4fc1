/**
 * "Fulfil items": the form that ships what is left of a paid order (a quantity per item, the
 * carrier, tracking, and whether the customer is emailed).
 */
import { StorefrontError, type AdminOrder } from '@storefront/client';
import { useId, useState, type ChangeEvent, type FormEvent } from 'react';
import type { useFulfil } from '../../data/orders.ts';
import { type Fulfillment, type FulfillmentBody } from '../../data/orders.ts';
import { DataTable, Notice, ProblemBanner } from '../../ui/components.tsx';
import {
  fieldMessage,
  localProblem,
  unclaimed,
  type FieldMessage,
  type FormProblem,
} from '../../ui/problems.ts';
import { CarrierFields, CARRIER_OPTIONS, OTHER, TrackingFields } from './carrier.tsx';
import {
  linesProblem,
  QuantityField,
  units,
  unitsIn,
  unitsToShip,
  withItemNames,
  type UnitsToShip,
} from './parts.tsx';

/** What is wrong with a typed quantity, or undefined (a whole number from 0 to what is left). */
function quantityProblem(text: string, left: number): string | undefined {
  if (!/^\d+$/.test(text.trim())) return `Enter a whole number from 0 to ${left}.`;
  if (Number(text) > left) return `At most ${left} ${left === 1 ? 'is' : 'are'} left to ship.`;
  return undefined;
}

/**
 * The server's refusal in the form's words: a `fulfillment_exceeds_order` names variants by id, so
 * they are named as the items are ("2 of Blue mug (Large), 1 left"); line pointers (`/lines/0/…`,
 * the lines as sent) become the item's (`/lines/<variantId>`).
 */
function serverProblem(order: AdminOrder, error: unknown, sent: FulfillmentBody | undefined): FormProblem {
  if (error instanceof StorefrontError && error.title === 'fulfillment_exceeds_order') {
    const detail = withItemNames(order, error.detail, 'More units than are left to ship.');
    return localProblem(
      `${detail} Another shipment was recorded meanwhile: the quantities below now show what is left.`,
      [],
    );
  }
  return linesProblem(error, sent);
}

function FulfilForm({
  order,
  rows,
  fulfil,
}: {
  order: AdminOrder;
  rows: UnitsToShip[];
  /** The section's: its refusal outlives this form, which starts again when what is left changes. */
  fulfil: ReturnType<typeof useFulfil>;
}) {
  const [quantities, setQuantities] = useState<Record<string, string>>(() =>
    Object.fromEntries(rows.map((row) => [row.variantId, String(row.left)])),
  );
  const [details, setDetails] = useState({
    carrier: '',
    otherCarrier: '',
    trackingNumber: '',
    trackingUrl: '',
  });
  const { carrier, otherCarrier, trackingNumber, trackingUrl } = details;
  const [notify, setNotify] = useState(true);
  const [local, setLocal] = useState<FormProblem | null>(null);

  const wanted = rows.map((row) => ({ row, text: quantities[row.variantId] ?? '' }));
  const total = wanted.reduce(
    (sum, { row, text }) => sum + (quantityProblem(text, row.left) ? 0 : Number(text)),
    0,
  );
  const problem = local ?? (fulfil.isError ? serverProblem(order, fulfil.error, fulfil.variables) : null);
  const shown = new Set([
    '/carrier',
    '/trackingNumber',
    '/trackingUrl',
    ...rows.map((r) => `/lines/${r.variantId}`),
  ]);
  const others: FieldMessage[] = problem ? unclaimed(problem, (pointer) => shown.has(pointer)) : [];

  function edited() {
    setLocal(null);
    if (fulfil.isError) fulfil.reset();
  }

  /** The change handler of a detail's field. */
  const changes =
    (name: keyof typeof details) => (event: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => {
      edited();
      setDetails((current) => ({ ...current, [name]: event.target.value }));
    };

  function check(): FormProblem | null {
    const fields: FieldMessage[] = [];
    for (const { row, text } of wanted) {
      const detail = quantityProblem(text, row.left);
      if (detail) fields.push({ pointer: `/lines/${row.variantId}`, detail });
    }
    if (carrier === OTHER && !otherCarrier.trim())
      fields.push({ pointer: '/carrier', detail: 'Enter the carrier’s name, or choose “None given”.' });
    if (fields.length > 0) return localProblem('Some fields need a look before this can ship.', fields);
    if (total === 0) return localProblem('Choose at least one unit to ship.', []);
    return null;
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const found = check();
    setLocal(found);
    if (found) return;
    const carrierName = carrier === OTHER ? otherCarrier.trim() : carrier;
    fulfil.mutate({
      lines: wanted
        .filter(({ text }) => Number(text) > 0)
        .map(({ row, text }) => ({ variantId: row.variantId, quantity: Number(text) })),
      ...(carrierName ? { carrier: carrierName } : {}),
      ...(trackingNumber.trim() ? { trackingNumber: trackingNumber.trim() } : {}),
      ...(trackingUrl.trim() ? { trackingUrl: trackingUrl.trim() } : {}),
      notifyCustomer: notify,
    });
  }

  return (
    <form onSubmit={submit} noValidate>
      <ProblemBanner problem={problem} others={others} />
      <DataTable
        wrap="orders-table-wrap fulfil-lines-wrap"
        className="fulfil-lines"
        caption="The units of each item to ship now"
        columns={[
          'Item',
          { label: 'Ordered', num: true },
          { label: 'Shipped', num: true },
          { label: 'To ship now', num: true },
        ]}
      >
        {wanted.map(({ row, text }) => (
          <tr key={row.variantId}>
            <td>{row.name}</td>
            <td className="num">{row.ordered}</td>
            <td className="num">{row.shipped}</td>
            <td className="num">
              {row.left === 0 ? (
                <span className="muted">All shipped</span>
              ) : (
                <QuantityField
                  label={`Units of ${row.name} to ship (0 to ${row.left})`}
                  text={text}
                  error={
                    quantityProblem(text, row.left) ??
                    fieldMessage(problem, `/lines/${row.variantId}`, 'The quantity')
                  }
                  onChange={(value) => {
                    edited();
                    setQuantities((current) => ({ ...current, [row.variantId]: value }));
                  }}
                />
              )}
            </td>
          </tr>
        ))}
      </DataTable>
      <div className="orders-form-grid">
        <CarrierFields
          options={CARRIER_OPTIONS}
          carrier={carrier}
          otherCarrier={otherCarrier}
          problem={problem}
          onChange={changes}
        />
        <TrackingFields
          numberLabel="Tracking number (optional)"
          urlLabel="Tracking URL (optional)"
          urlHint="For a carrier in the list, left empty, the link is made from the number."
          trackingNumber={trackingNumber}
          trackingUrl={trackingUrl}
          problem={problem}
          onChange={changes}
        />
      </div>
      <label className="checkbox">
        <input type="checkbox" checked={notify} onChange={(event) => setNotify(event.target.checked)} />
        <span>Email the customer a shipping confirmation with the tracking link</span>
      </label>
      <button type="submit" className="primary" disabled={fulfil.isPending}>
        {fulfil.isPending ? 'Recording the shipment…' : total > 0 ? `Fulfil ${units(total)}` : 'Fulfil items'}
      </button>
    </form>
  );
}

/** What a recorded shipment says (above the form, which starts again from what is left). */
function shippedNotice(fulfillment: Fulfillment, body: FulfillmentBody): string {
  const count = unitsIn(fulfillment);
  const carrier = fulfillment.carrier ? ` with ${fulfillment.carrier}` : '';
  const mail = body.notifyCustomer === false ? 'The customer was not emailed.' : 'The customer is emailed.';
  return `Shipment recorded: ${units(count)}${carrier}. ${mail}`;
}

/** "Fulfil items": for a paid order with units left to ship. */
export function FulfilSection({
  order,
  fulfil,
}: {
  order: AdminOrder;
  fulfil: ReturnType<typeof useFulfil>;
}) {
  const titleId = useId();
  const done = fulfil.isSuccess ? shippedNotice(fulfil.data, fulfil.variables) : null;
  const rows = unitsToShip(order);
  const left = rows.reduce((sum, row) => sum + row.left, 0);
  if (order.status !== 'paid' || (left === 0 && !done)) return null;
  return (
    <section className="panel orders-panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Fulfil items</h2>
      {done ? <Notice tone="success">{done}</Notice> : null}
      {left === 0 ? (
        <p className="muted">Every unit of this order has shipped.</p>
      ) : (
        // What is left changes with every shipment (here or elsewhere): the form starts again from it.
        <FulfilForm
          key={rows.map((row) => `${row.variantId}:${row.left}`).join(',')}
          order={order}
          rows={rows}
          fulfil={fulfil}
        />
      )}
    </section>
  );
}
