/**
 * `npm run bench:customers`: the admin customer search (decision `customer-accounts`, GET /admin/v1/customers) at 100,000
 * customers on PostgreSQL.
 *
 * Makes a database on DATABASE_URL's server, creates a large store (`--customers`) and a small one
 * (`--small`) sharing the `customers` table with `storefront seed bench` (one product each, for the
 * store, its staff token and key), fills both with one bulk `INSERT … SELECT generate_series` each
 * (varied names, a share with accents or none at all, emails at common and company domains, rare
 * surnames, about 30 % accounts), runs `VACUUM (ANALYZE)` as autovacuum would, starts
 * `storefront serve` and measures, one request at a time through HTTP with the owner's staff token,
 * each search shape with a different query on every request (p50 and p99), then follows nextCursor
 * page after page. Last, `EXPLAIN (ANALYZE, BUFFERS)` of the same SQL the list runs (built by
 * `customersQuery`, ordered and limited as the keyset page is) for one query of each shape. Puts a
 * section on top of bench/RESULTS.md.
 *
 *   DATABASE_URL=postgres://… npm run bench:customers -- [--customers 100000] [--small 2000]
 *                                                        [--queries 200] [--output FILE] [--no-write]
 */
import { parseArgs } from 'node:util';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { customersQuery } from '../src/customers/customers.repository.ts';
import type { Database } from '../src/db/tables.ts';
import { createDatabase, withClient } from './lib/databases.ts';
import { machine } from './lib/machine.ts';
import {
  positiveInteger,
  RESULTS_OPTIONS,
  resultsTarget,
  type ResultsTarget,
  UsageError,
} from './lib/options.ts';
import { benchEnv, cli, freePort, isRecord, requireNode24, runBenchmark, serve } from './lib/processes.ts';
import { percentile, publish } from './lib/results.ts';

const HELP = `Usage: DATABASE_URL=postgres://… npm run bench:customers -- [options]

  --customers N  customers in the large store (default 100000)
  --small N      customers in the small store sharing the table (default 2000)
  --queries N    requests per search shape and store, each a different query (default 200)
  --output FILE  results file (default bench/RESULTS.md)
  --no-write     print the section, do not write the results file
  --keep         also keep a copy of the seeded database (its URL printed) to EXPLAIN by hand

Needs PostgreSQL (DATABASE_URL): a database is created on that server for the run and dropped
afterwards.
`;

interface Options extends ResultsTarget {
  customers: number;
  small: number;
  queries: number;
  keep: boolean;
  databaseUrl: string;
}

