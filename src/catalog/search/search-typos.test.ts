/**
 * Typos in storefront search (decision `typos-from-the-store-dictionary`), tried as shoppers type
 * on the demo catalog: for every title word of 5+ letters, typos of the four kinds (a letter
 * deleted, inserted, substituted, two neighbours swapped; the first letter kept), generated from a
 * fixed seed, must find the product in the first five results; and every exact title word must find
 * its product and only products that have a word beginning with it (a known word is never corrected).
 * Rates are printed; thresholds: single typos ≥ 95 %, double typos on 9+ letters ≥ 80 %, exact 100 %.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LocalMediaStorage } from '../../media/media.storage.ts';
import { seedDemoCatalog } from '../../seed/demo-catalog.ts';
import {
  createTestStore,
  startTestApp,
  testConfig,
  type TestApp,
  type TestStore,
} from '../../test/harness.ts';
import { fold, wordsOf } from './search.service.ts';
import { typoDistance } from './typos.ts';

let t: TestApp;
let shop: TestStore;
const mediaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-typos-media-'));

interface Product {
  id: string;
  title: string;
  description: string;
  tags: string[];
  options: { name: string; values: string[] }[];
  variants: { sku: string | null }[];
}
let products: Product[] = [];

before(async () => {
  // A thousand searches from one client: more than its public-read budget.
  const rateLimits = { ...testConfig().rateLimits, ipRead: 100_000, publicRead: 100_000 };
  t = await startTestApp({ config: { rateLimits } });
  shop = await createTestStore(t);
  await seedDemoCatalog({ ...t.deps, media: new LocalMediaStorage(mediaDir) }, shop.store.id);
  const listed = await t.admin(shop).get('/products?status=active&limit=100');
  assert.equal(listed.statusCode, 200, listed.body);
  products = listed.json<{ items: Product[] }>().items;
  assert.ok(products.length >= 19, `the demo catalog's active products: ${products.length}`);
});
after(async () => {
  await t.close();
  fs.rmSync(mediaDir, { recursive: true, force: true });
});

/** The first five products a query finds. */
async function firstFive(query: string): Promise<string[]> {
  const response = await t.storefront(shop).get(`/products?q=${encodeURIComponent(query)}&limit=5`);
  assert.equal(response.statusCode, 200, `${query}: ${response.body}`);
  return response.json<{ items: { id: string }[] }>().items.map((card) => card.id);
}

/** A deterministic generator (mulberry32), so every run tries the same typos. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let x = Math.imul(state ^ (state >>> 15), 1 | state);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

type Kind = 'deletion' | 'insertion' | 'substitution' | 'swap';
const KINDS: Kind[] = ['deletion', 'insertion', 'substitution', 'swap'];
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** One typo of `kind` in `word`, never on its first letter. */
function typo(word: string, kind: Kind, next: () => number): string {
  const letters = Array.from(word);
  const at = 1 + Math.floor(next() * (letters.length - 1));
  const letter = LETTERS[Math.floor(next() * LETTERS.length)]!;
  if (kind === 'deletion') letters.splice(at, 1);
  else if (kind === 'insertion') letters.splice(at + Math.floor(next() * 2), 0, letter);
  else if (kind === 'substitution') letters[at] = letter;
  else if (at < letters.length - 1) [letters[at], letters[at + 1]] = [letters[at + 1]!, letters[at]!];
  else [letters[at - 1], letters[at]] = [letters[at]!, letters[at - 1]!];
  return letters.join('');
}

/** `count` distinct typos of `word`, each exactly `typos` away from it (first letter kept). */
function typosOf(
  word: string,
  typos: number,
  count: number,
  kind: Kind | null,
  next: () => number,
): string[] {
  const found = new Set<string>();
  for (let tries = 0; found.size < count && tries < count * 50; tries += 1) {
    let typed = word;
    for (let n = 0; n < typos; n += 1)
      typed = typo(typed, kind ?? KINDS[Math.floor(next() * KINDS.length)]!, next);
    if (typed[0] === word[0] && typoDistance(typed, word, typos) === typos) found.add(typed);
  }
  return [...found];
}

