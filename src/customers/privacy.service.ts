import Type, { type Static } from 'typebox';
import type { ServiceDeps } from '../db/service-deps.ts';
import { recordEvent } from '../events/events.ts';
import { byCreated } from '../db/keyset.ts';
import type { ListPage } from '../lib/cursors.ts';
import { notFound } from '../lib/errors.ts';
import { AddressSchema, MoneySchema } from '../http/schemas.ts';
import { buyerMails, customerAdminOrders, eraseBuyer } from '../orders/buyers.service.ts';
import { AdminOrderSchema } from '../orders/orders.schemas.ts';
import {
  customerAddresses,
  customerSessions,
  deleteCustomer,
  findCustomer,
  insertPrivacyLog,
  lockCustomer,
  privacyLogOf,
  privacyLogQuery,
} from './customers.repository.ts';
import {
  CustomerAddressSchema,
  CustomerSchema,
  PrivacyLogEntrySchema,
  type PrivacyLogEntry,
} from './customers.schemas.ts';
import { addressList, customerView } from './customers.service.ts';
import { customerGroupsOf } from './customer-groups.service.ts';
import type { PrivacyLogRow } from './customers.tables.ts';
import { CUSTOMER_SIGN_IN } from './customers.sign-in.ts';
import { emailHashOf } from './sign-in.service.ts';
import { forgetCodesOf, revokeCredentialsOf } from '../sign-in/sign-in.service.ts';
import { forgetGiftCardNotesOf, giftCardsOfCustomer } from '../gift-cards/gift-cards.service.ts';

/**
 * Export and erasure of a customer's personal data (decision `erasure-is-immediate`), by staff (Admin API) or by the customer
 * (Storefront API), each recorded in the privacy log. docs/customers.md lists where personal data
 * lives; `privacy.test.ts` holds every table to that list.
 */

const Time = Type.String({ format: 'date-time' });

/** A draft order staff made for the customer, as their export shows it (decision `draft-orders`). */
export const CustomerExportDraftOrderSchema = Type.Object(
  {
    id: Type.String(),
    status: Type.String(),
    email: Type.String(),
    shippingAddress: Type.Union([AddressSchema, Type.Null()]),
    billingAddress: Type.Union([AddressSchema, Type.Null()]),
    note: Type.Union([Type.String(), Type.Null()]),
    orderId: Type.Union([Type.String(), Type.Null()]),
    createdAt: Time,
  },
  { title: 'CustomerExportDraftOrder' },
);
export type CustomerExportDraftOrder = Static<typeof CustomerExportDraftOrderSchema>;

/**
 * A customer's draft orders for their export, given by the composition (draft orders build on
 * customers, so customers cannot import them); erasure needs none: the drafts go with the customer.
 */
export type DraftOrdersOfCustomer = (
  storeId: string,
  customerId: string,
) => Promise<CustomerExportDraftOrder[]>;

export const CustomerExportSchema = Type.Object(
  {
    exportedAt: Time,
    customer: CustomerSchema,
    addresses: Type.Array(CustomerAddressSchema),
    groups: Type.Array(
      Type.Object({ id: Type.String(), name: Type.String() }, { title: 'CustomerExportGroup' }),
      { description: 'The customer groups they are in, by name.' },
    ),
    giftCards: Type.Array(
      Type.Object(
        { id: Type.String(), last4: Type.String(), balance: MoneySchema, createdAt: Time },
        { title: 'CustomerExportGiftCard' },
      ),
      { description: 'The gift cards that are theirs (never the codes, nor staff’s notes), oldest first.' },
    ),
    orders: Type.Array(AdminOrderSchema, { description: 'Newest first, as staff see them.' }),
    draftOrders: Type.Array(CustomerExportDraftOrderSchema, {
      description:
        'The draft orders staff made for them, oldest first (with staff’s notes: they may name them).',
    }),
    mail: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          kind: Type.String(),
          to: Type.String(),
          subject: Type.Union([Type.String(), Type.Null()], {
            description:
              'Null for a sealed mail: a sign-in code (its subject is the code) or the codes of gift cards they bought; sealed, and erased once sent.',
          }),
          status: Type.String(),
          createdAt: Time,
          sentAt: Type.Union([Time, Type.Null()]),
        },
        { title: 'CustomerExportMail' },
      ),
      { description: 'The mail sent to them or about their orders that is still kept, oldest first.' },
    ),
    sessions: Type.Array(
      Type.Object(
        {
          createdAt: Time,
          lastUsedAt: Time,
          expiresAt: Time,
          revokedAt: Type.Union([Time, Type.Null()]),
        },
        { title: 'CustomerExportSession' },
      ),
    ),
    privacyLog: Type.Array(PrivacyLogEntrySchema, { description: 'Earlier exports of this data.' }),
  },
  { title: 'CustomerExport' },
);
export type CustomerExport = Static<typeof CustomerExportSchema>;

