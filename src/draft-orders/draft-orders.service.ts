import { completeAddress } from '@storefront/address';
import type { Transaction, Updateable } from 'kysely';
import type { CustomerExportDraftOrder } from '../customers/privacy.service.ts';
import { sellableVariants } from '../catalog/inventory/sellable.ts';
import { customerOfOrder, getCustomer } from '../customers/customers.service.ts';
import { byCreated } from '../db/keyset.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import type { Database } from '../db/tables.ts';
import type { ListPage } from '../lib/cursors.ts';
import { AppError, notFound, validationFailed, type FieldError } from '../lib/errors.ts';
import { listTaxClasses } from '../pricing/tax-classes.service.ts';
import type { DraftOrdersDeps } from './draft-orders.deps.ts';
import { recordDraftEvent } from './draft-orders.events.ts';
import { draftFields, type DraftFields } from './draft-orders.input.ts';
import { priceDraft, type DraftPricingDeps } from './draft-orders.pricing.ts';
import {
  deleteDraftRow,
  draftLines,
  draftsOfCustomer,
  draftsQuery,
  findDraft,
  insertDraft,
  lockDraft,
  replaceDraftLines,
  updateDraft,
  type NewDraftLine,
} from './draft-orders.repository.ts';
import type {
  DraftOrder,
  DraftOrderBody,
  DraftOrderListItem,
  DraftOrderPatch,
} from './draft-orders.schemas.ts';
import type { DraftOrderRow, DraftOrderStatus, DraftOrderTable } from './draft-orders.tables.ts';
import { asCharged, draftListItem, draftView } from './draft-orders.views.ts';
import { placedOrder } from '../orders/placed-orders.service.ts';

/**
 * Draft orders, staff's side (decision `draft-orders`): create, read with live totals (checkout's
 * quote), list, change and delete. Every write records its event in its transaction. Invoicing and
 * completing are in draft-orders.placing.ts.
 */

type Deps = Pick<DraftOrdersDeps, 'db' | 'clock' | 'taxService' | 'keyring'>;

export const noDraft = (): AppError => notFound('No draft order with that id in this store.');

export const draftNotOpen = (draft: Pick<DraftOrderRow, 'status'>): AppError =>
  new AppError(
    'draft_order_not_open',
    409,
    `The draft order is ${draft.status}: it made an order and no longer changes.`,
  );

/**
 * What the database cannot check alone, before anything is written: the customer is the store's,
 * every catalog line a variant on sale, every custom line's tax class one of the store's.
 */
async function checkReferences(deps: Pick<ServiceDeps, 'db'>, storeId: string, fields: DraftFields) {
  const errors: FieldError[] = [];
  const lines = fields.lines ?? [];
  const variantIds = lines.flatMap((line) => (line.variant_id ? [line.variant_id] : []));
  const [sold, classes, customer] = await Promise.all([
    sellableVariants(deps, storeId, variantIds),
    lines.some((line) => line.tax_class !== null && line.tax_class !== 'standard')
      ? listTaxClasses(deps, storeId)
      : null,
    fields.who && 'customerId' in fields.who
      ? getCustomer(deps, storeId, fields.who.customerId).catch(() => null)
      : undefined,
  ]);
  const codes = new Set(classes?.map((taxClass) => taxClass.code) ?? ['standard']);
  lines.forEach((line, index) => {
    if (line.variant_id && !sold.has(line.variant_id))
      errors.push({ pointer: `/lines/${index}/variantId`, detail: 'is not a variant on sale in this store' });
    if (line.tax_class && !codes.has(line.tax_class))
      errors.push({ pointer: `/lines/${index}/taxClass`, detail: 'is not a tax class of this store' });
  });
  if (customer === null) errors.push({ pointer: '/customerId', detail: 'is not a customer of this store' });
  if (errors.length > 0) throw validationFailed('The draft order is not valid.', errors);
  return customer ?? null;
}

/** The draft's customer and email, in the transaction: the one given, else the email's (made as a guest). */
async function buyerOf(
  trx: Transaction<Database>,
  storeId: string,
  who: NonNullable<DraftFields['who']>,
  customer: { id: string; email: string } | null,
  now: Date,
): Promise<{ customer_id: string; email: string }> {
  if (customer) return { customer_id: customer.id, email: customer.email };
  const email = 'email' in who ? who.email : '';
  const customerId = await customerOfOrder(trx, storeId, { email }, now);
  if (customerId === undefined)
    throw validationFailed('The draft order is not valid.', [
      { pointer: '/email', detail: 'has no customer' },
    ]);
  return { customer_id: customerId, email };
}

const json = (value: unknown) => (value === null ? null : JSON.stringify(value));

/** The draft's columns a request sets (a field left out stays as it is). */
function columnsOf(fields: DraftFields): Updateable<DraftOrderTable> {
  const columns: Updateable<DraftOrderTable> = {};
  if (fields.shippingAddress !== undefined) columns.shipping_address = json(fields.shippingAddress);
  if (fields.billingAddress !== undefined) columns.billing_address = json(fields.billingAddress);
  if (fields.shippingMethodId !== undefined) columns.shipping_method_id = fields.shippingMethodId;
  if (fields.customShipping !== undefined) columns.custom_shipping = json(fields.customShipping);
  if (fields.discount !== undefined) columns.discount = json(fields.discount);
  if (fields.note !== undefined) columns.note = fields.note;
  if (fields.reserveUntil !== undefined) columns.reserve_until = fields.reserveUntil;
  return columns;
}

