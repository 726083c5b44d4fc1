import { checkAddress, type Address } from '@storefront/address';
import { validationFailed, type FieldError } from '../lib/errors.ts';
import { isEmail } from '../lib/validate.ts';
import type { NewDraftLine } from './draft-orders.repository.ts';
import type { DraftOrderBody, DraftOrderPatch } from './draft-orders.schemas.ts';
import type { CustomShipping, DraftDiscount, DraftOrderRow } from './draft-orders.tables.ts';

/** A draft's request checked beyond its schema (decision `draft-orders`): every bad field at its pointer. */

/** How long an invoice holds stock when the draft names no `reserveUntil`, and the longest it may. */
export const DEFAULT_RESERVE_MS = 3 * 24 * 3600_000;
export const MAX_RESERVE_MS = 30 * 24 * 3600_000;

/** What a draft holds once checked: the draft's columns (its customer still to be found) and its lines. */
export interface DraftFields {
  who: { customerId: string } | { email: string } | null;
  lines: NewDraftLine[] | null;
  shippingAddress: Address | null | undefined;
  billingAddress: Address | null | undefined;
  shippingMethodId: string | null | undefined;
  customShipping: CustomShipping | null | undefined;
  discount: DraftDiscount | null | undefined;
  note: string | null | undefined;
  reserveUntil: Date | null | undefined;
}

const invalid = (errors: FieldError[]) => validationFailed('The draft order is not valid.', errors);

function address(value: DraftOrderPatch['shippingAddress'], pointer: string, errors: FieldError[]) {
  if (value === undefined || value === null) return value;
  const { address: checked, problems } = checkAddress(value, pointer);
  errors.push(...problems);
  return checked;
}

function linesOf(body: DraftOrderPatch, errors: FieldError[]): NewDraftLine[] | null {
  if (body.lines === undefined) return null;
  const seen = new Set<string>();
  return body.lines.map((line, index) => {
    if ('variantId' in line) {
      const variantId = line.variantId.toLowerCase();
      if (seen.has(variantId))
        errors.push({
          pointer: `/lines/${index}/variantId`,
          detail: 'is on another line already: one line per variant',
        });
      seen.add(variantId);
      return {
        variant_id: variantId,
        title: null,
        quantity: line.quantity,
        unit_price: line.unitPrice ?? null,
        tax_class: null,
        requires_shipping: null,
      };
    }
    const title = line.title.trim();
    if (title === '') errors.push({ pointer: `/lines/${index}/title`, detail: 'must not be blank' });
    return {
      variant_id: null,
      title,
      quantity: line.quantity,
      unit_price: line.unitPrice,
      tax_class: line.taxClass ?? 'standard',
      requires_shipping: line.requiresShipping ?? true,
    };
  });
}

function discountOf(body: DraftOrderPatch, errors: FieldError[]): DraftDiscount | null | undefined {
  const discount = body.discount;
  if (discount === undefined || discount === null) return discount;
  const reason = discount.reason.trim();
  if (reason === '') errors.push({ pointer: '/discount/reason', detail: 'must not be blank' });
  if (discount.kind === 'percent') {
    if (discount.value > 100 || Math.round(discount.value * 100) !== discount.value * 100)
      errors.push({
        pointer: '/discount/value',
        detail: 'must be a percentage up to 100 with at most 2 decimals',
      });
  } else if (!Number.isSafeInteger(discount.value))
    errors.push({ pointer: '/discount/value', detail: 'must be an integer amount in minor units' });
  return { kind: discount.kind, value: discount.value, reason };
}

function reserveUntilOf(body: DraftOrderPatch, now: Date, errors: FieldError[]): Date | null | undefined {
  if (body.reserveUntil === undefined || body.reserveUntil === null) return body.reserveUntil;
  const at = new Date(body.reserveUntil);
  if (Number.isNaN(at.getTime()) || at <= now)
    errors.push({ pointer: '/reserveUntil', detail: 'must be a time in the future' });
  else if (at.getTime() - now.getTime() > MAX_RESERVE_MS)
    errors.push({ pointer: '/reserveUntil', detail: 'must be at most 30 days ahead' });
  return at;
}

/**
 * Checks a new draft (`current` undefined) or a change merged onto one: a customer or an email
 * (not both), a method or custom shipping (not both), addresses by their country's rules, the
 * discount's value, `reserveUntil` ahead (at most 30 days). 400 with every bad field.
 */
export function draftFields(
  body: DraftOrderBody | DraftOrderPatch,
  now: Date,
  current?: DraftOrderRow,
): DraftFields {
  const errors: FieldError[] = [];
  let who: DraftFields['who'] = null;
  if (body.customerId !== undefined && body.email !== undefined)
    errors.push({ pointer: '/email', detail: 'give a customerId or an email, not both' });
  else if (body.customerId !== undefined) who = { customerId: body.customerId.toLowerCase() };
  else if (body.email !== undefined) {
    const email = body.email.trim().toLowerCase();
    if (!isEmail(email)) errors.push({ pointer: '/email', detail: 'must be an email address' });
    who = { email };
  } else if (current === undefined)
    errors.push({ pointer: '/customerId', detail: 'give a customerId or an email' });
  const shippingMethodId =
    body.shippingMethodId === undefined ? undefined : (body.shippingMethodId?.toLowerCase() ?? null);
  const customShipping =
    body.customShipping === undefined || body.customShipping === null
      ? body.customShipping
      : { title: body.customShipping.title.trim(), amount: body.customShipping.amount };
  const methodAfter =
    shippingMethodId === undefined ? (current?.shipping_method_id ?? null) : shippingMethodId;
  const customAfter = customShipping === undefined ? (current?.custom_shipping ?? null) : customShipping;
  if (methodAfter !== null && customAfter !== null)
    errors.push({
      pointer: '/customShipping',
      detail: 'give a shippingMethodId or customShipping, not both',
    });
  if (customShipping?.title === '')
    errors.push({ pointer: '/customShipping/title', detail: 'must not be blank' });
  const fields: DraftFields = {
    who,
    lines: linesOf(body, errors),
    shippingAddress: address(body.shippingAddress, '/shippingAddress', errors),
    billingAddress: address(body.billingAddress, '/billingAddress', errors),
    shippingMethodId,
    customShipping,
    discount: discountOf(body, errors),
    note: body.note === undefined || body.note === null ? body.note : body.note.trim() || null,
    reserveUntil: reserveUntilOf(body, now, errors),
  };
  if (errors.length > 0) throw invalid(errors);
  return fields;
}