/** The title words of the active products, with the products that have them. */
function titleWords(): Map<string, Set<string>> {
  const words = new Map<string, Set<string>>();
  for (const product of products)
    for (const word of wordsOf(product.title))
      words.set(word, (words.get(word) ?? new Set()).add(product.id));
  return words;
}

/** Tries each query; the share (0–1) whose first five hold a product of the word's, and the misses. */
async function rate(
  tries: { query: string; ids: Set<string> }[],
): Promise<{ rate: number; missed: string[] }> {
  const missed: string[] = [];
  for (const { query, ids } of tries)
    if (!(await firstFive(query)).some((id) => ids.has(id))) missed.push(query);
  return { rate: (tries.length - missed.length) / tries.length, missed };
}

const percent = (share: number) => `${(share * 100).toFixed(1)} %`;

describe('typos in search, on the demo catalog', () => {
  test('single typos of 5+ letter title words find their product in the first five (≥ 95 %)', async () => {
    const next = random(42);
    const all: { query: string; ids: Set<string> }[] = [];
    const lines: string[] = [];
    for (const kind of KINDS) {
      const tries: { query: string; ids: Set<string> }[] = [];
      for (const [word, ids] of titleWords())
        if (word.length >= 5 && !/\d/.test(word))
          for (const query of typosOf(word, 1, 5, kind, next)) tries.push({ query, ids });
      const result = await rate(tries);
      lines.push(
        `${kind} ${percent(result.rate)} of ${tries.length}${result.missed.length ? ` (missed: ${result.missed.join(', ')})` : ''}`,
      );
      all.push(...tries);
    }
    const total = await rate(all);
    console.log(`single typos: ${percent(total.rate)} of ${all.length}; ${lines.join('; ')}`);
    assert.ok(total.rate >= 0.95, `single typos found ${percent(total.rate)}: ${total.missed.join(', ')}`);
    for (const query of ['lien', 'lnien', 'sihrt', 'oxfrod', 'sweter', 'jaket'])
      assert.ok((await firstFive(query)).length > 0, `the issue's "${query}" finds something`);
  });

  test('double typos of 9+ letter title words find their product in the first five (≥ 80 %)', async () => {
    const next = random(7);
    const tries: { query: string; ids: Set<string> }[] = [];
    for (const [word, ids] of titleWords())
      if (word.length >= 9 && !/\d/.test(word))
        for (const query of typosOf(word, 2, 20, null, next)) tries.push({ query, ids });
    assert.ok(tries.length >= 40, `enough double typos: ${tries.length}`);
    const result = await rate(tries);
    console.log(
      `double typos: ${percent(result.rate)} of ${tries.length}; missed: ${result.missed.join(', ')}`,
    );
    assert.ok(result.rate >= 0.8, `double typos found ${percent(result.rate)}: ${result.missed.join(', ')}`);
  });

  test('exact title words find their product, and only products with a word beginning with them', async () => {
    const documents = new Map(
      products.map((p) => [
        p.id,
        fold(
          [
            p.title,
            p.description,
            ...p.tags,
            ...p.options.flatMap((o) => o.values),
            ...p.variants.map((v) => v.sku ?? ''),
          ].join(' '),
        ).split(/[^\p{L}\p{N}]+/u),
      ]),
    );
    const tries: { query: string; ids: Set<string> }[] = [];
    for (const [word, ids] of titleWords()) if (!/\d/.test(word)) tries.push({ query: word, ids });
    const result = await rate(tries);
    console.log(`exact words: ${percent(result.rate)} of ${tries.length}`);
    assert.deepEqual(result.missed, [], 'every exact title word finds its product in the first five');
    for (const { query } of tries) {
      const response = await t.storefront(shop).get(`/products?q=${query}&limit=100`);
      for (const card of response.json<{ items: { id: string; title: string }[] }>().items)
        assert.ok(
          documents.get(card.id)?.some((word) => word.startsWith(query)),
          `"${query}" found "${card.title}", which has no word beginning with it`,
        );
    }
  });
});
