/**
 * Shipping: the store's zones (where it ships, in words) with their methods (kind, price or tiers,
 * delivery estimate, active), and the forms that create, change and delete them (docs/shipping.md).
 * One form is open at a time: a new zone, a zone's areas, or a method of a zone.
 */
import { useId, useState } from 'react';
import {
  useDeleteMethod,
  useDeleteZone,
  useShippingZones,
  type ShippingMethod,
  type ShippingZone,
} from '../../data/shipping.ts';
import { useCurrency } from '../../data/settings.ts';
import { useStaffSession } from '../../data/staff.ts';
import {
  ACTIONS,
  ConfirmButton,
  DataTable,
  ErrorBanner,
  Notice,
  PageHeader,
  StatusBadge,
} from '../../ui/components.tsx';
import { QueryView } from '../../ui/queries.tsx';
import { countryName } from '@storefront/address';
import { MethodForm } from './method-form.tsx';
import { deliveryEstimate, describeArea, KIND_LABELS, methodPrices } from '../shipping-parts.ts';
import { ZoneForm } from './zone-form.tsx';
import '../orders.css';
import './shipping.css';

/** The form open on the screen, if any. */
type Editing =
  | { form: 'new-zone' }
  | { form: 'zone'; zoneId: string }
  | { form: 'method'; zoneId: string; methodId: string | null };

export function Shipping() {
  const session = useStaffSession();
  const [editing, setEditing] = useState<Editing | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const staff = session.data?.staff.role === 'staff';

  const open = (next: Editing) => {
    setNotice(null);
    setEditing(next);
  };
  const done = (message: string | null) => {
    setEditing(null);
    if (message) setNotice(message);
  };

  return (
    <>
      <PageHeader
        title="Shipping"
        actions={
          staff ? null : (
            <button type="button" className="primary" onClick={() => open({ form: 'new-zone' })}>
              Add zone
            </button>
          )
        }
      >
        <p className="muted">
          Where you ship and what it costs. An address uses its most specific zone: a postal-code prefix, then
          a region, then its country, then the rest of the world.
        </p>
      </PageHeader>
      {staff ? (
        // Shipping is for owners and admins: the API refuses a staff member with 403.
        <Notice tone="warning">
          <p>
            Only owners and admins can manage shipping. Your role is staff. Ask the store owner if you need
            access.
          </p>
        </Notice>
      ) : (
        <>
          {notice ? <Notice tone="success">{notice}</Notice> : null}
          {editing?.form === 'new-zone' ? <ZoneForm zone={null} onDone={done} /> : null}
          <Zones editing={editing} open={open} done={done} say={setNotice} />
        </>
      )}
    </>
  );
}

function Zones({
  editing,
  open,
  done,
  say,
}: {
  editing: Editing | null;
  open: (next: Editing) => void;
  done: (notice: string | null) => void;
  /** Says what a delete did (the screen's notice). */
  say: (notice: string) => void;
}) {
  const zones = useShippingZones();
  const removeZone = useDeleteZone();
  const removeMethod = useDeleteMethod();
  const busy = removeZone.isPending || removeMethod.isPending;

  return (
    <>
      <ErrorBanner error={removeZone.error ?? removeMethod.error} />
      <QueryView
        query={zones}
        loading="Loading shipping zones…"
        keepData
        empty={
          <p>
            No shipping zones yet: checkouts are charged no shipping. Add a zone for the places you ship to,
            then its methods.
          </p>
        }
      >
        {(data) =>
          data.items.map((zone) => (
            <ZonePanel
              key={zone.id}
              zone={zone}
              editing={editing}
              busy={busy}
              open={open}
              done={done}
              onDelete={() =>
                removeZone.mutate(zone, {
                  onSuccess: () => say(`The zone “${zone.name}” and its methods were deleted.`),
                })
              }
              onDeleteMethod={(method) =>
                removeMethod.mutate(method, {
                  onSuccess: () => say(`The method “${method.name}” was deleted.`),
                })
              }
            />
          ))
        }
      </QueryView>
    </>
  );
}

