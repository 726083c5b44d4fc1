/**
 * The promotions engine (decision `promotion-engine`; docs/promotions.md "How the engine picks"):
 * pure, no database and no clock. Given a cart's lines, its shipping, the buyer, the codes entered and
 * the candidate promotions (in force and within their limits: the caller checks dates and limits), it
 * picks the set of promotions that takes the most off for the buyer among the sets the combination
 * rules allow, and says what each takes off each line and the shipping, and why every other one does
 * not apply.
 *
 * - Classes: `items` (percent or amount on items, buy X get Y), `order` (percent or amount on the
 *   order), `shipping` (free shipping). Two promotions are applied together only if each one's
 *   `combinesWith` allows the other's class; so two of the same class only if both allow that class.
 * - Order of application: items first (buy X get Y, then percent, then amount), then the order
 *   (percent, then amount) on what the items left, then shipping; within a kind, codes in the order
 *   entered, then automatic promotions, the earlier created first, then the lower id. Each acts on
 *   what is left after those before it; a promotion is applied only if it takes something off.
 * - Search: exhaustive over the allowed sets of at most `MAX_CANDIDATES` candidates (every entered
 *   code that qualifies, then the automatic ones that take the most off alone), depth first in the
 *   order of application with a bound, so exact within that bound: at most 2^(N+1) − 1 steps.
 * - Ties: on an equal total the set found first wins: going down the order of application, the first
 *   promotion in which two sets differ goes to the set that has it.
 */
import {
  applyStep,
  buyGetPlan,
  combinable,
  conditionsFail,
  initialState,
  percentOf,
  prepare,
  type CartState,
  type Prepared,
  type Step,
} from './engine.steps.ts';
import type {
  AppliedPromotion,
  EngineInput,
  EnginePromotion,
  EngineResult,
  NotApplied,
  NotAppliedReason,
} from './engine.types.ts';

export type * from './engine.types.ts';
export { percentOf } from './engine.steps.ts';

/** A cart takes at most this many codes. */
export const MAX_CODES = 5;
/** The search considers at most this many candidates: every qualifying code, then the best automatic ones. */
export const MAX_CANDIDATES = 16;
/**
 * The most work one search does: steps × (lines + 1). Sets that all combine and each take little
 * (so the bound prunes nothing) would otherwise take all 2^17 − 1 steps: 0.4 to 2.5 s of CPU on
 * 30 to 100 lines. Past it (about 30 ms at worst, bench/RESULTS.md) the search stops with the best
 * set found so far, or the best one promotion alone if that takes more (`work.exhausted`).
 */
export const MAX_WORK = 100_000;

/** Input the engine cannot price: a caller's error, never a buyer's. */
function validate(input: EngineInput): void {
  const fail = (what: string) => {
    throw new RangeError(`promotions engine: ${what}`);
  };
  const count = (value: number) => Number.isSafeInteger(value) && value >= 0;
  const keys = new Set(input.lines.map((line) => line.key));
  if (keys.size !== input.lines.length) fail('line keys repeat');
  let subtotal = 0;
  for (const line of input.lines) {
    if (!count(line.unitPrice) || !count(line.quantity)) fail(`line ${line.key}: price or quantity`);
    subtotal += line.unitPrice * line.quantity;
  }
  if (!Number.isSafeInteger(subtotal)) fail('the subtotal is not a safe integer');
  if (input.shipping !== null && !count(input.shipping)) fail('shipping');
  if (input.codes.length > MAX_CODES) fail(`more than ${MAX_CODES} codes`);
  const ids = new Set(input.promotions.map((promotion) => promotion.id));
  if (ids.size !== input.promotions.length) fail('promotion ids repeat');
  for (const { id, action, code, automatic } of input.promotions) {
    const bps = (value: number) => Number.isInteger(value) && value >= 0 && value <= 10000;
    if (!automatic && (code === null || !input.codes.includes(code))) fail(`${id}: its code was not entered`);
    if (action.kind === 'percent' && !bps(action.bps)) fail(`${id}: bps`);
    if (action.kind === 'amount' && !count(action.amount)) fail(`${id}: amount`);
    if (action.kind === 'buy_x_get_y') {
      const positive = (value: number) => Number.isSafeInteger(value) && value >= 1;
      if (!positive(action.buy.quantity) || !positive(action.get.quantity)) fail(`${id}: quantities`);
      if (!bps(action.get.bps)) fail(`${id}: get bps`);
      if (action.usesPerOrder !== undefined && !positive(action.usesPerOrder)) fail(`${id}: usesPerOrder`);
    }
  }
}

