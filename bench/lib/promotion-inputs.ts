/**
 * The inputs of `npm run bench:promotions` (bench/promotions.ts): carts, buyers and promotions as
 * the cart service passes them to the promotions engine, built the same on every run.
 */
import { MAX_CANDIDATES } from '../../src/promotions/engine.ts';
import type {
  EngineInput,
  EngineLine,
  EnginePromotion,
  PromotionAction,
  PromotionClass,
  PromotionConditions,
} from '../../src/promotions/engine.types.ts';

export const MOST_STEPS = 2 ** (MAX_CANDIDATES + 1) - 1;
const LINE_COUNTS = [1, 3, 10, 30];
const CODE_COUNTS = [0, 1, 5];
const PRODUCTS = 40;
const COLLECTIONS = 8;
const SHIPPING = 695;

/**
 * A small deterministic generator (a linear congruential one, its high bits: the low ones repeat
 * every few draws), so every run builds the same inputs.
 */
function numbers(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return Math.floor((state / 2 ** 31) * below);
  };
}

const ALL: Record<PromotionClass, boolean> = { order: true, items: true, shipping: true };
const product = (n: number) => `p${n % PRODUCTS}`;
const collection = (n: number) => `c${n % COLLECTIONS}`;
/** Product n's price (3.00 to 119.70) and collections (one or two of eight). */
const priceOf = (n: number) => 300 + ((n * 2_917) % 11_671);
const collectionsOf = (n: number) => (n % 3 === 0 ? [collection(n), collection(n + 3)] : [collection(n)]);

/** Who a promotion combines with: a third with everything, a third with nothing, a third some classes. */
function combination(next: (below: number) => number): Record<PromotionClass, boolean> {
  const kind = next(3);
  if (kind === 0) return ALL;
  if (kind === 1) return { order: false, items: false, shipping: false };
  return { order: next(2) === 0, items: next(2) === 0, shipping: next(2) === 0 };
}

/** One promotion of each of the ten kinds below, in turn: `index` 0–49 gives five of each. */
function automaticPromotion(index: number, next: (below: number) => number): EnginePromotion {
  let conditions: PromotionConditions = {};
  let action: PromotionAction;
  const kind = index % 10;
  if (kind === 0) {
    // 5–20 % off the order over 25.00–200.00
    action = { kind: 'percent', target: 'order', bps: 500 * (1 + next(4)) };
    conditions = { minSubtotal: 2_500 * (1 + next(8)) };
  } else if (kind === 1) {
    // 2.00–15.00 off the items of two to four products
    action = { kind: 'amount', target: 'items', amount: 200 + 100 * next(14) };
    conditions = { productIds: Array.from({ length: 2 + next(3) }, () => product(next(PRODUCTS))) };
  } else if (kind === 2) {
    // 10–30 % off the items of a collection
    action = { kind: 'percent', target: 'items', bps: 1000 * (1 + next(3)) };
    conditions = { collectionIds: [collection(next(COLLECTIONS))] };
  } else if (kind === 3) {
    // free shipping over 30.00–120.00
    action = { kind: 'free_shipping' };
    conditions = { minSubtotal: 3_000 * (1 + next(4)) };
  } else if (kind === 4) {
    // buy 1–3 of a collection, get one of a collection at 50 % or free, at most once or twice
    action = {
      kind: 'buy_x_get_y',
      buy: { quantity: 1 + next(3), collectionIds: [collection(next(COLLECTIONS))] },
      get: { quantity: 1, collectionIds: [collection(next(COLLECTIONS))], bps: next(2) ? 10_000 : 5_000 },
      ...(next(2) ? { usesPerOrder: 1 + next(2) } : {}),
    };
  } else if (kind === 5) {
    // 10–25 % off the order for a customer group (the buyer is in vip or in none)
    action = { kind: 'percent', target: 'order', bps: 1000 + 500 * next(4) };
    conditions = { customerGroupIds: [next(2) ? 'vip' : 'wholesale'] };
  } else if (kind === 6) {
    // 5.00–10.00 off the order over 40.00 in one market (us, eu or ca)
    action = { kind: 'amount', target: 'order', amount: 500 * (1 + next(2)) };
    conditions = { minSubtotal: 4_000, marketIds: [['us', 'eu', 'ca'][next(3)]!] };
  } else if (kind === 7) {
    // 10 % off a collection's items for a first order
    action = { kind: 'percent', target: 'items', bps: 1000 };
    conditions = { collectionIds: [collection(next(COLLECTIONS))], firstOrderOnly: true };
  } else if (kind === 8) {
    // 5.00 off two or more units of a product
    action = { kind: 'amount', target: 'items', amount: 500 };
    conditions = { productIds: [product(next(PRODUCTS))], minQuantity: 2 };
  } else {
    // free shipping in one market over 50.00
    action = { kind: 'free_shipping' };
    conditions = { minSubtotal: 5_000, marketIds: [next(2) ? 'us' : 'eu'] };
  }
  return {
    id: `auto-${String(index).padStart(2, '0')}`,
    name: `automatic ${index}`,
    code: null,
    automatic: true,
    conditions,
    action,
    combinesWith: combination(next),
    createdAt: new Date(Date.UTC(2026, 0, 1) + index * 60_000),
  };
}

