import { checkAddress, isPhoneNumber, type Address } from '@storefront/address';
import type { ServiceDeps } from '../db/service-deps.ts';
import type { FieldError } from '../lib/errors.ts';
import { isEmail } from '../lib/validate.ts';
import {
  countAddresses,
  customerAddresses,
  defaultAddressesOf,
  insertAddress,
  insertCustomer,
  lockCustomerByEmail,
  updateCustomer,
} from './customers.repository.ts';
import { MAX_ADDRESSES, recordCustomerEvent } from './customers.service.ts';

/**
 * Customers brought in from a file (decision `csv-imports`), by email: a new email is a guest
 * customer (`customer.created`), a known one gets the name, phone, marketing consent and address
 * the file gives (`customer.updated` naming what changed); what the file leaves blank is left as
 * it is, and a customer already as the file says is not written.
 */

export interface ImportedCustomer {
  email: string;
  name?: string | undefined;
  phone?: string | undefined;
  acceptsMarketing?: boolean | undefined;
  /** Their default address; it is saved (as the default) unless they have it already. */
  address?: Address | undefined;
}

/** The problems of a customer read from a file, by field (`/email`, `/phone`, `/address/postalCode`, …). */
export function checkImportedCustomer(input: {
  email: string;
  phone?: string | undefined;
  address?: Partial<Record<keyof Address, unknown>> | undefined;
}): { problems: FieldError[]; address: Address | undefined } {
  const problems: FieldError[] = [];
  if (!isEmail(input.email) || input.email.length > 254)
    problems.push({ pointer: '/email', detail: 'must be an email address' });
  if (input.phone && !isPhoneNumber(input.phone))
    problems.push({ pointer: '/phone', detail: 'must be a phone number (digits, spaces, + ( ) . -)' });
  if (!input.address) return { problems, address: undefined };
  const checked = checkAddress(input.address, '/address');
  problems.push(...checked.problems);
  return { problems, address: checked.problems.length === 0 ? checked.address : undefined };
}

export async function importCustomer(
  deps: Pick<ServiceDeps, 'db' | 'clock'>,
  storeId: string,
  input: ImportedCustomer,
): Promise<'created' | 'updated' | 'unchanged'> {
  const email = input.email.toLowerCase();
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx) => {
    let current = await lockCustomerByEmail(trx, storeId, email);
    let outcome: 'created' | 'updated' | 'unchanged' = 'unchanged';
    const changed: ('name' | 'phone' | 'acceptsMarketing' | 'addresses')[] = [];
    if (!current) {
      const made = await insertCustomer(
        trx,
        storeId,
        {
          email,
          name: input.name ?? null,
          phone: input.phone ?? null,
          accepts_marketing: input.acceptsMarketing ?? false,
        },
        now,
      );
      // Made by another writer meanwhile: it is changed below as any known customer.
      current = made ?? (await lockCustomerByEmail(trx, storeId, email))!;
      if (made) outcome = 'created';
    }
    if (outcome !== 'created') {
      if (input.name !== undefined && input.name !== current.name) changed.push('name');
      if (input.phone !== undefined && input.phone !== current.phone) changed.push('phone');
      if (input.acceptsMarketing !== undefined && input.acceptsMarketing !== current.accepts_marketing)
        changed.push('acceptsMarketing');
    }
    let defaultAddressId = current.default_address_id;
    if (input.address && (await countAddresses(trx, storeId, current.id)) < MAX_ADDRESSES) {
      const saved = await customerAddresses(trx, storeId, current.id);
      const same = saved.find((row) => sameAddress(row.address, input.address!));
      if (!same) {
        defaultAddressId = (await insertAddress(trx, storeId, current.id, input.address, now)).id;
        if (outcome !== 'created') changed.push('addresses');
      } else if (current.default_address_id !== same.id) {
        defaultAddressId = same.id;
        if (outcome !== 'created') changed.push('addresses');
      }
    }
    if (outcome === 'created' || changed.length > 0) {
      const row = await updateCustomer(
        trx,
        storeId,
        current.id,
        {
          ...(changed.includes('name') ? { name: input.name ?? null } : {}),
          ...(changed.includes('phone') ? { phone: input.phone ?? null } : {}),
          ...(changed.includes('acceptsMarketing')
            ? { accepts_marketing: input.acceptsMarketing ?? false }
            : {}),
          default_address_id: defaultAddressId,
        },
        now,
      );
      await recordCustomerEvent(
        trx,
        row,
        outcome === 'created' ? 'customer.created' : 'customer.updated',
        changed,
      );
      if (outcome !== 'created') outcome = 'updated';
    }
    return outcome;
  });
}

function sameAddress(a: Address, b: Address): boolean {
  const keys: (keyof Address)[] = [
    'name',
    'company',
    'line1',
    'line2',
    'city',
    'region',
    'postalCode',
    'country',
    'phone',
  ];
  return keys.every((key) => (a[key] ?? null) === (b[key] ?? null));
}

/** The default addresses of these customers, by customer (a customers export's). */
export function defaultAddresses(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  customerIds: readonly string[],
): Promise<Map<string, Address>> {
  return defaultAddressesOf(deps.db, storeId, customerIds);
}
