import { checkAddress, isKnownCountry, isPhoneNumber, type Address } from '@storefront/address';
import type { CartRow } from '../carts/carts.service.ts';
import { validationFailed, type FieldError } from '../lib/errors.ts';
import { isEmail } from '../lib/validate.ts';
import type { CheckoutBody } from '../orders/orders.schemas.ts';
import type { QuoteInput } from './quote.ts';
import { validation } from './refusals.ts';

/** What a checkout is asked for: the request checked and normalized, and what the cart brings to it. */

export interface CheckoutInput extends QuoteInput {
  cartId: string;
  email: string;
  /** The signed-in customer (decision `customer-accounts`): the order is theirs; otherwise the customer of the email. */
  customerId?: string | undefined;
  /** The client's address (`request.ip`): its pending orders are counted (decision `pending-orders-per-client`). */
  client: string;
  /** The body's shipping address, checked (the cart's is used without one). */
  shippingAddress?: Address | undefined;
  billingAddress?: Address | undefined;
  /** The body's shipping method (the cart's is used without one). */
  shippingMethodId?: string | undefined;
  phone?: string | undefined;
  /** Decision `gift-card-tender`: the body's gift card codes (the cart's cards are used without them). */
  giftCardCodes?: string[] | undefined;
}

/**
 * The checkout request, checked beyond its schema and normalized (email trimmed, country upper
 * case), with the address of the client that sent it.
 */
export function checkoutInput(
  body: CheckoutBody,
  client: string,
  customer: { id: string; email: string } | null = null,
): CheckoutInput {
  const email = body.email?.trim() ?? customer?.email ?? '';
  const country = body.country?.toUpperCase();
  const phone = body.phone?.trim() || undefined;
  const errors: FieldError[] = [];
  if (email === '') errors.push({ pointer: '/email', detail: 'is required (or sign in as a customer)' });
  else if (!isEmail(email)) errors.push({ pointer: '/email', detail: 'must be an email address' });
  if (country !== undefined && !isKnownCountry(country))
    errors.push({ pointer: '/country', detail: 'must be an ISO 3166-1 alpha-2 country code' });
  if (phone !== undefined && !isPhoneNumber(phone))
    errors.push({ pointer: '/phone', detail: 'must be a phone number (digits, spaces, + ( ) . -)' });
  const checked = (field: 'shippingAddress' | 'billingAddress'): Address | undefined => {
    if (body[field] === undefined) return undefined;
    const { address, problems } = checkAddress(body[field], `/${field}`);
    errors.push(...problems);
    return address;
  };
  const shippingAddress = checked('shippingAddress');
  const billingAddress = checked('billingAddress');
  if (country !== undefined && shippingAddress !== undefined && shippingAddress.country !== country)
    errors.push({ pointer: '/country', detail: 'must be the country of the shipping address' });
  if (errors.length > 0) throw validationFailed('The checkout request is invalid.', errors);
  return {
    cartId: body.cartId,
    email,
    customerId: customer?.id,
    country,
    discountCodes: body.discountCode === undefined ? undefined : [body.discountCode],
    client,
    shippingAddress,
    billingAddress,
    shippingMethodId: body.shippingMethodId?.toLowerCase(),
    phone,
    giftCardCodes: body.giftCards,
  };
}

/**
 * What the cart brings to its checkout (decisions `cart-shipping-and-totals` and `checkout-with-shipping`): its address, its discount code and its shipping
 * method, each unless the body gives its own, and the destination country (the body's `country`
 * must be the address's).
 */
export function cartChoices(input: CheckoutInput, cart: CartRow): CheckoutInput {
  const address = input.shippingAddress ?? cart.shipping_address ?? undefined;
  if (input.country !== undefined && address !== undefined && address.country !== input.country)
    throw validation('/country', `must be the country of the shipping address (${address.country})`);
  return {
    ...input,
    country: input.country ?? address?.country,
    shippingAddress: address,
    discountCodes: input.discountCodes ?? cart.discount_codes,
    shippingMethodId: input.shippingMethodId ?? cart.shipping_method_id ?? undefined,
  };
}
