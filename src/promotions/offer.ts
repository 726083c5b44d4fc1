import type { Kysely, Transaction } from 'kysely';
import { lockScopes } from '../db/advisory-lock.ts';
import { storeSetting } from '../db/settings-cache.ts';
import type { Database } from '../db/tables.ts';
import { AppError } from '../lib/errors.ts';
import { MAX_CODES, pickPromotions } from './engine.ts';
import type {
  EngineBuyer,
  EngineLine,
  EnginePromotion,
  EngineResult,
  PromotionAction,
} from './engine.types.ts';
import { adjustPromotionUses, countPromotionUses, promotionsInForce } from './promotions.repository.ts';
import { normalizeCode } from './promotions.rules.ts';
import type { PromotionRow } from './promotions.tables.ts';

/**
 * What a cart or a checkout may be offered (decision `cart-promotions`): the promotions in force for
 * its buyer, its codes checked, read once and handed to the pricing, which runs the engine on the
 * lines and shipping it prices (`pickPromotions`). Carts read the store's automatic promotions from
 * the process's cache (dropped when a promotion changes) and their codes afresh; checkout reads
 * both afresh, and counts the uses of what it applied in its transaction (`reserveUses`).
 */

/** Why a code cannot be used now (a code that can, but whose conditions fail, is the engine's `notApplied`). */
export type CodeProblem = 'unknown' | 'not_started' | 'ended' | 'used_up' | 'customer_limit';

/** A buyer as their past orders are looked up: their customer account, else their email. */
export type BuyerKey = { customerId: string } | { email: string };

/**
 * What an offer asks of the rest of the store (given by orders, which own the orders, and the
 * catalog): a buyer's uses of promotions and whether they ordered before (decision
 * `per-customer-uses-from-orders`), and the collections of products.
 */
export interface PromotionHistory {
  uses(
    db: Kysely<Database>,
    storeId: string,
    buyer: BuyerKey,
    promotionIds: readonly string[],
  ): Promise<Map<string, number>>;
  hasOrder(db: Kysely<Database>, storeId: string, buyer: BuyerKey): Promise<boolean>;
  collections(
    db: Kysely<Database>,
    storeId: string,
    productIds: readonly string[],
  ): Promise<Map<string, string[]>>;
}

/** Who buys: the signed-in customer, else the checkout's email (unknown in a guest's cart). */
export interface OfferBuyer {
  customerId: string | null;
  /** Lower case. */
  email: string | null;
  groupIds: readonly string[];
}

export interface PromotionOffer {
  /** The candidates, amounts in the cart's currency. */
  promotions: EnginePromotion[];
  /** The entered codes that can be used, normalised, in the order entered. */
  codes: string[];
  /** The entered codes that cannot, with why, in the order entered. */
  refused: { code: string; problem: CodeProblem }[];
  buyer: EngineBuyer;
  /** The collections of the lines' products, when a candidate names collections. */
  collections: ReadonlyMap<string, readonly string[]>;
  /** The limit per buyer of the candidates that have one (their uses are counted again at checkout). */
  perBuyer: ReadonlyMap<string, number>;
}

export interface OfferRequest {
  codes: readonly string[];
  marketId: string;
  /** Turns an amount of the store's currency into the cart's (a market's); absent: the same. */
  convert?: ((amount: number) => number) | undefined;
  buyer: OfferBuyer;
  productIds: readonly string[];
  now: Date;
  /** `cached`: the automatic promotions as this process keeps them (a cart's preview); `fresh`: read now. */
  read: 'cached' | 'fresh';
}

/** The key a buyer's uses are counted by: the customer, else the email; null when unknown. */
const buyerKey = (buyer: OfferBuyer): BuyerKey | null =>
  buyer.customerId !== null
    ? { customerId: buyer.customerId }
    : buyer.email !== null
      ? { email: buyer.email }
      : null;

const unique = (codes: readonly string[]) => [...new Set(codes.map(normalizeCode))].slice(0, MAX_CODES);

function namesCollections(action: PromotionAction, row: PromotionRow): boolean {
  if ((row.conditions.collectionIds?.length ?? 0) > 0) return true;
  return (
    action.kind === 'buy_x_get_y' &&
    ((action.buy.collectionIds?.length ?? 0) > 0 || (action.get.collectionIds?.length ?? 0) > 0)
  );
}

