/**
 * A cautious estimate of how many bits it takes to guess a secret that someone typed or pasted:
 * the length of its shortest repeating unit (`abcabcab` is `abc` repeated) times log2 of the number
 * of distinct characters in that unit. A random string scores about what it holds (64 hex
 * characters ≈ 256, 43 base64url characters ≈ 210); one repeated character scores 0, a word or a
 * phrase repeated scores only its unit. It does not know dictionaries: a long passphrase of real
 * words scores high; `storefront doctor` catches the placeholders of the example configuration by
 * name instead.
 */
export function estimatedBits(secret: string): number {
  const characters = [...secret];
  const unit = characters.slice(0, shortestPeriod(characters));
  const distinct = new Set(unit).size;
  return distinct < 2 ? 0 : unit.length * Math.log2(distinct);
}

/** The smallest p with characters[i] === characters[i - p] for every i ≥ p (the string's length if none). */
function shortestPeriod(characters: readonly string[]): number {
  // The failure function of Knuth–Morris–Pratt: the longest proper prefix that is also a suffix.
  const border = new Array<number>(characters.length).fill(0);
  for (let i = 1, k = 0; i < characters.length; i++) {
    while (k > 0 && characters[i] !== characters[k]) k = border[k - 1]!;
    if (characters[i] === characters[k]) k += 1;
    border[i] = k;
  }
  return characters.length - (border.at(-1) ?? 0);
}

/**
 * Fewer estimated bits than this and a secret counts as guessable. Offline, 2^96 guesses are out
 * of reach; a random 32-character hex string (128 bits) estimates ≈ 120, so every random value the
 * configuration accepts passes.
 */
export const GUESSABLE_BELOW_BITS = 96;