/** The five promotions of the codes a buyer may enter (the first `count` are entered). */
function codePromotions(next: (below: number) => number): EnginePromotion[] {
  const actions: [PromotionAction, PromotionConditions][] = [
    [{ kind: 'percent', target: 'order', bps: 1_000 }, {}],
    [{ kind: 'amount', target: 'items', amount: 500 }, { collectionIds: [collection(1)] }],
    [{ kind: 'free_shipping' }, {}],
    [
      {
        kind: 'buy_x_get_y',
        buy: { quantity: 2, collectionIds: [collection(2)] },
        get: { quantity: 1, collectionIds: [collection(2)], bps: 10_000 },
      },
      {},
    ],
    [{ kind: 'percent', target: 'items', bps: 1_500 }, { collectionIds: [collection(4)] }],
  ];
  return actions.map(([action, conditions], index) => ({
    id: `code-${index}`,
    name: `code ${index}`,
    code: `CODE${index}`,
    automatic: false,
    conditions,
    action,
    combinesWith: combination(next),
    createdAt: new Date(Date.UTC(2025, 11, 1) + index * 60_000),
  }));
}

function cart(lines: number, next: (below: number) => number): EngineLine[] {
  const first = next(PRODUCTS);
  return Array.from({ length: lines }, (_, index) => {
    const n = (first + index * 7) % PRODUCTS;
    return {
      key: `line-${index}`,
      variantId: `v-${n}-${next(3)}`,
      productId: product(n),
      collectionIds: collectionsOf(n),
      unitPrice: priceOf(n),
      quantity: 1 + next(lines > 10 ? 2 : 3),
    };
  });
}

export interface Case {
  name: string;
  lines: number;
  codes: number;
  inputs: EngineInput[];
}

/** The cases: every cart size with every code count, `carts` carts and buyers each. */
export function cases(carts: number): Case[] {
  const next = numbers(46);
  const automatic = Array.from({ length: 50 }, (_, index) => automaticPromotion(index, next));
  const coded = codePromotions(next);
  return LINE_COUNTS.flatMap((lines) =>
    CODE_COUNTS.map((codes) => ({
      name: `${lines} line${lines === 1 ? '' : 's'}, ${codes} code${codes === 1 ? '' : 's'}`,
      lines,
      codes,
      inputs: Array.from({ length: carts }, () => ({
        lines: cart(lines, next),
        shipping: SHIPPING,
        buyer: {
          customerGroupIds: next(3) === 0 ? ['vip'] : [],
          marketId: next(4) === 0 ? 'eu' : 'us',
          firstOrder: next(4) === 0,
        },
        codes: coded.slice(0, codes).map((each) => each.code!),
        promotions: [...automatic, ...coded.slice(0, codes)],
      })),
    })),
  );
}

export interface WorstCase {
  name: string;
  input: EngineInput;
}

/** The most lines a cart holds (MAX_CART_LINES, src/carts/carts.service.ts). */
const CART_MOST_LINES = 100;

/** `count` lines of products 0, 1, 2, …, `quantity` units each. */
const worstLines = (count: number, quantity = 1): EngineLine[] =>
  Array.from({ length: count }, (_, n) => ({
    key: `line-${n}`,
    variantId: `v-${n}`,
    productId: `p${n}`,
    collectionIds: collectionsOf(n),
    unitPrice: priceOf(n),
    quantity,
  }));

