/**
 * An order as a work surface (docs/fulfillment.md): its shipments (each with its items, carrier,
 * tracking link and dates; edit the tracking, mark delivered, cancel) and the form that ships what
 * is left of a paid order (fulfil.tsx).
 */
import type { AdminOrder } from '@storefront/client';
import { useId, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import {
  useFulfil,
  useShipmentChange,
  useTrackingChange,
  type Fulfillment,
  type TrackingChange,
} from '../../data/orders.ts';
import { ConfirmButton, ErrorBanner, Notice, ProblemBanner, StatusBadge } from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import {
  localProblem,
  toFormProblem,
  unclaimed,
  type FieldMessage,
  type FormProblem,
} from '../../ui/problems.ts';
import { CarrierFields, carrierChoice, CARRIER_OPTIONS, OTHER, TrackingFields } from './carrier.tsx';
import { FulfilSection } from './fulfil.tsx';
import { units, unitsIn, variantName } from './parts.tsx';

/** The tracking number, linked to the carrier's page (a new tab) when there is one. */
function Tracking({ fulfillment }: { fulfillment: Fulfillment }) {
  const { trackingNumber, trackingUrl } = fulfillment;
  if (trackingUrl?.startsWith('https://')) {
    return (
      <>
        Tracking{' '}
        <a href={trackingUrl} target="_blank" rel="noopener noreferrer">
          {trackingNumber ?? 'the carrier’s page'}
          <span className="visually-hidden"> (opens in a new tab)</span>
        </a>
      </>
    );
  }
  return trackingNumber ? <>Tracking {trackingNumber}</> : <span className="muted">no tracking number</span>;
}

/**
 * A shipment's carrier, tracking number and link, changed after it was recorded. Only what changed
 * is sent: the server keeps the rest, and makes a listed carrier's link again from a new number
 * unless a URL is given. A carrier or number can be changed, not removed (the API keeps them).
 */
function TrackingForm({
  order,
  fulfillment,
  name,
  id,
  onSaved,
  onClose,
}: {
  order: AdminOrder;
  fulfillment: Fulfillment;
  /** "Shipment 2". */
  name: string;
  id: string;
  onSaved: () => void;
  onClose: () => void;
}) {
  const change = useTrackingChange(order.id, fulfillment.id);
  const [details, setDetails] = useState({
    ...carrierChoice(fulfillment.carrier),
    trackingNumber: fulfillment.trackingNumber ?? '',
    trackingUrl: '',
  });
  const { carrier, otherCarrier, trackingNumber, trackingUrl } = details;
  const [local, setLocal] = useState<FormProblem | null>(null);
  const problem = local ?? (change.isError ? toFormProblem(change.error) : null);
  const shown = new Set(['/carrier', '/trackingNumber', '/trackingUrl']);
  const others: FieldMessage[] = problem ? unclaimed(problem, (pointer) => shown.has(pointer)) : [];
  // A carrier once given cannot be taken away: "None given" is offered only while there is none.
  const options = fulfillment.carrier === null ? CARRIER_OPTIONS : CARRIER_OPTIONS.slice(1);

  const changes =
    (field: keyof typeof details) => (event: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => {
      setLocal(null);
      if (change.isError) change.reset();
      setDetails((current) => ({ ...current, [field]: event.target.value }));
    };

  function submit(event: FormEvent) {
    event.preventDefault();
    const carrierName = carrier === OTHER ? otherCarrier.trim() : carrier;
    const number = trackingNumber.trim();
    const url = trackingUrl.trim();
    const fields: FieldMessage[] = [];
    if (carrier === OTHER && !carrierName)
      fields.push({ pointer: '/carrier', detail: 'Enter the carrier’s name.' });
    if (!number && fulfillment.trackingNumber !== null)
      fields.push({
        pointer: '/trackingNumber',
        detail: 'Enter the tracking number: it can be changed, not removed.',
      });
    if (fields.length > 0) {
      setLocal(localProblem('Some fields need a look before this can be saved.', fields));
      return;
    }
    const body: TrackingChange = {
      ...(carrierName && carrierName !== fulfillment.carrier ? { carrier: carrierName } : {}),
      ...(number && number !== fulfillment.trackingNumber ? { trackingNumber: number } : {}),
      ...(url ? { trackingUrl: url } : {}),
    };
    if (Object.keys(body).length === 0) {
      setLocal(localProblem('Nothing to save: change the carrier, the tracking number or the URL.', []));
      return;
    }
    change.mutate(body, { onSuccess: onSaved });
  }

  return (
    <form
      id={id}
      className="tracking-form"
      aria-label={`Tracking of ${name.toLowerCase()}`}
      onSubmit={submit}
      noValidate
    >
      <ProblemBanner problem={problem} others={others} />
      <div className="orders-form-grid">
        <CarrierFields
          options={options}
          carrier={carrier}
          otherCarrier={otherCarrier}
          problem={problem}
          onChange={changes}
        />
        <TrackingFields
          numberLabel={fulfillment.trackingNumber === null ? 'Tracking number (optional)' : 'Tracking number'}
          urlLabel="New tracking URL (optional)"
          urlHint={
            fulfillment.trackingUrl
              ? 'Left empty, the link stays, or is made again from a new number for a carrier in the list.'
              : 'Left empty, for a carrier in the list, the link is made from the number.'
          }
          trackingNumber={trackingNumber}
          trackingUrl={trackingUrl}
          problem={problem}
          onChange={changes}
        />
      </div>
      <p className="hint">The customer is not emailed about the change.</p>
      <div className="actions">
        <button type="submit" className="primary" disabled={change.isPending}>
          {change.isPending ? 'Saving…' : 'Save tracking'}
        </button>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </form>
  );
}

function Shipment({
  order,
  fulfillment,
  index,
  onChange,
}: {
  order: AdminOrder;
  fulfillment: Fulfillment;
  index: number;
  /** Before the change is sent (the fulfil form's last notice is no longer news). */
  onChange: () => void;
}) {
  const change = useShipmentChange(order.id, fulfillment.id);
  const send = (what: 'delivered' | 'cancel') => {
    onChange();
    setSaved(false);
    change.mutate(what);
  };
  const titleId = useId();
  const formId = useId();
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  const closeForm = () => {
    setEditing(false);
    editButton.current?.focus();
  };
  const name = `Shipment ${index + 1}`;
  const count = unitsIn(fulfillment);
  return (
    <li className="shipment" aria-labelledby={titleId}>
      <h3 id={titleId}>
        {name} <StatusBadge status={fulfillment.status} />
      </h3>
      <ul className="shipment-lines">
        {fulfillment.lines.map((line) => (
          <li key={line.variantId}>
            {line.quantity} × {variantName(order, line.variantId)}
          </li>
        ))}
      </ul>
      <p>
        {fulfillment.carrier ?? <span className="muted">No carrier given</span>} ·{' '}
        <Tracking fulfillment={fulfillment} />
      </p>
      <p className="muted">
        Shipped <time dateTime={fulfillment.createdAt}>{formatDateTime(fulfillment.createdAt)}</time>
        {fulfillment.deliveredAt ? (
          <>
            , delivered{' '}
            <time dateTime={fulfillment.deliveredAt}>{formatDateTime(fulfillment.deliveredAt)}</time>
          </>
        ) : null}
        {fulfillment.cancelledAt ? (
          <>
            , cancelled{' '}
            <time dateTime={fulfillment.cancelledAt}>{formatDateTime(fulfillment.cancelledAt)}</time>
          </>
        ) : null}
      </p>
      {change.isError ? <ErrorBanner error={change.error} /> : null}
      {saved ? <Notice tone="success">Tracking saved. The customer was not emailed.</Notice> : null}
      {fulfillment.status === 'cancelled' ? null : (
        <div className="actions">
          <button
            ref={editButton}
            type="button"
            aria-expanded={editing}
            aria-controls={editing ? formId : undefined}
            onClick={() => {
              setSaved(false);
              setEditing((open) => !open);
            }}
          >
            Edit tracking
          </button>
          {fulfillment.status === 'shipped' ? (
            <>
              <button type="button" disabled={change.isPending} onClick={() => send('delivered')}>
                Mark delivered
              </button>
              <ConfirmButton
                title={`Cancel ${name.toLowerCase()}?`}
                body={
                  <p>
                    Its {units(count)} will count as not shipped again, to ship in another shipment. Use this
                    for a shipment recorded by mistake or that never left; the customer is not emailed.
                  </p>
                }
                confirmLabel="Cancel shipment"
                cancelLabel="Keep it"
                disabled={change.isPending}
                onConfirm={() => send('cancel')}
              >
                Cancel shipment
              </ConfirmButton>
            </>
          ) : null}
        </div>
      )}
      {editing && fulfillment.status !== 'cancelled' ? (
        <TrackingForm
          order={order}
          fulfillment={fulfillment}
          name={name}
          id={formId}
          onSaved={() => {
            onChange();
            setSaved(true);
            closeForm();
          }}
          onClose={closeForm}
        />
      ) : null}
    </li>
  );
}

/** The order's shipments, oldest first; shown for a paid order and any order that has shipments. */
function Shipments({ order, onChange }: { order: AdminOrder; onChange: () => void }) {
  const titleId = useId();
  if (order.status !== 'paid' && order.fulfillments.length === 0) return null;
  return (
    <section className="panel orders-panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Shipments</h2>
      {order.fulfillments.length === 0 ? (
        <p className="muted">Nothing has shipped yet.</p>
      ) : (
        <ol className="orders-plain-list shipments">
          {order.fulfillments.map((fulfillment, index) => (
            <Shipment
              key={fulfillment.id}
              order={order}
              fulfillment={fulfillment}
              index={index}
              onChange={onChange}
            />
          ))}
        </ol>
      )}
    </section>
  );
}

/**
 * The order's shipments and the form that ships what is left. The form's last notice ("Shipment
 * recorded") or refusal goes once a shipment is changed.
 */
export function OrderShipments({ order }: { order: AdminOrder }) {
  const fulfil = useFulfil(order.id);
  return (
    <>
      <Shipments order={order} onChange={() => fulfil.reset()} />
      <FulfilSection order={order} fulfil={fulfil} />
    </>
  );
}
