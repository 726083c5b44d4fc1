/**
 * Typo tolerance for storefront search (decision `typos-from-the-store-dictionary`), the pure part:
 * how many typos a word may have and which dictionary words a query word is a typo of. No database.
 *
 * The rule is Meilisearch's and Typesense's default: one typo from 5 letters, two from 9, a typo
 * being a letter deleted, inserted or substituted, or two neighbours swapped (optimal string
 * alignment distance). The length is the longer of the two words, so "lien" (4) is one typo from
 * "linen" (5); the first letter is never a typo (Meilisearch counts it as two).
 */

/** A dictionary word a query word may stand for, and how many typos apart they are. */
export interface Correction {
  word: string;
  typos: number;
}

/** A candidate from the store's dictionary: a word and the number of active products that have it. */
export interface DictionaryWord {
  word: string;
  products: number;
}

/** Corrections kept per query word, closest and most used first. */
export const MAX_CORRECTIONS = 10;
/** The shortest query word that may be corrected (one typo from a 5-letter word). */
export const MIN_TYPO_LENGTH = 4;

/** Typos allowed between two words whose longer one has `length` characters. */
export function typoBudget(length: number): number {
  if (length >= 9) return 2;
  if (length >= 5) return 1;
  return 0;
}

/**
 * The optimal string alignment distance of `a` and `b` (insert, delete, substitute, swap two
 * neighbours; each once per position), by code point, or `max + 1` as soon as it must exceed `max`.
 */
export function typoDistance(a: string, b: string, max: number): number {
  const s = Array.from(a);
  const t = Array.from(b);
  if (Math.abs(s.length - t.length) > max) return max + 1;
  let before: number[] = [];
  let previous = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i += 1) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= t.length; j += 1) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1])
        value = Math.min(value, before[j - 2]! + 1);
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > max) return max + 1;
    before = previous;
    previous = current;
  }
  return previous[t.length]!;
}

/**
 * The words of the dictionary `word` is a typo of: same first letter, within the budget of the
 * longer word, not the word itself; at most MAX_CORRECTIONS, fewest typos then most products first.
 */
export function correctionsOf(word: string, candidates: readonly DictionaryWord[]): Correction[] {
  const first = Array.from(word)[0];
  const length = Array.from(word).length;
  const found: (Correction & { products: number })[] = [];
  for (const candidate of candidates) {
    const letters = Array.from(candidate.word);
    if (letters[0] !== first) continue;
    const budget = typoBudget(Math.max(length, letters.length));
    if (budget === 0) continue;
    const typos = typoDistance(word, candidate.word, budget);
    if (typos === 0 || typos > budget) continue;
    found.push({ word: candidate.word, typos, products: candidate.products });
  }
  found.sort(
    (a, b) =>
      a.typos - b.typos || b.products - a.products || (a.word < b.word ? -1 : a.word > b.word ? 1 : 0),
  );
  return found.slice(0, MAX_CORRECTIONS).map(({ word: corrected, typos }) => ({ word: corrected, typos }));
}

/**
 * The lengths a correction of a word of `length` characters can have: shorter by at most the
 * word's own budget (none under 5 letters), longer by one, or by two when that makes 9 or more.
 */
export function correctionLengths(length: number): { shortest: number; longest: number } {
  const budget = typoBudget(length);
  return {
    shortest: budget === 0 ? length + 1 : length - budget,
    longest: length + (length + 2 >= 9 ? 2 : 1),
  };
}

/** Whether a query word may be corrected at all: 4 letters or more, and no digit (sizes, SKUs). */
export function mayHaveTypos(word: string): boolean {
  return Array.from(word).length >= MIN_TYPO_LENGTH && !/\p{N}/u.test(word);
}