function ZonePanel({
  zone,
  editing,
  busy,
  open,
  done,
  onDelete,
  onDeleteMethod,
}: {
  zone: ShippingZone;
  editing: Editing | null;
  busy: boolean;
  open: (next: Editing) => void;
  done: (notice: string | null) => void;
  onDelete: () => void;
  onDeleteMethod: (method: ShippingMethod) => void;
}) {
  const titleId = useId();
  const currency = useCurrency();
  const editingZone = editing?.form === 'zone' && editing.zoneId === zone.id;
  const methodForm = editing?.form === 'method' && editing.zoneId === zone.id ? editing : null;
  const editedMethod = methodForm?.methodId
    ? (zone.methods.find((method) => method.id === methodForm.methodId) ?? null)
    : null;

  return (
    <section className="panel zone" aria-labelledby={titleId}>
      <div className="zone-header">
        <h2 id={titleId}>{zone.name}</h2>
        <div className="actions">
          <button type="button" onClick={() => open({ form: 'zone', zoneId: zone.id })}>
            Edit<span className="visually-hidden"> the zone {zone.name}</span>
          </button>
          <ConfirmButton
            title={`Delete the zone “${zone.name}”?`}
            body={
              <p>
                Its {zone.methods.length} method{zone.methods.length === 1 ? '' : 's'} go with it, and the
                places it covers fall to a less specific zone (or to none: checkout refuses addresses no
                method reaches).
              </p>
            }
            confirmLabel="Delete zone"
            disabled={busy}
            onConfirm={onDelete}
          >
            Delete<span className="visually-hidden"> the zone {zone.name}</span>
          </ConfirmButton>
        </div>
      </div>
      {editingZone ? (
        <ZoneForm zone={zone} onDone={done} />
      ) : (
        <ul className="zone-areas" aria-label={`Places in ${zone.name}`}>
          {zone.areas.map((area) => (
            <li key={`${area.country} ${area.regions.join()} ${area.postalCodePrefixes.join()}`}>
              {describeArea(area)}
            </li>
          ))}
        </ul>
      )}
      {zone.methods.length === 0 ? (
        <p className="muted">No methods yet: addresses in this zone cannot check out until it has one.</p>
      ) : (
        <DataTable
          wrap="orders-table-wrap"
          className="row-headed"
          caption={`Shipping methods of ${zone.name}`}
          columns={['Method', 'Kind', 'Price', 'Delivery', 'Status', ACTIONS]}
        >
          {zone.methods.map((method) => (
            <MethodRow
              key={method.id}
              method={method}
              currency={currency}
              busy={busy}
              onEdit={() => open({ form: 'method', zoneId: zone.id, methodId: method.id })}
              onDelete={() => onDeleteMethod(method)}
            />
          ))}
        </DataTable>
      )}
      {methodForm ? (
        <MethodForm
          // A new form for each method (and for a new one): it copies its method once.
          key={methodForm.methodId ?? 'new'}
          zone={zone}
          method={editedMethod}
          currency={currency}
          onDone={done}
        />
      ) : (
        <button type="button" onClick={() => open({ form: 'method', zoneId: zone.id, methodId: null })}>
          Add method<span className="visually-hidden"> to {zone.name}</span>
        </button>
      )}
    </section>
  );
}

function MethodRow({
  method,
  currency,
  busy,
  onEdit,
  onDelete,
}: {
  method: ShippingMethod;
  currency: string;
  busy: boolean;
  onEdit: () => void;
  onDelete: () => void;
}) {
  return (
    <tr>
      <th scope="row">
        {method.name}
        {method.countryDefault ? (
          <div>
            <span className="badge badge-default">Default for {countryName(method.countryDefault)}</span>
          </div>
        ) : null}
      </th>
      <td>{KIND_LABELS[method.kind]}</td>
      <td>
        {methodPrices(method, currency).map((line) => (
          <div key={line}>{line}</div>
        ))}
      </td>
      <td>{deliveryEstimate(method) ?? <span className="muted">—</span>}</td>
      <td>
        <StatusBadge status={method.active ? 'active' : 'inactive'} />
      </td>
      <td>
        <div className="actions">
          <button type="button" onClick={onEdit}>
            Edit<span className="visually-hidden"> {method.name}</span>
          </button>
          <ConfirmButton
            title={`Delete the method “${method.name}”?`}
            body={
              method.countryDefault ? (
                <p>
                  It is the default for {countryName(method.countryDefault)}: checkouts there that name no
                  method are then charged the cheapest method that is not a pickup.
                </p>
              ) : (
                <p>Shoppers can no longer choose it. Orders that used it keep it.</p>
              )
            }
            confirmLabel="Delete method"
            disabled={busy}
            onConfirm={onDelete}
          >
            Delete<span className="visually-hidden"> {method.name}</span>
          </ConfirmButton>
        </div>
      </td>
    </tr>
  );
}