/**
 * A draft with its lines, priced now; once it made its order, with the order's amounts (what was
 * charged, decision `draft-orders`), not a price of now.
 */
export async function draftWithTotals(
  deps: DraftPricingDeps & Pick<DraftOrdersDeps, 'keyring'>,
  storeId: string,
  draft: DraftOrderRow,
): Promise<DraftOrder> {
  const lines = await draftLines(deps.db, storeId, draft.id);
  const live = draftView(draft, lines, await priceDraft(deps, storeId, draft, lines));
  if (draft.order_id === null) return live;
  const made = await placedOrder(deps, storeId, draft.order_id);
  return made ? asCharged(live, lines, made.order) : live;
}

export async function createDraft(deps: Deps, storeId: string, body: DraftOrderBody): Promise<DraftOrder> {
  const now = deps.clock.now();
  const fields = draftFields(body, now);
  const customer = await checkReferences(deps, storeId, fields);
  const draft = await deps.db.transaction().execute(async (trx) => {
    const buyer = await buyerOf(trx, storeId, fields.who!, customer, now);
    const row = await insertDraft(trx, {
      store_id: storeId,
      ...buyer,
      ...columnsOf(fields),
      created_at: now,
      updated_at: now,
    });
    await replaceDraftLines(trx, storeId, row.id, fields.lines ?? []);
    await recordDraftEvent(trx, 'draft_order.created', storeId, {
      draftOrderId: row.id,
      status: 'open',
      orderId: null,
    });
    return row;
  });
  return draftWithTotals(deps, storeId, draft);
}

export async function getDraft(deps: Deps, storeId: string, id: string): Promise<DraftOrder> {
  const draft = await findDraft(deps.db, storeId, id);
  if (!draft) throw noDraft();
  return draftWithTotals(deps, storeId, draft);
}

export function listDrafts(
  deps: Pick<ServiceDeps, 'db' | 'cursors'>,
  storeId: string,
  page: { limit?: number | undefined; cursor?: string | undefined; status?: DraftOrderStatus | undefined },
): Promise<ListPage<DraftOrderListItem>> {
  return byCreated(
    deps.cursors,
    `${storeId}:draft-orders:${page.status ?? ''}`,
    draftsQuery(deps.db, storeId, page.status),
    page,
    draftListItem,
    'd.',
    true,
  );
}

/** Changes an open draft (its lines replaced whole when given) and records draft_order.updated. */
export async function updateDraftOrder(
  deps: Deps,
  storeId: string,
  id: string,
  body: DraftOrderPatch,
): Promise<DraftOrder> {
  const now = deps.clock.now();
  const current = await findDraft(deps.db, storeId, id);
  if (!current) throw noDraft();
  const fields = draftFields(body, now, current);
  const customer = await checkReferences(deps, storeId, fields);
  const draft = await deps.db.transaction().execute(async (trx) => {
    const locked = await lockDraft(trx, storeId, id);
    if (!locked) throw noDraft();
    if (locked.status !== 'open') throw draftNotOpen(locked);
    const buyer = fields.who ? await buyerOf(trx, storeId, fields.who, customer, now) : {};
    const row = await updateDraft(trx, storeId, id, {
      ...buyer,
      ...columnsOf(fields),
      version: locked.version + 1,
      updated_at: now,
    });
    if (fields.lines) await replaceDraftLines(trx, storeId, id, fields.lines satisfies NewDraftLine[]);
    await recordDraftEvent(trx, 'draft_order.updated', storeId, {
      draftOrderId: id,
      status: 'open',
      orderId: null,
    });
    return row;
  });
  return draftWithTotals(deps, storeId, draft);
}

/** Deletes an open draft (one that made an order stays, as its record) and records draft_order.updated `deleted`. */
export async function deleteDraft(deps: Pick<ServiceDeps, 'db'>, storeId: string, id: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const locked = await lockDraft(trx, storeId, id);
    if (!locked) throw noDraft();
    if (locked.status !== 'open') throw draftNotOpen(locked);
    await deleteDraftRow(trx, storeId, id);
    await recordDraftEvent(trx, 'draft_order.updated', storeId, {
      draftOrderId: id,
      status: 'deleted',
      orderId: null,
    });
  });
}

/** A customer's drafts as their data export shows them (decision `draft-orders`), oldest first. */
export async function draftOrdersOfCustomer(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  customerId: string,
): Promise<CustomerExportDraftOrder[]> {
  return (await draftsOfCustomer(deps.db, storeId, customerId)).map((draft) => ({
    id: draft.id,
    status: draft.status,
    email: draft.email,
    shippingAddress: draft.shipping_address && completeAddress(draft.shipping_address),
    billingAddress: draft.billing_address && completeAddress(draft.billing_address),
    note: draft.note,
    orderId: draft.order_id,
    createdAt: draft.created_at.toISOString(),
  }));
}
