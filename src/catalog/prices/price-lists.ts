import type { Kysely, Transaction } from 'kysely';
import { byCreated } from '../../db/keyset.ts';
import { isForeignKeyViolation } from '../../db/errors.ts';
import type { ServiceDeps } from '../../db/service-deps.ts';
import type { Database } from '../../db/tables.ts';
import type { ListPage } from '../../lib/cursors.ts';
import { notFound, validationFailed, type FieldError } from '../../lib/errors.ts';
import { currencyDigits } from '../../markets/currencies.ts';
import { storeMarkets } from '../../markets/markets.service.ts';
import {
  activePriceListRows,
  deletePriceListRow,
  existingVariantIds,
  findPriceList,
  insertPriceList,
  lockPriceList,
  priceListPrices,
  priceListsQuery,
  replacePriceListGroups,
  replacePriceListMarkets,
  replacePriceListPrices,
  updatePriceListRow,
  type PriceListWithScope,
} from './price-lists.repository.ts';
import type { PriceList, PriceListBody, PriceListPatch, PriceListSummary } from './price-lists.schemas.ts';
import type { PriceListKind } from './price-lists.tables.ts';

/**
 * Price lists (decision `price-lists`): a `sale` or an `override` of variants' prices per currency,
 * in force between two dates, limited to markets and customer groups or not. The price function
 * reads them through `activePriceListPrices`. The catalog does not know customers (customers import
 * the catalog's neighbours, not the reverse): a group that is not one of the store's is refused by
 * the database's foreign key, and that refusal becomes the 400.
 */

type Deps = Pick<ServiceDeps, 'db' | 'clock'>;

const noPriceList = () => notFound('No price list with that id in this store.');
const invalid = (errors: FieldError[]) => validationFailed('The price list is invalid.', errors);

