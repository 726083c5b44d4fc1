/**
 * What the archive tests share, beside archive.test-support.ts (the populated store): a read of every
 * GET route of the OpenAPI document on two apps side by side.
 */
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from '../test/harness.ts';
import type { World } from './archive.test-support.ts';

interface Operation {
  parameters?: { in: string; name: string; required?: boolean }[];
}

type Api = 'storefront' | 'admin' | 'none';

/** One GET to make on both sides. */
export interface PlannedRead {
  route: string;
  url: string;
  api: Api;
  /** Follow `nextCursor` (each side its own). */
  paged: boolean;
}

const apiOf = (route: string): Api =>
  route.startsWith('/storefront/') ? 'storefront' : route.startsWith('/admin/') ? 'admin' : 'none';

function headersFor(world: World, api: Api, route: string): Record<string, string> {
  if (api === 'admin') return { authorization: `Bearer ${world.shop.staffToken}` };
  if (api === 'storefront')
    return {
      'x-publishable-key': world.shop.publishableKey,
      ...(route.startsWith('/storefront/v1/customers/me')
        ? { authorization: `Bearer ${world.customerToken}` }
        : {}),
    };
  return {};
}

export function get(t: TestApp, world: World, read: Pick<PlannedRead, 'api' | 'route'>, url: string) {
  return t.app.inject({ method: 'GET', url, headers: headersFor(world, read.api, read.route) });
}

/** Values for required query parameters, by name. */
const QUERY_VALUES: Record<string, string> = { since: '2020-01-01T00:00:00.000Z', kind: 'products' };

/**
 * Every GET route of the app's OpenAPI document, with its path parameters filled from the list
 * answers of the source (`/storefront/v1/products/{id}` from `/storefront/v1/products`, a route
 * without a list in its API from the other API's, e.g. `/storefront/v1/orders/{id}` from
 * `/admin/v1/orders`) or from `known` values; plus `extra` URLs (filters, searches). A route whose
 * parameters cannot be filled fails the test: a new route is covered, or the test says why not.
 */
export async function planReads(
  t: TestApp,
  world: World,
  known: Record<string, string[]>,
  extra: string[],
): Promise<PlannedRead[]> {
  const doc = t.app.swagger() as { paths: Record<string, { get?: Operation }> };
  const routes = Object.entries(doc.paths)
    .filter(([, item]) => item.get)
    .map(([route, item]) => ({ route, parameters: item.get!.parameters ?? [] }));
  const lists = new Set(routes.filter((r) => !r.route.includes('{')).map((r) => r.route));
  const cache = new Map<string, Record<string, unknown>[]>();
  const itemsOf = async (list: string): Promise<Record<string, unknown>[]> => {
    if (cache.has(list)) return cache.get(list)!;
    const items: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ limit: '100', ...(cursor ? { cursor } : {}) });
      const response = await get(t, world, { api: apiOf(list), route: list }, `${list}?${query.toString()}`);
      if (response.statusCode !== 200) break;
      const body = response.json<{ items?: Record<string, unknown>[]; nextCursor?: string | null }>();
      if (!Array.isArray(body.items)) break;
      items.push(...body.items);
      cursor = body.nextCursor ?? null;
    } while (cursor);
    cache.set(list, items);
    return items;
  };
  const valuesFor = async (route: string, name: string): Promise<string[]> => {
    if (known[route]) return known[route];
    const staticPart = route.slice(0, route.indexOf('/{'));
    const other = staticPart.startsWith('/storefront/v1')
      ? staticPart.replace('/storefront/v1', '/admin/v1')
      : staticPart.replace('/admin/v1', '/storefront/v1');
    for (const base of [staticPart, other]) {
      const candidates = [...lists]
        .filter((list) => base === list || base.startsWith(`${list}/`))
        .sort((a, b) => b.length - a.length);
      for (const list of candidates) {
        const values = (await itemsOf(list))
          .map((item) => item[name])
          .filter((v): v is string => typeof v === 'string');
        if (values.length > 0) return [...new Set(values)].slice(0, 8);
      }
    }
    return [];
  };
  const planned: PlannedRead[] = [];
  for (const { route, parameters } of routes) {
    const pathParams = parameters.filter((p) => p.in === 'path').map((p) => p.name);
    const required = parameters.filter((p) => p.in === 'query' && p.required).map((p) => p.name);
    for (const name of required)
      assert.ok(QUERY_VALUES[name], `no value for the required query parameter ${name} of ${route}`);
    const query =
      required.length > 0
        ? `?${new URLSearchParams(required.map((n): [string, string] => [n, QUERY_VALUES[n]!])).toString()}`
        : '';
    const paged = parameters.some((p) => p.in === 'query' && p.name === 'cursor');
    let urls = [route];
    if (known[route])
      urls = known[route].map((url) => (url.startsWith('/') ? url : route.replace(/\{[^}]+\}/, url)));
    else
      for (const name of pathParams) {
        const values = await valuesFor(route, name);
        assert.ok(
          values.length > 0,
          `no value for {${name}} of GET ${route}: teach src/archive/archive-reads.test-support.ts where to find one`,
        );
        urls = urls.flatMap((url) =>
          values.map((value) => url.replace(`{${name}}`, encodeURIComponent(value))),
        );
      }
    for (const url of urls) planned.push({ route, url: `${url}${query}`, api: apiOf(route), paged });
  }
  const pagedRoutes = new Set(
    routes
      .filter((r) => r.parameters.some((p) => p.in === 'query' && p.name === 'cursor'))
      .map((r) => r.route),
  );
  for (const url of extra) {
    const route = url.split('?')[0]!;
    planned.push({ route, url, api: apiOf(route), paged: pagedRoutes.has(route) });
  }
  // Reads that write go last: an export records itself in the privacy log, which is read before.
  return planned.sort((a, b) => Number(a.route.endsWith('/export')) - Number(b.route.endsWith('/export')));
}