/** A row as the engine takes it, its amounts in the cart's currency. */
function enginePromotion(row: PromotionRow, convert: (amount: number) => number): EnginePromotion {
  const { minSubtotal, ...conditions } = row.conditions;
  const action = row.action;
  return {
    id: row.id,
    name: row.name,
    code: row.code,
    automatic: row.automatic,
    conditions: minSubtotal === undefined ? conditions : { ...conditions, minSubtotal: convert(minSubtotal) },
    action: action.kind === 'amount' ? { ...action, amount: convert(action.amount) } : action,
    combinesWith: row.combines_with,
    createdAt: row.created_at,
  };
}

/** Why a promotion cannot be used at `now` by anyone (dates, its use limit), or null. */
function problemAt(row: PromotionRow, now: Date): CodeProblem | null {
  if (row.starts_at !== null && row.starts_at > now) return 'not_started';
  if (row.ends_at !== null && row.ends_at <= now) return 'ended';
  if (row.usage_limit !== null && row.used_count >= row.usage_limit) return 'used_up';
  return null;
}

async function rowsFor(
  db: Kysely<Database>,
  storeId: string,
  codes: readonly string[],
  request: OfferRequest,
): Promise<PromotionRow[]> {
  const automatic = await storeSetting(db, storeId, 'promotions-automatic', () =>
    promotionsInForce(db, storeId, [], true, request.now),
  );
  // A store without automatic promotions, and no code: nothing to read (the cache is dropped
  // whenever a promotion is written, so a new one is seen at once).
  if (automatic.length === 0 && codes.length === 0) return [];
  if (request.read === 'fresh') return promotionsInForce(db, storeId, codes, true, request.now);
  return codes.length > 0
    ? [...automatic, ...(await promotionsInForce(db, storeId, codes, false, request.now))]
    : automatic;
}

/**
 * The promotions a cart or checkout may be offered, or null when there are none and no code was
 * entered (no engine then). Statements: the codes' (when codes were entered; with the automatic ones
 * when fresh), and only when a candidate needs them: the buyer's uses, whether they ordered before,
 * and the products' collections.
 */
export async function promotionOffer(
  deps: { db: Kysely<Database>; promotionHistory: PromotionHistory },
  storeId: string,
  request: OfferRequest,
): Promise<PromotionOffer | null> {
  const codes = unique(request.codes);
  const rows = await rowsFor(deps.db, storeId, codes, request);
  if (rows.length === 0 && codes.length === 0) return null;
  const convert = request.convert ?? ((amount: number) => amount);
  const byCode = new Map(rows.filter((row) => row.code !== null).map((row) => [row.code!, row]));
  const problems = new Map<string, CodeProblem>();
  const usable: PromotionRow[] = [];
  for (const row of rows) {
    const problem = problemAt(row, request.now);
    if (problem !== null) problems.set(row.id, problem);
    else if (row.automatic || (row.code !== null && codes.includes(row.code))) usable.push(row);
  }
  const key = buyerKey(request.buyer);
  const limited = usable.filter((row) => row.per_customer_limit !== null);
  const [uses, ordered, collections] = await Promise.all([
    key !== null && limited.length > 0
      ? deps.promotionHistory.uses(
          deps.db,
          storeId,
          key,
          limited.map((row) => row.id),
        )
      : new Map<string, number>(),
    key !== null && usable.some((row) => row.conditions.firstOrderOnly === true)
      ? deps.promotionHistory.hasOrder(deps.db, storeId, key)
      : false,
    usable.some((row) => namesCollections(row.action, row))
      ? deps.promotionHistory.collections(deps.db, storeId, [...new Set(request.productIds)])
      : new Map<string, string[]>(),
  ]);
  const candidates: EnginePromotion[] = [];
  for (const row of usable) {
    if (row.per_customer_limit !== null && (uses.get(row.id) ?? 0) >= row.per_customer_limit)
      problems.set(row.id, 'customer_limit');
    else candidates.push(enginePromotion(row, convert));
  }
  const refused: PromotionOffer['refused'] = [];
  const entered: string[] = [];
  for (const code of codes) {
    const row = byCode.get(code);
    const problem = row === undefined ? 'unknown' : problems.get(row.id);
    if (problem === undefined) entered.push(code);
    else refused.push({ code, problem });
  }
  return {
    promotions: candidates,
    codes: entered,
    refused,
    buyer: { customerGroupIds: request.buyer.groupIds, marketId: request.marketId, firstOrder: !ordered },
    collections,
    perBuyer: new Map(limited.map((row) => [row.id, row.per_customer_limit!])),
  };
}

