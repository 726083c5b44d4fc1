import type { Transaction } from 'kysely';
import { checkAddress, isPhoneNumber, type Address } from '@storefront/address';
import type { ServiceDeps } from '../db/service-deps.ts';
import type { Database } from '../db/tables.ts';
import { recordEvent } from '../events/events.ts';
import { openSession, revokeSession, type SessionLifetime } from '../sign-in/sign-in.service.ts';
import { CUSTOMER_SIGN_IN } from './customers.sign-in.ts';
import { AppError, notFound, validationFailed, type FieldError } from '../lib/errors.ts';
import {
  countAddresses,
  customerAddresses,
  customerForOrder,
  deleteAddress,
  findAddress,
  findCustomer,
  insertAddress,
  lockCustomer,
  replaceAddress,
  updateCustomer,
} from './customers.repository.ts';
import type {
  Customer,
  CustomerAddress,
  CustomerAddressInput,
  CustomerAddressPatch,
  CustomerPatch,
  CustomerSession,
} from './customers.schemas.ts';
import type { CustomerAddressRow, CustomerRow } from './customers.tables.ts';

/** Saved addresses per customer (409 `limit_reached` beyond). */
export const MAX_ADDRESSES = 20;

/** How long customer sessions live (decision `customer-sessions`): sliding by `ttlMs` within `maxAgeMs` of the sign-in. */
export type CustomerSessionLifetime = SessionLifetime;

export type CustomersDeps = ServiceDeps;

type Changed = 'name' | 'phone' | 'acceptsMarketing' | 'hasAccount' | 'addresses' | 'groups';