function parseOptions(argv: string[]): Options | null {
  const { values } = parseArgs({
    args: argv,
    options: {
      customers: { type: 'string', default: '100000' },
      small: { type: 'string', default: '2000' },
      queries: { type: 'string', default: '200' },
      ...RESULTS_OPTIONS,
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return null;
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new UsageError('set DATABASE_URL to a PostgreSQL server (see --help)');
  return {
    customers: positiveInteger('customers', values.customers, 1000, 10_000_000),
    small: positiveInteger('small', values.small, 100, 1_000_000),
    queries: positiveInteger('queries', values.queries, 10, 100_000),
    ...resultsTarget(values),
    keep: values.keep,
    databaseUrl,
  };
}

const log = (line: string): void => void process.stderr.write(`${line}\n`);
const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const ms = (n: number): string => (n < 10 ? n.toFixed(2) : n.toFixed(1));
const sqlList = (values: readonly string[]): string =>
  `ARRAY[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ')}]`;

// ---------------------------------------------------------------------------------------------
// The customers

/** The entries of a `|`-separated list (names may hold spaces and apostrophes). */
const words = (text: string): string[] =>
  text
    .split(/[|\n]/)
    .map((word) => word.trim())
    .filter((word) => word !== '');

/** First names, a quarter with accents or letters that fold ("Zoë" is found by "zoe"). */
const FIRST = words(`
  Anna | Ana | Maria | María | José | Jose | Léa | Chloé | Zoë | Renée | Hélène | François | Björn | Søren
  Jürgen | Ingrid | Noémie | Inès | Mateo | Lucas | Liam | Emma | Olivia | Noah | Mia | Sofia | Sophie
  Louis | Hugo | Jan | Piotr | Katarzyna | Agnieszka | Tomasz | Lena | Elif | Mehmet | Yusuf | Aisha
  Fatima | Omar | Hiro | Yuki | Wei | Mei | Priya | Arjun | Olga | Ivan | Nina | Paul | Peter | John
  James | Sarah | Laura | David | Michael | Kevin | Julia | Clara | Marta | Nora | Eva | Ángel | Łukasz
  Çağla | Siobhán | Anaïs
`);
/** Surnames, with accents, particles and apostrophes. */
const LAST = words(`
  Dupré | Dupont | Durand | Lefèvre | Moreau | Girard | Müller | Schmidt | Schneider | Fischer | Weber
  Becker | Hoffmann | García | Martínez | López | González | Rodríguez | Fernández | Pérez | Sánchez
  Núñez | Rossi | Russo | Ferrari | Esposito | Bianchi | Kowalski | Nowak | Wiśniewski | Wójcik
  Lewandowski | Novák | Svoboda | Dvořák | Nguyễn | Trần | Kim | Lee | Park | Chen | Wang | Zhang | Tanaka
  Suzuki | Sato | Smith | Johnson | Williams | Brown | Jones | Miller | Davis | Wilson | Taylor | Anderson
  Thomas | Jackson | White | Harris | Martin | Thompson | Robinson | Clark | Lewis | Walker | Hall | Young
  Allen | King | Wright | Scott | Green | Baker | Adams | Nelson | Hill | Campbell | Mitchell | Roberts
  Carter | Evans | Turner | Torres | Parker | Collins | Edwards | Stewart | Murphy | Cook | Jansen
  de Vries | van Dijk | Bakker | Visser | Andersson | Johansson | Karlsson | Nielsen | Hansen | Jensen
  Yılmaz | Kaya | Demir | Şahin | Çelik | O'Brien | O'Connor | Kelly | Byrne
`);
/** Mail domains, the big ones weighted by repetition. */
const DOMAINS = words(`
  gmail.com | gmail.com | gmail.com | gmail.com | gmail.com | yahoo.com | outlook.com | outlook.com
  hotmail.com | icloud.com | icloud.com | gmx.de | web.de | orange.fr | free.fr | proton.me | libero.it
  wp.pl | seznam.cz | yandex.ru | qq.com | naver.com | acme.io | northwind.co | example.org
  studio-lumen.design | bakery-berlin.de
`);
/** Syllables of the rare surnames (one customer in 400: "Zorbelqui"), each one or a few customers. */
const SYLLABLES = words(`
  zor | bel | qui | var | tos | nek | lum | dri | pax | wen | yor | fim | gal | hux | ost | rav | sel
  tib | umb | kez
`);

/**
 * One INSERT … SELECT for `count` customers of a store, numbered from 1: created over the last
 * ~3 years (newest last), names, email styles and domains picked by a multiplicative hash of the
 * number (so no surname comes in runs of consecutive customers), 30 % accounts, a third without
 * a name (guests who never gave one), email local parts in five styles, ON CONFLICT skipping the rare duplicate (topped up after with
 * numbered emails, `offset` > 0).
 */
function customersInsert(storeId: string, count: number, offset: number): string {
  const f = FIRST.length;
  const l = LAST.length;
  const first = `(${sqlList(FIRST)})[1 + (h % ${f})]`;
  const last = `(CASE WHEN g % 400 = 7 THEN initcap(s[1 + (g / 400) % 20] || s[1 + (g / 8000) % 20] || s[1 + (g * 7) % 20]) ELSE (${sqlList(LAST)})[1 + ((h / ${f}) % ${l})] END)`;
  const ascii = (expr: string) => `regexp_replace(storefront_search_fold(${expr}), '[^a-z0-9]', '', 'g')`;
  return `
    INSERT INTO customers (store_id, email, name, phone, accepts_marketing, verified_at, last_order_at, created_at, updated_at)
    SELECT '${storeId}', local || ${offset > 0 ? "'.' || g" : "''"} || '@' || domain, name, phone, accepts, verified, last_order, created, created
    FROM (
      SELECT
        g,
        CASE (h / ${f * l}) % 5
          WHEN 0 THEN fa || '.' || la
          WHEN 1 THEN fa || '.' || left(la, 1) || (g % 97)::text
          WHEN 2 THEN fa || la || (1950 + g % 55)::text
          WHEN 3 THEN left(fa, 1) || '.' || la || (g % 13)::text
          ELSE fa || '_' || la || (g % 1000)::text
        END AS local,
        (${sqlList(DOMAINS)})[1 + ((h / ${f * l * 5}) % ${DOMAINS.length})] AS domain,
        CASE WHEN (h / 7) % 3 = 0 THEN NULL ELSE fn || ' ' || ln END AS name,
        CASE WHEN g % 4 = 0 THEN '+1555' || lpad((g % 10000000)::text, 7, '0') END AS phone,
        (g % 7 < 2) AS accepts,
        CASE WHEN (g * 17) % 10 < 3 THEN created + interval '2 days' END AS verified,
        CASE WHEN g % 3 <> 0 THEN created + interval '1 hour' END AS last_order,
        created
      FROM (
        SELECT g, h, fn, ln, ${ascii('fn')} AS fa, ${ascii('ln')} AS la,
               now() - interval '1 hour' - ((${count + offset} - g) * interval '15 minutes')
                 - ((g * 7919) % 600) * interval '1 second' AS created
        FROM (
          SELECT g, h, ${first} AS fn, ${last} AS ln
          FROM (SELECT g, (g::bigint * 2654435761) % 4294967296 AS h
                FROM generate_series(${offset + 1}, ${offset + count}) AS g) AS numbers,
               (SELECT ${sqlList(SYLLABLES)} AS s) AS syl
        ) named
      ) parts
    ) c
    ON CONFLICT (store_id, email) DO NOTHING`;
}

/** Fills a store with exactly `count` customers; the seconds it took. */
async function seedCustomers(url: string, storeId: string, count: number): Promise<number> {
  const started = performance.now();
  await withClient(url, async (client) => {
    let have = 0;
    for (let offset = 0, round = 0; have < count && round < 10; round += 1) {
      const want = count - have;
      await client.query(customersInsert(storeId, want, offset));
      offset += want;
      const result = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM customers WHERE store_id = $1',
        [storeId],
      );
      have = result.rows[0]?.n ?? 0;
    }
    if (have !== count) throw new Error(`seeded ${have} customers, not ${count}`);
  });
  return (performance.now() - started) / 1000;
}

/** `storefront seed bench` of one product: a store with its owner's staff token; its id. */
async function seedStore(slug: string, env: NodeJS.ProcessEnv): Promise<{ storeId: string; token: string }> {
  const tail = await cli(['seed', 'bench', '--products', '1', '--store', slug], env);
  const text = tail.lines.join('\n');
  const storeId = /to store \S+ \(([0-9a-f-]{36})\)/.exec(text)?.[1];
  const token = /Staff token: (st_\S+)/.exec(text)?.[1];
  if (!storeId || !token) throw new Error(`seed bench printed no store id or staff token:\n${tail.text()}`);
  return { storeId, token };
}

// ---------------------------------------------------------------------------------------------
// The queries

interface Samples {
  emails: string[];
  lastNames: string[];
  rareNames: string[];
}

/** Real emails and surnames of a store, in a fixed pseudo-random order, to build queries from. */
async function samples(url: string, storeId: string, n: number): Promise<Samples> {
  return withClient(url, async (client) => {
    const emails = await client.query<{ email: string }>(
      `SELECT email FROM customers WHERE store_id = $1 ORDER BY md5(id::text) LIMIT $2`,
      [storeId, n],
    );
    const rare = await client.query<{ word: string }>(
      `SELECT DISTINCT split_part(name, ' ', 2) AS word FROM customers
       WHERE store_id = $1 AND name ~ ' (${SYLLABLES.join('|')})' AND split_part(name, ' ', 2) ~* '^(${SYLLABLES.join('|')}){3}$'
       ORDER BY 1 LIMIT $2`,
      [storeId, n],
    );
    return {
      emails: emails.rows.map((r) => r.email),
      lastNames: LAST,
      // A store too small for rare surnames asks for one it does not have.
      rareNames: rare.rows.length > 0 ? rare.rows.map((r) => r.word) : ['Zorbelqui'],
    };
  });
}

interface Shape {
  name: string;
  /** The query string of request `i` (without limit or cursor). */
  query: (i: number, s: Samples) => Record<string, string>;
}

const pick = <T>(list: readonly T[], i: number): T => list[i % list.length]!;

/** A part of a surname: 3 to 5 letters from its start or middle, as typed ("dupr", "owals"). */
function namePart(name: string, i: number): string {
  const letters = name.replace(/[ ']/g, '');
  const size = Math.min(letters.length, 3 + (i % 3));
  const start = Math.max(0, Math.min(Math.floor(i / 3) % 3, letters.length - size));
  return letters.slice(start, start + size).toLowerCase();
}

const SHAPES: Shape[] = [
  { name: 'the first page, no q', query: (i) => ({ limit: String(20 + (i % 30)) }) },
  {
    name: 'an email prefix ("anna.k…@")',
    query: (i, s) => {
      // Up to the @, sometimes a few letters of the domain as well.
      const email = pick(s.emails, i);
      const at = email.indexOf('@');
      return { q: email.slice(0, at + 1 + (i % 4)) };
    },
  },
  {
    name: 'a name part, 3–5 letters ("dupr")',
    query: (i, s) => ({ q: namePart(pick(s.lastNames, i * 7), i % 9) }),
  },
  {
    name: 'a rare name part (1–3 customers)',
    query: (i, s) => ({
      q: pick(s.rareNames, i)
        .toLowerCase()
        .slice(i % 2, (i % 2) + 6),
    }),
  },
  {
    name: 'an email fragment without @ ("wski1")',
    query: (i, s) => {
      const local = pick(s.emails, i).split('@')[0]!;
      const size = Math.min(local.length, 5 + (i % 3));
      const start = Math.max(0, local.length - size - (i % 4));
      return { q: local.slice(start, start + size) };
    },
  },
  {
    name: 'guests only (hasAccount=false)',
    query: (i) => ({ hasAccount: 'false', limit: String(20 + (i % 30)) }),
  },
];

async function timed(url: string, token: string): Promise<{ took: number; body: Record<string, unknown> }> {
  const started = performance.now();
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(60_000),
  });
  const body: unknown = await response.json();
  const took = performance.now() - started;
  if (response.status !== 200 || !isRecord(body) || !Array.isArray(body.items))
    throw new Error(`${url}: ${response.status} ${JSON.stringify(body)}`);
  return { took, body };
}

function percentiles(times: number[]): { p50: number; p99: number } {
  const sorted = Float64Array.from(times).sort();
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

const listUrl = (base: string, params: Record<string, string>): string =>
  `${base}/admin/v1/customers?${new URLSearchParams(params).toString()}`;

/**
 * Deep pages: walks the list (no q) with nextCursor and times pages 21 to 20 + `count`, each a
 * different position after following the cursor at least 20 times.
 */
async function deepPages(base: string, token: string, count: number, params: Record<string, string> = {}) {
  let cursor: string | null = null;
  const times: number[] = [];
  for (let page = 1; page <= 20 + count; page += 1) {
    const { took, body } = await timed(listUrl(base, { ...params, ...(cursor ? { cursor } : {}) }), token);
    if (page > 20) times.push(took);
    cursor = typeof body.nextCursor === 'string' ? body.nextCursor : null;
    if (cursor === null) break;
  }
  if (times.length === 0) throw new Error('the list has fewer than 21 pages');
  return percentiles(times);
}

// ---------------------------------------------------------------------------------------------
// Plans

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Sort Method'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

/** "Limit → Sort (top-N heapsort) → Bitmap Heap Scan (rows 32) → Bitmap Index Scan customers_search_idx". */
function planSummary(node: PlanNode): string {
  const parts: string[] = [];
  const walk = (n: PlanNode): void => {
    let text = n['Node Type'];
    if (n['Index Name']) text += ` ${n['Index Name']}`;
    if (n['Sort Method']) text += ` (${n['Sort Method']})`;
    if (n['Actual Rows'] !== undefined && /Scan/.test(n['Node Type'])) text += ` (rows ${n['Actual Rows']})`;
    parts.push(text);
    for (const child of n.Plans ?? []) walk(child);
  };
  walk(node);
  return parts.join(' → ');
}

/** EXPLAIN (ANALYZE, BUFFERS) of the list's SQL for one query (a custom plan, as the server's first runs). */
async function explain(
  db: Kysely<Database>,
  client: pg.Client,
  storeId: string,
  filter: { q?: string; hasAccount?: boolean },
): Promise<string> {
  const compiled = customersQuery(db, storeId, filter)
    .orderBy(sql.ref('created_at'), 'desc')
    .orderBy(sql.ref('id'), 'desc')
    .limit(21)
    .compile();
  const result = await client.query<{
    'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number; 'Planning Time': number }];
  }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${compiled.sql}`, compiled.parameters as unknown[]);
  const plan = result.rows[0]!['QUERY PLAN'][0];
  const buffers = plan.Plan as PlanNode & { 'Shared Hit Blocks'?: number; 'Shared Read Blocks'?: number };
  return `${planSummary(plan.Plan)}; execution ${plan['Execution Time'].toFixed(2)} ms, planning ${plan['Planning Time'].toFixed(2)} ms, buffers hit ${buffers['Shared Hit Blocks'] ?? 0} read ${buffers['Shared Read Blocks'] ?? 0}`;
}

// ---------------------------------------------------------------------------------------------

async function main(options: Options): Promise<void> {
  requireNode24('npm run bench:customers');
  const host = machine();
  const created = await createDatabase(options.databaseUrl, `storefront_customers_${Date.now()}`);
  const env = { ...benchEnv('storefront-customers-'), DATABASE_URL: created.url };
  const database = `PostgreSQL ${created.version} (a database created for the run)`;
  log(`bench: ${database}; seeding ${int(options.small)} and ${int(options.customers)} customers…`);
  const small = await seedStore('customers-small', env);
  const large = await seedStore('customers-large', env);
  const smallSeconds = await seedCustomers(created.url, small.storeId, options.small);
  const largeSeconds = await seedCustomers(created.url, large.storeId, options.customers);
  const vacuumStarted = performance.now();
  await withClient(created.url, (client) => client.query('VACUUM (ANALYZE) customers'));
  const vacuumSeconds = (performance.now() - vacuumStarted) / 1000;
  if (options.keep) {
    const copy = `${created.name}_kept`;
    await withClient(options.databaseUrl, (client) =>
      client.query(`CREATE DATABASE "${copy}" TEMPLATE "${created.name}"`),
    );
    const url = new URL(created.url);
    url.pathname = `/${copy}`;
    log(`bench: a copy of the seeded database is kept: ${url.href} (drop it when done)`);
  }
  log(
    `bench: seeded in ${smallSeconds.toFixed(1)} s and ${largeSeconds.toFixed(1)} s, VACUUM (ANALYZE) ${vacuumSeconds.toFixed(1)} s`,
  );
  const mix = await withClient(created.url, async (client) => {
    const result = await client.query<{ accounts: number; unnamed: number; accented: number; rare: number }>(
      `SELECT round(100.0 * count(*) FILTER (WHERE verified_at IS NOT NULL) / count(*))::int AS accounts,
              round(100.0 * count(*) FILTER (WHERE name IS NULL) / count(*))::int AS unnamed,
              round(100.0 * count(*) FILTER (WHERE lower(name) <> storefront_search_fold(name)) / count(*))::int AS accented,
              count(*) FILTER (WHERE name ~* ' (${SYLLABLES.join('|')}){3}$')::int AS rare
       FROM customers WHERE store_id = $1`,
      [large.storeId],
    );
    return result.rows[0]!;
  });

  const stores = [
    { label: int(options.small), ...small, samples: await samples(created.url, small.storeId, 2000) },
    { label: int(options.customers), ...large, samples: await samples(created.url, large.storeId, 2000) },
  ];
  const server = await serve(env, await freePort());
  log(`bench: server ready at ${server.url} in ${server.startupSeconds.toFixed(1)} s`);
  // Warm the server up (JIT, connections, plans) on queries not measured.
  for (let i = 0; i < 60; i += 1)
    for (const store of stores)
      for (const shape of SHAPES)
        await timed(listUrl(server.url, shape.query(1000 + i, store.samples)), store.token);

  const rows: string[] = [];
  const measured: Record<string, { p50: number; p99: number }> = {};
  const record = (name: string, results: { p50: number; p99: number }[]): void => {
    const [a, b] = results as [{ p50: number; p99: number }, { p50: number; p99: number }];
    measured[name] = b;
    rows.push(
      `| ${name} | ${ms(a.p50)} | ${ms(a.p99)} | ${ms(b.p50)} | ${ms(b.p99)} | ${(b.p50 / a.p50).toFixed(1)}× |`,
    );
  };
  for (const shape of SHAPES) {
    const results = [];
    for (const store of stores) {
      const times: number[] = [];
      for (let i = 0; i < options.queries; i += 1)
        times.push((await timed(listUrl(server.url, shape.query(i, store.samples)), store.token)).took);
      const result = percentiles(times);
      results.push(result);
      log(`bench: ${shape.name}, ${store.label}: p50 ${ms(result.p50)} ms, p99 ${ms(result.p99)} ms`);
    }
    record(shape.name, results);
  }
  const deepName = 'a deep page (after following nextCursor 20 times)';
  const deep = [];
  for (const store of stores) {
    const result = await deepPages(server.url, store.token, Math.min(options.queries, 60));
    deep.push(result);
    log(`bench: ${deepName}, ${store.label}: p50 ${ms(result.p50)} ms, p99 ${ms(result.p99)} ms`);
  }
  record(deepName, deep);

  // The plans, on the large store.
  const pool = new pg.Pool({ connectionString: created.url, max: 1 });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const s = stores[1]!.samples;
  const withQ = (label: string, q: string): [string, { q: string }] => [`${label} \`q=${q}\``, { q }];
  const planQueries: [string, { q?: string; hasAccount?: boolean }][] = [
    withQ('name part', 'dupr'),
    withQ('name part', SHAPES[2]!.query(3, s).q!),
    withQ('email prefix', SHAPES[1]!.query(1, s).q!),
    withQ('rare name part', SHAPES[3]!.query(0, s).q!),
    withQ('email fragment', SHAPES[4]!.query(2, s).q!),
    ['no q', {}],
    ['`hasAccount=false`', { hasAccount: false }],
  ];
  const plans: string[] = [];
  const client = new pg.Client({ connectionString: created.url });
  await client.connect();
  try {
    for (const [label, filter] of planQueries) {
      await explain(db, client, large.storeId, filter); // warm the buffers, as the measured runs were
      const summary = await explain(db, client, large.storeId, filter);
      log(`bench: plan, ${label}: ${summary}`);
      plans.push(`- ${label}: ${summary}`);
    }
  } finally {
    await client.end();
    await db.destroy();
  }

  const slow = Object.entries(measured).filter(([, r]) => r.p50 > 20);
  const text = [
    `## ${new Date().toISOString().slice(0, 19)}Z: admin customer search at ${int(options.customers)} customers, PostgreSQL`,
    '',
    `${host.date}, commit ${host.commit.replace(/-dirty$/, '')} + working tree, ${host.nproc} × ${host.cpu}, ${host.memory}, ` +
      `Node ${host.node}, ${host.os}, load ${host.load}; ${database}. \`npm run bench:customers -- --customers ${options.customers} --small ${options.small} --queries ${options.queries}\`.`,
    '',
    `Two stores sharing the \`customers\` table, ${int(options.small)} and ${int(options.customers)} customers, each one bulk \`INSERT … SELECT generate_series\` (${smallSeconds.toFixed(1)} s and ${largeSeconds.toFixed(1)} s, then \`VACUUM (ANALYZE)\` ${vacuumSeconds.toFixed(1)} s): ${FIRST.length} first names × ${LAST.length} surnames, ${mix.accented} % of names with accents, ${mix.unnamed} % without a name, ${int(mix.rare)} rare surnames ("Zorbelqui"), emails in five styles at ${new Set(DOMAINS).size} domains, ${mix.accounts} % accounts; no orders. \`GET /admin/v1/customers\` with the owner's staff token, one request at a time through HTTP; every request a different query (${int(options.queries)} per shape and store), so each runs its SQL. Deep pages: pages 21 to at most ${20 + Math.min(options.queries, 60)} of the unfiltered list (20 a page), following nextCursor from the first.`,
    '',
    `| Admin customer search (uncached) | ${stores.map((st) => `${st.label}: p50 ms | p99 ms`).join(' | ')} | p50 ratio |`,
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    `\`EXPLAIN (ANALYZE, BUFFERS)\` of the list's SQL (\`customersQuery\`, newest first, 21 rows) at ${int(options.customers)} customers, buffers warm:`,
    '',
    ...plans,
    '',
    slow.length === 0
      ? 'Every shape under 20 ms p50.'
      : `Over 20 ms p50: ${slow.map(([name]) => name).join('; ')}.`,
    '',
  ].join('\n');
  await publish(text, options, log);
}

await runBenchmark(HELP, parseOptions, main);
