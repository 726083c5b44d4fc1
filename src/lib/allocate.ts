/** Integer shares of an amount (decision `tax-arithmetic`): used by tax, discounts and promotions alike. */

/**
 * `total` shared out in proportion to `weights` (non-negative integers) by the largest-remainder
 * method: each gets ⌊total × weight / Σ⌋, and the units left over go one each to the largest
 * remainders, the earlier first on a tie. The shares add up to `total` exactly; with no weight at
 * all every share is 0 (and `total` must be 0).
 */
export function allocate(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((acc, weight) => acc + BigInt(weight), 0n);
  if (sum === 0n) {
    if (total !== 0) throw new RangeError(`cannot share ${total} over nothing`);
    return weights.map(() => 0);
  }
  const whole = BigInt(total);
  const shares = weights.map((weight) => (whole * BigInt(weight)) / sum);
  const remainders = weights.map((weight, index) => ({ index, rest: (whole * BigInt(weight)) % sum }));
  let left = Number(whole - shares.reduce((acc, share) => acc + share, 0n));
  remainders.sort((a, b) => (a.rest === b.rest ? a.index - b.index : a.rest > b.rest ? -1 : 1));
  for (const { index } of remainders) {
    if (left === 0) break;
    shares[index]! += 1n;
    left -= 1;
  }
  return shares.map(Number);
}