/** What is compared of an answer: status, the caching headers, the body. */
export interface Answer {
  status: number;
  contentType: string | undefined;
  etag: string | undefined;
  body: string;
}

export const answerOf = (response: LightMyRequestResponse): Answer => ({
  status: response.statusCode,
  contentType: response.headers['content-type'],
  etag: response.headers.etag,
  body: response.body,
});

const withUrl = (url: string, cursor: string): string =>
  `${url}${url.includes('?') ? '&' : '?'}${new URLSearchParams({ cursor }).toString()}`;

/**
 * Reads every planned URL on both apps and compares the answers. With `sameKey` they must be
 * identical; otherwise they may differ only in key-derived values: the opaque cursors (and, with
 * them, the ETag of a page that carries one). Lists are read in pages of 2, each side following
 * its own cursors. Returns how many reads were compared and the routes that answered 2xx.
 */
export async function compareReads(
  source: TestApp,
  target: TestApp,
  world: World,
  planned: PlannedRead[],
  sameKey: boolean,
): Promise<{ reads: number; answered: Set<string> }> {
  let reads = 0;
  const answered = new Set<string>();
  const differences: string[] = [];
  for (const read of planned) {
    // An export is a write: it says when it was made and records itself in the privacy log, which
    // the next export lists. What the comparison's own exports wrote (after the sessions' last use,
    // where both clocks start) is not the data the archive carried.
    const moment = read.route.endsWith('/export')
      ? (answer: Answer): Answer => {
          if (answer.status !== 200) return answer;
          const body = JSON.parse(answer.body) as { privacyLog?: { createdAt: string }[] };
          const privacyLog = body.privacyLog?.filter((entry) => Date.parse(entry.createdAt) < world.warmedAt);
          return {
            ...answer,
            etag: undefined,
            body: JSON.stringify({ ...body, exportedAt: 'now', privacyLog }),
          };
        }
      : (answer: Answer): Answer => answer;
    const first = read.paged ? `${read.url}${read.url.includes('?') ? '&' : '?'}limit=2` : read.url;
    let urls: [string, string] = [first, first];
    for (let page = 0; page < 40; page++) {
      const a = moment(answerOf(await get(source, world, read, urls[0])));
      const b = moment(answerOf(await get(target, world, read, urls[1])));
      reads += 1;
      if (a.status >= 200 && a.status < 300) answered.add(read.route);
      const cursors = read.paged && a.status === 200 ? [cursorOf(a.body), cursorOf(b.body)] : [null, null];
      if (sameKey || cursors[0] === null) {
        if (!isDeepStrictEqual(a, b)) differences.push(`${urls[0]}:${contrast(a, b)}`);
      } else {
        const strip = (answer: Answer) => ({
          ...answer,
          etag: undefined,
          body: JSON.stringify({ ...JSON.parse(answer.body), nextCursor: 'present' }),
        });
        if (!isDeepStrictEqual(strip(a), strip(b))) differences.push(`${urls[0]}:${contrast(a, b)}`);
        if (cursors[1] === null) differences.push(`${urls[0]}: the target has no next page`);
      }
      if (!cursors[0] || !cursors[1]) break;
      urls = [withUrl(first, cursors[0]), withUrl(first, cursors[1])];
    }
  }
  assert.deepEqual(differences, [], `${differences.length} reads differ`);
  return { reads, answered };
}

function cursorOf(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as { nextCursor?: unknown };
    return typeof parsed.nextCursor === 'string' ? parsed.nextCursor : null;
  } catch {
    return null;
  }
}

/** The two answers where they first differ. */
function contrast(a: Answer, b: Answer): string {
  let at = 0;
  while (at < a.body.length && a.body[at] === b.body[at]) at += 1;
  const around = (answer: Answer) =>
    `${answer.status} ${answer.etag ?? ''} …${answer.body.slice(Math.max(0, at - 200), at + 200)}…`;
  return `\n    source ${around(a)}\n    target ${around(b)}`;
}
