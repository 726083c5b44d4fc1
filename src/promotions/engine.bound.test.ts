/**
 * The promotions engine's bound on work (decision `promotion-engine`): at most `MAX_CANDIDATES`
 * candidates, searched exactly (checked against every subset at the bound), in at most
 * 2^(N+1) − 1 steps and at most `MAX_WORK` steps × (lines + 1); beyond it, only the candidates
 * that take the most alone are searched.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_CANDIDATES, MAX_WORK, applyPromotions, pickPromotions } from './engine.ts';
import type { EngineInput, EnginePromotion, PromotionAction } from './engine.types.ts';
import { ALL, amountOff, input, line, percentOff, promotion, subsets } from './engine.test-support.ts';

const MOST_STEPS = 2 ** (MAX_CANDIDATES + 1) - 1;

/** A small deterministic generator (a linear congruential one), so a failure can be replayed. */
function numbers(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % below;
  };
}

/** A cart of six lines and `count` automatic promotions of every kind with mixed combination rules. */
function mixed(seed: number, count: number): EngineInput {
  const next = numbers(seed);
  const lines = Array.from({ length: 6 }, (_, index) =>
    line(`l${index}`, `p${index % 3}`, 100 + next(5000), 1 + next(3), { collectionIds: [`c${index % 2}`] }),
  );
  const actions: (() => PromotionAction)[] = [
    () => percentOff(100 * (1 + next(30)), next(2) ? 'order' : 'items'),
    () => amountOff(100 + next(3000), next(2) ? 'order' : 'items'),
    () => ({ kind: 'free_shipping' }),
    () => ({
      kind: 'buy_x_get_y',
      buy: { quantity: 1 + next(2), productIds: [`p${next(3)}`] },
      get: { quantity: 1, collectionIds: [`c${next(2)}`], bps: 5000 + next(5001) },
    }),
  ];
  const promotions: EnginePromotion[] = Array.from({ length: count }, (_, index) =>
    promotion(`m${String(index).padStart(2, '0')}`, actions[next(actions.length)]!(), {
      conditions: next(4) === 0 ? { productIds: [`p${next(3)}`] } : {},
      combinesWith: { order: next(3) !== 0, items: next(3) !== 0, shipping: next(3) !== 0 },
    }),
  );
  return input(lines, promotions, { shipping: 500 + next(1000) });
}

const totalOf = (result: { discount: number; shippingDiscount: number }) =>
  result.discount + result.shippingDiscount;

describe('the bound on the search', () => {
  test(`at the bound: ${MAX_CANDIDATES} candidates, the best of every subset, in at most 2^(N+1) − 1 steps`, () => {
    for (const seed of [1, 2]) {
      const cart = mixed(seed, MAX_CANDIDATES);
      const result = pickPromotions(cart);
      assert.equal(result.work.candidates, MAX_CANDIDATES);
      assert.ok(result.work.steps <= MOST_STEPS, `${result.work.steps} steps`);
      let best = 0;
      for (const set of subsets(cart.promotions.map((each) => each.id))) {
        const applied = applyPromotions(cart, set);
        if (applied !== null) best = Math.max(best, totalOf(applied));
      }
      assert.equal(totalOf(result), best, `seed ${seed}`);
      assert.ok(result.applied.length >= 2, 'a combination, not a single promotion, wins');
    }
  });

  test('sixteen promotions that all combine, each on a line of its own: the bound cuts the search to a few steps', () => {
    const lines = Array.from({ length: MAX_CANDIDATES }, (_, index) =>
      line(`l${index}`, `p${index}`, 1000 * (index + 1)),
    );
    const promotions = lines.map((each, index) =>
      promotion(`own${index}`, percentOff(1000, 'items'), {
        conditions: { productIds: [each.productId] },
        combinesWith: ALL,
      }),
    );
    const result = pickPromotions(input(lines, promotions));
    assert.equal(result.applied.length, MAX_CANDIDATES);
    assert.equal(
      result.discount,
      lines.reduce((sum, each) => sum + each.unitPrice / 10, 0),
    );
    assert.ok(result.work.steps < 1000, `${result.work.steps} steps, of at most ${MOST_STEPS}`);
  });

  test('beyond the bound: of 50 automatic promotions, the 16 that take the most alone are searched; the rest are not_considered', () => {
    const cart = mixed(3, 50);
    const result = pickPromotions(cart);
    assert.equal(result.work.candidates, MAX_CANDIDATES);
    assert.ok(result.work.steps <= MOST_STEPS, `${result.work.steps} steps`);
    const skipped = result.notApplied
      .filter((each) => each.reason === 'not_considered')
      .map((each) => each.promotionId);
    const alone = (id: string) => {
      const applied = applyPromotions(cart, [id]);
      return applied === null ? 0 : totalOf(applied);
    };
    const qualifying = cart.promotions.map((each) => each.id).filter((id) => alone(id) > 0);
    assert.equal(skipped.length, qualifying.length - MAX_CANDIDATES);
    const searched = qualifying.filter((id) => !skipped.includes(id));
    const least = Math.min(...searched.map(alone));
    for (const id of skipped)
      assert.ok(alone(id) <= least, `${id} takes no more alone than every searched one`);
    for (const id of qualifying) assert.ok(totalOf(result) >= alone(id), 'never worse than any one alone');
  });

  test('beyond the bound with five codes: every entered code is searched, with the best automatic ones up to the bound', () => {
    const cart = mixed(4, 40);
    const coded = cart.promotions
      .slice(0, 5)
      .map((each, index) => ({ ...each, code: `CODE${index}`, automatic: false }));
    const withCodes = {
      ...cart,
      promotions: [...coded, ...cart.promotions.slice(5)],
      codes: coded.map((each) => each.code),
    };
    const result = pickPromotions(withCodes);
    assert.ok(result.work.candidates <= MAX_CANDIDATES && result.work.steps <= MOST_STEPS);
    const skippedCodes = result.notApplied.filter(
      (each) => each.code !== null && each.reason === 'not_considered',
    );
    assert.deepEqual(skippedCodes, []);
  });

  test('sixteen promotions that each take a cent and all combine, on 100 lines: the work budget stops the search, never worse than one alone', () => {
    const lines = Array.from({ length: 100 }, (_, index) => line(`l${index}`, `p${index % 7}`, 500 + index));
    const promotions = Array.from({ length: MAX_CANDIDATES }, (_, index) =>
      promotion(`cent${String(index).padStart(2, '0')}`, amountOff(1 + (index % 3), 'items'), {
        conditions: { productIds: [`p${index % 7}`] },
        combinesWith: ALL,
      }),
    );
    const cart = input(lines, promotions);
    const result = pickPromotions(cart);
    assert.equal(result.work.exhausted, true, 'the budget was reached');
    assert.ok(result.work.steps * (lines.length + 1) <= MAX_WORK, `${result.work.steps} steps`);
    for (const each of promotions) {
      const alone = applyPromotions(cart, [each.id]);
      assert.ok(totalOf(result) >= (alone === null ? 0 : totalOf(alone)), 'never worse than any one alone');
    }
    // The shares still add up: the set picked is one the rules allow.
    const replayed = applyPromotions(
      cart,
      result.applied.map((each) => each.promotionId),
    );
    assert.equal(replayed && totalOf(replayed), totalOf(result));
  });
});
