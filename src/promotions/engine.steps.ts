/**
 * The promotions engine's steps (decision `promotion-engine`): what each promotion's conditions say
 * about a cart, and what it takes off a cart's state when applied after others. Integers only;
 * percentages are basis points, rounded down with BigInt; every share is allocated by largest
 * remainder (`allocate`, ties to the earlier line), so shares add up exactly.
 */
import { allocate } from '../lib/allocate.ts';
import type {
  EngineInput,
  EnginePromotion,
  NotAppliedReason,
  PromotionClass,
  UnitSelector,
} from './engine.types.ts';

/** What is left to discount: each line's amount, each line's units a buy-X-get-Y used, the shipping. */
export interface CartState {
  remaining: number[];
  used: number[];
  shipping: number;
}

/** What one promotion took off: a share per line (in line order) and from the shipping. */
export interface Step {
  shares: number[];
  shipping: number;
  total: number;
}

/** A promotion ready to apply: its class, its place in the order of application, its lines. */
export interface Prepared {
  promotion: EnginePromotion;
  class: PromotionClass;
  /** Its place in the order of application (ascending). */
  order: number;
  /** The lines an `items` action acts on (the conditions' matching lines), or every discountable one. */
  targets: boolean[];
  buy: boolean[];
  get: boolean[];
}

export const classOf = (promotion: EnginePromotion): PromotionClass => {
  const { action } = promotion;
  if (action.kind === 'free_shipping') return 'shipping';
  if (action.kind === 'buy_x_get_y') return 'items';
  return action.target;
};

/** Two promotions may be applied together only if each allows the other's class. */
export const combinable = (a: Prepared, b: Prepared): boolean =>
  a.promotion.combinesWith[b.class] && b.promotion.combinesWith[a.class];

/** Items first (buy X get Y, then percent, then amount), then the order (percent, then amount), then shipping. */
export function kindOrder(promotion: EnginePromotion): number {
  const { action } = promotion;
  if (action.kind === 'buy_x_get_y') return 0;
  if (action.kind === 'free_shipping') return 5;
  const base = action.target === 'items' ? 1 : 3;
  return base + (action.kind === 'percent' ? 0 : 1);
}

/**
 * `amount × bps / 10000` rounded down to the minor unit (BigInt: no product loses precision): a
 * percent never gives more than it says, and a discount code's figures stay what they were before
 * codes became promotions (they rounded down).
 */
export const percentOf = (amount: number, bps: number): number =>
  Number((BigInt(amount) * BigInt(bps)) / 10000n);

const listed = (list: readonly string[] | undefined) => list !== undefined && list.length > 0;

/** Which lines a product and collection filter selects; every discountable line when it names none. */
export function selectLines(
  input: EngineInput,
  filter: { productIds?: readonly string[]; collectionIds?: readonly string[] },
): boolean[] {
  const products = new Set(filter.productIds ?? []);
  const collections = new Set(filter.collectionIds ?? []);
  const any = !listed(filter.productIds) && !listed(filter.collectionIds);
  return input.lines.map(
    (line) =>
      line.discountable !== false &&
      (any || products.has(line.productId) || line.collectionIds.some((id) => collections.has(id))),
  );
}

export function prepare(input: EngineInput, promotion: EnginePromotion, rank: number): Prepared {
  const { action } = promotion;
  const matching = selectLines(input, promotion.conditions);
  const items = action.kind !== 'free_shipping' && action.kind !== 'buy_x_get_y' && action.target === 'items';
  const none = input.lines.map(() => false);
  return {
    promotion,
    class: classOf(promotion),
    order: kindOrder(promotion) * 1_000_000 + rank,
    targets: items ? matching : selectLines(input, {}),
    buy: action.kind === 'buy_x_get_y' ? selectLines(input, action.buy) : none,
    get: action.kind === 'buy_x_get_y' ? selectLines(input, action.get) : none,
  };
}

export const initialState = (input: EngineInput): CartState => ({
  remaining: input.lines.map((line) => line.unitPrice * line.quantity),
  used: input.lines.map(() => 0),
  shipping: input.shipping ?? 0,
});

/** Why a promotion's conditions fail for this cart and buyer, before anything is applied; null when they hold. */
export function conditionsFail(input: EngineInput, prepared: Prepared): NotAppliedReason | null {
  const { conditions, action } = prepared.promotion;
  const { buyer } = input;
  if (listed(conditions.marketIds) && !conditions.marketIds!.includes(buyer.marketId)) return 'market';
  if (
    listed(conditions.customerGroupIds) &&
    !buyer.customerGroupIds.some((id) => conditions.customerGroupIds!.includes(id))
  )
    return 'customer_group';
  if (conditions.firstOrderOnly === true && !buyer.firstOrder) return 'first_order_only';
  const matching = selectLines(input, conditions);
  if (!matching.some(Boolean)) return 'no_matching_items';
  let subtotal = 0;
  let units = 0;
  input.lines.forEach((line, index) => {
    if (!matching[index]) return;
    subtotal += line.unitPrice * line.quantity;
    units += line.quantity;
  });
  if (subtotal < (conditions.minSubtotal ?? 0) || units < (conditions.minQuantity ?? 0))
    return 'minimum_not_met';
  if (action.kind === 'buy_x_get_y') {
    if (!prepared.buy.some(Boolean) || !prepared.get.some(Boolean)) return 'no_matching_items';
    if (buyGetPlan(input, prepared, initialState(input)).applications === 0) return 'minimum_not_met';
  }
  if (action.kind === 'free_shipping' && !(input.shipping! > 0)) return 'no_shipping';
  return null;
}

