/** Helpers shared by the content tests: calls through HTTP as a store's staff or storefront. */
import assert from 'node:assert/strict';
import { listEvents } from '../events/events.ts';
import { startTestApp, type TestApp, type TestStore } from '../test/harness.ts';

export type Method = 'GET' | 'PUT' | 'POST' | 'DELETE';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: { pointer: string; detail: string; in?: string }[];
}

export interface Envelope<T> {
  items: T[];
  nextCursor: string | null;
}

export function clients(t: TestApp) {
  /** content.updated events of a store, oldest first, as their data. */
  const contentEvents = async (shop: TestStore) =>
    (await listEvents(t.db.kysely, shop.store.id, { type: 'content.updated' })).map((event) => event.data);

  /** Walks a storefront list to its end with `limit`, checking the envelope of every page. */
  const walk = async <T>(shop: TestStore, url: string, limit: number): Promise<T[]> => {
    const items: T[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 200; page++) {
      const query = `limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const response = await t.storefront(shop).get(`${url}?${query}`);
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json<Envelope<T>>();
      assert.deepEqual(Object.keys(body).sort(), ['items', 'nextCursor']);
      assert.ok(body.items.length <= limit);
      if (body.nextCursor !== null) assert.equal(body.items.length, limit, 'only the last page is short');
      items.push(...body.items);
      cursor = body.nextCursor;
      if (cursor === null) return items;
    }
    throw new Error('pagination did not end');
  };

  return { contentEvents, walk };
}

export type ContentClients = ReturnType<typeof clients>;

/** A test app and its content clients: the set-up of the content test files. */
export async function startContentApp(): Promise<{ t: TestApp; api: ContentClients }> {
  const t = await startTestApp();
  return { t, api: clients(t) };
}

/** Asserts a 400 validation_failed problem and returns its pointers in order. */
export function pointersOf(response: {
  statusCode: number;
  body: string;
  headers: Record<string, unknown>;
}): string[] {
  assert.equal(response.statusCode, 400, response.body);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
  const problem = JSON.parse(response.body) as Problem;
  assert.equal(problem.type, 'about:blank');
  assert.equal(problem.title, 'validation_failed');
  assert.equal(problem.status, 400);
  assert.ok(problem.detail.length > 0);
  return (problem.errors ?? []).map((error) => error.pointer);
}

/** Asserts a 404 not_found problem+json. */
export function assertNotFound(response: {
  statusCode: number;
  body: string;
  headers: Record<string, unknown>;
}): void {
  assert.equal(response.statusCode, 404, response.body);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
  const problem = JSON.parse(response.body) as Problem;
  assert.equal(problem.title, 'not_found');
  assert.equal(problem.status, 404);
  assert.equal(problem.type, 'about:blank');
}
