/**
 * The pure rules of typos (decision `typos-from-the-store-dictionary`): the distance counts a swap of
 * neighbours as one, the budget follows the longer word, the candidate lengths the search asks the
 * dictionary for hold every correction the budget allows.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { correctionLengths, correctionsOf, typoBudget, typoDistance } from './typos.ts';

test('the distance: deletions, insertions, substitutions and swaps of neighbours count one each', () => {
  assert.equal(typoDistance('shirt', 'sihrt', 2), 1, 'a swap');
  assert.equal(typoDistance('linen', 'lien', 2), 1, 'a deletion');
  assert.equal(typoDistance('linen', 'lnien', 2), 1, 'a swap at the second letter');
  assert.equal(typoDistance('oxford', 'oxfrod', 2), 1);
  assert.equal(typoDistance('fisherman', 'fsihermna', 2), 2, 'two swaps');
  assert.equal(typoDistance('kitten', 'sitting', 5), 3);
  assert.equal(typoDistance('kitten', 'sitting', 1), 2, 'capped at max + 1');
  assert.equal(typoDistance('café', 'cafe', 1), 1, 'by code point');
});

test('the budget: one typo from 5 letters, two from 9, of the longer word', () => {
  assert.deepEqual([3, 4, 5, 8, 9, 12].map(typoBudget), [0, 0, 1, 1, 2, 2]);
  const words = [
    { word: 'linen', products: 3 },
    { word: 'liner', products: 1 },
    { word: 'lines', products: 9 },
    { word: 'lint', products: 2 },
    { word: 'shirt', products: 5 },
  ];
  assert.deepEqual(correctionsOf('lien', words), [{ word: 'linen', typos: 1 }], 'four letters to five');
  assert.deepEqual(
    correctionsOf('linex', words),
    [
      { word: 'lines', typos: 1 },
      { word: 'linen', typos: 1 },
      { word: 'liner', typos: 1 },
    ],
    'most products first',
  );
  assert.deepEqual(correctionsOf('lnit', words), [], 'four letters each: no typo allowed');
  assert.deepEqual(correctionsOf('xhirt', words), [], 'never the first letter');
  assert.deepEqual(
    correctionsOf('linen', words).map((c) => c.word),
    ['lines', 'liner'],
    'never itself',
  );
});

test('the lengths asked of the dictionary hold every correction the budget allows', () => {
  const word = fc.stringMatching(/^a[ab]{1,10}$/);
  fc.assert(
    fc.property(word, word, (a, b) => {
      const typos = typoDistance(a, b, 2);
      if (a[0] !== b[0] || typos === 0 || typos > typoBudget(Math.max(a.length, b.length))) return;
      const { shortest, longest } = correctionLengths(a.length);
      assert.ok(b.length >= shortest && b.length <= longest, `${a} → ${b}: ${shortest}–${longest}`);
    }),
    { numRuns: 20_000 },
  );
});