export function customerView(row: CustomerRow): Customer {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    phone: row.phone,
    acceptsMarketing: row.accepts_marketing,
    hasAccount: row.verified_at !== null,
    defaultAddressId: row.default_address_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function addressView(row: CustomerAddressRow, defaultId: string | null): CustomerAddress {
  const a = row.address;
  return {
    id: row.id,
    name: a.name,
    company: a.company ?? null,
    line1: a.line1,
    line2: a.line2 ?? null,
    city: a.city,
    region: a.region ?? null,
    postalCode: a.postalCode ?? null,
    country: a.country,
    phone: a.phone ?? null,
    isDefault: row.id === defaultId,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The default address first, then the newest. */
export function addressList(
  rows: readonly CustomerAddressRow[],
  defaultId: string | null,
): CustomerAddress[] {
  const views = rows.map((row) => addressView(row, defaultId));
  return [...views.filter((a) => a.isDefault), ...views.filter((a) => !a.isDefault)];
}

const noCustomer = () => notFound('No customer with that id in this store.');

export async function getCustomer(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  customerId: string,
): Promise<CustomerRow> {
  const row = await findCustomer(deps.db, storeId, customerId);
  if (!row) throw noCustomer();
  return row;
}

/** Records customer.updated (or .created) with the customer's flags, never personal data. */
export async function recordCustomerEvent(
  trx: Transaction<Database>,
  row: CustomerRow,
  type: 'customer.created' | 'customer.updated',
  changed: readonly Changed[] = [],
): Promise<void> {
  await recordEvent(trx, {
    storeId: row.store_id,
    type,
    resource: `customer:${row.id}`,
    data: {
      customerId: row.id,
      hasAccount: row.verified_at !== null,
      acceptsMarketing: row.accepts_marketing,
      ...(type === 'customer.updated' ? { changed } : {}),
    },
  });
}

/**
 * Opens a customer session (`openSession`): an opaque `ct_` token whose SHA-256 is the only thing
 * stored (in the global credentials table, resolving to this store only).
 */
export async function openCustomerSession(
  deps: Pick<ServiceDeps, 'clock'> & { sessions: CustomerSessionLifetime },
  trx: Transaction<Database>,
  row: CustomerRow,
): Promise<CustomerSession> {
  const { token, expiresAt } = await openSession(trx, CUSTOMER_SIGN_IN, deps.sessions, {
    storeId: row.store_id,
    owner: row.id,
    now: deps.clock.now(),
  });
  return { token, expiresAt: expiresAt.toISOString(), customer: customerView(row) };
}

/** Ends a session: its credential is deleted and the session marked revoked. */
export async function endCustomerSession(
  deps: Pick<ServiceDeps, 'db' | 'clock'>,
  storeId: string,
  sessionId: string,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    await revokeSession(trx, CUSTOMER_SIGN_IN, storeId, sessionId, deps.clock.now());
  });
}

const invalidProfile = (errors: FieldError[]) => validationFailed('The customer update is invalid.', errors);

/** PATCH /customers/me: name, phone and marketing consent; customer.updated names what changed. */
export async function updateProfile(
  deps: Pick<ServiceDeps, 'db' | 'clock'>,
  storeId: string,
  customerId: string,
  patch: CustomerPatch,
): Promise<Customer> {
  const name = patch.name === undefined ? undefined : patch.name?.trim() || null;
  const phone = patch.phone === undefined ? undefined : patch.phone?.trim() || null;
  if (phone && !isPhoneNumber(phone))
    throw invalidProfile([
      { pointer: '/phone', detail: 'must be a phone number (digits, spaces, + ( ) . -)' },
    ]);
  return deps.db.transaction().execute(async (trx) => {
    const current = await lockCustomer(trx, storeId, customerId);
    if (!current) throw noCustomer();
    const changed: Changed[] = [];
    if (name !== undefined && name !== current.name) changed.push('name');
    if (phone !== undefined && phone !== current.phone) changed.push('phone');
    if (patch.acceptsMarketing !== undefined && patch.acceptsMarketing !== current.accepts_marketing)
      changed.push('acceptsMarketing');
    if (changed.length === 0) return customerView(current);
    const row = await updateCustomer(
      trx,
      storeId,
      customerId,
      {
        ...(name !== undefined ? { name } : {}),
        ...(phone !== undefined ? { phone } : {}),
        ...(patch.acceptsMarketing !== undefined ? { accepts_marketing: patch.acceptsMarketing } : {}),
      },
      deps.clock.now(),
    );
    await recordCustomerEvent(trx, row, 'customer.updated', changed);
    return customerView(row);
  });
}

// Addresses

export async function listAddresses(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  customerId: string,
): Promise<CustomerAddress[]> {
  const customer = await getCustomer(deps, storeId, customerId);
  return addressList(await customerAddresses(deps.db, storeId, customerId), customer.default_address_id);
}

/** The address checked as a whole (decision `postal-addresses`): a bad field is 400 with its pointer. */
function checkedAddress(input: Partial<Record<keyof Address, unknown>>): Address {
  const { address, problems } = checkAddress(input, '');
  if (problems.length > 0) throw validationFailed('The address is invalid.', problems);
  return address;
}

const addressFields = (input: CustomerAddressPatch): Partial<Record<keyof Address, unknown>> => {
  const { isDefault: _isDefault, ...fields } = input;
  return fields;
};

const noAddress = () => notFound('No saved address with that id.');

/**
 * Saves an address; the first one, or one sent with `isDefault`, becomes the default. At most
 * MAX_ADDRESSES, counted under the customer's row lock so that concurrent saves cannot pass it.
 */
export async function addAddress(
  deps: Pick<ServiceDeps, 'db' | 'clock'>,
  storeId: string,
  customerId: string,
  input: CustomerAddressInput,
): Promise<CustomerAddress> {
  const address = checkedAddress(addressFields(input));
  return deps.db.transaction().execute(async (trx) => {
    const customer = await lockCustomer(trx, storeId, customerId);
    if (!customer) throw noCustomer();
    if ((await countAddresses(trx, storeId, customerId)) >= MAX_ADDRESSES)
      throw new AppError('limit_reached', 409, `A customer keeps at most ${MAX_ADDRESSES} addresses.`);
    const now = deps.clock.now();
    const row = await insertAddress(trx, storeId, customerId, address, now);
    const makeDefault = input.isDefault === true || customer.default_address_id === null;
    const updated = await updateCustomer(
      trx,
      storeId,
      customerId,
      makeDefault ? { default_address_id: row.id } : {},
      now,
    );
    await recordCustomerEvent(trx, updated, 'customer.updated', ['addresses']);
    return addressView(row, updated.default_address_id);
  });
}

/** Changes a saved address: the fields sent replace the saved ones, then the whole is checked. */
export async function changeAddress(
  deps: Pick<ServiceDeps, 'db' | 'clock'>,
  storeId: string,
  customerId: string,
  addressId: string,
  patch: CustomerAddressPatch,
): Promise<CustomerAddress> {
  return deps.db.transaction().execute(async (trx) => {
    const customer = await lockCustomer(trx, storeId, customerId);
    if (!customer) throw noCustomer();
    const current = await findAddress(trx, storeId, customerId, addressId);
    if (!current) throw noAddress();
    const now = deps.clock.now();
    const fields = addressFields(patch);
    const row =
      Object.keys(fields).length === 0
        ? current
        : await replaceAddress(
            trx,
            storeId,
            addressId,
            checkedAddress({ ...current.address, ...fields }),
            now,
          );
    let defaultId = customer.default_address_id;
    if (patch.isDefault === true) defaultId = addressId;
    if (patch.isDefault === false && defaultId === addressId) defaultId = null;
    const updated = await updateCustomer(trx, storeId, customerId, { default_address_id: defaultId }, now);
    await recordCustomerEvent(trx, updated, 'customer.updated', ['addresses']);
    return addressView(row, updated.default_address_id);
  });
}

export async function removeAddress(
  deps: Pick<ServiceDeps, 'db' | 'clock'>,
  storeId: string,
  customerId: string,
  addressId: string,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const customer = await lockCustomer(trx, storeId, customerId);
    if (!customer) throw noCustomer();
    if (!(await deleteAddress(trx, storeId, customerId, addressId))) throw noAddress();
    const defaultId = customer.default_address_id === addressId ? null : customer.default_address_id;
    const updated = await updateCustomer(
      trx,
      storeId,
      customerId,
      { default_address_id: defaultId },
      deps.clock.now(),
    );
    await recordCustomerEvent(trx, updated, 'customer.updated', ['addresses']);
  });
}

/**
 * The customer a checkout's order belongs to, in its transaction (decision `customer-accounts`): the token's customer, or
 * the customer of the order's email, made as a guest (with customer.created) when the store has
 * none. Undefined when the token's customer was erased meanwhile.
 */
export async function customerOfOrder(
  trx: Transaction<Database>,
  storeId: string,
  who: { customerId: string } | { email: string },
  now: Date,
): Promise<string | undefined> {
  const found = await customerForOrder(trx, storeId, who, now, (customerId) => ({
    storeId,
    type: 'customer.created',
    resource: `customer:${customerId}`,
    data: { customerId, hasAccount: false, acceptsMarketing: false },
  }));
  if (!found) return undefined;
  return found.id;
}
