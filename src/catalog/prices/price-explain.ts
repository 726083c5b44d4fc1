import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.ts';
import { notFound } from '../../lib/errors.ts';
import { formatMoney } from '../../lib/money.ts';
import { activePriceListPrices } from './price-lists.ts';
import type { PriceExplanation } from './price-explain.schemas.ts';
import { marketOfRead, pricesOfVariants, variantPricesIn } from './prices.ts';

/** A market's rounding rule in words. */
const ROUNDING_WORDS: Record<string, string> = {
  none: 'rounded half up to the minor unit',
  to_99: 'rounded up to the next .99',
  to_whole: 'rounded up to the next whole unit',
};

/**
 * "Why this price" (decision `price-function`): what a variant costs a buyer in a market, in a
 * customer group (or none), at a time, and which rule gave it. The price is the price function's
 * own answer (the SQL every read uses); the explanation names the list or the market price it came
 * from, and every list that applied.
 */
export async function explainPrice(
  deps: { db: Kysely<Database> },
  storeId: string,
  variantId: string,
  query: { country?: string | undefined; customerGroupId?: string | undefined; at?: string | undefined },
): Promise<PriceExplanation> {
  const market = await marketOfRead(deps, storeId, query.country);
  const at = query.at === undefined ? new Date() : new Date(query.at);
  const groupIds = query.customerGroupId === undefined ? [] : [query.customerGroupId.toLowerCase()];
  const scope = { marketId: market.id, currency: market.currency, conversion: market.pricing };
  const [regular, shown, explicit, entries] = await Promise.all([
    variantPricesIn(deps.db, storeId, { ...scope, lists: null }, [variantId]),
    variantPricesIn(deps.db, storeId, { ...scope, lists: { groupIds, at } }, [variantId]),
    market.pricing === null ? null : pricesOfVariants(deps.db, storeId, [variantId]),
    activePriceListPrices(deps.db, storeId, [variantId], {
      marketId: market.id,
      currency: market.currency,
      groupIds,
      at,
    }),
  ]);
  const base = regular.get(variantId);
  const price = shown.get(variantId);
  if (!base || !price) throw notFound('No variant with that id in this store.');
  const applied = entries.get(variantId) ?? [];
  const sale = applied.find((entry) => entry.kind === 'sale');
  const override = applied.find((entry) => entry.kind === 'override');
  const regularAmount = override?.amount ?? base.priceAmount;
  const winner = sale && sale.amount < regularAmount ? sale : (override ?? null);
  const from =
    market.pricing === null
      ? 'store_price'
      : explicit?.get(variantId)?.some((p) => p.currency === market.currency)
        ? 'explicit'
        : 'converted';
  const money = (amount: number) => ({ amount, currency: market.currency });
  const marketWords =
    from === 'store_price'
      ? 'the variant’s price'
      : from === 'explicit'
        ? `its explicit ${market.currency} price`
        : `its store price converted at ${market.exchangeRate}, ${ROUNDING_WORDS[market.rounding ?? 'none']}`;
  const reason =
    winner === null
      ? `No price list applies: the market’s price, ${marketWords}.`
      : winner.kind === 'sale'
        ? `The sale “${winner.name}” is the lowest sale that applies and is below the regular price (${formatMoney(money(regularAmount))}), which is shown as compare-at.`
        : `The override “${winner.name}” is the newest override that applies${sale ? ' (no sale that applies is below it)' : ''}.`;
  return {
    variantId,
    market: { id: market.id, name: market.name, currency: market.currency },
    customerGroupId: groupIds[0] ?? null,
    at: at.toISOString(),
    price: money(price.priceAmount),
    compareAtAmount: price.compareAtAmount,
    source: winner?.kind ?? 'market',
    priceList: winner && { id: winner.priceListId, name: winner.name, kind: winner.kind },
    marketPrice: { ...money(base.priceAmount), from },
    candidates: applied.map((entry) => ({
      priceListId: entry.priceListId,
      name: entry.name,
      kind: entry.kind,
      amount: entry.amount,
      wins: entry === winner,
    })),
    reason,
  };
}
