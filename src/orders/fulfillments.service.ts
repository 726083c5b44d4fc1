import type { Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import { recordEvent } from '../events/events.ts';
import { AppError, notFound, validationFailed, type FieldError } from '../lib/errors.ts';
import { recentStore } from '../stores/stores.service.ts';
import { trackingUrlOf } from './carriers.ts';
import { queueShippingConfirmation } from './order-mail.ts';
import { normaliseTrackingUrl } from './tracking-url.ts';
import type { OrdersDeps } from './orders.deps.ts';
import type { FulfillmentCreatedData } from './orders.events.ts';
import { type OrderLineFields, findOrder, orderLines } from './orders.repository.ts';
import {
  insertFulfillment,
  orderFulfillments,
  orderReturns,
  setFulfillmentStatus,
  updateFulfillment,
} from './fulfillments.repository.ts';
import type { Fulfillment, FulfillmentBody, FulfillmentPatch } from './shipments.schemas.ts';
import type { FulfillmentLine, FulfillmentRow, FulfillmentStatus, OrderRow } from './orders.tables.ts';
import { fulfillmentView } from './orders.views.ts';
import { returnedUnits, shippedUnits } from './units.ts';
import type { EmittedData } from '../events/events.schemas.ts';

/**
 * Fulfilments (decision `fulfilments`): the parcels of a paid order. Each change locks the order, so two
 * fulfilments of one order are counted one after the other and can never ship more than was
 * ordered; the order's `fulfillment_status`, the event and the buyer's mail commit with it.
 */

export type FulfillmentDeps = Pick<OrdersDeps, 'db' | 'clock'>;

type Tx = Transaction<Database>;

const orderNotFound = () => notFound('No order with that id in this store.');
const fulfillmentNotFound = () => notFound('No fulfilment with that id on this order.');

/** A tracking link must be a web page a buyer can open safely: kept normalised, or a field error. */
function checkTrackingUrl(url: string | undefined, errors: FieldError[]): string | undefined {
  if (url === undefined) return undefined;
  const checked = normaliseTrackingUrl(url);
  if ('url' in checked) return checked.url;
  errors.push({ pointer: '/trackingUrl', detail: checked.problem });
  return undefined;
}

function statusOf(
  ordered: ReadonlyMap<string, number>,
  shipped: ReadonlyMap<string, number>,
): FulfillmentStatus {
  let any = false;
  let all = true;
  for (const [variantId, quantity] of ordered) {
    const sent = shipped.get(variantId) ?? 0;
    if (sent > 0) any = true;
    if (sent < quantity) all = false;
  }
  return all && any ? 'fulfilled' : any ? 'partial' : 'unfulfilled';
}

interface Locked {
  order: OrderRow;
  lines: OrderLineFields[];
  /** Units ordered per variant. */
  ordered: Map<string, number>;
  fulfillments: FulfillmentRow[];
}

/** The order, locked until the transaction ends, with its lines and fulfilments. */
async function lockOrder(trx: Tx, storeId: string, orderId: string): Promise<Locked> {
  const order = await findOrder(trx, storeId, orderId, { forUpdate: true });
  if (!order) throw orderNotFound();
  const [lines, fulfillments] = await Promise.all([
    orderLines(trx, order),
    orderFulfillments(trx, storeId, orderId),
  ]);
  const ordered = new Map<string, number>();
  for (const line of lines) ordered.set(line.variant_id, (ordered.get(line.variant_id) ?? 0) + line.quantity);
  return { order, lines, ordered, fulfillments };
}

/** Writes the order's new status and records the event, in the transaction of the change. */
async function afterChange(
  trx: Tx,
  locked: Locked,
  fulfillment: FulfillmentRow,
  type: 'fulfillment.created' | 'fulfillment.updated',
  now: Date,
): Promise<void> {
  const all = [...locked.fulfillments.filter((f) => f.id !== fulfillment.id), fulfillment];
  const status = statusOf(locked.ordered, shippedUnits(all));
  if (status !== locked.order.fulfillment_status)
    await setFulfillmentStatus(trx, locked.order.store_id, locked.order.id, status, now);
  const view = fulfillmentView(fulfillment);
  await recordEvent(trx, {
    storeId: locked.order.store_id,
    type,
    resource: `order:${locked.order.id}`,
    data: {
      orderId: locked.order.id,
      number: locked.order.number,
      fulfillmentId: fulfillment.id,
      status: fulfillment.status,
      lines: view.lines,
      carrier: view.carrier,
      trackingNumber: view.trackingNumber,
      trackingUrl: view.trackingUrl,
      fulfillmentStatus: status,
    } satisfies EmittedData<typeof FulfillmentCreatedData>,
  });
}

/** The request's lines, merged by variant and checked against what the order has left to ship. */
function linesToShip(locked: Locked, body: FulfillmentBody): FulfillmentLine[] {
  const errors: FieldError[] = [];
  const wanted = new Map<string, number>();
  body.lines.forEach((line, index) => {
    const variantId = line.variantId.toLowerCase();
    if (!locked.ordered.has(variantId))
      errors.push({ pointer: `/lines/${index}/variantId`, detail: 'is not a line of this order' });
    else wanted.set(variantId, (wanted.get(variantId) ?? 0) + line.quantity);
  });
  if (errors.length > 0) throw validationFailed('The fulfilment is invalid.', errors);
  const shipped = shippedUnits(locked.fulfillments);
  const over = [...wanted].filter(
    ([variantId, quantity]) =>
      (shipped.get(variantId) ?? 0) + quantity > (locked.ordered.get(variantId) ?? 0),
  );
  if (over.length > 0)
    throw new AppError(
      'fulfillment_exceeds_order',
      409,
      `More units than are left to ship: ${over
        .map(([variantId, quantity]) => {
          const left = (locked.ordered.get(variantId) ?? 0) - (shipped.get(variantId) ?? 0);
          return `${quantity} of variant ${variantId}, ${left} left`;
        })
        .join('; ')}.`,
    );
  return [...wanted].map(([variantId, quantity]) => ({ variantId, quantity }));
}

/**
 * Ships units of a paid order (decision `fulfilments`): at most what was ordered minus what shipped already (409
 * `fulfillment_exceeds_order`), only once paid (409 `order_not_paid`). A known carrier's tracking
 * page is made from the number when no URL is given. `fulfillment.created` and, unless
 * `notifyCustomer` is false, the buyer's shipping confirmation commit with it.
 */
export async function createFulfillment(
  deps: FulfillmentDeps,
  storeId: string,
  orderId: string,
  body: FulfillmentBody,
): Promise<Fulfillment> {
  const errors: FieldError[] = [];
  const trackingUrl = checkTrackingUrl(body.trackingUrl, errors);
  if (errors.length > 0) throw validationFailed('The fulfilment is invalid.', errors);
  const carrier = body.carrier?.trim() || null;
  const trackingNumber = body.trackingNumber?.trim() || null;
  const store = await recentStore(deps, storeId);
  return deps.db.transaction().execute(async (trx) => {
    const locked = await lockOrder(trx, storeId, orderId);
    if (locked.order.status !== 'paid')
      throw new AppError('order_not_paid', 409, 'Only a paid order can be fulfilled.');
    const lines = linesToShip(locked, body);
    const now = deps.clock.now();
    const row = await insertFulfillment(trx, {
      store_id: storeId,
      order_id: orderId,
      status: 'shipped',
      lines: JSON.stringify(lines),
      carrier,
      tracking_number: trackingNumber,
      tracking_url:
        trackingUrl ??
        (carrier !== null && trackingNumber !== null ? trackingUrlOf(carrier, trackingNumber) : null),
      created_at: now,
      updated_at: now,
    });
    await afterChange(trx, locked, row, 'fulfillment.created', now);
    if (body.notifyCustomer !== false)
      await queueShippingConfirmation(
        { db: trx },
        store?.name ?? 'The store',
        locked.order,
        locked.lines,
        row,
      );
    return fulfillmentView(row);
  });
}

async function lockFulfillment(
  trx: Tx,
  storeId: string,
  orderId: string,
  fulfillmentId: string,
): Promise<{ locked: Locked; fulfillment: FulfillmentRow }> {
  const locked = await lockOrder(trx, storeId, orderId);
  const fulfillment = locked.fulfillments.find((f) => f.id === fulfillmentId.toLowerCase());
  if (!fulfillment) throw fulfillmentNotFound();
  return { locked, fulfillment };
}

/**
 * Changes a fulfilment's tracking, or marks it delivered (decision `fulfilments`); `fulfillment.updated`. A cancelled
 * fulfilment no longer changes (409 `fulfillment_cancelled`).
 */
export async function changeFulfillment(
  deps: FulfillmentDeps,
  storeId: string,
  orderId: string,
  fulfillmentId: string,
  patch: FulfillmentPatch,
): Promise<Fulfillment> {
  const errors: FieldError[] = [];
  const trackingUrl = checkTrackingUrl(patch.trackingUrl, errors);
  if (errors.length > 0) throw validationFailed('The fulfilment change is invalid.', errors);
  return deps.db.transaction().execute(async (trx) => {
    const { locked, fulfillment } = await lockFulfillment(trx, storeId, orderId, fulfillmentId);
    if (fulfillment.status === 'cancelled')
      throw new AppError(
        'fulfillment_cancelled',
        409,
        'This fulfilment was cancelled; it no longer changes.',
      );
    const carrier = patch.carrier?.trim() || fulfillment.carrier;
    const trackingNumber = patch.trackingNumber?.trim() || fulfillment.tracking_number;
    const numberChanged = trackingNumber !== fulfillment.tracking_number || carrier !== fulfillment.carrier;
    const derived =
      numberChanged && carrier !== null && trackingNumber !== null
        ? trackingUrlOf(carrier, trackingNumber)
        : null;
    const now = deps.clock.now();
    const row = await updateFulfillment(trx, storeId, fulfillment.id, {
      carrier,
      tracking_number: trackingNumber,
      // A new number or carrier makes the old link wrong: made again, or none for an unknown carrier.
      tracking_url: trackingUrl ?? (numberChanged ? derived : fulfillment.tracking_url),
      ...(patch.status === 'delivered' && fulfillment.status !== 'delivered'
        ? { status: 'delivered' as const, delivered_at: now }
        : {}),
      updated_at: now,
    });
    await afterChange(trx, locked, row, 'fulfillment.updated', now);
    return fulfillmentView(row);
  });
}

/**
 * Cancels a fulfilment that was recorded by mistake or never left (decision `fulfilments`): its units count as not
 * shipped again; `fulfillment.updated`. Idempotent: a cancelled one answers as it is. A delivered
 * parcel is not cancelled (409 `fulfillment_delivered`: record a return).
 */
export async function cancelFulfillment(
  deps: FulfillmentDeps,
  storeId: string,
  orderId: string,
  fulfillmentId: string,
): Promise<Fulfillment> {
  return deps.db.transaction().execute(async (trx) => {
    const { locked, fulfillment } = await lockFulfillment(trx, storeId, orderId, fulfillmentId);
    if (fulfillment.status === 'cancelled') return fulfillmentView(fulfillment);
    if (fulfillment.status === 'delivered')
      throw new AppError(
        'fulfillment_delivered',
        409,
        'This parcel was delivered; it cannot be cancelled. Record a return for units that come back.',
      );
    // Units already returned must stay covered by what shipped.
    const returned = returnedUnits(await orderReturns(trx, storeId, orderId));
    const stillShipped = shippedUnits(locked.fulfillments.filter((f) => f.id !== fulfillment.id));
    if ([...returned].some(([variantId, units]) => units > (stillShipped.get(variantId) ?? 0)))
      throw new AppError(
        'fulfillment_returned',
        409,
        'Units of this parcel were returned; it can no longer be cancelled.',
      );
    const now = deps.clock.now();
    const row = await updateFulfillment(trx, storeId, fulfillment.id, {
      status: 'cancelled',
      cancelled_at: now,
      updated_at: now,
    });
    await afterChange(trx, locked, row, 'fulfillment.updated', now);
    return fulfillmentView(row);
  });
}