function summaryView(row: PriceListWithScope): PriceListSummary {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    marketIds: row.market_ids,
    customerGroupIds: row.group_ids,
    startsAt: row.starts_at?.toISOString() ?? null,
    endsAt: row.ends_at?.toISOString() ?? null,
    priceCount: Number(row.price_count),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** GET /admin/v1/price-lists: oldest first, without their prices (`priceCount`). */
export function listPriceLists(
  deps: Pick<ServiceDeps, 'db' | 'cursors'>,
  storeId: string,
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<ListPage<PriceListSummary>> {
  return byCreated(
    deps.cursors,
    `${storeId}:price-lists`,
    priceListsQuery(deps.db, storeId),
    page,
    summaryView,
  );
}

/** GET /admin/v1/price-lists/:id: with every price. */
export async function getPriceList(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  priceListId: string,
): Promise<PriceList> {
  const [row, prices] = await Promise.all([
    findPriceList(deps.db, storeId, priceListId),
    priceListPrices(deps.db, storeId, priceListId),
  ]);
  if (!row) throw noPriceList();
  return {
    ...summaryView(row),
    prices: prices.map((p) => ({ variantId: p.variant_id, currency: p.currency, amount: Number(p.amount) })),
  };
}

interface CheckedPrice {
  variantId: string;
  currency: string;
  amount: number;
}

/** Ids lower-cased, each once, in their first order. */
const idsOf = (ids: readonly string[] | undefined) =>
  ids === undefined ? undefined : [...new Set(ids.map((id) => id.toLowerCase()))];

/** Currencies upper-cased and ISO 4217; one price per variant and currency (400 at the repeat). */
function checkPrices(prices: PriceListBody['prices'], errors: FieldError[]): CheckedPrice[] {
  const seen = new Map<string, number>();
  return prices.map((price, i) => {
    const currency = price.currency.toUpperCase();
    const variantId = price.variantId.toLowerCase();
    if (currencyDigits(currency) === undefined)
      errors.push({
        pointer: `/prices/${i}/currency`,
        detail: 'must be an ISO 4217 currency code such as EUR',
      });
    const key = `${variantId}:${currency}`;
    const first = seen.get(key);
    if (first !== undefined)
      errors.push({
        pointer: `/prices/${i}`,
        detail: `repeats the variant and currency of /prices/${first}: one price per variant and currency`,
      });
    else seen.set(key, i);
    return { variantId, currency, amount: price.amount };
  });
}

/** The markets given that are not the store's: 400 at each. */
async function checkMarkets(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  marketIds: readonly string[] | undefined,
  errors: FieldError[],
): Promise<void> {
  if (!marketIds?.length) return;
  const known = new Set((await storeMarkets(deps, storeId)).map((market) => market.id));
  marketIds.forEach((id, i) => {
    if (!known.has(id.toLowerCase()))
      errors.push({ pointer: `/marketIds/${i}`, detail: 'is not a market of this store' });
  });
}

function checkDates(startsAt: Date | null, endsAt: Date | null, errors: FieldError[]): void {
  if (startsAt && endsAt && startsAt.getTime() >= endsAt.getTime())
    errors.push({ pointer: '/endsAt', detail: 'must be after startsAt' });
}

const dateOf = (value: string | null | undefined): Date | null | undefined =>
  value === undefined ? undefined : value === null ? null : new Date(value);

interface Scope {
  marketIds: string[] | undefined;
  groupIds: string[] | undefined;
  prices: CheckedPrice[] | undefined;
}

/** Writes the lists a create or a change gives (each replaces the list's). */
async function writeScope(
  trx: Transaction<Database>,
  storeId: string,
  priceListId: string,
  scope: Scope,
): Promise<void> {
  if (scope.marketIds) await replacePriceListMarkets(trx, storeId, priceListId, scope.marketIds);
  if (scope.groupIds) await replacePriceListGroups(trx, storeId, priceListId, scope.groupIds);
  if (scope.prices) await replacePriceListPrices(trx, storeId, priceListId, scope.prices);
}

/**
 * A foreign key refused the write (and rolled it back): 400 at each variant that is not the store's,
 * at the group or market the database named (it names the first it met), else null.
 */
async function refusedReferences(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  error: unknown,
  given: {
    marketIds?: readonly string[] | undefined;
    groupIds?: readonly string[] | undefined;
    prices?: readonly CheckedPrice[] | undefined;
  },
): Promise<FieldError[] | null> {
  if (isForeignKeyViolation(error, 'price_list_prices_variant_fkey') && given.prices) {
    const known = new Set(
      await existingVariantIds(
        deps.db,
        storeId,
        given.prices.map((p) => p.variantId),
      ),
    );
    return given.prices.flatMap((price, i) =>
      known.has(price.variantId)
        ? []
        : [{ pointer: `/prices/${i}/variantId`, detail: 'is not a variant of this store' }],
    );
  }
  for (const [constraint, field, ids, what] of [
    ['price_list_groups_group_fkey', 'customerGroupIds', given.groupIds, 'a customer group'],
    ['price_list_markets_market_fkey', 'marketIds', given.marketIds, 'a market'],
  ] as const) {
    if (!isForeignKeyViolation(error, constraint) || !ids) continue;
    // "Key (store_id, group_id)=(…, <id>) is not present in table …"
    const detail = (error as { detail?: unknown }).detail;
    const missing =
      typeof detail === 'string' ? /=\([^,]*,\s*([0-9a-f-]{36})\)/i.exec(detail)?.[1] : undefined;
    const pointers = ids.flatMap((id, i) => (id === missing?.toLowerCase() ? [`/${field}/${i}`] : []));
    return (pointers.length > 0 ? pointers : [`/${field}`]).map((pointer) => ({
      pointer,
      detail: `is not ${what} of this store`,
    }));
  }
  return null;
}

/** Ids as given by the caller, lower-cased, in their order (for pointers). */
const givenIds = (body: { marketIds?: string[]; customerGroupIds?: string[] }) => ({
  marketIds: body.marketIds?.map((id) => id.toLowerCase()),
  groupIds: body.customerGroupIds?.map((id) => id.toLowerCase()),
});

export async function createPriceList(deps: Deps, storeId: string, body: PriceListBody): Promise<PriceList> {
  const errors: FieldError[] = [];
  const prices = checkPrices(body.prices, errors);
  const startsAt = dateOf(body.startsAt) ?? null;
  const endsAt = dateOf(body.endsAt) ?? null;
  checkDates(startsAt, endsAt, errors);
  await checkMarkets(deps, storeId, body.marketIds, errors);
  if (errors.length > 0) throw invalid(errors);
  const scope: Scope = { marketIds: idsOf(body.marketIds), groupIds: idsOf(body.customerGroupIds), prices };
  try {
    const id = await deps.db.transaction().execute(async (trx) => {
      const row = await insertPriceList(trx, {
        storeId,
        name: body.name.trim(),
        kind: body.kind,
        allMarkets: !scope.marketIds?.length,
        allGroups: !scope.groupIds?.length,
        startsAt,
        endsAt,
        now: deps.clock.now(),
      });
      await writeScope(trx, storeId, row.id, scope);
      return row.id;
    });
    return await getPriceList(deps, storeId, id);
  } catch (error) {
    const refused = await refusedReferences(deps, storeId, error, { ...givenIds(body), prices });
    if (refused) throw invalid(refused);
    throw error;
  }
}

/** PATCH /admin/v1/price-lists/:id: the fields given change; a list given replaces the list's. */
export async function updatePriceList(
  deps: Deps,
  storeId: string,
  priceListId: string,
  patch: PriceListPatch,
): Promise<PriceList> {
  const errors: FieldError[] = [];
  const prices = patch.prices === undefined ? undefined : checkPrices(patch.prices, errors);
  await checkMarkets(deps, storeId, patch.marketIds, errors);
  if (errors.length > 0) throw invalid(errors);
  const scope: Scope = { marketIds: idsOf(patch.marketIds), groupIds: idsOf(patch.customerGroupIds), prices };
  try {
    await deps.db.transaction().execute(async (trx) => {
      const row = await lockPriceList(trx, storeId, priceListId);
      if (!row) throw noPriceList();
      const startsAt = patch.startsAt === undefined ? row.starts_at : dateOf(patch.startsAt)!;
      const endsAt = patch.endsAt === undefined ? row.ends_at : dateOf(patch.endsAt)!;
      const dates: FieldError[] = [];
      checkDates(startsAt, endsAt, dates);
      if (dates.length > 0) throw invalid(dates);
      await updatePriceListRow(trx, storeId, priceListId, {
        updated_at: deps.clock.now(),
        ...(patch.name !== undefined ? { name: patch.name.trim() } : {}),
        ...(patch.kind !== undefined ? { kind: patch.kind } : {}),
        ...(patch.startsAt !== undefined ? { starts_at: startsAt } : {}),
        ...(patch.endsAt !== undefined ? { ends_at: endsAt } : {}),
        ...(scope.marketIds ? { all_markets: scope.marketIds.length === 0 } : {}),
        ...(scope.groupIds ? { all_groups: scope.groupIds.length === 0 } : {}),
      });
      await writeScope(trx, storeId, priceListId, scope);
    });
  } catch (error) {
    const refused = await refusedReferences(deps, storeId, error, { ...givenIds(patch), prices });
    if (refused) throw invalid(refused);
    throw error;
  }
  return getPriceList(deps, storeId, priceListId);
}

export async function deletePriceList(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  priceListId: string,
): Promise<void> {
  if (!(await deletePriceListRow(deps.db, storeId, priceListId))) throw noPriceList();
}

/** A price-list entry that applies to a variant (decision `price-lists`). */
export interface ActivePriceListPrice {
  priceListId: string;
  name: string;
  kind: PriceListKind;
  /** Minor units of the currency asked for. */
  amount: number;
  startsAt: Date | null;
  endsAt: Date | null;
  createdAt: Date;
}

/**
 * The price-list entries that apply to each of `variantIds` for a buyer in `marketId`, paying in
 * `currency`, in the groups `groupIds` ([] for a shopper not signed in), at `at`: lists in force
 * (`startsAt` ≤ at < `endsAt`), in every market or in this one, for every buyer or for one of these
 * groups, with a price in this currency. Each variant's entries come in the order the price
 * function ranks them: sales lowest first, then overrides newest first, so the first one wins;
 * a variant no list applies to is absent. One SQL statement.
 */
export async function activePriceListPrices(
  db: Kysely<Database>,
  storeId: string,
  variantIds: readonly string[],
  scope: { marketId: string; currency: string; groupIds: readonly string[]; at: Date },
): Promise<Map<string, ActivePriceListPrice[]>> {
  const out = new Map<string, ActivePriceListPrice[]>();
  for (const row of await activePriceListRows(db, storeId, variantIds, scope)) {
    const entries = out.get(row.variant_id) ?? [];
    entries.push({
      priceListId: row.price_list_id,
      name: row.name,
      kind: row.kind,
      amount: Number(row.amount),
      startsAt: row.starts_at,
      endsAt: row.ends_at,
      createdAt: row.created_at,
    });
    out.set(row.variant_id, entries);
  }
  return out;
}
