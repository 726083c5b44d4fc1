/**
 * An order as a work surface (docs/fulfillment.md): its shipments (each with its items, carrier,
 * tracking link and dates; edit the tracking, mark delivered, cancel) and the form that ships what
 * is left of a paid order (a quantity per item, the carrier, tracking, and whether the customer is
 * emailed).
 */
import { StorefrontError, type AdminOrder } from '@storefront/client';
import { useId, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import {
  useFulfil,
  useShipmentChange,
  useTrackingChange,
  KNOWN_CARRIERS,
  type Fulfillment,
  type FulfillmentBody,
  type TrackingChange,
} from '../data/orders.ts';
import {
  ConfirmButton,
  DataTable,
  ErrorBanner,
  Notice,
  ProblemBanner,
  SelectField,
  StatusBadge,
  TextField,
} from '../ui/components.tsx';
import { formatDateTime } from '../ui/dates.ts';
import {
  fieldMessage,
  localProblem,
  toFormProblem,
  unclaimed,
  type FieldMessage,
  type FormProblem,
} from '../ui/problems.ts';
import { units, unitsIn, unitsToShip, variantName, type UnitsToShip } from './orders-parts.tsx';

// ---- Shipments ----

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

/** The carrier as the forms' select holds it: a listed name, "Other…" with its name, or none. */
function carrierChoice(carrier: string | null): { carrier: string; otherCarrier: string } {
  if (carrier === null) return { carrier: '', otherCarrier: '' };
  return (KNOWN_CARRIERS as readonly string[]).includes(carrier)
    ? { carrier, otherCarrier: '' }
    : { carrier: OTHER, otherCarrier: carrier };
}

/**
 * The carrier fields of both forms: the select, and the name typed when "Other…" is chosen. The
 * server's "/carrier" problem is shown under the one that holds the carrier.
 */
function CarrierFields({
  options,
  carrier,
  otherCarrier,
  problem,
  onChange,
}: {
  options: { value: string; label: string }[];
  carrier: string;
  otherCarrier: string;
  problem: FormProblem | null;
  /** The change handler of each of the two fields. */
  onChange: (
    field: 'carrier' | 'otherCarrier',
  ) => (event: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => void;
}) {
  const error = fieldMessage(problem, '/carrier', 'The carrier');
  return (
    <>
      <SelectField
        label="Carrier"
        options={options}
        value={carrier}
        error={carrier === OTHER ? undefined : error}
        onChange={onChange('carrier')}
      />
      {carrier === OTHER ? (
        <TextField
          label="Carrier name"
          maxLength={100}
          autoComplete="off"
          value={otherCarrier}
          error={error}
          onChange={onChange('otherCarrier')}
        />
      ) : null}
    </>
  );
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
        <TextField
          label={fulfillment.trackingNumber === null ? 'Tracking number (optional)' : 'Tracking number'}
          maxLength={100}
          autoComplete="off"
          value={trackingNumber}
          error={fieldMessage(problem, '/trackingNumber', 'The tracking number')}
          onChange={changes('trackingNumber')}
        />
        <TextField
          label="New tracking URL (optional)"
          type="url"
          maxLength={2000}
          autoComplete="off"
          placeholder="https://"
          hint={
            fulfillment.trackingUrl
              ? 'Left empty, the link stays, or is made again from a new number for a carrier in the list.'
              : 'Left empty, for a carrier in the list, the link is made from the number.'
          }
          value={trackingUrl}
          error={fieldMessage(problem, '/trackingUrl', 'The tracking URL')}
          onChange={changes('trackingUrl')}
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

// ---- Fulfilling ----

const OTHER = 'other';

const CARRIER_OPTIONS = [
  { value: '', label: 'None given' },
  ...KNOWN_CARRIERS.map((name) => ({ value: name, label: name })),
  { value: OTHER, label: 'Other…' },
];

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
    const detail = (error.detail ?? 'More units than are left to ship.').replace(
      /variant ([0-9a-f-]{36})/gi,
      (_, variantId: string) => variantName(order, variantId.toLowerCase()),
    );
    return localProblem(
      `${detail} Another shipment was recorded meanwhile: the quantities below now show what is left.`,
      [],
    );
  }
  return toFormProblem(error, (pointer) => {
    const line = /^\/lines\/(\d+)(\/.*)?$/.exec(pointer);
    const variantId = line ? sent?.lines[Number(line[1])]?.variantId : undefined;
    return variantId ? `/lines/${variantId}` : pointer;
  });
}

/**
 * How many units of one item (to ship, or that came back), its label heard (not shown: the row
 * names the item). Shared with the return form (orders-returns.tsx).
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
        <TextField
          label="Tracking number (optional)"
          maxLength={100}
          autoComplete="off"
          value={trackingNumber}
          error={fieldMessage(problem, '/trackingNumber', 'The tracking number')}
          onChange={changes('trackingNumber')}
        />
        <TextField
          label="Tracking URL (optional)"
          type="url"
          maxLength={2000}
          autoComplete="off"
          placeholder="https://"
          hint="For a carrier in the list, left empty, the link is made from the number."
          value={trackingUrl}
          error={fieldMessage(problem, '/trackingUrl', 'The tracking URL')}
          onChange={changes('trackingUrl')}
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
function FulfilSection({ order, fulfil }: { order: AdminOrder; fulfil: ReturnType<typeof useFulfil> }) {
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
