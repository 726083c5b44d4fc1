import { insufficientStock } from '../catalog/inventory/inventory.ts';
import { AppError, validationFailed } from '../lib/errors.ts';
import type { Address } from '@storefront/address';
import type { Quote } from './quote.ts';

/** What of the checkout's request the refusals look at. */
type Chosen = { shippingAddress?: Address | undefined; shippingMethodId?: string | undefined };

/** Why a priced checkout is refused before the provider is asked (decisions `checkout-with-shipping` and `checkout-after-a-crash`). */

export const validation = (pointer: string, detail: string): AppError =>
  validationFailed('The checkout request is invalid.', [{ pointer, detail }]);

/**
 * Why a priced checkout cannot go on, if it cannot: its shipping (decision `checkout-with-shipping`), a line no longer sellable,
 * or the stock pre-check (decision `checkout-after-a-crash`, on the availability the quote read with the prices).
 */
export function refusalOf(quoted: Quote, input: Chosen, requireShipping: boolean): AppError | null {
  const shipping = shippingRefusal(quoted, input, requireShipping);
  if (shipping) return shipping;
  if (quoted.missing.length > 0)
    return insufficientStock(quoted.missing.map((m) => ({ ...m, available: 0 })));
  const short = quoted.lines
    .filter((line) => line.available < line.quantity)
    .map((line) => ({ variantId: line.variantId, requested: line.quantity, available: line.available }))
    .sort((a, b) => (a.variantId < b.variantId ? -1 : a.variantId > b.variantId ? 1 : 0));
  return short.length > 0 ? insufficientStock(short) : null;
}

/**
 * The shipping rules of decision `checkout-with-shipping` on a priced checkout. When a line requires shipping: a store that
 * requires an address wants one (400 `/shippingAddress`) and a method (400 `/shippingMethodId`); an
 * address no method of the store reaches is 409 `shipping_unavailable` (a store with no zones at
 * all ships free, as before zones existed); a chosen method that is not one of the options is 409
 * `shipping_method_unavailable`.
 */
function shippingRefusal(quoted: Quote, input: Chosen, requireShipping: boolean): AppError | null {
  const { parcel, rates, chosenUnavailable } = quoted.shipping;
  if (!parcel.shipped) return null;
  if (requireShipping && input.shippingAddress === undefined)
    return validation('/shippingAddress', 'is required: the store ships these goods to an address');
  if (input.shippingAddress !== undefined && rates !== null && rates.configured && rates.options.length === 0)
    return new AppError(
      'shipping_unavailable',
      409,
      `The store does not ship this order to ${input.shippingAddress.country}: no shipping method reaches the address.`,
    );
  if (chosenUnavailable)
    return new AppError(
      'shipping_method_unavailable',
      409,
      'The shipping method no longer fits the cart or its address: choose another from its shipping options.',
    );
  if (requireShipping && input.shippingMethodId === undefined)
    return validation('/shippingMethodId', "is required: choose one of the cart's shipping options");
  return null;
}