/** `count` automatic promotions that combine with every class, `make(index)` each. */
function combining(
  id: string,
  count: number,
  make: (index: number) => [PromotionAction, PromotionConditions?],
): EnginePromotion[] {
  return Array.from({ length: count }, (_, index) => {
    const [action, conditions = {}] = make(index);
    return {
      id: `${id}-${String(index).padStart(2, '0')}`,
      name: id,
      code: null,
      automatic: true,
      conditions,
      action,
      combinesWith: ALL,
      createdAt: new Date(Date.UTC(2026, 0, 1) + index * 60_000),
    };
  });
}

/** One of six kinds, in turn: each takes a few dollars or more, so the bound cuts most sets. */
function sixKinds(index: number): [PromotionAction, PromotionConditions] {
  const k = index % 6;
  if (k === 0) return [{ kind: 'percent', target: 'order', bps: 500 + 100 * index }, { minSubtotal: 5_000 }];
  if (k === 1)
    return [{ kind: 'amount', target: 'items', amount: 300 + 50 * index }, { productIds: [product(index)] }];
  if (k === 2)
    return [{ kind: 'percent', target: 'items', bps: 1000 }, { collectionIds: [collection(index)] }];
  if (k === 3) return [{ kind: 'free_shipping' }, { minSubtotal: 3_000 }];
  if (k === 4)
    return [
      {
        kind: 'buy_x_get_y',
        buy: { quantity: 2, collectionIds: [collection(index)] },
        get: { quantity: 1, collectionIds: [collection(index + 1)], bps: 5_000 },
        usesPerOrder: 1,
      },
      {},
    ];
  return [{ kind: 'amount', target: 'order', amount: 200 + 100 * index }, { customerGroupIds: ['vip'] }];
}

/**
 * Cases at the bound: 16 candidates (or more, cut to 16), each qualifying and combining with every
 * other. The search cuts a set when what the promotions still allowed could take off at most, plus
 * a slack for rounding of about two units per line and step, cannot beat the best found: promotions
 * that each take little against that slack (a few dollars on 30 lines) cannot be cut, and the
 * search visits every set, 2^17 − 1 steps, each step costing more with more lines.
 */
export function worstCases(): WorstCase[] {
  const input = (lines: EngineLine[], promotions: EnginePromotion[], codes: string[] = []) => ({
    lines,
    shipping: SHIPPING,
    buyer: { customerGroupIds: ['vip'], marketId: 'us', firstOrder: true },
    codes,
    promotions,
  });
  const cent = (): [PromotionAction] => [{ kind: 'amount', target: 'items', amount: 1 }];
  const fiveOff = (index: number): [PromotionAction, PromotionConditions] => [
    { kind: 'amount', target: 'items', amount: 500 },
    { productIds: [`p${index}`] },
  ];
  const bogo = (): [PromotionAction] => [
    { kind: 'buy_x_get_y', buy: { quantity: 1 }, get: { quantity: 1, bps: 100 }, usesPerOrder: 1 },
  ];
  const codes = combining('code', 5, cent).map((each, index) => ({
    ...each,
    code: `TINY${index}`,
    automatic: false,
  }));
  const most = CART_MOST_LINES;
  return [
    {
      name: '16 of six kinds, 2 units a line, 30 lines',
      input: input(worstLines(30, 2), combining('six', 16, sixKinds)),
    },
    {
      name: '16 × 5.00 off one product each, 30 lines',
      input: input(worstLines(30), combining('five', 16, fiveOff)),
    },
    {
      name: `16 × 5.00 off one product each, ${most} lines`,
      input: input(worstLines(most), combining('five', 16, fiveOff)),
    },
    { name: '16 × 0.01 off every item, 30 lines', input: input(worstLines(30), combining('cent', 16, cent)) },
    {
      name: `16 × 0.01 off every item, ${most} lines`,
      input: input(worstLines(most), combining('cent', 16, cent)),
    },
    {
      name: '16 × buy 1 get 1 at 1 % off (once each), 30 lines of 100 units',
      input: input(worstLines(30, 100), combining('bogo', 16, bogo)),
    },
    {
      name: `16 × buy 1 get 1 at 1 % off (once each), ${most} lines of 100 units`,
      input: input(worstLines(most, 100), combining('bogo', 16, bogo)),
    },
    {
      name: '5 codes and 50 automatic, all 0.01 off every item, 30 lines',
      input: input(
        worstLines(30),
        [...codes, ...combining('cent', 50, cent)],
        codes.map((each) => each.code),
      ),
    },
  ];
}