/** Units of each line still free for a buy-X-get-Y, by who may take them. */
interface UnitPlan {
  applications: number;
  /** Units of each line got at the discount. */
  got: number[];
  /** Units of each line used to satisfy the buy side. */
  bought: number[];
}

/**
 * A buy-X-get-Y's units: as many applications as the free units allow (Hall's condition for the
 * three kinds of unit: buy only, get only, both), the units got being the cheapest get units that
 * still leave enough buy units, and the units bought the dearest of those left (ties: a unit that
 * qualifies for one side only before one that qualifies for both, then the earlier line).
 */
export function buyGetPlan(input: EngineInput, prepared: Prepared, state: CartState): UnitPlan {
  const action = prepared.promotion.action as { buy: UnitSelector; get: UnitSelector; usesPerOrder?: number };
  const free = input.lines.map((line, index) => line.quantity - state.used[index]!);
  let buyOnly = 0;
  let getOnly = 0;
  let both = 0;
  free.forEach((units, index) => {
    if (prepared.buy[index] && prepared.get[index]) both += units;
    else if (prepared.buy[index]) buyOnly += units;
    else if (prepared.get[index]) getOnly += units;
  });
  const [b, g] = [action.buy.quantity, action.get.quantity];
  const applications = Math.min(
    Math.floor((getOnly + both) / g),
    Math.floor((buyOnly + both) / b),
    Math.floor((buyOnly + getOnly + both) / (b + g)),
    action.usesPerOrder ?? Number.MAX_SAFE_INTEGER,
  );
  const got = free.map(() => 0);
  const bought = free.map(() => 0);
  if (applications === 0) return { applications, got, bought };
  const byPrice = (direction: 1 | -1) => (x: number, y: number) => {
    const [px, py] = [input.lines[x]!.unitPrice, input.lines[y]!.unitPrice];
    if (px !== py) return direction * (px - py);
    const [bx, by] = [prepared.buy[x] && prepared.get[x], prepared.buy[y] && prepared.get[y]];
    return bx === by ? x - y : bx ? 1 : -1;
  };
  const indexes = input.lines.map((_, index) => index);
  let need = applications * g;
  let bothForGet = buyOnly + both - applications * b;
  for (const index of indexes.filter((i) => prepared.get[i]).sort(byPrice(1))) {
    const isBoth = prepared.buy[index]!;
    const take = Math.min(free[index]!, need, isBoth ? bothForGet : need);
    got[index] = take;
    need -= take;
    if (isBoth) bothForGet -= take;
  }
  need = applications * b;
  for (const index of indexes.filter((i) => prepared.buy[i]).sort(byPrice(-1))) {
    const take = Math.min(free[index]! - got[index]!, need);
    bought[index] = take;
    need -= take;
  }
  return { applications, got, bought };
}

/** What `prepared` takes off `state`, and the state after it (a new one; `state` is not changed). */
export function applyStep(input: EngineInput, prepared: Prepared, state: CartState): [Step, CartState] {
  const { action } = prepared.promotion;
  const zero = state.remaining.map(() => 0);
  if (action.kind === 'free_shipping')
    return [
      { shares: zero, shipping: state.shipping, total: state.shipping },
      { ...state, shipping: 0 },
    ];
  let weights: number[];
  let total: number;
  let used = state.used;
  if (action.kind === 'buy_x_get_y') {
    const plan = buyGetPlan(input, prepared, state);
    weights = plan.got.map((units, index) => units * input.lines[index]!.unitPrice);
    total = percentOf(
      weights.reduce((sum, weight) => sum + weight, 0),
      action.get.bps,
    );
    used = state.used.map((units, index) => units + plan.got[index]! + plan.bought[index]!);
  } else {
    weights = state.remaining.map((amount, index) => (prepared.targets[index] ? amount : 0));
    const base = weights.reduce((sum, weight) => sum + weight, 0);
    total = action.kind === 'percent' ? percentOf(base, action.bps) : Math.min(action.amount, base);
  }
  const shares = allocate(total, weights);
  const remaining = state.remaining.map((amount, index) => amount - shares[index]!);
  if (remaining.some((amount) => amount < 0)) throw new Error('a promotion took a line below zero');
  return [
    { shares, shipping: 0, total },
    { remaining, used, shipping: state.shipping },
  ];
}