export interface PrivacyDeps extends ServiceDeps {
  /** Keys the HMAC the customer's sign-in codes know their email by. */
  signInCodeKey: Buffer;
  /** Their draft orders (decision `draft-orders`); none without it. */
  draftOrdersOf?: DraftOrdersOfCustomer | undefined;
}

/** Who asks for an export or an erasure: staff (named in the log) or the customer. */
export type PrivacyActor = { kind: 'staff'; staffId: string; email: string } | { kind: 'customer' };

const noCustomer = () => notFound('No customer with that id in this store.');

const logActor = (actor: PrivacyActor) =>
  actor.kind === 'staff'
    ? { actor: 'staff' as const, staffId: actor.staffId, staffEmail: actor.email }
    : { actor: 'customer' as const, staffId: null, staffEmail: null };

function logEntryView(row: PrivacyLogRow): PrivacyLogEntry {
  return {
    id: row.id,
    action: row.action,
    customerId: row.customer_id,
    actor: row.actor,
    staffEmail: row.staff_email,
    createdAt: row.created_at.toISOString(),
  };
}

/** Everything the store holds about a customer, as JSON; the export is recorded in the privacy log. */
export async function exportCustomer(
  deps: PrivacyDeps,
  storeId: string,
  customerId: string,
  actor: PrivacyActor,
): Promise<CustomerExport> {
  const customer = await findCustomer(deps.db, storeId, customerId);
  if (!customer) throw noCustomer();
  const [addresses, groups, giftCards, orders, sessions, log, draftOrders] = await Promise.all([
    customerAddresses(deps.db, storeId, customerId),
    customerGroupsOf(deps, storeId, customerId),
    giftCardsOfCustomer(deps, storeId, customerId),
    customerAdminOrders(deps, storeId, customerId),
    customerSessions(deps.db, storeId, customerId),
    privacyLogOf(deps.db, storeId, customerId),
    deps.draftOrdersOf?.(storeId, customerId) ?? [],
  ]);
  const mail = await buyerMails(
    deps,
    storeId,
    customer.email,
    orders.map((order) => order.id),
  );
  const now = deps.clock.now();
  await insertPrivacyLog(deps.db, { storeId, action: 'export', customerId, ...logActor(actor), now });
  return {
    exportedAt: now.toISOString(),
    customer: customerView(customer),
    addresses: addressList(addresses, customer.default_address_id),
    groups,
    giftCards,
    orders,
    draftOrders,
    mail: mail.map((m) => ({
      id: m.id,
      kind: m.kind,
      to: m.to_address,
      subject: m.sealed ? null : m.subject,
      status: m.status,
      createdAt: m.created_at.toISOString(),
      sentAt: m.sent_at?.toISOString() ?? null,
    })),
    sessions: sessions.map((s) => ({
      createdAt: s.created_at.toISOString(),
      lastUsedAt: s.last_used_at.toISOString(),
      expiresAt: s.expires_at.toISOString(),
      revokedAt: s.revoked_at?.toISOString() ?? null,
    })),
    privacyLog: log.map(logEntryView),
  };
}

/**
 * Erases a customer (decision `erasure-is-immediate`), in one transaction: their personal data on their orders, carts, mail and
 * stored checkout answers is scrubbed (numbers, lines and amounts stay), their sessions end (tokens
 * dead at once), their sign-in codes, addresses and the customer row are deleted, `customer.deleted`
 * is recorded with the id alone, and the privacy log notes who erased whom.
 */
export async function eraseCustomer(
  deps: PrivacyDeps,
  storeId: string,
  customerId: string,
  actor: PrivacyActor,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const customer = await lockCustomer(trx, storeId, customerId);
    if (!customer) throw noCustomer();
    const now = deps.clock.now();
    await eraseBuyer({ db: trx }, storeId, { customerId, email: customer.email }, now);
    await revokeCredentialsOf(trx, CUSTOMER_SIGN_IN, storeId, customerId);
    await forgetCodesOf(
      trx,
      CUSTOMER_SIGN_IN,
      storeId,
      emailHashOf(deps.signInCodeKey, storeId, customer.email),
    );
    // Their gift cards stay (the money is the store's debt) but lose staff's notes, and the
    // customer row's deletion unlinks them (ON DELETE SET NULL).
    await forgetGiftCardNotesOf({ db: trx }, storeId, customerId);
    await deleteCustomer(trx, storeId, customerId);
    await recordEvent(trx, {
      storeId,
      type: 'customer.deleted',
      resource: `customer:${customerId}`,
      data: { customerId },
    });
    await insertPrivacyLog(trx, { storeId, action: 'erase', customerId, ...logActor(actor), now });
  });
}

/** GET /admin/v1/privacy-log: exports and erasures, newest first. */
export function listPrivacyLog(
  deps: ServiceDeps,
  storeId: string,
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<ListPage<PrivacyLogEntry>> {
  return byCreated(
    deps.cursors,
    `${storeId}:privacy-log`,
    privacyLogQuery(deps.db, storeId),
    page,
    logEntryView,
    '',
    true,
  );
}
