import assert from 'node:assert/strict';
import type { TestApp, TestStore } from './harness.ts';

export interface CardPage {
  items: { id: string; title: string; priceAmount: number }[];
  nextCursor: string | null;
}

/** Storefront searches of one store as tests ask them: a page, its titles, every page one by one. */
export function storefrontSearch(t: Pick<TestApp, 'storefront'>, shop: () => TestStore) {
  async function search(query: string): Promise<CardPage> {
    const response = await t.storefront(shop()).get(`/products?${query}`);
    assert.equal(response.statusCode, 200, `${query}: ${response.body}`);
    return response.json<CardPage>();
  }
  return {
    search,
    titles: async (query: string) => (await search(query)).items.map((card) => card.title),
    /** Every page of a search, one item at a time, following the cursors (20 at most). */
    walk: async (query: string): Promise<string[]> => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: CardPage = await search(
          `${query}&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        seen.push(...page.items.map((card) => card.title));
        cursor = page.nextCursor;
      } while (cursor !== null && seen.length < 20);
      return seen;
    },
  };
}