/** Codes in the order entered, then automatic promotions, the earlier created first, then the lower id. */
function byRank(codes: readonly string[]) {
  const codeRank = (promotion: EnginePromotion) => {
    const index = promotion.code === null ? -1 : codes.indexOf(promotion.code);
    return index === -1 ? codes.length : index;
  };
  return (a: EnginePromotion, b: EnginePromotion) =>
    codeRank(a) - codeRank(b) ||
    a.createdAt.getTime() - b.createdAt.getTime() ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The most that applying the promotions still allowed after `from` could take off `state` in all. */
function bound(
  input: EngineInput,
  candidates: readonly Candidate[],
  from: number,
  allowed: boolean[],
  state: CartState,
) {
  const factors = state.remaining.map(() => 1);
  let itemsAmounts = 0;
  let orderFactor = 1;
  let orderAmounts = 0;
  let steps = 0;
  let shipping = 0;
  for (let index = from; index < candidates.length; index += 1) {
    if (!allowed[index]) continue;
    const { prepared, ceiling } = candidates[index]!;
    const { action } = prepared.promotion;
    steps += 1;
    if (action.kind === 'free_shipping') shipping = state.shipping;
    else if (action.kind === 'buy_x_get_y' || (action.kind === 'amount' && action.target === 'items'))
      itemsAmounts += ceiling;
    else if (action.kind === 'amount') orderAmounts += ceiling;
    else if (action.target === 'order') orderFactor *= 1 - action.bps / 10000;
    else prepared.targets.forEach((target, line) => target && (factors[line]! *= 1 - action.bps / 10000));
  }
  if (steps === 0) return 0;
  // Each step's rounding and largest remainder moves a line by at most 1.5 units beyond the exact
  // proportion; the slack covers that and floating point, so the bound is never below the truth.
  const slack = 2 * steps * (input.lines.length + 1) + 1;
  let left = 0;
  let before = 0;
  state.remaining.forEach((amount, line) => {
    if (input.lines[line]!.discountable === false) return;
    before += amount;
    left += amount * factors[line]!;
  });
  const afterItems = Math.max(0, left - itemsAmounts - slack);
  const after = Math.max(0, afterItems * orderFactor - orderAmounts - slack);
  return before - after + shipping;
}

interface Candidate {
  prepared: Prepared;
  /** The most it could take off in any set (for the bound). */
  ceiling: number;
}

/** Exhaustive depth-first search over the allowed sets, in the order of application, with a bound. */
function search(input: EngineInput, candidates: readonly Candidate[]) {
  const compatible = candidates.map((a) => candidates.map((b) => combinable(a.prepared, b.prepared)));
  let best = { total: -1, chosen: [] as number[] };
  const chosen: number[] = [];
  let steps = 0;
  const budget = Math.max(1, Math.floor(MAX_WORK / (input.lines.length + 1)));
  let exhausted = false;
  const visit = (index: number, state: CartState, allowed: boolean[], total: number): void => {
    if (steps >= budget) {
      exhausted = true;
      return;
    }
    steps += 1;
    if (index === candidates.length) {
      if (total > best.total) best = { total, chosen: [...chosen] };
      return;
    }
    if (total + bound(input, candidates, index, allowed, state) <= best.total) return;
    if (allowed[index]) {
      const [step, next] = applyStep(input, candidates[index]!.prepared, state);
      if (step.total > 0) {
        chosen.push(index);
        visit(
          index + 1,
          next,
          allowed.map((yes, other) => yes && compatible[index]![other]!),
          total + step.total,
        );
        chosen.pop();
      }
    }
    visit(index + 1, state, allowed, total);
  };
  visit(
    0,
    initialState(input),
    candidates.map(() => true),
    0,
  );
  if (exhausted)
    // Never worse than any one promotion alone, however the search was cut short.
    candidates.forEach((candidate, index) => {
      const alone = applyStep(input, candidate.prepared, initialState(input))[0].total;
      if (alone > best.total) best = { total: alone, chosen: [index] };
    });
  return { chosen: best.chosen.map((index) => candidates[index]!.prepared), steps, exhausted };
}

/** The most a promotion could take off in any set: what it takes alone, or for a buy X get Y its dearest units. */
function ceilingOf(input: EngineInput, prepared: Prepared, alone: number): number {
  const { action } = prepared.promotion;
  if (action.kind !== 'buy_x_get_y') return alone;
  const { applications } = buyGetPlan(input, prepared, initialState(input));
  let units = applications * action.get.quantity;
  let value = 0;
  const dearest = input.lines
    .map((line, index) => ({ line, index }))
    .filter(({ index }) => prepared.get[index])
    .sort((a, b) => b.line.unitPrice - a.line.unitPrice);
  for (const { line } of dearest) {
    const take = Math.min(units, line.quantity);
    value += take * line.unitPrice;
    units -= take;
  }
  return percentOf(value, action.get.bps) + 1;
}

/** Applies `sets` in the order of application, each on what the ones before left. */
function replay(input: EngineInput, set: readonly Prepared[]): [Prepared, Step][] {
  let state = initialState(input);
  return [...set]
    .sort((a, b) => a.order - b.order)
    .map((prepared) => {
      const [step, next] = applyStep(input, prepared, state);
      state = next;
      return [prepared, step];
    });
}

function summary(input: EngineInput, steps: [Prepared, Step][]) {
  const applied: AppliedPromotion[] = steps.map(([{ promotion }, step]) => ({
    promotionId: promotion.id,
    code: promotion.code,
    amount: step.total,
    lineShares: input.lines
      .map((line, index) => ({ key: line.key, amount: step.shares[index]! }))
      .filter((share) => share.amount > 0),
    shipping: step.shipping,
  }));
  const lines = input.lines.map((line, index) => ({
    key: line.key,
    discount: steps.reduce((sum, [, step]) => sum + step.shares[index]!, 0),
  }));
  return {
    applied,
    lines,
    discount: lines.reduce((sum, line) => sum + line.discount, 0),
    shippingDiscount: steps.reduce((sum, [, step]) => sum + step.shipping, 0),
  };
}

/** The best allowed set of promotions for this cart and buyer, each one's shares, and why the others do not apply. */
export function pickPromotions(input: EngineInput): EngineResult {
  validate(input);
  const ranked = [...input.promotions].sort(byRank(input.codes));
  const reasons = new Map<string, NotAppliedReason>();
  const qualifying: { prepared: Prepared; alone: number; entered: boolean }[] = [];
  ranked.forEach((promotion, rank) => {
    const prepared = prepare(input, promotion, rank);
    const failed = conditionsFail(input, prepared);
    const alone = failed === null ? applyStep(input, prepared, initialState(input))[0].total : 0;
    // A buy X get Y that takes nothing alone (its cheapest get units are free) may take something
    // after another promotion has used those units: it stays a candidate while dearer units could
    // be got (its ceiling: what its dearest units would take, plus one).
    const useless =
      alone === 0 && (promotion.action.kind !== 'buy_x_get_y' || ceilingOf(input, prepared, 0) <= 1);
    if (failed !== null || useless) reasons.set(promotion.id, failed ?? 'nothing_to_discount');
    else {
      const entered = promotion.code !== null && input.codes.includes(promotion.code);
      qualifying.push({ prepared, alone, entered });
    }
  });
  const codes = qualifying.filter((each) => each.entered);
  const automatic = qualifying
    .filter((each) => !each.entered)
    .sort((a, b) => b.alone - a.alone || (a.prepared.order % 1_000_000) - (b.prepared.order % 1_000_000));
  const considered = [...codes, ...automatic.slice(0, MAX_CANDIDATES - codes.length)];
  for (const { prepared } of automatic.slice(MAX_CANDIDATES - codes.length))
    reasons.set(prepared.promotion.id, 'not_considered');
  const candidates = considered
    .map(({ prepared, alone }) => ({ prepared, ceiling: ceilingOf(input, prepared, alone) }))
    .sort((a, b) => a.prepared.order - b.prepared.order);
  const { chosen, steps, exhausted } = search(input, candidates);
  for (const { prepared } of candidates) {
    if (chosen.includes(prepared)) continue;
    const clash = chosen.some((other) => !combinable(prepared, other));
    reasons.set(prepared.promotion.id, clash ? 'not_combinable' : 'not_better');
  }
  const notApplied: NotApplied[] = ranked
    .filter((promotion) => reasons.has(promotion.id))
    .map((promotion) => ({
      promotionId: promotion.id,
      code: promotion.code,
      reason: reasons.get(promotion.id)!,
    }));
  return {
    ...summary(input, replay(input, chosen)),
    notApplied,
    work: { candidates: candidates.length, steps, exhausted },
  };
}

/**
 * What a given set of promotions takes off, applied in the order of application; null when the set
 * breaks a combination rule, or one of them fails its conditions or takes nothing off where it comes.
 * For tests and explanations: the search picks among exactly these sets.
 */
export function applyPromotions(input: EngineInput, promotionIds: readonly string[]) {
  validate(input);
  const ranked = [...input.promotions].sort(byRank(input.codes));
  const set = ranked
    .map((promotion, rank) => prepare(input, promotion, rank))
    .filter((prepared) => promotionIds.includes(prepared.promotion.id));
  if (set.length !== new Set(promotionIds).size)
    throw new RangeError('promotions engine: unknown promotion id');
  if (set.some((a) => conditionsFail(input, a) !== null || set.some((b) => a !== b && !combinable(a, b))))
    return null;
  const steps = replay(input, set);
  if (steps.some(([, step]) => step.total === 0)) return null;
  return summary(input, steps);
}
