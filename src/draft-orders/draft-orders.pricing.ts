import { readPricing } from '../catalog/inventory/sellable.ts';
import { quote, type Quote, type QuoteInput, type QuoteItem, type QuotingStore } from '../checkout/quote.ts';
import { groupIdsByCustomer } from '../customers/customer-groups.service.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import { marketOfCountry, storeAmountsIn, type Market } from '../markets/markets.service.ts';
import { promotionHistory } from '../orders/promotion-history.ts';
import type { TaxServiceDeps } from '../pricing/tax-service.ts';
import type { OfferBuyer } from '../promotions/offer.ts';
import type { DraftOrderLineRow, DraftOrderRow } from './draft-orders.tables.ts';

/**
 * A draft priced by checkout's own quote (decision `draft-orders`): the market of the shipping
 * address's country, the customer's groups for the price function, the automatic promotions as
 * checkout applies them, tax per line, and shipping; staff's prices, custom lines, custom shipping
 * and discount go in as the quote's draft inputs. One pricing path: what the draft shows is what
 * its invoice or completion charges.
 */

export interface DraftPricingDeps extends Pick<ServiceDeps, 'db' | 'clock'> {
  taxService: TaxServiceDeps;
}

export interface PricedDraft {
  market: Market;
  /** What the quote priced with (the order is placed in this market, at these prices). */
  quoting: QuotingStore & { buyer: Awaited<ReturnType<typeof readPricing>> };
  input: QuoteInput;
  buyer: OfferBuyer;
  quoted: Quote;
}

/** A draft's lines as the quote takes them. */
export function quoteItems(lines: readonly DraftOrderLineRow[]): QuoteItem[] {
  return lines.map((line) =>
    line.variant_id === null
      ? {
          custom: {
            id: line.id,
            title: line.title ?? '',
            unitPrice: line.unit_price ?? 0,
            taxClass: line.tax_class ?? 'standard',
            requiresShipping: line.requires_shipping ?? true,
          },
          quantity: line.quantity,
        }
      : { variantId: line.variant_id, quantity: line.quantity, unitPrice: line.unit_price ?? undefined },
  );
}

export async function priceDraft(
  deps: DraftPricingDeps,
  storeId: string,
  draft: DraftOrderRow,
  lines: readonly DraftOrderLineRow[],
  /** Checking before an invoice or completion reads the catalog afresh. */
  read: 'cached' | 'fresh' = 'cached',
): Promise<PricedDraft> {
  const address = draft.shipping_address;
  const [market, groupsOf] = await Promise.all([
    marketOfCountry(deps, storeId, address?.country),
    groupIdsByCustomer(deps, storeId, [draft.customer_id]),
  ]);
  const groupIds = groupsOf(draft.customer_id);
  const quoting = {
    ...market,
    convert: storeAmountsIn(market),
    buyer: await readPricing(deps, storeId, market, groupIds),
  };
  const input: QuoteInput = {
    country: address?.country,
    shippingAddress: address ?? undefined,
    shippingMethodId: draft.shipping_method_id ?? undefined,
    customShipping: draft.custom_shipping ? { id: draft.id, ...draft.custom_shipping } : undefined,
    extraDiscount: draft.discount ?? undefined,
    discountCodes: [],
  };
  const buyer: OfferBuyer = { customerId: draft.customer_id, email: draft.email, groupIds };
  const quoted = await quote(
    { db: deps.db, promotionHistory, taxService: deps.taxService },
    storeId,
    quoting,
    input,
    buyer,
    quoteItems(lines),
    deps.clock.now(),
    read,
  );
  return { market, quoting, input, buyer, quoted };
}
