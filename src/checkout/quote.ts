import type { StockLine } from '../catalog/inventory.ts';
import { sellableVariants } from '../catalog/sellable.ts';
import type { OrdersDeps } from '../orders/orders.deps.ts';
import type { NewOrderLine } from '../orders/placed-orders.service.ts';
import { rateFor, usableDiscount, type UsableDiscount } from '../pricing/pricing.service.ts';
import { computeTotals, type Totals } from '../pricing/totals.ts';

/** A line as checkout prices it: from the catalog, never from the client. */
export interface QuotedLine extends NewOrderLine {
  /** Units available when quoted, read without locks (a hint; the reservation decides). */
  available: number;
}

export interface Quote {
  lines: QuotedLine[];
  /** Cart lines whose variant is no longer sellable. */
  missing: { variantId: string; requested: number }[];
  discount: UsableDiscount | null;
  totals: Totals;
}

export interface QuoteInput {
  country?: string | undefined;
  discountCode?: string | undefined;
  /** The chosen shipping method's amount; without one, the country's flat shipping. */
  shippingAmount?: number | undefined;
}

/** Prices cart lines, the discount code and the country's tax and shipping from the database. */
export async function quote(
  deps: Pick<OrdersDeps, 'db'>,
  storeId: string,
  input: QuoteInput,
  items: readonly StockLine[],
  now: Date,
): Promise<Quote> {
  const variants = await sellableVariants(
    deps,
    storeId,
    items.map((i) => i.variantId),
  );
  const lines: QuotedLine[] = [];
  const missing: Quote['missing'] = [];
  for (const item of items) {
    const variant = variants.get(item.variantId);
    if (!variant) {
      missing.push({ variantId: item.variantId, requested: item.quantity });
      continue;
    }
    lines.push({
      variantId: item.variantId,
      productId: variant.productId,
      title: variant.title,
      label: variant.label,
      sku: variant.sku,
      quantity: item.quantity,
      unitPrice: variant.priceAmount,
      available: variant.available,
    });
  }
  const discount =
    input.discountCode !== undefined ? await usableDiscount(deps, storeId, input.discountCode, now) : null;
  const rate = await rateFor(deps, storeId, input.country);
  const totals = computeTotals({
    lines,
    discount: discount ? { kind: discount.kind, value: discount.value } : null,
    taxRateBps: rate.taxRateBps,
    shippingAmount: input.shippingAmount ?? rate.shippingAmount,
  });
  return { lines, missing, discount, totals };
}