/** Whether a candidate could take shipping off (the pricing then runs the engine with the shipping). */
export const offersShipping = (offer: PromotionOffer): boolean =>
  offer.promotions.some((promotion) => promotion.action.kind === 'free_shipping');

/** The engine's pick for lines and a shipping amount. */
export function pickFromOffer(
  offer: PromotionOffer,
  lines: readonly Omit<EngineLine, 'collectionIds'>[],
  shipping: number | null,
): EngineResult {
  return pickPromotions({
    lines: lines.map((line) => ({ ...line, collectionIds: offer.collections.get(line.productId) ?? [] })),
    shipping,
    buyer: offer.buyer,
    codes: offer.codes,
    promotions: offer.promotions,
  });
}

/** An order's promotion as it keeps it: what it took off, goods and shipping together, and the shipping part of that. */
export interface OrderPromotion {
  id: string;
  name: string;
  code: string | null;
  amount: number;
  /** Of `amount`, what it took off the shipping (absent on orders placed before it was kept: 0). */
  shipping?: number;
}

/**
 * Counts the uses of what an order applies, in the checkout's transaction (decision
 * `promotion-limits`): each promotion's use where its limit allows (one statement), and for those
 * with a limit per buyer, under a lock per buyer and promotion, the buyer's uses counted again from
 * their orders. False when one was used up meanwhile (the checkout prices again).
 */
export async function reserveUses(
  history: PromotionHistory,
  trx: Transaction<Database>,
  storeId: string,
  offer: PromotionOffer | null,
  applied: readonly OrderPromotion[],
  buyer: OfferBuyer,
  now: Date,
): Promise<boolean> {
  if (offer === null || applied.length === 0) return true;
  const ids = applied.map((promotion) => promotion.id);
  const limited = ids.filter((id) => offer.perBuyer.has(id));
  const key = buyerKey(buyer);
  if (limited.length > 0 && key !== null) {
    const name = 'customerId' in key ? `c:${key.customerId}` : `e:${key.email}`;
    await lockScopes(
      trx,
      'promotion-use',
      limited.map((id) => `${storeId}:${id}:${name}`),
    );
    // After the locks: this statement sees the orders of the buyer's checkouts that held them before.
    const uses = await history.uses(trx, storeId, key, limited);
    for (const id of limited) if ((uses.get(id) ?? 0) >= offer.perBuyer.get(id)!) return false;
  }
  const counted = await countPromotionUses(trx, storeId, ids, now);
  return counted.size === ids.length;
}

/** 409 `discount_invalid`: a code that cannot be used now (unknown, not started, ended, used up). */
export const discountInvalid = (code: string): AppError =>
  new AppError(
    'discount_invalid',
    409,
    `The discount code "${code}" is unknown, not active at this time, or used up.`,
    { errors: [{ pointer: '/discountCode', detail: 'is not valid now' }] },
  );

/** The first code of an offer that cannot be used, as checkout and the cart's code endpoints refuse it. */
export function refusedCode(offer: PromotionOffer | null): AppError | null {
  const refused = offer?.refused[0];
  return refused === undefined ? null : discountInvalid(refused.code);
}

/**
 * Moves the use counts of an order's promotions: -1 gives them back (it expired or was
 * cancelled: a use is reserved at checkout like stock), +1 counts them again past any limit (a
 * late payment revived it: the buyer paid the discounted price).
 */
export function adjustOrderUses(
  trx: Transaction<Database>,
  storeId: string,
  promotions: readonly { id: string }[],
  delta: 1 | -1,
  now: Date,
): Promise<void> {
  return adjustPromotionUses(
    trx,
    storeId,
    promotions.map((promotion) => promotion.id),
    delta,
    now,
  );
}
